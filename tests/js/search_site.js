// node tests/js/search_site.js SITE_DIR QUERIES_JSON
// For each query prints what the site's search returns, as JSON:
//   {"typed": {query: {refs, mode, fuzzy, error}},  -- search-core.js's as-you-type search
//    "lunr":  {query: {refs, error}}}                -- plain lunr Index.search on the same index
"use strict";
const fs = require("fs");
const { loadSite } = require("./load");

const [siteDir, queriesFile] = process.argv.slice(2);
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf8"));
const { api, lunr, index } = loadSite(siteDir);
const out = { typed: {}, lunr: {} };
for (const q of queries) {
  const outcome = api.runSearch(index, q);
  out.typed[q] = { refs: outcome.results.map((r) => r.ref), mode: outcome.mode, fuzzy: outcome.fuzzy, error: outcome.error };
  try {
    out.lunr[q] = { refs: index.search(q).map((r) => r.ref), error: null };
  } catch (err) {
    if (!(err instanceof lunr.QueryParseError)) throw err;
    out.lunr[q] = { refs: [], error: err.message };
  }
}
process.stdout.write(JSON.stringify(out));
