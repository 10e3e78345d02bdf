// Dev server only (`python build.py serve` adds it to each HTML page it sends; never part of a built site).
// Asks the server for its build id and reloads the page when a rebuild has changed it.
(function () {
  "use strict";
  var script = document.currentScript;
  var seen = script && script.getAttribute("data-build-id");
  var url = script ? script.src.replace(/livereload\.js(\?.*)?$/, "build-id") : "/__papersite/build-id";
  var delay = 400;

  function poll() {
    fetch(url, { cache: "no-store" }).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (id) {
      if (id && seen && id.trim() !== seen) {
        location.reload();
        return;
      }
      delay = 400;
      setTimeout(poll, delay);
    }, function () {
      delay = Math.min(delay * 2, 5000);   // the server is down or restarting: back off
      setTimeout(poll, delay);
    });
  }

  setTimeout(poll, delay);
})();
