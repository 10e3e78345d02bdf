// Search: the header box on every page and the full results page (search.html?q=...&tag=...).
//
// Nothing is loaded on a plain page view: site.js loads this file on the header box's first focus
// (search.html loads it with the page). The first focus of (or typing in) a search box loads
// search-core.js (normalisation, stemmer, index decoding and the query, which must agree with the
// Python build), lunr.js, the index and the result store by inserting <script> elements (a fetch
// would fail under file://); each file assigns a global. This file is only the page side, so
// every page loads little.
//
// All text from the data is untrusted: the DOM is built with createElement and textContent only.
(function (global) {
  "use strict";

  // Paths relative to the site root: LUNR_JS, SEARCH_INDEX and SEARCH_STORE in papersite/urls.py,
  // and static/search-core.js, which the build copies to assets/ with the rest of static/.
  var PATHS = { core: "assets/search-core.js", lunr: "assets/vendor/lunr.js", index: "assets/search-index.js",
                store: "assets/search-store.js" };
  var INDEX_GLOBAL = "PAPERSITE_INDEX";
  var STORE_GLOBAL = "PAPERSITE_STORE";

  // Shared with search-core.js, which adds the search functions when it arrives.
  var api = global.PapersiteSearch = global.PapersiteSearch || {};
  api.PATHS = PATHS;
  if (typeof document === "undefined" || !document.documentElement) return;  // Node: nothing to set up

  // ---------------------------------------------------------------------------------------
  // Loading.

  var root = document.documentElement.getAttribute("data-root") || "";
  var state = "idle", index = null, store = null, waiting = [];
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

  // Loads search-core.js, lunr.js, the index and the store in parallel; the index is expanded as
  // soon as the first three are in, while the store may still be arriving.
  function whenReady(callback) {
    if (state === "ready" || state === "failed") { callback(); return; }
    waiting.push(callback);
    if (state !== "idle") return;
    state = "loading";
    api.timings.start = performance.now();
    var have = { core: false, lunr: false, index: false, store: false }, failed = null, indexed = false;
    function finish() {
      if (state !== "loading") return;
      if (!failed && !(indexed && have.store)) return;
      try {
        if (failed) throw failed;
        store = global[STORE_GLOBAL];
        if (!store) throw new Error("search data missing");
        api.query = function (text) { return api.runSearch(index, text); };
        state = "ready";
        // Decode what the first query would otherwise decode, unless one comes first.
        setTimeout(function () { index.papersite.warm(); api.timings.warm = performance.now(); }, 30);
      } catch (e) {
        state = "failed";
        api.error = String(e && e.message || e);
      }
      api.timings.ready = performance.now();
      var callbacks = waiting;
      waiting = [];
      callbacks.forEach(function (cb) { cb(); });
    }
    function buildIndex() {
      if (indexed || failed || !have.core || !have.lunr || !have.index) return;
      try {
        if (!api.loadIndex || !global.lunr || !global[INDEX_GLOBAL]) throw new Error("search data missing");
        api.timings.loaded = performance.now();
        index = api.loadIndex(global.lunr, global[INDEX_GLOBAL]);
        global[INDEX_GLOBAL] = undefined;
        api.timings.indexed = performance.now();
        indexed = true;
      } catch (e) {
        failed = e;
      }
    }
    ["index", "lunr", "core", "store"].forEach(function (name) {
      loadScript(PATHS[name], function (err) {
        have[name] = true;
        if (err) failed = failed || err;
        buildIndex();
        finish();
      });
    });
  }
  api.whenReady = whenReady;

  // ---------------------------------------------------------------------------------------
  // Showing results.

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function matchedTerms(result) {
    var terms = Object.create(null);
    Object.keys(result.matchData.metadata).forEach(function (t) { terms[t] = true; });
    return terms;
  }

  // Appends `text` to `parent`, each word whose stem matched wrapped in <mark>.
  function appendHighlighted(parent, text, terms) {
    var parts = api.displayParts(text), plain = "";
    for (var i = 0; i < parts.length; i++) {
      var part = parts[i];
      if (i % 2 === 0 && part && api.wordMatches(part, terms)) {
        if (plain) parent.appendChild(document.createTextNode(plain));
        plain = "";
        parent.appendChild(el("mark", null, part));
      } else {
        plain += part;
      }
    }
    if (plain) parent.appendChild(document.createTextNode(plain));
  }

  function doc(ref) { return store.docs[ref]; }
  function tagName(slug) { var t = store.tags[slug]; return t ? t[0] : slug; }
  function tagUrl(slug) { var t = store.tags[slug]; return t ? root + t[1] : null; }
  function searchUrl(q, tag) {
    var url = root + store.search + "?q=" + encodeURIComponent(q);
    return tag ? url + "&tag=" + encodeURIComponent(tag) : url;
  }

  function hasTag(ref, tag) { return !tag || doc(ref)[2].indexOf(tag) >= 0; }

  function tagIndexLink(text) {
    var a = el("a", null, text);
    a.href = root + store.tagIndex;
    return a;
  }

  function queryError(message) {
    return "That query can't be read (" + message + "). Try plain words, or see the examples above.";
  }

  // --- the header box --------------------------------------------------------------------

  var POPUP_LIMIT = 8;

  function setUpBox() {
    var input = document.getElementById("search-input"), popup = document.getElementById("search-popup");
    if (!input || !popup || !input.form) return;
    var form = input.form, options = [], selected = -1, waiting = false;
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

    function render() {
      var q = input.value;
      clear();
      if (!q.trim()) { close(); return; }
      open();
      if (state !== "ready") {
        if (state === "failed") message("Search could not be loaded.");
        else message("Loading search…");
        return;
      }
      var outcome = api.runSearch(index, q);
      if (outcome.error) { message(queryError(outcome.error)); return; }
      var results = outcome.results;
      if (!results.length) {
        message("No papers match \u201c" + q.trim() + "\u201d.", tagIndexLink("Browse by topic"));
        return;
      }
      if (outcome.mode === "any") message("No paper has every word; these have some of them.");
      var list = el("ol");
      list.setAttribute("role", "listbox");
      list.id = "search-popup-list";
      results.slice(0, POPUP_LIMIT).forEach(function (result, i) {
        var d = doc(result.ref);
        if (!d) return;
        var terms = matchedTerms(result), li = el("li"), a = el("a");
        li.id = "search-option-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        a.href = root + d[1];
        a.tabIndex = -1;
        var title = el("span", "result-title");
        appendHighlighted(title, d[0], terms);
        a.appendChild(title);
        if (d[2].length) a.appendChild(el("span", "result-tags", d[2].map(tagName).join(" · ")));
        var snippet = el("span", "result-snippet");
        appendHighlighted(snippet, d[3], terms);
        a.appendChild(snippet);
        li.appendChild(a);
        list.appendChild(li);
        options.push(li);
      });
      popup.appendChild(list);
      var all = el("a", "search-all", results.length === 1 ? "See this result on the search page"
        : "See all " + results.length + " results");
      all.href = searchUrl(q.trim());
      popup.appendChild(all);
      select(options.length ? 0 : -1);
    }

    // The first use loads the search; what was typed meanwhile is shown when it is ready.
    function start() {
      if (state === "ready" || waiting) return;
      waiting = true;
      whenReady(function () { waiting = false; if (document.activeElement === input) render(); });
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
          location.href = options[selected].querySelector("a").href;
        }
        // otherwise the form submits to the search page
      } else if (event.key === "Escape") {
        event.preventDefault();
        if (input.value || !popup.hidden) { input.value = ""; clear(); close(); }
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

  var PAGE_SIZE = 50;

  function setUpPage() {
    var results = document.getElementById("search-page-results");
    var input = document.getElementById("search-page-input");
    var status = document.getElementById("search-status");
    var tagSelect = document.getElementById("search-page-tag");
    if (!results || !input || !status) return;
    var params = new URLSearchParams(location.search);
    input.value = params.get("q") || "";
    if (tagSelect) tagSelect.value = params.get("tag") || "";
    var shownCount = 0, current = [], currentTerms = [];

    function tag() { return tagSelect ? tagSelect.value : ""; }
    function clearNode(node) { while (node.firstChild) node.removeChild(node.firstChild); }
    function say(text, extra) {
      clearNode(status);
      status.appendChild(document.createTextNode(text));
      if (extra) { status.appendChild(document.createTextNode(" ")); status.appendChild(extra); }
    }

    function card(ref, terms) {
      var d = doc(ref), li = el("li", "paper-card"), h = el("h3", "paper-card-title"), a = el("a");
      a.href = root + d[1];
      appendHighlighted(a, d[0], terms);
      h.appendChild(a);
      li.appendChild(h);
      // The reading list's Save toggle (static/reading-list.js), beside the link, never inside it.
      if (window.papersiteReadingList) {
        li.appendChild(window.papersiteReadingList.toggleButton(ref, d[0], d[1], { summary: d[3] }));
      }
      var p = el("p", "paper-card-summary result-snippet");
      appendHighlighted(p, d[3], terms);
      li.appendChild(p);
      if (d[2].length) {
        var chips = el("ul", "tag-chips");
        chips.setAttribute("aria-label", "Tags");
        d[2].forEach(function (slug) {
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
      var more = results.querySelector(".search-more");
      if (more) results.removeChild(more);
      current.slice(shownCount, shownCount + PAGE_SIZE).forEach(function (ref, i) {
        results.appendChild(card(ref, currentTerms[shownCount + i]));
      });
      shownCount = Math.min(current.length, shownCount + PAGE_SIZE);
      if (shownCount < current.length) {
        var li = el("li", "search-more"), button = el("button", null, "Show more results");
        button.type = "button";
        button.addEventListener("click", showMore);
        li.appendChild(button);
        results.appendChild(li);
      }
    }

    function remember(q, t) {
      var query = "?q=" + encodeURIComponent(q) + (t ? "&tag=" + encodeURIComponent(t) : "");
      try { history.replaceState(null, "", query); } catch (e) { /* file:// may refuse; the form still works */ }
    }

    function render() {
      clearNode(results);
      current = [];
      currentTerms = [];
      shownCount = 0;
      var q = input.value, t = tag();
      if (!q.trim() && !t) { say("Type a query to search every paper."); return; }
      if (state !== "ready") { say(state === "failed" ? "Search could not be loaded." : "Loading search…"); return; }
      var where = t ? " in " + tagName(t) : "";
      if (!q.trim()) {
        Object.keys(store.docs).forEach(function (ref) { if (hasTag(ref, t)) { current.push(ref); currentTerms.push({}); } });
        say(current.length + (current.length === 1 ? " paper" : " papers") + where + ".");
        showMore();
        return;
      }
      var outcome = api.runSearch(index, q);
      if (outcome.error) { say(queryError(outcome.error)); return; }
      outcome.results.forEach(function (r) {
        if (doc(r.ref) && hasTag(r.ref, t)) { current.push(r.ref); currentTerms.push(matchedTerms(r)); }
      });
      var quoted = "\u201c" + q.trim() + "\u201d";
      if (!current.length) {
        say("No papers match " + quoted + where + ".", tagIndexLink("Browse by topic instead."));
        return;
      }
      var one = current.length === 1, n = current.length + (one ? " paper" : " papers");
      if (outcome.mode === "any") say("No paper has every word of " + quoted + where + "; " + n + (one ? " has" : " have") + " some of them.");
      else say(n + (one ? " matches " : " match ") + quoted + where + (outcome.fuzzy ? " (including close spellings)." : "."));
      showMore();
    }

    // Loads the search on first use and renders again once it is ready.
    var waiting = false;
    function start() {
      if (state === "ready" || waiting) return;
      waiting = true;
      whenReady(function () { waiting = false; render(); });
    }
    function update() { start(); render(); remember(input.value, tag()); }
    input.addEventListener("input", update);
    input.addEventListener("focus", start);
    if (tagSelect) tagSelect.addEventListener("change", update);
    if (input.value.trim() || tag()) start();
    render();
  }

  setUpBox();
  setUpPage();
})(typeof window !== "undefined" ? window : this);
