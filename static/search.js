// Search: the header box on every page and the full results page
// (search.html?q=...&tag=...&venue=...&year=...&author=...).
//
// Nothing is loaded on a plain page view: site.js loads this file on the header box's first focus
// (search.html loads it with the page). The first focus of (or typing in) a search box loads
// search-core.js (normalisation, stemmer, the query, which must agree with the Python build),
// search-shards.js, the index file and the store file by inserting <script> elements (a fetch
// would fail under file://); each file assigns a global. The index file is the whole index on a
// small site, or the meta of a sharded one: then each query loads the few files it needs (its
// words' dictionary buckets and postings, the store chunks of the results shown).
// lunr.js is loaded only for lunr query syntax. This file is only the page side, so every page
// loads little.
//
// All text from the data is untrusted: the DOM is built with createElement and textContent only.
(function (global) {
  "use strict";

  // Paths relative to the site root: SEARCH_INDEX and SEARCH_STORE in papersite/urls.py, and
  // static/search-core.js and search-shards.js, which the build copies to assets/ with the rest of
  // static/ (search-core.js knows lunr.js's and the shards' paths).
  var PATHS = { core: "assets/search-core.js", index: "assets/search-index.js", store: "assets/search-store.js",
                shards: "assets/search-shards.js" };
  var INDEX_GLOBAL = "PAPERSITE_INDEX";
  var STORE_GLOBAL = "PAPERSITE_STORE";

  // Shared with search-core.js, which adds the search functions when it arrives.
  var api = global.PapersiteSearch = global.PapersiteSearch || {};
  api.PATHS = PATHS;
  if (typeof document === "undefined" || !document.documentElement) return;  // Node: nothing to set up

  // ---------------------------------------------------------------------------------------
  // Loading.

  var root = document.documentElement.getAttribute("data-root") || "";
  var state = "idle", source = null, store = null, waiting = [];
  api.state = function () { return state; };
  api.timings = {};

  function loadScript(path, done) {
    var script = document.createElement("script");
    script.src = root + path;
    script.async = true;
    script.onload = function () { done(null); };
    script.onerror = function () { done(new Error("could not load " + path)); };
    document.head.appendChild(script);
  }
  var env = { global: global, load: loadScript };

  // Loads search-core.js, the index file, the store file and search-shards.js in parallel (the
  // last is used only when the index file is a sharded site's meta; loading it at once saves a
  // round trip there, and costs a small site a few kilobytes).
  function whenReady(callback) {
    if (state === "ready" || state === "failed") { callback(); return; }
    waiting.push(callback);
    if (state !== "idle") return;
    state = "loading";
    api.timings.start = performance.now();
    var left = 4, failed = null;
    function finish(error) {
      try {
        if (error) throw error;
        store = global[STORE_GLOBAL];
        source = source || new api.IndexSource(global[INDEX_GLOBAL], store, env);
        global[INDEX_GLOBAL] = undefined;
        api.source = source;
        api.query = function (text, done) { api.search(source, text, done); };
        state = "ready";
      } catch (e) {
        state = "failed";
        api.error = String(e && e.message || e);
      }
      api.timings.ready = performance.now();
      var callbacks = waiting;
      waiting = [];
      callbacks.forEach(function (cb) { cb(); });
    }
    function loaded(error) {
      failed = failed || error;
      if (--left) return;
      if (failed) { finish(failed); return; }
      var index = global[INDEX_GLOBAL], meta = index && index.shards;
      if (!api.search || !index || !global[STORE_GLOBAL]) { finish(new Error("search data missing")); return; }
      if (meta) {
        try { source = new api.ShardSource(meta, global[STORE_GLOBAL], env); } catch (e) { finish(e); return; }
      }
      finish(null);
    }
    ["index", "core", "store", "shards"].forEach(function (name) {
      if (name === "core") loadCore(loaded);
      else loadScript(PATHS[name], loaded);
    });
  }
  api.whenReady = whenReady;

  // search-core.js alone, once: done(error). A paper page opened from a result needs only it
  // (`highlightArrival`), and the search box may ask for the whole search meanwhile.
  var coreCallbacks = null;
  function loadCore(done) {
    if (api.search) { done(null); return; }
    if (coreCallbacks) { coreCallbacks.push(done); return; }
    coreCallbacks = [done];
    loadScript(PATHS.core, function (error) {
      var callbacks = coreCallbacks;
      coreCallbacks = null;
      callbacks.forEach(function (cb) { cb(error); });
    });
  }

  // Runs `text` and loads the store entries of its first `count` results; done(outcome, entries)
  // or done(null, null, error). Only the latest call of each `slot` answers: an answer that
  // arrives after a newer query was typed is dropped.
  var latest = {};
  function run(slot, text, count, done) {
    var ticket = latest[slot] = (latest[slot] || 0) + 1;
    api.search(source, text, function (outcome, error) {
      if (latest[slot] !== ticket) return;
      if (error) { done(null, null, error); return; }
      api.entries(source, outcome.results.slice(0, count).map(function (r) { return r.doc; }), function (entries, error) {
        if (latest[slot] !== ticket) return;
        if (error) done(null, null, error);
        else done(outcome, entries, null);
      });
    });
  }

  // ---------------------------------------------------------------------------------------
  // Showing results.

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Appends `text` to `parent`, each word (or hyphenated compound) that matched wrapped in <mark>.
  function appendHighlighted(parent, text, terms) {
    var parts = api.displayParts(text), plain = "", i = 0;
    function mark(from, to) {
      if (plain) parent.appendChild(document.createTextNode(plain));
      plain = "";
      parent.appendChild(el("mark", null, parts.slice(from, to + 1).join("")));
      i = to + 1;
    }
    while (i < parts.length) {
      if (i % 2 === 0 && parts[i]) {
        var end = i, words = [parts[i]], found = -1;
        while (end + 2 < parts.length && parts[end + 1] === "-" && parts[end + 2]) { end += 2; words.push(parts[end]); }
        for (var j = end, n = words.length; j > i && found < 0; j -= 2, n--) {
          if (api.compoundMatches(words.slice(0, n), terms)) found = j;
        }
        if (found < 0 && api.wordMatches(parts[i], terms)) found = i;
        if (found >= 0) { mark(i, found); continue; }
      }
      plain += parts[i];
      i++;
    }
    if (plain) parent.appendChild(document.createTextNode(plain));
  }

  // ---------------------------------------------------------------------------------------
  // Arriving from a result.
  //
  // A result's link carries the index terms it matched (`?highlight=`, as Sphinx and Pagefind
  // name it). The paper page marks them in its title, byline and abstract (templates/paper.html),
  // found as the result list found them, and offers to hide them; it loads search-core.js for
  // that, not the index.

  var HIGHLIGHT_PARAM = "highlight";   // site.js loads this file on a paper page whose address has it
  var HIGHLIGHT_TARGETS = "#title, .paper-authors, .abstract";
  var MAX_HIGHLIGHT_TERMS = 32;   // a prefix typed may expand to many terms: the URL stays short
  // Never marked: a heading of the page's own ("Abstract"), math, code, controls, marks already there.
  var UNMARKED = { H2: true, MATH: true, CODE: true, PRE: true, SCRIPT: true, STYLE: true, MARK: true, BUTTON: true,
                   SUMMARY: true };

  // A result's link: its page, and the terms it matched (a word's forms aside: its stems are there).
  function resultHref(url, terms) {
    var list = Object.keys(terms || {}).filter(function (t) { return !api.isForm(t); }).sort().slice(0, MAX_HIGHLIGHT_TERMS);
    return root + url + (list.length ? "?" + HIGHLIGHT_PARAM + "=" + encodeURIComponent(list.join(" ")) : "");
  }

  function highlightArrival() {
    var param = new URLSearchParams(location.search).get(HIGHLIGHT_PARAM);
    if (!param || !document.body.classList.contains("kind-paper")) return;
    var targets = document.querySelectorAll(HIGHLIGHT_TARGETS);
    var terms = Object.create(null);
    param.split(/\s+/).slice(0, MAX_HIGHLIGHT_TERMS).forEach(function (t) { if (t) terms[t] = true; });
    loadCore(function (error) {
      if (error) return;   // the page stays as it is
      var marked = 0;
      Array.prototype.forEach.call(targets, function (target) { marked += markIn(target, terms); });
      if (marked) offerToHide(targets);
    });
  }

  // Marks the matched words of every text under `node`: the number marked.
  function markIn(node, terms) {
    var marked = 0;
    Array.prototype.slice.call(node.childNodes).forEach(function (child) {
      if (child.nodeType === 3) {
        var parts = document.createDocumentFragment();
        appendHighlighted(parts, child.nodeValue, terms);
        var n = parts.querySelectorAll("mark").length;
        if (n) { node.replaceChild(parts, child); marked += n; }
      } else if (child.nodeType === 1 && !UNMARKED[child.tagName.toUpperCase()]) {
        marked += markIn(child, terms);
      }
    });
    return marked;
  }

  // "Hide highlights", beside the Save toggle, whose line the page has before any script runs (so
  // nothing moves): it restores the text as it was and drops the terms from the address.
  function offerToHide(targets) {
    var button = el("button", "button search-matches-hide", "Hide highlights");
    button.type = "button";
    var save = document.querySelector(".paper-header .save-toggle");   // (every paper page has it: paper.html)
    save.parentNode.insertBefore(button, save.nextSibling);
    button.addEventListener("click", function () {
      Array.prototype.forEach.call(targets, function (target) {
        Array.prototype.slice.call(target.querySelectorAll("mark")).forEach(function (mark) {
          var parent = mark.parentNode;
          parent.replaceChild(document.createTextNode(mark.textContent), mark);
          parent.normalize();
        });
      });
      button.parentNode.removeChild(button);
      try {
        var url = new URL(location.href);
        url.searchParams.delete(HIGHLIGHT_PARAM);
        history.replaceState(history.state, "", url.href);
      } catch (e) { /* file:// may refuse: the address keeps them */ }
      var main = document.getElementById("main");
      if (main) main.focus();
    });
  }

  function tagName(slug) { var t = store.tags[slug]; return t ? t[0] : slug; }
  function tagUrl(slug) { var t = store.tags[slug]; return t ? root + t[1] : null; }
  function searchUrl(q, tag) {
    var url = root + store.search + "?q=" + encodeURIComponent(q);
    return tag ? url + "&tag=" + encodeURIComponent(tag) : url;
  }

  function tagIndexLink(text) {
    var a = el("a", null, text);
    a.href = root + store.tagIndex;
    return a;
  }

  function quoted(words) {
    return words.map(function (w) { return "\u201c" + w + "\u201d"; }).join(", ");
  }

  function queryError(message) {
    return "That query can't be read (" + message + "). Try plain words, or see the examples above.";
  }

  // What an empty result says of a query of words too common to be indexed ("because", "the of").
  function tooCommon(q) {
    var words = api.normaliseWords(q);
    return words.length && words.every(api.isStopWord) ? " " + quoted(words) + " " + (words.length > 1 ? "are words" : "is a word") +
      " too common to search for: add a word of the topic." : "";
  }

  // What a result list says besides its count: words nothing matched, close spellings.
  function notes(outcome) {
    var out = [];
    if (outcome.unmatched.length) out.push("No paper has " + quoted(outcome.unmatched) + ".");
    if (outcome.fuzzy.length) out.push("Close spellings of " + quoted(outcome.fuzzy) + " are included.");
    return out.join(" ");
  }

  // The author (with a page) of the results `entries` whose name has every word of plain query
  // `q` (the last, while being typed, as a prefix): "lovelace", "ada love" -> Ada Lovelace. Only
  // the authors the results show are looked at (a result's first three), so no list of every
  // author is loaded; a query of an author's name ranks their papers high (the authors field).
  // Of several such authors ("bengio": Yoshua and Samy), the one on most of those results, the
  // first seen on a tie. A stop word is never a name's prefix ("the" is not Lucas Theis).
  function authorOf(q, entries) {
    if (api.isSyntax(q)) return null;
    var words = api.normaliseWords(q), typing = !/[ \t\n\r\f\v]$/.test(q);
    if (!words.length || words.every(api.isStopWord)) return null;
    var found = [], count = Object.create(null);
    for (var i = 0; i < entries.length; i++) {
      var authors = entries[i] ? entries[i].authors : [];
      for (var j = 0; j < authors.length; j++) {
        var names = api.normaliseWords(authors[j].name);
        var every = authors[j].url !== null && words.every(function (w, k) {
          return names.some(function (n) {
            return n === w || (typing && k === words.length - 1 && w.length >= 2 && !api.isStopWord(w) && n.indexOf(w) === 0);
          });
        });
        if (!every) continue;
        if (!(authors[j].url in count)) { count[authors[j].url] = 0; found.push(authors[j]); }
        count[authors[j].url]++;
      }
    }
    var best = null;
    found.forEach(function (a) { if (!best || count[a.url] > count[best.url]) best = a; });
    return best;
  }

  // --- the header box --------------------------------------------------------------------

  var POPUP_LIMIT = 8;

  function setUpBox() {
    var input = document.getElementById("search-input"), popup = document.getElementById("search-popup");
    if (!input || !popup || !input.form) return;
    var form = input.form, options = [], selected = -1, started = false;
    input.setAttribute("role", "combobox");

    function open() { popup.hidden = false; input.setAttribute("aria-expanded", "true"); }
    function close() {
      popup.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }
    function clear() { while (popup.firstChild) popup.removeChild(popup.firstChild); options = []; selected = -1; }
    function message(text, extra) {
      var p = el("p", "search-message", text);
      if (extra) { p.appendChild(document.createTextNode(" ")); p.appendChild(extra); }
      popup.appendChild(p);
    }
    function select(i, scroll) {
      if (selected >= 0 && options[selected]) options[selected].setAttribute("aria-selected", "false");
      selected = i;
      if (i >= 0 && options[i]) {
        options[i].setAttribute("aria-selected", "true");
        input.setAttribute("aria-activedescendant", options[i].id);
        if (scroll) options[i].scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function show(q, outcome, entries) {
      clear();
      open();
      if (outcome.error) { message(queryError(outcome.error)); return; }
      var results = outcome.results;
      if (!results.length) {
        message("No papers match \u201c" + q.trim() + "\u201d." + tooCommon(q), tagIndexLink("Browse by topic"));
        return;
      }
      var said = notes(outcome);
      if (outcome.mode === "any") said = ("No paper has every word; these have some of them. " + said).trim();
      if (said) message(said);
      var list = el("ol");
      list.setAttribute("role", "listbox");
      list.setAttribute("aria-label", "Search results");
      list.id = "search-popup-list";
      // Each result's link is its option (the list item only holds it): an option holding a link
      // would be a control inside a control, which screen readers announce badly.
      function option(id, href) {
        var li = el("li"), a = el("a");
        li.setAttribute("role", "none");
        a.id = id;
        a.setAttribute("role", "option");
        a.setAttribute("aria-selected", "false");
        a.href = href;
        a.tabIndex = -1;
        li.appendChild(a);
        list.appendChild(li);
        options.push(a);
        return a;
      }
      var author = authorOf(q, entries);
      if (author) {   // their page first: a query of a name is most likely looking for the person
        var a = option("search-option-author", root + author.url);
        a.appendChild(el("span", "result-title", author.name));
        a.appendChild(el("span", "result-tags", "Author page"));
      }
      entries.forEach(function (d, i) {
        if (!d) return;
        var terms = outcome.terms(results[i]), a = option("search-option-" + i, resultHref(d.url, terms));
        var title = el("span", "result-title");
        appendHighlighted(title, d.title, terms);
        a.appendChild(title);
        if (d.tags.length) a.appendChild(el("span", "result-tags", d.tags.map(tagName).join(" · ")));
        if (outcome.mode === "some" && i >= outcome.every) a.appendChild(el("span", "result-partial", "Some of the words"));
        var snippet = el("span", "result-snippet");
        appendHighlighted(snippet, d.summary, terms);
        a.appendChild(snippet);
      });
      popup.appendChild(list);
      var all = el("a", "search-all", results.length === 1 ? "See this result on the search page"
        : "See all " + results.length + " results");
      all.href = searchUrl(q.trim());
      popup.appendChild(all);
      select(options.length ? 0 : -1);
    }

    function render() {
      var q = input.value;
      if (!q.trim()) { latest.box = (latest.box || 0) + 1; clear(); close(); return; }
      if (state !== "ready") {
        clear();
        open();
        message(state === "failed" ? "Search could not be loaded." : "Loading search\u2026");
        return;
      }
      run("box", q, POPUP_LIMIT, function (outcome, entries, error) {
        if (error) { clear(); open(); message("Search could not be loaded."); return; }
        show(q, outcome, entries);
      });
    }

    // The first use loads the search; what was typed meanwhile is shown when it is ready.
    function start() {
      if (state === "ready" || started) return;
      started = true;
      whenReady(function () { started = false; if (document.activeElement === input) render(); });
    }

    input.addEventListener("focus", function () {
      start();
      if (input.value.trim()) render();
    });
    input.addEventListener("input", function () { start(); render(); });
    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        if (popup.hidden && input.value.trim()) render();
        if (!options.length) return;
        event.preventDefault();
        var step = event.key === "ArrowDown" ? 1 : -1;
        select((selected + step + options.length) % options.length, true);
      } else if (event.key === "Enter") {
        if (!popup.hidden && selected >= 0 && options[selected]) {
          event.preventDefault();
          location.href = options[selected].href;
        }
        // otherwise the form submits to the search page
      } else if (event.key === "Escape") {
        // As the ARIA combobox pattern has it: the first closes the popup, keeping what was typed;
        // the next clears the box, then leaves it.
        event.preventDefault();
        if (!popup.hidden) { latest.box = (latest.box || 0) + 1; close(); }
        else if (input.value) { input.value = ""; clear(); }
        else input.blur();
      }
    });
    document.addEventListener("mousedown", function (event) {
      if (!popup.hidden && !form.contains(event.target)) close();
    });
    form.addEventListener("focusout", function (event) {
      if (!event.relatedTarget || !form.contains(event.relatedTarget)) close();
    });
    form.addEventListener("submit", function (event) { if (!input.value.trim()) event.preventDefault(); });
    // Loaded by the box's first focus (site.js): start at once and show what was typed while this file loaded.
    if (document.activeElement === input) {
      start();
      if (input.value.trim()) render();
    }
  }

  // --- the results page ------------------------------------------------------------------

  // Results shown at first and at each "Show more results". Each needs its store chunk: 50 cost a
  // simulated phone's first results 4.4 s (Lighthouse LCP), 20 cost 3.5 s (bench/README.md).
  var PAGE_SIZE = 20;

  // A filter's menu set from the URL: the option of that value, else of that value in another case
  // ("venue=neurips"); a value no option has goes into `ignored` ("venue “x”"), to be said.
  function chooseFromUrl(select, value, label, ignored) {
    if (!value) return;
    var options = Array.prototype.slice.call(select.options).filter(function (o) { return o.value; });
    var match = options.filter(function (o) { return o.value === value; })[0] ||
      options.filter(function (o) { return o.value.toLowerCase() === value.toLowerCase(); })[0];
    if (match) select.value = match.value;
    else ignored.push(label + " \u201c" + value + "\u201d");
  }

  function setUpPage() {
    var results = document.getElementById("search-page-results");
    var input = document.getElementById("search-page-input");
    var status = document.getElementById("search-status");
    var tagSelect = document.getElementById("search-page-tag");
    var sortSelect = document.getElementById("search-page-sort");   // only where papers have several years
    // The filters beside the topic: each narrows the results to the papers its field query finds.
    var filters = [["venue", "venue", " at "], ["year", "year", " from "], ["author", "authors", " by "]].map(function (f) {
      return { param: f[0], field: f[1], says: f[2], control: document.getElementById("search-page-" + f[0]) };
    }).filter(function (f) { return f.control; });
    if (!results || !input || !status) return;
    var params = new URLSearchParams(location.search), ignored = [];
    input.value = params.get("q") || "";
    if (tagSelect) chooseFromUrl(tagSelect, params.get("tag"), "topic", ignored);
    if (sortSelect) chooseFromUrl(sortSelect, params.get("sort"), "order", []);   // another order: the default one
    filters.forEach(function (f) {
      if (f.control.tagName === "SELECT") chooseFromUrl(f.control, params.get(f.param), f.param, ignored);
      else f.control.value = params.get(f.param) || "";
    });
    if (ignored.length) {
      status.parentNode.insertBefore(el("p", "search-ignored", "This site has no " + ignored.join(", no ") + ": " +
                                        (ignored.length > 1 ? "those filters are" : "that filter is") + " off."), status);
    }
    // The list shown: result documents, their results (for the terms they matched, `termsOf`),
    // whether each has every word, the plain query they answer (for its author, `authorOf`), the
    // papers listed so far (for their BibTeX).
    function nothingShown() { return { docs: [], terms: [], full: [], count: 0, every: 0, termsOf: null, query: "", papers: [] }; }
    var shown = nothingShown(), started = false;

    function tag() { return tagSelect ? tagSelect.value : ""; }
    function filtered() { return filters.some(function (f) { return f.control.value.trim(); }); }
    function clearNode(node) { while (node.firstChild) node.removeChild(node.firstChild); }
    function say(text, extra) {
      clearNode(status);
      status.appendChild(document.createTextNode(text));
      if (extra) { status.appendChild(document.createTextNode(" ")); status.appendChild(extra); }
    }

    // "Venue Year · A, B, C et al.", as templates/partials/paper_list.html has it.
    function byline(d) {
      var p = el("p", "paper-card-meta", d.venue + " " + d.year);
      d.authors.forEach(function (a, i) {
        p.appendChild(document.createTextNode(i ? ", " : " \u00b7 "));
        var name = el(a.url === null ? "span" : "a", null, a.name);
        if (a.url !== null) name.href = root + a.url;
        p.appendChild(name);
      });
      if (d.authorCount > d.authors.length) p.appendChild(document.createTextNode(" et al."));
      return p;
    }

    function card(d, terms) {
      var li = el("li", "paper-card"), h = el("h3", "paper-card-title"), a = el("a");
      a.href = resultHref(d.url, terms);
      appendHighlighted(a, d.title, terms);
      h.appendChild(a);
      li.appendChild(h);
      // The reading list's Save toggle (static/reading-list.js), beside the link, never inside it.
      if (window.papersiteReadingList) {
        // Saved from here, the entry shows what one saved from the paper's page does: its first
        // authors (linked), how many it has, its venue and year.
        li.appendChild(window.papersiteReadingList.toggleButton(d.ref, d.title, d.url, {
          summary: d.summary, authors: d.authors.map(function (a) { return a.name; }),
          authorUrls: d.authors.map(function (a) { return a.url || ""; }), authorCount: d.authorCount,
          venue: d.venue, year: String(d.year)
        }));
      }
      li.appendChild(byline(d));
      var p = el("p", "paper-card-summary result-snippet");
      appendHighlighted(p, d.summary, terms);
      li.appendChild(p);
      if (d.tags.length) {
        var chips = el("ul", "tag-chips");
        chips.setAttribute("aria-label", "Tags");
        d.tags.forEach(function (slug) {
          var item = el("li"), chip = el("a", "chip", tagName(slug)), url = tagUrl(slug);
          if (url) chip.href = url;
          item.appendChild(chip);
          chips.appendChild(item);
        });
        li.appendChild(chips);
      }
      return li;
    }

    function showMore() {
      var more = results.querySelector(".search-more"), from = shown.count, ticket = latest.page;
      var docs = shown.docs.slice(from, from + PAGE_SIZE);
      api.entries(source, docs, function (entries, error) {
        if (latest.page !== ticket) return;
        if (error) { say("Search could not be loaded."); return; }
        if (more) results.removeChild(more);
        var author = !from && shown.query ? authorOf(shown.query, entries) : null;
        if (author) {
          var li = el("li", "search-author"), a = el("a", null, author.name);
          a.href = root + author.url;
          li.appendChild(a);
          li.appendChild(document.createTextNode(": their author page, with every paper of theirs"));
          results.appendChild(li);
        }
        var first = null;
        entries.forEach(function (d, i) {
          var at = from + i;
          if (at === shown.every && at > 0 && !shown.full[at]) results.appendChild(el("li", "search-divider", "Papers with some of the words"));
          if (d) {
            var item = results.appendChild(card(d, shown.termsOf ? shown.termsOf(shown.terms[at]) : {}));
            first = first || item;
            shown.papers.push({ slug: d.ref, title: d.title });
          }
        });
        // The button that asked for more is gone: the keyboard goes on from the first of them.
        if (from && first && first.querySelector("a")) first.querySelector("a").focus();
        shown.count = Math.min(shown.docs.length, from + PAGE_SIZE);
        if (shown.count < shown.docs.length) {
          var li = el("li", "search-more"), button = el("button", null, "Show more results");
          button.type = "button";
          button.addEventListener("click", showMore);
          li.appendChild(button);
          results.appendChild(li);
        }
        showExport();
      });
    }

    // "BibTeX of the 20 papers shown", below the count: the build's entries of the results listed
    // so far, in their order, as the reading list exports them (reading-list.js), as a file.
    var exporter = null;
    function showExport() {
      var lists = window.papersiteReadingList;
      if (!lists || !lists.bibtex) return;
      if (!exporter) {
        exporter = { box: el("p", "search-export"), button: el("button", "button"), note: el("span", "search-export-note") };
        exporter.button.type = "button";
        exporter.box.appendChild(exporter.button);
        exporter.box.appendChild(exporter.note);
        status.parentNode.insertBefore(exporter.box, status.nextSibling);
        exporter.button.addEventListener("click", exportShown);
      }
      var n = shown.papers.length;
      exporter.box.hidden = !n;
      exporter.button.disabled = false;
      exporter.button.textContent = "BibTeX of the " + (n === 1 ? "paper" : n + " papers") + " shown";
      exporter.note.textContent = "";
    }

    function exportShown() {
      var list = shown.papers.slice(), ticket = latest.page;
      exporter.button.disabled = true;
      exporter.button.textContent = "Loading BibTeX\u2026";
      window.papersiteReadingList.bibtex(list, function (text, left) {
        if (latest.page !== ticket) return;   // another query meanwhile: its own list is shown
        showExport();
        if (left) exporter.note.textContent = " " + left + " of " + list.length + " entries could not be loaded and are left as comments: press again to try again.";
        window.papersiteReadingList.saveFile(text, "search-results.bib", "application/x-bibtex");
      });
    }

    function remember(q, t) {
      var query = "?q=" + encodeURIComponent(q) + (t ? "&tag=" + encodeURIComponent(t) : "");
      filters.forEach(function (f) { if (f.control.value.trim()) query += "&" + f.param + "=" + encodeURIComponent(f.control.value.trim()); });
      if (newest()) query += "&sort=newest";
      try { history.replaceState(null, "", query); } catch (e) { /* file:// may refuse; the form still works */ }
    }

    function newest() { return !!sortSelect && sortSelect.value === "newest"; }

    // Newest first: the papers with every word, then those with some of them (as ranked), each
    // by year, newest first, in rank order within a year. Documents are numbered in the site's
    // order, newest year first, and the store gives the first document of each year.
    function sortNewest() {
      var starts = store.years || [];
      var order = shown.docs.map(function (d, i) {
        var year = 0;
        for (var y = 0; y < starts.length && starts[y][1] <= d; y++) year = starts[y][0];
        return { i: i, year: year, full: shown.full[i] ? 1 : 0 };
      });
      order.sort(function (a, b) { return b.full - a.full || b.year - a.year || a.i - b.i; });
      ["docs", "terms", "full"].forEach(function (key) {
        var before = shown[key];
        shown[key] = order.map(function (o) { return before[o.i]; });
      });
    }

    // The documents of topic `t` as a set (every document when there is none): done(set or null, error).
    function topicDocs(t, done) {
      if (!t) { done(null, null); return; }
      var tries = 0;
      (function attempt() {
        try {
          var set = new Uint8Array(source.documents);
          source.tagDocs(t).forEach(function (d) { set[d] = 1; });
          done(set, null);
        } catch (err) {
          if (!(err instanceof api.Missing) || ++tries > 2) { done(null, err); return; }
          source.load(err.names, function (error) { if (error) done(null, error); else attempt(); });
        }
      })();
    }

    // The documents the venue, year and author filters leave, as a set (null: no filter set), from
    // one query of required field clauses ("+venue:neurips +authors:lovelace"; search_query.py
    // rule 5), so one index and shards answer alike. A filter with no word to look for (only
    // punctuation or stop words, which the index leaves out) leaves nothing.
    function filterDocs(done) {
      var clauses = [], empty = false;
      filters.forEach(function (f) {
        var value = f.control.value.trim();
        if (!value) return;
        var words = api.normaliseWords(value).filter(function (w) { return !api.isStopWord(w); });
        if (!words.length) empty = true;
        words.forEach(function (w) { clauses.push("+" + f.field + ":" + w); });
      });
      if (empty) { done(new Uint8Array(source.documents), null); return; }
      if (!clauses.length) { done(null, null); return; }
      api.search(source, clauses.join(" "), function (outcome, error) {
        if (error || outcome.error) { done(null, error || new Error(outcome.error)); return; }
        var set = new Uint8Array(source.documents);
        outcome.results.forEach(function (r) { set[r.doc] = 1; });
        done(set, null);
      });
    }

    function render() {
      var q = input.value, t = tag(), ticket = latest.page = (latest.page || 0) + 1;
      function current() { return latest.page === ticket; }
      function reset() { clearNode(results); shown = nothingShown(); showExport(); }
      if (!q.trim() && !t && !filtered()) { reset(); say("Type a query to search every paper."); return; }
      if (state !== "ready") { say(state === "failed" ? "Search could not be loaded." : "Loading search\u2026"); return; }
      var where = (t ? " in " + tagName(t) : "") + filters.map(function (f) {
        var value = f.control.value.trim();
        return value ? f.says + value : "";
      }).join("");
      topicDocs(t, function (topicSet, error) {
        if (!current()) return;
        if (error) { say("Search could not be loaded."); return; }
        filterDocs(function (filterSet, error) {
          if (!current()) return;
          if (error) { say("Search could not be loaded."); return; }
          var allowed = topicSet && filterSet ? topicSet.map(function (x, d) { return x & filterSet[d]; }) : topicSet || filterSet;
          list(allowed);
        });
      });
      function list(allowed) {
        if (!q.trim()) {
          reset();
          shown.docs = source.allDocs().filter(function (d) { return allowed[d]; });
          shown.docs.forEach(function () { shown.terms.push({}); shown.full.push(true); });
          shown.every = shown.docs.length;
          say(shown.docs.length + (shown.docs.length === 1 ? " paper" : " papers") + where + ".");
          showMore();
          return;
        }
        api.search(source, q, function (outcome, error) {
          if (!current()) return;
          if (error) { say("Search could not be loaded."); return; }
          reset();
          if (outcome.error) { say(queryError(outcome.error)); return; }
          shown.termsOf = outcome.terms;
          shown.query = q;
          outcome.results.forEach(function (r, i) {
            if (allowed && !allowed[r.doc]) return;
            shown.docs.push(r.doc);
            shown.terms.push(r);
            shown.full.push(outcome.mode !== "any" && i < (outcome.mode === "some" ? outcome.every : Infinity));
          });
          shown.every = shown.full.filter(Boolean).length;
          if (newest()) sortNewest();
          var quote = "\u201c" + q.trim() + "\u201d", n = shown.docs.length, extra = notes(outcome);
          if (!n) {
            say(("No papers match " + quote + where + "." + tooCommon(q) + " " + extra).trim(), tagIndexLink("Browse by topic instead."));
            return;
          }
          var papers = function (k) { return k + (k === 1 ? " paper" : " papers"); };
          var text;
          if (!shown.every) text = "No paper has every word of " + quote + where + "; " + papers(n) + (n === 1 ? " has" : " have") + " some of them.";
          else if (shown.every < n) text = papers(shown.every) + (shown.every === 1 ? " matches" : " match") + " every word of " + quote + where +
            "; " + (n - shown.every) + " more " + (n - shown.every === 1 ? "has" : "have") + " some of them.";
          else text = papers(n) + (n === 1 ? " matches " : " match ") + quote + where + ".";
          say((text + " " + extra).trim());
          showMore();
        });
      }
    }

    // Loads the search on first use and renders again once it is ready.
    function start() {
      if (state === "ready" || started) return;
      started = true;
      whenReady(function () { started = false; render(); });
    }
    function update() { start(); render(); remember(input.value, tag()); }
    input.addEventListener("input", update);
    input.addEventListener("focus", start);
    if (tagSelect) tagSelect.addEventListener("change", update);
    if (sortSelect) sortSelect.addEventListener("change", update);
    filters.forEach(function (f) { f.control.addEventListener(f.control.tagName === "SELECT" ? "change" : "input", update); });
    if (input.value.trim() || tag() || filtered()) start();
    render();
  }

  setUpBox();
  setUpPage();
  highlightArrival();
})(typeof window !== "undefined" ? window : this);
