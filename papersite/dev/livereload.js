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
  // so the page reloads the moment the rebuild is in place.
  function poll() {
    fetch(url + "?since=" + encodeURIComponent(seen), { cache: "no-store" }).then(function (response) {
      return response.ok ? response.text() : Promise.reject(new Error(String(response.status)));
    }).then(function (id) {
      if (id.trim() !== seen) {
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
