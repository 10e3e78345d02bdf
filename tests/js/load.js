// Loads a built site's search the way a browser page does, minus the page: lunr.js, the
// site's search.js (core functions only: there is no document) and the index and store files,
// all in one fresh context. Used by the other scripts here; see tests/test_search.py.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

function loadSite(siteDir) {
  const context = vm.createContext({ console });
  context.window = context;
  for (const file of ["assets/vendor/lunr.js", "assets/search.js", "assets/search-index.js", "assets/search-store.js"]) {
    const full = path.join(siteDir, file);
    vm.runInContext(fs.readFileSync(full, "utf8"), context, { filename: full });
  }
  const api = context.PapersiteSearch;
  const compact = context.PAPERSITE_INDEX;
  const index = api.loadIndex(context.lunr, compact);
  return { context, api, lunr: context.lunr, compact, index, store: context.PAPERSITE_STORE };
}

// search.js alone (for stemming and normalising without a site).
function loadCore(searchJs) {
  const context = vm.createContext({ console });
  vm.runInContext(fs.readFileSync(searchJs, "utf8"), context, { filename: searchJs });
  return context.PapersiteSearch;
}

module.exports = { loadSite, loadCore };
