// node tests/js/words.js SEARCH_CORE_JS WORDS_FILE [LUNR_JS]
// WORDS_FILE is JSON: {"stem": [words], "normalise": [texts], "tokens": [texts], "fold": [texts], "stop": [words]}.
// Prints the same keys with search-core.js's stemWord / normaliseWords / tokenWords / fold applied
// to each, and for "stop" whether search-core.js's stop word list has the word, and (with LUNR_JS)
// whether lunr.js's stop word filter drops it ("lunrStop").
"use strict";
const fs = require("fs");
const { loadApi } = require("./load");

const [coreJs, wordsFile, lunrJs] = process.argv.slice(2);
const api = loadApi(coreJs);
const input = JSON.parse(fs.readFileSync(wordsFile, "utf8"));
const out = {
  stem: (input.stem || []).map((w) => api.stemWord(w)),
  normalise: (input.normalise || []).map((t) => api.normaliseWords(t)),
  tokens: (input.tokens || []).map((t) => api.tokenWords(t)),
  fold: (input.fold || []).map((t) => api.fold(t)),
};
if (input.stop) {
  out.stop = input.stop.map((w) => api.isStopWord(w));
  if (lunrJs) {
    const lunr = require(lunrJs);
    out.lunrStop = input.stop.map((w) => !lunr.stopWordFilter(new lunr.Token(w)));
  }
}
process.stdout.write(JSON.stringify(out));
