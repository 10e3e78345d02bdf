// Loads a built site's search the way a browser page does, minus the page: the site's
// search-core.js (what static/search.js loads on first use; search.js itself only drives the page),
// the index and store files, and search-shards.js when the index file holds the shards' meta, all
// in one fresh context. Further files (shards, store chunks, lunr.js) are loaded as the source asks for
// them, synchronously; `loaded` lists them. Used by the other scripts here; see tests/test_search.py.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

function loadSite(siteDir) {
  const context = vm.createContext({ console });
  context.window = context;
  const loaded = [];
  function run(file) {
    const full = path.join(siteDir, file);
    vm.runInContext(fs.readFileSync(full, "utf8"), context, { filename: full });
    loaded.push(file);
  }
  const env = {
    global: context,
    load(file, callback) {
      try { run(file); } catch (err) { callback(err); return; }
      callback(null);
    },
  };
  run("assets/search-core.js");
  run("assets/search-index.js");
  run("assets/search-store.js");
  const api = context.PapersiteSearch;
  let source, compact = null;
  if (context.PAPERSITE_INDEX.shards) {
    run("assets/search-shards.js");
    source = new api.ShardSource(context.PAPERSITE_INDEX.shards, context.PAPERSITE_STORE, env);
  } else {
    compact = context.PAPERSITE_INDEX;
    source = new api.IndexSource(compact, context.PAPERSITE_STORE, env);
  }
  return { context, api, env, source, compact, loaded, sharded: compact === null };
}

// Runs `text` through search-core.js `search`; returns the outcome with each result's slug, or throws.
function query(site, text) {
  let outcome = null, error = null;
  site.api.search(site.source, text, (o, e) => { outcome = o; error = e; });
  if (error) throw error;
  if (!outcome) throw new Error("search did not finish synchronously");
  let refs = [];
  site.api.entries(site.source, outcome.results.map((r) => r.doc), (entries, e) => {
    if (e) throw e;
    refs = entries.map((entry) => entry.ref);
  });
  return { outcome, refs };
}

// One script alone, without a site: search-core.js for stemming and normalising, search.js for
// its PATHS. Either fills in window.PapersiteSearch, which is returned.
function loadApi(script) {
  const context = vm.createContext({ console });
  vm.runInContext(fs.readFileSync(script, "utf8"), context, { filename: script });
  if (!context.PapersiteSearch) throw new Error(script + " defines no PapersiteSearch");
  return context.PapersiteSearch;
}

module.exports = { loadSite, loadApi, query };
