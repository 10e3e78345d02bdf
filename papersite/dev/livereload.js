// Dev server only (`python build.py serve` adds it to each HTML page it sends; never part of a built site).
// Asks the server for its build id and reloads the page when a rebuild has changed it.
(function () {
  "use strict";
  var script = document.currentScript;
  var seen = script && script.getAttribute("data-build-id");
  var url = script ? script.src.replace(/livereload\.js(\?.*)?$/, "build-id") : "/__papersite/build-id";
  var retry = 400;
  if (!seen) return;

  // The server holds each request until a build other than `seen` is served (or ~20 s pass),
  // so the page reloads the moment the rebuild is in place; but not when it answers that this
  // page, a preview of an edit, is byte for byte the rebuilt site's (the reader keeps their place).
  function poll() {
    var query = "?since=" + encodeURIComponent(seen) + "&page=" + encodeURIComponent(location.pathname);
    fetch(url + query, { cache: "no-store" }).then(function (response) {
      return response.ok ? response.text() : Promise.reject(new Error(String(response.status)));
    }).then(function (answer) {
      var parts = answer.trim().split(" ");
      if (parts[0] !== seen && parts[1] === "same") {
        seen = parts[0];
      } else if (parts[0] !== seen) {
        location.reload();
        return;
      }
      retry = 400;
      poll();
    }, function () {
      retry = Math.min(retry * 2, 5000);   // the server is down or restarting: back off
      setTimeout(poll, retry);
    });
  }

  poll();
})();
