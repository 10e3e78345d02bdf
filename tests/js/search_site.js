// node tests/js/search_site.js SITE_DIR QUERIES_JSON
// For each query prints what the site's search returns, as JSON:
//   {"typed": {query: {refs, scores, mode, every, fuzzy, unmatched, error, files}},  -- search-core.js's search
//    "lunr":  {query: {refs, error}}}   -- one index only: plain lunr.js Index.search on the same index
// `files`: the files that query loaded, on a fresh page (a sharded site: a fresh source per query).
"use strict";
const fs = require("fs");
const { loadSite, query } = require("./load");

const [siteDir, queriesFile] = process.argv.slice(2);
const queries = JSON.parse(fs.readFileSync(queriesFile, "utf8"));
const out = { typed: {}, lunr: {} };
let site = loadSite(siteDir), index = null;
for (const q of queries) {
  if (site.sharded) site = loadSite(siteDir);
  const before = site.loaded.length;
  const { outcome, refs } = query(site, q);
  out.typed[q] = { refs, scores: outcome.results.map((r) => r.score), mode: outcome.mode, every: outcome.every,
                   fuzzy: outcome.fuzzy, unmatched: outcome.unmatched, error: outcome.error, files: site.loaded.slice(before) };
  if (site.sharded) continue;
  site.api.loadLunr(site.env, (err) => { if (err) throw err; });
  const lunr = site.api.lunr();
  index = index || site.api.loadIndex(lunr, site.compact);
  try {
    out.lunr[q] = { refs: index.search(q).map((r) => r.ref), error: null };
  } catch (err) {
    if (!(err instanceof lunr.QueryParseError)) throw err;
    out.lunr[q] = { refs: [], error: err.message };
  }
}
process.stdout.write(JSON.stringify(out));
