// Loads a built site's search the way a browser page does, minus the page: lunr.js, the site's
// search-core.js (what static/search.js loads on first use; search.js itself only drives the page)
// and the index and store files, all in one fresh context. Used by the other scripts here; see
// tests/test_search.py.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

function loadSite(siteDir) {
  const context = vm.createContext({ console });
  context.window = context;
  for (const file of ["assets/vendor/lunr.js", "assets/search-core.js", "assets/search-index.js", "assets/search-store.js"]) {
    const full = path.join(siteDir, file);
    vm.runInContext(fs.readFileSync(full, "utf8"), context, { filename: full });
  }
  const api = context.PapersiteSearch;
  const compact = context.PAPERSITE_INDEX;
  const index = api.loadIndex(context.lunr, compact);
  return { context, api, lunr: context.lunr, compact, index, store: context.PAPERSITE_STORE };
}

// One script alone, without a site: search-core.js for stemming and normalising, search.js for
// its PATHS. Either fills in window.PapersiteSearch, which is returned.
function loadApi(script) {
  const context = vm.createContext({ console });
  vm.runInContext(fs.readFileSync(script, "utf8"), context, { filename: script });
  if (!context.PapersiteSearch) throw new Error(script + " defines no PapersiteSearch");
  return context.PapersiteSearch;
}

module.exports = { loadSite, loadApi };
