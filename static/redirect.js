// An old slug's page (templates/redirect.html) forwards to the paper's new page, keeping the query
// and the fragment, so a shared link to papers/old-slug.html#related lands on #related of the new
// page. The target is relative (works from file:// and under any sub-path) and comes from this
// script's own data-target. It runs in <head> as soon as it loads, before the notice is drawn.
// Without JavaScript, the page's <noscript> refresh forwards instead (to the page, not the fragment).
(function () {
  "use strict";
  var target = document.currentScript.getAttribute("data-target");
  location.replace(target + location.search + location.hash);
})();
