// Page behaviour that needs no data: theme toggle, topic drawer, keyboard shortcuts (? lists them), the
// header's search box. Everything here is progressive: without JavaScript there is no theme button, the
// topics button stays hidden, the box is a plain form that opens search.html, and links still work.
// What only this script uses is made here rather than carried by every page.
(function () {
  "use strict";
  var root = document.documentElement;
  var themeKey = root.getAttribute("data-theme-key");

  function systemTheme() {
    return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function currentTheme() {
    return root.getAttribute("data-theme") || systemTheme();
  }

  // The other theme. Back to the system's, the choice is forgotten: the page follows the system again.
  function toggleTheme() {
    var next = currentTheme() === "dark" ? "light" : "dark", followsSystem = next === systemTheme();
    try {
      if (followsSystem) localStorage.removeItem(themeKey);
      else localStorage.setItem(themeKey, next);
    } catch (e) { /* not remembered, still applied */ }
    if (followsSystem) root.removeAttribute("data-theme");
    else root.setAttribute("data-theme", next);
    showTheme();
  }

  // The button is a toggle of the dark theme: pressed while it is on, whoever chose it.
  function showTheme() {
    var button = document.querySelector(".theme-toggle");
    if (button) button.setAttribute("aria-pressed", currentTheme() === "dark" ? "true" : "false");
  }

  function isTyping(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || !!(target && target.isContentEditable) ||
      !!(target && target.closest && target.closest('[contenteditable]:not([contenteditable="false"]), [role="textbox"], [role="combobox"]'));
  }

  // j/k: on a paper page, the next/previous paper; on a list of papers, move the focus along the list.
  function step(rel) {
    var link = document.querySelector('.prev-next a[rel="' + rel + '"]');
    if (link) { location.href = link.href; return; }
    var links = Array.prototype.slice.call(document.querySelectorAll(".paper-list .paper-card-title a"));
    if (!links.length) return;
    var active = document.activeElement;
    var current = -1;
    links.forEach(function (a, i) {
      var card = a.closest("li");
      if (a === active || (card && card.contains(active))) current = i;
    });
    var next = current < 0 ? (rel === "next" ? 0 : links.length - 1)
                           : Math.max(0, Math.min(links.length - 1, current + (rel === "next" ? 1 : -1)));
    links[next].focus();
    links[next].scrollIntoView({ block: "nearest" });
  }

  var SHORTCUTS = [
    ["j", "Next paper (on a list: move to the next paper)"],
    ["k", "Previous paper (on a list: move to the previous paper)"],
    ["/", "Search"],
    ["t", "Switch between light and dark theme"],
    ["?", "Show these shortcuts"],
    ["Esc", "Close this dialog or the search results"]
  ];
  var shortcutsDialog = null;

  // A native modal <dialog>: the page behind is inert (focus stays inside), Esc closes it.
  function shortcutsDialogElement() {
    if (shortcutsDialog) return shortcutsDialog;
    var dialog = document.createElement("dialog");
    dialog.id = "shortcuts-dialog";
    dialog.className = "shortcuts-dialog";
    dialog.setAttribute("aria-labelledby", "shortcuts-title");
    var title = document.createElement("h2");
    title.id = "shortcuts-title";
    title.textContent = "Keyboard shortcuts";
    dialog.appendChild(title);
    var list = document.createElement("dl");
    list.className = "shortcuts-list";
    SHORTCUTS.forEach(function (item) {
      var dt = document.createElement("dt");
      var kbd = document.createElement("kbd");
      kbd.textContent = item[0];
      dt.appendChild(kbd);
      var dd = document.createElement("dd");
      dd.textContent = item[1];
      list.appendChild(dt);
      list.appendChild(dd);
    });
    dialog.appendChild(list);
    var note = document.createElement("p");
    note.className = "shortcuts-note";
    note.textContent = "Shortcuts do nothing while you type in a field.";
    dialog.appendChild(note);
    var close = document.createElement("button");
    close.type = "button";
    close.className = "button";
    close.textContent = "Close";
    close.addEventListener("click", function () { dialog.close(); });
    dialog.appendChild(close);
    var opener = null;
    dialog.addEventListener("close", function () {
      if (opener && document.contains(opener)) opener.focus();
      opener = null;
    });
    // A click on the backdrop (outside the box) closes too.
    dialog.addEventListener("click", function (event) {
      if (event.target === dialog) {
        var r = dialog.getBoundingClientRect();
        if (event.clientX < r.left || event.clientX > r.right || event.clientY < r.top || event.clientY > r.bottom) dialog.close();
      }
    });
    dialog.openFrom = function (element) {
      opener = element;
      dialog.showModal();
      close.focus();
    };
    document.body.appendChild(dialog);
    shortcutsDialog = dialog;
    return dialog;
  }

  function toggleShortcuts() {
    var dialog = shortcutsDialogElement();
    if (dialog.open) dialog.close(); else dialog.openFrom(document.activeElement);
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  // Into the room style.css keeps for it in the header from the first paint (class "js"): nothing moves.
  function setUpTheme() {
    var header = document.querySelector(".site-header");
    if (!header) return;
    var button = element("button", "icon-button theme-toggle");
    button.type = "button";
    button.setAttribute("aria-label", "Dark theme");
    button.title = "Dark theme (t)";
    button.appendChild(element("span", "icon icon-theme"));
    button.addEventListener("click", toggleTheme);
    header.appendChild(button);
    showTheme();
    if (window.matchMedia) {
      var query = matchMedia("(prefers-color-scheme: dark)");
      if (query.addEventListener) query.addEventListener("change", showTheme);
    }
  }

  function setUpDrawer() {
    var button = document.querySelector(".nav-toggle");
    var sidebar = document.getElementById("sidebar");
    if (!button || !sidebar) return;
    button.hidden = false;
    document.body.classList.add("js-drawer");
    // The drawer covers the page: what it covers is inert while it is open, so the keyboard moves
    // among the topics (from the first), not through the hundreds of links hidden under it.
    function show(open) {
      var wasIn = sidebar.contains(document.activeElement);
      sidebar.classList.toggle("open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
      Array.prototype.forEach.call(document.querySelectorAll("main, .site-footer, .layout > aside:not(#sidebar)"), function (part) {
        part.inert = open;
      });
      if (open) {
        var first = sidebar.querySelector("a[href]");
        if (first) first.focus();
      } else if (wasIn) {
        button.focus();
      }
    }
    button.addEventListener("click", function () { show(!sidebar.classList.contains("open")); });
    // Esc or a tap outside it closes it; so does a window grown past the phone layout, which has no drawer.
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && sidebar.classList.contains("open")) { show(false); button.focus(); }
    });
    document.addEventListener("click", function (event) {
      if (sidebar.classList.contains("open") && !sidebar.contains(event.target) && !button.contains(event.target)) show(false);
    });
    window.addEventListener("resize", function () {
      if (sidebar.classList.contains("open") && !button.offsetParent) show(false);
    });
  }

  function setUpKeys() {
    document.addEventListener("keydown", function (event) {
      if (event.defaultPrevented || event.isComposing || event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      if (event.key === "?") {
        event.preventDefault();
        toggleShortcuts();
        return;
      }
      // While the shortcuts dialog is open, only ? and Esc (handled by the dialog) act.
      if (shortcutsDialog && shortcutsDialog.open) return;
      if (event.key === "/") {
        var input = document.getElementById("search-input");
        if (input) { event.preventDefault(); input.focus(); }
      } else if (event.key === "j") {
        step("next");
      } else if (event.key === "k") {
        step("prev");
      } else if (event.key === "t") {
        toggleTheme();
      }
    });
  }

  function setUpHint() {
    var footer = document.querySelector(".site-footer");
    if (!footer) return;
    var hint = element("p", "shortcuts-hint", "Press ");
    hint.appendChild(element("kbd", "", "?"));
    hint.appendChild(document.createTextNode(" for keyboard shortcuts."));
    footer.appendChild(hint);
  }

  // The header box becomes a combobox whose popup search.js fills; the "/" hint sits over the box (no shift).
  // search.js arrives when the box is first used, not with every page view, and picks up a box that already
  // has the focus and what was typed. search.html loads it itself.
  function setUpSearchBox() {
    var input = document.getElementById("search-input");
    if (!input) return;
    var attributes = {
      role: "combobox", "aria-controls": "search-popup", "aria-autocomplete": "list", "aria-expanded": "false",
      autocomplete: "off", spellcheck: "false", inputmode: "search"
    };
    Object.keys(attributes).forEach(function (name) { input.setAttribute(name, attributes[name]); });
    var hint = element("kbd", "search-hint", "/");
    hint.setAttribute("aria-hidden", "true");
    var popup = element("div", "search-popup");
    popup.id = "search-popup";
    popup.hidden = true;
    input.parentNode.appendChild(hint);
    input.parentNode.appendChild(popup);
    if (document.querySelector('script[src$="assets/search.js"]')) return;
    var requested = false;
    function load() {
      if (requested) return;
      requested = true;
      var script = document.createElement("script");
      script.src = (root.getAttribute("data-root") || "") + "assets/search.js";
      script.async = true;
      document.head.appendChild(script);
    }
    input.addEventListener("focus", load);
    input.addEventListener("pointerdown", load);
    // A paper page opened from a search result marks the words it matched (search.js).
    if (document.activeElement === input || (/[?&]highlight=/.test(location.search) && document.body.classList.contains("kind-paper"))) load();
  }

  setUpTheme();
  setUpSearchBox();
  setUpDrawer();
  setUpKeys();
  setUpHint();
})();
