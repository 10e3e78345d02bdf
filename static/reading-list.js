// Reading list: papers the reader saves, kept in this browser only (localStorage, one key per site).
//
// - Paper pages carry a hidden <button class="save-toggle" data-slug=... data-url=...>; this script
//   shows it and makes it an aria-pressed toggle with a title. Without JavaScript it never appears.
//   The summary saved with it is the page's <meta name="description">, so the page need not carry it again.
// - Other scripts (search results) get toggles from the API below; every toggle of a paper on the
//   page, and in other tabs (storage event), stays in sync.
// - reading-list.html (#reading-list) lists the saved papers from the saved entries themselves (no
//   fetch, so it works from file://), with remove buttons and BibTeX / Markdown export.
// - BibTeX export gives the build's own entries, byte for byte as papers.bib has them: the first
//   BibTeX export loads assets/search-bibtex.js (window.PAPERSITE_BIBTEX; see papersite/publish/search.py
//   bibtex_scripts) with a <script> element, as a fetch would fail under file://. It holds a small
//   site's entries ({entries: {slug: entry}}), or the number of parts a larger site's are in
//   ({parts: n}); an export then loads the parts of its papers (assets/bibtex/<k>.js, each filling
//   window.PAPERSITE_BIBTEX_PARTS[k]), k the slug's 32-bit FNV-1a hash modulo n.
//   A saved paper this build no longer has gets the entry saved from its page's Cite box, if it
//   was saved there, or else a comment line saying it is gone. Entries that could not be loaded
//   (a flaky connection) are the same: the export says so, and pressing BibTeX again tries again.
//
// API: window.papersiteReadingList
//   .toggleButton(slug, title, url, details?) -> a new <button>; `url` is the paper's path relative
//       to the site root ("papers/<slug>.html", as `u` in assets/search-store.js); `details` may give
//       {summary, authors: [..], authorUrls: [..], authorCount, venue, year, permalink}; authorUrls[i] is
//       the page of authors[i] relative to the site root ("authors/<slug>.html"), or ""; authorCount, when
//       `authors` are only the first ones (a search result's), how many the paper has.
//   .has(slug), .entries(), .add(entry), .remove(slug), .onChange(fn), .available
//   .bibtex([{slug, title}], done(text, left)): those papers' BibTeX as the list's export gives it
//   .saveFile(text, file, type): the text saved as a file
// An author's page (of several papers) gets its "BibTeX" file from here too (setUpAuthorBibtex).
// All DOM is built with createElement/textContent: titles and summaries are never parsed as HTML.
(function () {
  "use strict";
  var doc = document;
  var rootPrefix = doc.documentElement.getAttribute("data-root") || "";
  var rootURL = new URL(rootPrefix || "./", location.href);
  // The site's own root path: two sites on one origin (or on file://) never share a list.
  var KEY = "papersite:" + rootURL.pathname + ":reading-list";
  var SAFE_PATH = /^[A-Za-z0-9._~-]+(?:\/[A-Za-z0-9._~-]+)*\.html$/;
  var listeners = [];

  function text(value, limit) {
    return typeof value === "string" ? value.slice(0, limit || 2000) : (typeof value === "number" ? String(value) : "");
  }

  function safePath(path) {
    return typeof path === "string" && SAFE_PATH.test(path) && path.split("/").indexOf("..") < 0 ? path : "";
  }

  function safePermalink(url) {
    return typeof url === "string" && /^https?:\/\/[^\s]+$/.test(url) ? url.slice(0, 2000) : "";
  }

  // Everything read back from storage is checked again: the store is shared by every page of the origin.
  function clean(entry) {
    if (!entry || typeof entry !== "object") return null;
    var slug = text(entry.slug, 200);
    var url = safePath(entry.url);
    var title = text(entry.title, 1000);
    if (!slug || !url || !title) return null;
    var authors = Array.isArray(entry.authors) ? entry.authors.filter(function (a) { return typeof a === "string"; }).slice(0, 200) : [];
    var authorUrls = Array.isArray(entry.authorUrls) ? entry.authorUrls : [];
    return {
      slug: slug, title: title, url: url, summary: text(entry.summary, 2000),
      authors: authors.map(function (a) { return a.slice(0, 300); }),
      authorUrls: authors.map(function (a, i) { return safePath(authorUrls[i]); }),
      authorCount: Math.max(authors.length, typeof entry.authorCount === "number" && entry.authorCount < 100000 ? Math.floor(entry.authorCount) : 0),
      venue: text(entry.venue, 200), year: text(entry.year, 10), permalink: safePermalink(entry.permalink),
      // The paper page's own entry (as in papers.bib), when saved from that page: the export's
      // fallback once a later build no longer has the paper.
      bibtex: /^@[A-Za-z]+\{/.test(text(entry.bibtex, 20000)) ? text(entry.bibtex, 20000).trim() : ""
    };
  }

  function storageWorks() {
    try {
      var probe = KEY + ":probe";
      localStorage.setItem(probe, "1");
      localStorage.removeItem(probe);
      return true;
    } catch (e) {
      return false;
    }
  }

  var available = storageWorks();

  function entries() {
    if (!available) return [];
    var data;
    try { data = JSON.parse(localStorage.getItem(KEY) || "null"); } catch (e) { data = null; }
    var list = data && Array.isArray(data.papers) ? data.papers : [];
    var seen = Object.create(null);  // no inherited keys: a slug may be "constructor"
    var out = [];
    list.forEach(function (raw) {
      var entry = clean(raw);
      if (entry && !seen[entry.slug]) { seen[entry.slug] = true; out.push(entry); }
    });
    return out;
  }

  function store(list) {
    try {
      localStorage.setItem(KEY, JSON.stringify({ version: 1, papers: list }));
      return true;
    } catch (e) {
      return false;   // quota or privacy mode: the toggle keeps its old state
    }
  }

  function has(slug) {
    return entries().some(function (e) { return e.slug === slug; });
  }

  function add(entry) {
    var cleaned = clean(entry);
    if (!cleaned) return false;
    var list = entries().filter(function (e) { return e.slug !== cleaned.slug; });
    list.push(cleaned);
    var ok = store(list);
    changed();
    return ok;
  }

  function remove(slug) {
    var ok = store(entries().filter(function (e) { return e.slug !== slug; }));
    changed();
    return ok;
  }

  function onChange(fn) {
    listeners.push(fn);
  }

  function changed() {
    var list = entries();
    var saved = Object.create(null);
    list.forEach(function (e) { saved[e.slug] = true; });
    Array.prototype.forEach.call(doc.querySelectorAll(".save-toggle[data-slug]"), function (button) {
      button.setAttribute("aria-pressed", saved[button.getAttribute("data-slug")] ? "true" : "false");
    });
    listeners.forEach(function (fn) { fn(list); });
  }

  function wire(button, entry) {
    button.title = "Save to your reading list";
    button.setAttribute("aria-pressed", has(entry.slug) ? "true" : "false");
    button.addEventListener("click", function (event) {
      event.preventDefault();
      event.stopPropagation();
      if (has(entry.slug)) remove(entry.slug); else add(entry);
    });
    button.hidden = false;
  }

  function toggleButton(slug, title, url, details) {
    details = details || {};
    var button = doc.createElement("button");
    button.type = "button";
    button.className = "save-toggle save-toggle-small";
    button.setAttribute("data-slug", slug);
    button.textContent = "Save";
    // The visible word starts the name (WCAG 2.5.3); the title tells the toggles of a list apart.
    button.setAttribute("aria-label", "Save: " + title);
    var entry = {
      slug: slug, title: title, url: url, summary: details.summary, authors: details.authors, authorUrls: details.authorUrls,
      authorCount: details.authorCount, venue: details.venue, year: details.year, permalink: details.permalink
    };
    if (!available || !clean(entry)) {
      button.hidden = true;
      return button;
    }
    wire(button, entry);
    return button;
  }

  function pageBibtex(button) {
    var source = doc.getElementById(button.getAttribute("data-bibtex-from") || "");
    return source ? source.textContent : "";
  }

  // The paper's details come from the tags the page carries for Google Scholar and link previews,
  // so the page does not repeat them for this script.
  function pageMeta(name) {
    var meta = doc.querySelector('meta[name="' + name + '"]');
    return meta ? meta.getAttribute("content") : "";
  }

  function pageAuthors() {
    return Array.prototype.map.call(doc.querySelectorAll('meta[name="citation_author"]'), function (meta) {
      return meta.getAttribute("content");
    });
  }

  // Each author's page, from the byline's links, as a path from the site root ("" for a name without one).
  function pageAuthorUrls(authors) {
    var byName = {};
    Array.prototype.forEach.call(doc.querySelectorAll(".paper-authors a[href]"), function (a) {
      var href = a.href;
      if (href.indexOf(rootURL.href) === 0) byName[a.textContent] = href.slice(rootURL.href.length);
    });
    return authors.map(function (name) { return Object.prototype.hasOwnProperty.call(byName, name) ? byName[name] : ""; });
  }

  function pageCanonical() {
    var link = doc.querySelector('link[rel="canonical"]');
    return link ? link.getAttribute("href") : "";
  }

  function setUpPageToggle() {
    if (!available) return;
    Array.prototype.forEach.call(doc.querySelectorAll("button.save-toggle[data-slug][hidden]"), function (button) {
      var authors = pageAuthors();
      wire(button, {
        slug: button.getAttribute("data-slug"), title: pageMeta("citation_title"),
        url: button.getAttribute("data-url"), summary: pageMeta("description"), authors: authors,
        authorUrls: pageAuthorUrls(authors),
        venue: button.getAttribute("data-venue") || "", year: pageMeta("citation_publication_date"),
        permalink: pageCanonical(), bibtex: pageBibtex(button)
      });
    });
  }

  // --- export ------------------------------------------------------------------------------

  function absoluteURL(entry) {
    return entry.permalink || new URL(entry.url, rootURL).href;
  }

  // The build's entries (assets/search-bibtex.js, and a large site's parts): slug -> entry, of
  // the files loaded so far; null until the first is. State "idle", "loading", "ready" or "failed".
  var BUILD_BIBTEX = "assets/search-bibtex.js";
  var built = null;
  var parts = 0;          // how many parts a large site's entries are in; 0: all in BUILD_BIBTEX
  var loadedParts = {};
  var builtState = "idle";
  var failedFile = BUILD_BIBTEX;

  function partPath(k) { return "assets/bibtex/" + k + ".js"; }   // papersite/urls.py bibtex_part

  var utf8 = new TextEncoder();

  function partOf(slug) {
    var bytes = utf8.encode(slug);
    var h = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
    return h % parts;
  }

  // The parts a list's entries are in that are not loaded yet.
  function missingParts(list) {
    if (!parts) return [];
    var seen = {};
    return list.map(function (e) { return partOf(e.slug); }).filter(function (k) {
      if (loadedParts[k] || seen[k]) return false;
      seen[k] = true;
      return true;
    });
  }

  function builtFor(list) {
    return builtState === "ready" && missingParts(list).length === 0;
  }

  function addScript(path, done) {
    var script = doc.createElement("script");
    script.src = rootPrefix + path;
    script.async = true;
    script.onload = function () { done(true); };
    script.onerror = function () { done(false); };
    doc.head.appendChild(script);
  }

  function loadParts(list, done) {
    var todo = missingParts(list);
    var left = todo.length;
    if (!left) { builtState = "ready"; done(); return; }
    todo.forEach(function (k) {
      addScript(partPath(k), function (ok) {
        var registry = window.PAPERSITE_BIBTEX_PARTS;
        var data = ok && registry && Object.prototype.hasOwnProperty.call(registry, k) ? registry[k] : null;
        if (data && typeof data === "object") {
          Object.keys(data).forEach(function (slug) { built[slug] = data[slug]; });
          loadedParts[k] = true;
        } else {
          builtState = "failed";
          failedFile = partPath(k);
        }
        if (--left === 0) {
          if (builtState !== "failed") builtState = "ready";
          done();
        }
      });
    });
  }

  function loadBuilt(list, done) {
    builtState = "loading";
    if (built) { loadParts(list, done); return; }
    addScript(BUILD_BIBTEX, function (ok) {
      var data = ok ? window.PAPERSITE_BIBTEX : null;
      if (data && typeof data.entries === "object" && data.entries) {
        built = data.entries;
        builtState = "ready";
        done();
      } else if (data && typeof data.parts === "number" && data.parts > 0) {
        built = Object.create(null);   // a slug "__proto__" is a key like any other
        parts = data.parts;
        loadParts(list, done);
      } else {
        builtState = "failed";
        done();
      }
    });
  }

  // BibTeX reads an entry wherever it meets "@", comments included (papers.bib's header drops it too).
  function commentText(value) {
    return value.replace(/@/g, " ").replace(/\s+/g, " ").trim();
  }

  function builtEntry(slug) {
    // Own properties only: a slug read back from storage may be "constructor".
    return built && Object.prototype.hasOwnProperty.call(built, slug) && typeof built[slug] === "string" ? built[slug] : null;
  }

  // The build's entry; else the one saved from the paper's Cite box; else a comment: the paper is
  // gone, or (the build's entries could not be loaded) its entry is. Joined as papers.bib joins its
  // entries: each ends with a newline, a blank line between them.
  function bibtex(list) {
    return list.map(function (e) {
      var entry = builtEntry(e.slug);
      if (entry) return entry;
      if (e.bibtex) return e.bibtex + "\n";
      return "% \"" + commentText(e.title) + "\"" + (builtState === "failed" ? ": its entry could not be loaded.\n" : " is no longer on this site.\n");
    }).join("\n");
  }

  // Papers of the list whose BibTeX a failed load left the export without.
  function unexported(list) {
    return list.filter(function (e) { return !builtEntry(e.slug) && !e.bibtex; }).length;
  }

  // The BibTeX export of `list` ([{slug, title}], a search page's results), loading what it needs
  // first: done(text, left), `left` the papers whose entries could not be loaded (comments in it).
  function bibtexOf(list, done) {
    if (builtFor(list)) { done(bibtex(list), 0); return; }
    loadBuilt(list, function () { done(bibtex(list), unexported(list)); });
  }

  function markdownText(value) {
    return value.replace(/([\\`*_[\]<>])/g, "\\$1").replace(/\s+/g, " ").trim();
  }

  function markdownURL(url) {
    return url.replace(/[()<>\s]/g, function (ch) { return encodeURIComponent(ch); });
  }

  // A listing names an entry's first SHOWN_AUTHORS, then "et al.", then where it appeared.
  var SHOWN_AUTHORS = 3;

  function etAl(e) { return e.authorCount > SHOWN_AUTHORS ? " et al." : ""; }

  function placeOf(e) { return [e.venue, e.year].filter(Boolean).join(" "); }

  function byline(e) {
    return [e.authors.slice(0, SHOWN_AUTHORS).join(", ") + etAl(e), placeOf(e)].filter(Boolean).join(" · ");
  }

  function markdown(list) {
    return list.map(function (e) {
      var line = "- [" + markdownText(e.title) + "](" + markdownURL(absoluteURL(e)) + ")";
      var meta = byline(e);
      return meta ? line + " — " + markdownText(meta) : line;
    }).join("\n") + "\n";
  }

  var FORMATS = {
    bibtex: { make: bibtex, file: "reading-list.bib", type: "application/x-bibtex" },
    markdown: { make: markdown, file: "reading-list.md", type: "text/markdown" }
  };

  // --- reading-list.html --------------------------------------------------------------------

  function element(tag, className, content) {
    var el = doc.createElement(tag);
    if (className) el.className = className;
    if (content) el.textContent = content;
    return el;
  }

  function setUpListPage() {
    var container = doc.getElementById("reading-list");
    if (!container) return;
    var status = doc.getElementById("reading-list-status");
    var items = doc.getElementById("reading-list-items");
    var exportBox = doc.getElementById("reading-list-export");
    var output = exportBox.querySelector(".export-output");
    var textarea = doc.getElementById("export-text");
    var download = doc.getElementById("export-download");
    var copy = doc.getElementById("export-copy");
    var formatButtons = exportBox.querySelectorAll("[data-export]");
    var format = null;
    var blobURL = null;
    var problem = null;
    container.hidden = false;

    if (!available) {
      status.textContent = "This browser does not let the site store data (private mode or blocked storage), so there is no reading list here.";
      return;
    }

    // A message in the export box, created on first need (role=alert: announced as it appears).
    function showProblem(message) {
      if (!problem && !message) return;
      if (!problem) {
        problem = element("p", "notice export-problem");
        problem.setAttribute("role", "alert");
        exportBox.insertBefore(problem, output);
      }
      problem.textContent = message;
      problem.hidden = !message;
    }

    function showExport(list) {
      Array.prototype.forEach.call(formatButtons, function (b) {
        b.setAttribute("aria-pressed", b.getAttribute("data-export") === format ? "true" : "false");
      });
      showProblem("");
      if (format === "bibtex" && !builtFor(list) && builtState !== "failed") {
        output.hidden = true;
        if (builtState !== "loading") loadBuilt(list, function () { if (format === "bibtex") showExport(entries()); });
        return;
      }
      if (format === "bibtex" && builtState === "failed") {
        // What can be exported is: the entries loaded, and those saved from the papers' pages.
        var left = unexported(list);
        showProblem("The site's BibTeX entries (" + failedFile + ") could not be loaded" +
          (left ? ": " + left + " of " + list.length + " papers are left as comments below." : "; below are the entries saved from the papers' pages.") +
          " Press BibTeX again to try again; the Markdown export works.");
      }
      if (!format) { output.hidden = true; return; }
      var spec = FORMATS[format];
      var content = spec.make(list);
      textarea.value = content;
      if (blobURL) URL.revokeObjectURL(blobURL);
      blobURL = URL.createObjectURL(new Blob([content], { type: spec.type + ";charset=utf-8" }));
      download.href = blobURL;
      download.setAttribute("download", spec.file);
      download.textContent = "Download " + spec.file;
      output.hidden = false;
    }

    function render(list) {
      items.textContent = "";
      list.forEach(function (e) {
        var li = element("li", "paper-card reading-item");
        var heading = element("h2", "paper-card-title");
        var link = element("a", null, e.title);
        link.href = rootPrefix + e.url;
        heading.appendChild(link);
        li.appendChild(heading);
        var meta = bylineElement(e);
        if (meta) li.appendChild(meta);
        if (e.summary) li.appendChild(element("p", "paper-card-summary", e.summary));
        var button = element("button", "button remove-button", "Remove");
        button.type = "button";
        button.setAttribute("aria-label", "Remove: " + e.title);
        button.addEventListener("click", function () {
          var index = entries().findIndex(function (x) { return x.slug === e.slug; });
          remove(e.slug);
          status.textContent = "Removed “" + e.title + "”. " + countText(entries().length);
          focusAfterRemove(index);
        });
        li.appendChild(button);
        items.appendChild(li);
      });
      exportBox.hidden = list.length === 0;
      if (list.length) showExport(list);
    }

    // The byline of a listing: the first three names, each a link to its author's page, then "et al.".
    function bylineElement(e) {
      if (!e.authors.length && !e.venue && !e.year) return null;
      var p = element("p", "paper-card-meta");
      e.authors.slice(0, SHOWN_AUTHORS).forEach(function (name, i) {
        if (i) p.appendChild(doc.createTextNode(", "));
        var link = e.authorUrls[i] ? element("a", null, name) : doc.createTextNode(name);
        if (e.authorUrls[i]) link.href = rootPrefix + e.authorUrls[i];
        p.appendChild(link);
      });
      var where = placeOf(e);
      p.appendChild(doc.createTextNode(etAl(e) + (where ? (e.authors.length ? " · " : "") + where : "")));
      return p;
    }

    function focusAfterRemove(index) {
      var buttons = items.querySelectorAll(".remove-button");
      var target = buttons[Math.min(index, buttons.length - 1)];
      if (target) target.focus(); else doc.getElementById("main").focus();
    }

    function countText(n) {
      return n === 0 ? "No saved papers yet: use the Save button on a paper page to add one."
                     : n + " saved paper" + (n === 1 ? "" : "s") + ".";
    }

    Array.prototype.forEach.call(formatButtons, function (b) {
      b.addEventListener("click", function () {
        format = format === b.getAttribute("data-export") ? null : b.getAttribute("data-export");
        if (format === "bibtex" && builtState === "failed") builtState = "idle";   // pressed again: try again
        showExport(entries());
      });
    });
    copy.addEventListener("click", function () {
      function fallback() {
        textarea.focus();
        textarea.select();
        var ok = false;
        try { ok = doc.execCommand("copy"); } catch (e) { ok = false; }
        status.textContent = ok ? "Copied to the clipboard." : "Select the text and copy it with your keyboard.";
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(textarea.value).then(function () {
          status.textContent = "Copied to the clipboard.";
        }, fallback);
      } else {
        fallback();
      }
    });

    onChange(function (list) {
      status.textContent = countText(list.length);
      render(list);
    });
    var initial = entries();
    status.textContent = countText(initial.length);
    render(initial);
  }

  // The text as a file the browser saves (from file:// too): a link to it, clicked.
  function saveFile(text, file, type) {
    var link = doc.createElement("a"), url = URL.createObjectURL(new Blob([text], { type: type + ";charset=utf-8" }));
    link.href = url;
    link.download = file;
    doc.body.appendChild(link);
    link.click();
    doc.body.removeChild(link);
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  // --- an author's page (templates/author.html) ------------------------------------------------

  // An author of several papers: "BibTeX" saves <slug>.bib, the build's entries of the papers the
  // page lists, in its order (newest first), under the line papers.bib opens with.
  function setUpAuthorBibtex() {
    var link = doc.querySelector("a[data-bibtex-file]");
    if (!link) return;
    var note = null;
    link.parentNode.hidden = false;
    link.addEventListener("click", function (event) {
      event.preventDefault();
      if (link.getAttribute("aria-busy") === "true") return;
      var list = Array.prototype.map.call(doc.querySelectorAll(".author-papers > li > a:first-child"), function (a) {
        return { slug: decodeURIComponent(a.getAttribute("href").replace(/^.*\//, "").replace(/\.html$/, "")), title: a.textContent };
      });
      var brand = doc.querySelector(".site-header .brand"), name = doc.querySelector("h1");
      var head = "% " + list.length + " papers from " + commentText((brand ? brand.textContent : "") + ", by " +
                 (name ? name.textContent : "")) + ", one entry each, UTF-8.\n";
      // An anthology's prolific author's papers are in a hundred parts or more: say it is coming.
      var label = link.textContent;
      link.setAttribute("aria-busy", "true");
      link.textContent = "Loading BibTeX\u2026";
      bibtexOf(list, function (text, left) {
        link.removeAttribute("aria-busy");
        link.textContent = label;
        if (left && !note) {
          note = element("span", "author-bibtex-note");
          note.setAttribute("role", "status");
          link.parentNode.appendChild(note);
        }
        if (note) note.textContent = left ? " (" + left + " of " + list.length + " entries could not be loaded and are left as comments: press again to try again)" : "";
        saveFile(head + "\n" + text, link.getAttribute("data-bibtex-file"), "application/x-bibtex");
      });
    });
  }

  window.addEventListener("storage", function (event) {
    if (event.key === KEY || event.key === null) changed();
  });

  window.papersiteReadingList = {
    available: available, key: KEY, entries: entries, has: has, add: add, remove: remove,
    onChange: onChange, toggleButton: toggleButton, markdown: markdown, bibtex: bibtexOf, saveFile: saveFile
  };

  setUpPageToggle();
  setUpListPage();
  setUpAuthorBibtex();
})();
