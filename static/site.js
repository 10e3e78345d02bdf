// Page behaviour that needs no data: theme toggle, topic drawer, keyboard shortcuts.
// Everything here is progressive: without JavaScript the buttons stay hidden and links still work.
(function () {
  "use strict";
  var root = document.documentElement;
  var themeKey = root.getAttribute("data-theme-key");

  function currentTheme() {
    var chosen = root.getAttribute("data-theme");
    if (chosen) return chosen;
    return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function toggleTheme() {
    var next = currentTheme() === "dark" ? "light" : "dark";
    root.setAttribute("data-theme", next);
    try { localStorage.setItem(themeKey, next); } catch (e) { /* not remembered, still applied */ }
  }

  function isTyping(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  function follow(rel) {
    var link = document.querySelector('.prev-next a[rel="' + rel + '"]');
    if (link) location.href = link.href;
  }

  function setUpTheme() {
    var button = document.querySelector(".theme-toggle");
    if (!button) return;
    button.hidden = false;
    button.addEventListener("click", toggleTheme);
  }

  function setUpDrawer() {
    var button = document.querySelector(".nav-toggle");
    var sidebar = document.getElementById("sidebar");
    if (!button || !sidebar) return;
    button.hidden = false;
    document.body.classList.add("js-drawer");
    button.addEventListener("click", function () {
      var open = sidebar.classList.toggle("open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
  }

  function setUpKeys() {
    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
      if (event.key === "/") {
        var input = document.getElementById("search-input");
        if (input) { event.preventDefault(); input.focus(); }
      } else if (event.key === "j") {
        follow("next");
      } else if (event.key === "k") {
        follow("prev");
      } else if (event.key === "t") {
        toggleTheme();
      }
    });
  }

  setUpTheme();
  setUpDrawer();
  setUpKeys();
})();
