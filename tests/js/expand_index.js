// node tests/js/expand_index.js SITE_DIR
// Prints the site's compact index expanded by search-core.js, i.e. what lunr.Index.load receives,
// and what the loaded index serializes back to: {"expanded": ..., "loaded": ...}.
"use strict";
const { loadSite } = require("./load");

const { api, compact, index } = loadSite(process.argv[2]);
process.stdout.write(JSON.stringify({ expanded: api.expandIndex(compact), loaded: index.toJSON() }));
