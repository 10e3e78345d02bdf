// Runs in <head>, before the first paint, so a reader who chose a theme never sees a flash of the other one,
// and so the layout is final from the first paint when scripts will fill part of it.
(function () {
  var root = document.documentElement;
  var key = "papersite:" + new URL(root.getAttribute("data-root") || "./", location.href).pathname + ":theme";
  try {
    var saved = localStorage.getItem(key);
    if (saved === "light" || saved === "dark") root.setAttribute("data-theme", saved);
  } catch (e) { /* storage may be disabled; the system theme applies */ }
  root.setAttribute("data-theme-key", key);
  // Before the first paint too: style.css keeps room for what scripts will fill in (class "js").
  root.classList.add("js");
})();
