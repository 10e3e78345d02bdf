// node tests/js/words.js SEARCH_CORE_JS WORDS_FILE [LUNR_JS]
// WORDS_FILE is JSON: {"stem": [words], "normalise": [texts], "fold": [texts], "stop": [words]}.
// Prints the same keys with search-core.js's stemWord / normaliseWords / fold applied to each, and
// for "stop" (needs LUNR_JS) whether lunr.js's stop word filter drops the word.
"use strict";
const fs = require("fs");
const { loadApi } = require("./load");

const [coreJs, wordsFile, lunrJs] = process.argv.slice(2);
const api = loadApi(coreJs);
const input = JSON.parse(fs.readFileSync(wordsFile, "utf8"));
const out = {
  stem: (input.stem || []).map((w) => api.stemWord(w)),
  normalise: (input.normalise || []).map((t) => api.normaliseWords(t)),
  fold: (input.fold || []).map((t) => api.fold(t)),
};
if (input.stop) {
  const lunr = require(lunrJs);
  out.stop = input.stop.map((w) => !lunr.stopWordFilter(new lunr.Token(w)));
}
process.stdout.write(JSON.stringify(out));
