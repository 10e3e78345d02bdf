// node tests/js/expand_index.js SITE_DIR
// Prints the site's compact index expanded by search-core.js, i.e. what lunr.Index.load receives,
// and what the loaded index serializes back to: {"expanded": ..., "loaded": ...}.
"use strict";
const { loadSite } = require("./load");

const site = loadSite(process.argv[2]);
site.api.loadLunr(site.env, (err) => { if (err) throw err; });
const index = site.api.loadIndex(site.api.lunr(), site.compact);
process.stdout.write(JSON.stringify({ expanded: site.api.expandIndex(site.compact), loaded: index.toJSON() }));
