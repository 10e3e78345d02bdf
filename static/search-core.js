// Search, the half that must agree with the Python build: text normalisation, the stemmer, the
// compact index, and the as-you-type query over any source. static/search.js (the header box and
// the results page) loads this file with a <script> element on first use of a search box, so a
// plain page view never fetches it; a sharded site also loads static/search-shards.js, its source.
//
// It mirrors Python function for function: `fold`, `normaliseWords`, `tokenWords` and the
// pipelines (papersite/publish/lunr_index.py), `stemWord` (a port of lunr.py's Porter stemmer,
// which differs from lunr.js's), the compact index (papersite/publish/search_codec.py encodes it;
// `expandIndex` decodes it to exactly the JSON that lunr.py's Index.serialize() wrote, and
// `loadIndex` hands it to lunr.Index.load with the costly parts decoded on first use) and the
// query (`runQuery`; tests/support/search_query.py has the same steps in Python). Both pipeline
// functions are registered under the names the index's pipeline uses ("normalise", "stemmer").
// Change one side, change the other; tests/test_search.py runs both over the same files and
// compares.
//
// A source answers what the query asks: a term's posting counts per field, the terms that begin
// with a prefix, a term's postings with their weights, a document's store entry, lunr query
// syntax. `IndexSource` here answers from the one compact index; search-shards.js `ShardSource`
// from the files a query needs, which it loads on demand: a question it cannot answer yet throws
// `Missing` (the files to load), and `search` loads them and asks again.
//
// Typed queries are scored here, not by lunr.Index.query, with lunr's arithmetic in lunr's order
// (`score`), so one index and shards give the same numbers; lunr.js itself is loaded only for
// lunr query syntax. Everything is exposed on window.PapersiteSearch, the object search.js also
// fills in (whichever runs first creates it). No DOM here: tests/js/ runs this file in Node.
(function (global) {
  "use strict";

  var FORMAT = 1;

  // ---------------------------------------------------------------------------------------
  // Normalisation (papersite/publish/lunr_index.py: fold, normalise_words, token_words).

  var LETTER_FOLDS = { "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d",
                       "þ": "th", "ı": "i", "ħ": "h", "ŀ": "l", "ς": "σ", "ɑ": "α", "ɛ": "ε", "ɩ": "ι", "ɸ": "φ" };
  var LETTER_FOLD_RE = /[ßæœøłđðþıħŀςɑɛɩɸ]/g;
  var COMBINING_RE = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;
  var APOSTROPHE_RE = /['\u2019\u02bc]/g;
  var SEPARATOR_CLASS = "\\x00-\\x2f\\x3a-\\x60\\x7b-\\xbf\\xd7\\xf7\\u2000-\\u2bff\\u2e00-\\u2e7f\\u3000-\\u303f\\ufe10-\\ufe1f\\ufe30-\\ufe6f\\uff00-\\uffff";
  var SEPARATOR_RE = new RegExp("[" + SEPARATOR_CLASS + "]+");
  // Compounds: words joined by these, then at most MAX_PLUSES "+" not followed by a word.
  var INDEX_JOINERS = "\\-\\u2010\\u2011", QUERY_JOINERS = INDEX_JOINERS + "\\^_";
  var MAX_PLUSES = 2, PLUS = "plus";
  function runRegex(joiners) {
    var word = "[^" + SEPARATOR_CLASS + "]+";
    return new RegExp("(" + word + "(?:[" + joiners + "]" + word + ")*)(\\+*)(?![^" + SEPARATOR_CLASS + "])", "g");
  }
  var INDEX_RUN_RE = runRegex(INDEX_JOINERS), QUERY_RUN_RE = runRegex(QUERY_JOINERS);
  // For highlighting shown text: the same separators, except that capitals and apostrophes are
  // part of words (they are folded or dropped, not split on).
  var DISPLAY_SPLIT_RE = /([\x00-\x26\x28-\x2f\x3a-\x40\x5b-\x60\x7b-\xbf\xd7\xf7\u2000-\u2018\u201a-\u2bff\u2e00-\u2e7f\u3000-\u303f\ufe10-\ufe1f\ufe30-\ufe6f\uff00-\uffff]+)/;
  var MAX_WORD = 64;
  var SPACE_RE = /[ \t\n\r\f\v]$/, SPACE_SPLIT_RE = /[ \t\n\r\f\v]+/;
  // lunr query syntax (search_query.py: is_syntax): a leading + or -, field:, ~ at a word's end,
  // ^ and a boost, a * wildcard. "LoRA+", "C++" and "D^α" are plain words.
  var SYNTAX_RE = /(^|[ \t\n\r\f\v])[+-][^ \t\n\r\f\v]|:|[^ \t\n\r\f\v]~[0-9]*($|[ \t\n\r\f\v])|\^[0-9]|\*/;

  function fold(text) {
    text = String(text).toLowerCase().normalize("NFKD").replace(COMBINING_RE, "").toLowerCase();
    return text.replace(LETTER_FOLD_RE, function (c) { return LETTER_FOLDS[c]; });
  }

  function capWord(word) {
    if (word.length <= MAX_WORD) return word;
    var points = Array.from(word);
    return points.length > MAX_WORD ? points.slice(0, MAX_WORD).join("") : word;
  }

  function splitWords(folded) {
    var parts = folded.split(SEPARATOR_RE), words = [];
    for (var i = 0; i < parts.length; i++) if (parts[i]) words.push(capWord(parts[i]));
    return words;
  }

  function normaliseWords(text) {
    return splitWords(fold(text).replace(APOSTROPHE_RE, ""));
  }

  // [[words, pluses]] of each run of `folded` (lunr_index.py: folded_runs).
  function foldedRuns(folded, pattern) {
    var runs = [], m;
    pattern.lastIndex = 0;
    while ((m = pattern.exec(folded)) !== null) runs.push([splitWords(m[1]), Math.min(m[2].length, MAX_PLUSES)]);
    return runs;
  }

  function compoundRuns(text, pattern) {
    return foldedRuns(fold(text).replace(APOSTROPHE_RE, ""), pattern || INDEX_RUN_RE);
  }

  function compoundForms(words, pluses) {
    var joined = words.join(""), forms = [];
    if (pluses) forms.push(capWord(joined + new Array(pluses + 1).join(PLUS)));
    if (words.length > 1) forms.push(capWord(joined));
    return forms;
  }

  function tokenWords(text) {
    var folded = fold(text).replace(APOSTROPHE_RE, ""), words = splitWords(folded);
    if (words.length > 1 || folded.indexOf("+") >= 0) {
      foldedRuns(folded, INDEX_RUN_RE).forEach(function (run) { words = words.concat(compoundForms(run[0], run[1])); });
    }
    return words;
  }

  // ---------------------------------------------------------------------------------------
  // lunr.py 0.8's Porter stemmer (lunr/stemmer.py), ported line for line. It keeps the original
  // 1980 rule that turns a final y into i after any vowel ("shapley" -> "shaplei", "array" ->
  // "arrai"), where lunr.js 2.3.9 does not. Words are arrays of code points, and indexing
  // wraps at negative positions the way Python's does, so odd inputs stem identically too.

  function pySlice(arr, start, stop) {
    var n = arr.length;
    if (start < 0) start = Math.max(0, start + n);
    if (stop === undefined) stop = n;
    else if (stop < 0) stop = Math.max(0, stop + n);
    return arr.slice(Math.min(start, n), Math.min(stop, n));
  }

  function stemWord(p) {
    var b = Array.from(p), k = b.length - 1, k0 = 0, j = 0;
    if (k <= k0 + 1) return p;

    function at(i) { return i < 0 ? b[b.length + i] : b[i]; }
    function cons(i) {
      var c = at(i);
      if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
      if (c === "y") return i === k0 ? true : !cons(i - 1);
      return true;
    }
    function m() {
      var n = 0, i = k0;
      for (;;) { if (i > j) return n; if (!cons(i)) break; i++; }
      i++;
      for (;;) {
        for (;;) { if (i > j) return n; if (cons(i)) break; i++; }
        i++; n++;
        for (;;) { if (i > j) return n; if (!cons(i)) break; i++; }
        i++;
      }
    }
    function vowelInStem() { for (var i = k0; i < j + 1; i++) if (!cons(i)) return true; return false; }
    function doublec(x) { if (x < k0 + 1) return false; if (at(x) !== at(x - 1)) return false; return cons(x); }
    function cvc(i) {
      if (i < k0 + 2 || !cons(i) || cons(i - 1) || !cons(i - 2)) return false;
      var ch = at(i);
      return !(ch === "w" || ch === "x" || ch === "y");
    }
    function ends(s) {
      var length = s.length;
      if (s.charAt(length - 1) !== at(k)) return false;
      if (length > k - k0 + 1) return false;
      if (pySlice(b, k - length + 1, k + 1).join("") !== s) return false;
      j = k - length;
      return true;
    }
    function setto(s) {
      var length = s.length;
      b = pySlice(b, 0, j + 1).concat(s.split(""), pySlice(b, j + length + 1));
      k = j + length;
    }
    function r(s) { if (m() > 0) setto(s); }

    function step1ab() {
      if (at(k) === "s") {
        if (ends("sses")) k = k - 2;
        else if (ends("ies")) setto("i");
        else if (at(k - 1) !== "s") k = k - 1;
      }
      if (ends("eed")) {
        if (m() > 0) k = k - 1;
      } else if ((ends("ed") || ends("ing")) && vowelInStem()) {
        k = j;
        if (ends("at")) setto("ate");
        else if (ends("bl")) setto("ble");
        else if (ends("iz")) setto("ize");
        else if (doublec(k)) {
          k = k - 1;
          var ch = at(k);
          if (ch === "l" || ch === "s" || ch === "z") k = k + 1;
        } else if (m() === 1 && cvc(k)) setto("e");
      }
    }
    function step1c() {
      if (ends("y") && vowelInStem()) b = pySlice(b, 0, k).concat(["i"], pySlice(b, k + 1));
    }
    function step2() {
      var c = at(k - 1);
      if (c === "a") {
        if (ends("ational")) r("ate");
        else if (ends("tional")) r("tion");
      } else if (c === "c") {
        if (ends("enci")) r("ence");
        else if (ends("anci")) r("ance");
      } else if (c === "e") {
        if (ends("izer")) r("ize");
      } else if (c === "l") {
        if (ends("bli")) r("ble");
        else if (ends("alli")) r("al");
        else if (ends("entli")) r("ent");
        else if (ends("eli")) r("e");
        else if (ends("ousli")) r("ous");
      } else if (c === "o") {
        if (ends("ization")) r("ize");
        else if (ends("ation")) r("ate");
        else if (ends("ator")) r("ate");
      } else if (c === "s") {
        if (ends("alism")) r("al");
        else if (ends("iveness")) r("ive");
        else if (ends("fulness")) r("ful");
        else if (ends("ousness")) r("ous");
      } else if (c === "t") {
        if (ends("aliti")) r("al");
        else if (ends("iviti")) r("ive");
        else if (ends("biliti")) r("ble");
      } else if (c === "g") {
        if (ends("logi")) r("log");
      }
    }
    function step3() {
      var c = at(k);
      if (c === "e") {
        if (ends("icate")) r("ic");
        else if (ends("ative")) r("");
        else if (ends("alize")) r("al");
      } else if (c === "i") {
        if (ends("iciti")) r("ic");
      } else if (c === "l") {
        if (ends("ical")) r("ic");
        else if (ends("ful")) r("");
      } else if (c === "s") {
        if (ends("ness")) r("");
      }
    }
    function step4() {
      var c = at(k - 1);
      if (c === "a") { if (!ends("al")) return; }
      else if (c === "c") { if (!ends("ance") && !ends("ence")) return; }
      else if (c === "e") { if (!ends("er")) return; }
      else if (c === "i") { if (!ends("ic")) return; }
      else if (c === "l") { if (!ends("able") && !ends("ible")) return; }
      else if (c === "n") { if (!ends("ant") && !ends("ement") && !ends("ment") && !ends("ent")) return; }
      else if (c === "o") {
        if (ends("ion") && (at(j) === "s" || at(j) === "t")) { /* keep */ }
        else if (!ends("ou")) return;
      }
      else if (c === "s") { if (!ends("ism")) return; }
      else if (c === "t") { if (!ends("ate") && !ends("iti")) return; }
      else if (c === "u") { if (!ends("ous")) return; }
      else if (c === "v") { if (!ends("ive")) return; }
      else if (c === "z") { if (!ends("ize")) return; }
      else return;
      if (m() > 1) k = j;
    }
    function step5() {
      j = k;
      if (at(k) === "e") {
        var a = m();
        if (a > 1 || (a === 1 && !cvc(k - 1))) k = k - 1;
      }
      if (at(k) === "l" && doublec(k) && m() > 1) k = k - 1;
    }

    step1ab();
    step1c();
    step2();
    step3();
    step4();
    step5();
    return pySlice(b, k0, k + 1).join("");
  }

  // ---------------------------------------------------------------------------------------
  // lunr pipeline functions, registered under the names the index's pipeline lists (lunr.js is
  // loaded for lunr query syntax only).

  var lunrLib = null;

  function normalisePipeline(token) {
    var words = tokenWords(token.toString());
    if (!words.length) return undefined;
    if (words.length === 1) return token.update(function () { return words[0]; });
    return words.map(function (word) { return token.clone(function () { return word; }); });
  }

  function stemmerPipeline(token) {
    return token.update(stemWord);
  }

  function register(lunr) {
    lunrLib = lunr;
    // Assigned directly: registerFunction would warn about replacing lunr.js's own stemmer.
    normalisePipeline.label = "normalise";
    stemmerPipeline.label = "stemmer";
    lunr.Pipeline.registeredFunctions.normalise = normalisePipeline;
    lunr.Pipeline.registeredFunctions.stemmer = stemmerPipeline;
    return lunr;
  }

  // The search pipeline on one word: its stems (lunr_index.SEARCH_PIPELINE).
  function stems(word) {
    return tokenWords(word).map(stemWord);
  }

  // ---------------------------------------------------------------------------------------
  // The compact index (papersite/publish/search_codec.py: encode_index; tests/support/search_oracle.py:
  // expand_index).

  var DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
  var VARINT_END = "abcdefghijklmnopqrstuvwxyz012345";
  var VARINT_MORE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ6789+/";

  function charTable(alphabet) {
    var table = new Int8Array(128).fill(-1);
    for (var i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
    return table;
  }
  var DIGIT_VALUE = charTable(DIGITS), END_VALUE = charTable(VARINT_END), MORE_VALUE = charTable(VARINT_MORE);

  // Reads `count` varints from `text` into an Int32Array.
  function readVarints(text, count) {
    var values = new Int32Array(count), n = 0, k = 0;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i), more = MORE_VALUE[c];
      if (more >= 0) n = n * 32 + more;
      else { values[k++] = n * 32 + END_VALUE[c]; n = 0; }
    }
    if (k !== count) throw new Error("search index: expected " + count + " numbers, found " + k);
    return values;
  }

  function riceK(documents, count) {
    var q = Math.floor((documents - count) / (2 * count));
    return q > 0 ? 32 - Math.clz32(q) : 0;  // q's bit length
  }

  // Rice-coded document gaps (see papersite/publish/search_codec.py) into ascending document numbers per
  // term, written to `docs` one after another. MSB first; `acc` holds the `n` bits read but
  // not yet used (at most 29: k is at most 24).
  function decodeGaps(bits, counts, nDocs, docs) {
    var pos = 0, acc = 0, n = 0, p = 0;
    for (var t = 0; t < counts.length; t++) {
      var count = counts[t];
      if (!count) continue;
      var k = riceK(nDocs, count), scale = Math.pow(2, k), d = -1;
      for (var i = 0; i < count; i++) {
        var q = 0;
        for (;;) {  // unary: ones up to a zero
          if (!n) { acc = DIGIT_VALUE[bits.charCodeAt(pos++)]; n = 6; }
          var zeros = ~acc & ((1 << n) - 1);
          if (!zeros) { q += n; n = 0; acc = 0; continue; }
          var ones = n - (32 - Math.clz32(zeros));
          q += ones;
          n -= ones + 1;
          acc &= (1 << n) - 1;
          break;
        }
        while (n < k) { acc = (acc << 6) | DIGIT_VALUE[bits.charCodeAt(pos++)]; n += 6; }
        n -= k;
        var r = acc >>> n;
        acc &= (1 << n) - 1;
        d += q * scale + r + 1;
        docs[p++] = d;
      }
    }
  }

  // Per document, its terms in ascending order with their frequencies, and field lengths.
  function transpose(starts, docs, tfs, nDocs) {
    var total = docs.length, i, d, t;
    var docStarts = new Int32Array(nDocs + 1), fill = new Int32Array(nDocs), lengths = new Float64Array(nDocs);
    for (i = 0; i < total; i++) docStarts[docs[i] + 1]++;
    for (d = 0; d < nDocs; d++) docStarts[d + 1] += docStarts[d];
    var docTerms = new Int32Array(total), docTfs = new Int32Array(total), sum = 0;
    for (t = 0; t + 1 < starts.length; t++) {
      for (i = starts[t]; i < starts[t + 1]; i++) {
        d = docs[i];
        var at = docStarts[d] + fill[d]++, tf = tfs[i] + 1;
        docTerms[at] = t;
        docTfs[at] = tf;
        lengths[d] += tf;
        sum += tf;
      }
    }
    return { docStarts: docStarts, docTerms: docTerms, docTfs: docTfs, lengths: lengths, average: sum / nDocs };
  }

  function frontDecode(text) {
    var terms = [], previous = "";
    if (!text) return terms;
    var items = text.split(" ");
    for (var i = 0; i < items.length; i++) {
      var item = items[i], term = previous.slice(0, DIGIT_VALUE[item.charCodeAt(0)]) + item.slice(1);
      terms.push(term);
      previous = term;
    }
    return terms;
  }

  // The compact index, decoded as far as it is asked (search_codec.py: encode_index;
  // search_oracle.py: expand_index). Eager: terms, per-term counts, document frequencies and idf. Per field on
  // first use: the postings (document numbers and term frequencies), then the documents'
  // term lists. weights(f, d) is lunr's field vector for document d, field f: the BM25
  // weights in the order of operations of lunr.py's builder, rounded as search_codec.py's js_round3
  // expects, except where `fix` says otherwise.
  function decode(enc) {
    if (!enc || enc.v !== FORMAT) throw new Error("search index format " + (enc && enc.v) + " is not " + FORMAT);
    var fields = enc.fields, nFields = fields.length, refs = enc.refs, nDocs = refs.length, k1 = enc.k1, b = enc.b;
    var terms = frontDecode(enc.terms), nTerms = terms.length, f, t, i;
    var counts = [], starts = [], df = new Float64Array(nTerms);
    for (f = 0; f < nFields; f++) {
      var c = readVarints(enc.counts[f], nTerms), s = new Int32Array(nTerms + 1), total = 0;
      for (t = 0; t < nTerms; t++) { s[t] = total; total += c[t]; df[t] += c[t]; }
      s[nTerms] = total;
      counts.push(c);
      starts.push(s);
    }
    var idf = new Float64Array(nTerms);
    for (t = 0; t < nTerms; t++) idf[t] = Math.log(1 + Math.abs((nDocs - df[t] + 0.5) / (df[t] + 0.5)));
    var fixes = null;
    for (i = 0; i < enc.fix.length; i++) {
      var fx = enc.fix[i];
      (fixes = fixes || Object.create(null))[fx[0] + ":" + fx[1] + ":" + fx[2]] = fx[3];
    }
    var postings = new Array(nFields), byDoc = new Array(nFields);
    function postingsOf(f) {
      if (!postings[f]) {
        var total = starts[f][nTerms], docs = new Int32Array(total);
        decodeGaps(enc.gaps[f], counts[f], nDocs, docs);
        postings[f] = { docs: docs, tfs: readVarints(enc.tf[f], total) };
      }
      return postings[f];
    }
    function byDocOf(f) {
      if (!byDoc[f]) byDoc[f] = transpose(starts[f], postingsOf(f).docs, postingsOf(f).tfs, nDocs);
      return byDoc[f];
    }
    function weights(f, d) {
      var data = byDocOf(f), from = data.docStarts[d], to = data.docStarts[d + 1], boost = enc.boosts[f];
      var docTerms = data.docTerms, docTfs = data.docTfs, elements = [];
      var norm = data.average ? k1 * (1 - b + b * (data.lengths[d] / data.average)) : 0;
      for (var i = from; i < to; i++) {
        var t = docTerms[i], freq = docTfs[i];
        var score = idf[t] * ((k1 + 1) * freq) / (norm + freq);
        score *= boost;
        var fixed = fixes ? fixes[f + ":" + d + ":" + t] : undefined;
        elements.push(t, fixed === undefined ? Math.floor(score * 1000 + 0.5) / 1000 : fixed);
      }
      return elements;
    }
    // A posting builds each field's object the first time lunr asks for it, then keeps it as
    // an own property; toJSON gives the full plain object, as Index.serialize() wrote it.
    var noMetadata = {};
    function Posting(t) { this._index = t; }
    fields.forEach(function (name, f) {
      Object.defineProperty(Posting.prototype, name, {
        configurable: true,
        get: function () {
          var value = {}, docs = postingsOf(f).docs, s = starts[f];
          for (var i = s[this._index], end = s[this._index + 1]; i < end; i++) value[refs[docs[i]]] = noMetadata;
          Object.defineProperty(this, name, { value: value, enumerable: true, writable: true, configurable: true });
          return value;
        }
      });
    });
    Posting.prototype.toJSON = function () {
      var plain = { _index: this._index };
      for (var f = 0; f < nFields; f++) plain[fields[f]] = this[fields[f]];
      return plain;
    };
    var invertedIndex = new Array(nTerms);
    for (t = 0; t < nTerms; t++) invertedIndex[t] = [terms[t], new Posting(t)];
    // Python sorts by code point, JavaScript by UTF-16 unit; they differ only past U+FFFF.
    for (t = 1; t < nTerms; t++) {
      if (terms[t - 1] > terms[t]) {
        invertedIndex.sort(function (x, y) { return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0; });
        break;
      }
    }
    // Term t's postings in field f: document numbers (ascending) and their weights, as weights() makes them.
    function postingList(f, t) {
      var p = postingsOf(f), s = starts[f], from = s[t], to = s[t + 1], data = byDocOf(f), boost = enc.boosts[f];
      var docs = p.docs.subarray(from, to), out = new Float64Array(to - from);
      for (var i = 0; i < docs.length; i++) {
        var d = docs[i], freq = p.tfs[from + i] + 1;
        var norm = data.average ? k1 * (1 - b + b * (data.lengths[d] / data.average)) : 0;
        var score = idf[t] * ((k1 + 1) * freq) / (norm + freq);
        score *= boost;
        var fixed = fixes ? fixes[f + ":" + d + ":" + t] : undefined;
        out[i] = fixed === undefined ? Math.floor(score * 1000 + 0.5) / 1000 : fixed;
      }
      return { docs: docs, weights: out };
    }
    return { enc: enc, fields: fields, refs: refs, terms: terms, counts: counts, df: df, invertedIndex: invertedIndex,
             weights: weights, postingList: postingList, warm: byDocOf };
  }

  // The compact form back into exactly the JSON Index.serialize() wrote.
  function expandIndex(enc) {
    var data = decode(enc), fields = data.fields, refs = data.refs, fieldVectors = [];
    for (var d = 0; d < refs.length; d++) {
      for (var f = 0; f < fields.length; f++) fieldVectors.push([fields[f] + "/" + refs[d], data.weights(f, d)]);
    }
    return { version: enc.version, fields: fields, fieldVectors: fieldVectors, invertedIndex: data.invertedIndex, pipeline: enc.pipeline };
  }

  // A lunr.Index from lunr.Index.load, with field vectors made on first use: lunr looks them up
  // by "field/ref" in index.fieldVectors, here a Proxy that computes and keeps each one (and
  // lists them all, in serialize() order, to Object.keys and toJSON).
  function loadIndex(lunr, enc) {
    register(lunr);
    var data = decode(enc), fields = data.fields, refs = data.refs;
    var index = lunr.Index.load({ version: enc.version, fields: fields, fieldVectors: [],
                                  invertedIndex: data.invertedIndex, pipeline: enc.pipeline });
    var fieldNumber = Object.create(null), refNumber = Object.create(null), made = Object.create(null), keys = null;
    fields.forEach(function (name, f) { fieldNumber[name] = f; });
    refs.forEach(function (ref, d) { refNumber[ref] = d; });
    function locate(key) {  // "field/ref" -> [field number, doc number], or null
      var slash = typeof key === "string" ? key.indexOf("/") : -1;
      if (slash < 0) return null;
      var f = fieldNumber[key.slice(0, slash)], d = refNumber[key.slice(slash + 1)];
      return f === undefined || d === undefined ? null : [f, d];
    }
    function vector(key) {
      if (key in made) return made[key];
      var at = locate(key);
      return at ? (made[key] = new lunr.Vector(data.weights(at[0], at[1]))) : undefined;
    }
    function allKeys() {
      if (!keys) {
        keys = [];
        for (var d = 0; d < refs.length; d++) for (var f = 0; f < fields.length; f++) keys.push(fields[f] + "/" + refs[d]);
      }
      return keys.slice();
    }
    index.fieldVectors = new Proxy(made, {
      get: function (target, key) { return vector(key); },
      has: function (target, key) { return locate(key) !== null; },
      ownKeys: allKeys,
      getOwnPropertyDescriptor: function (target, key) {  // an accessor: Object.keys makes no vectors
        return locate(key) ? { get: function () { return vector(key); }, enumerable: true, configurable: true } : undefined;
      }
    });
    index.papersite = { df: data.df, documents: refs.length, warm: function () { fields.forEach(function (n, f) { data.warm(f); }); } };
    return index;
  }

  // ---------------------------------------------------------------------------------------
  // Sources. A question a source cannot answer yet throws Missing: the names of the files to load.

  function Missing(names) { this.names = names; }

  // Python's order of strings: by code point (JavaScript's < compares UTF-16 units, which differ
  // past U+FFFF).
  function compareTerms(a, b) {
    var n = Math.min(a.length, b.length);
    for (var i = 0; i < n; i++) {
      var x = a.charCodeAt(i), y = b.charCodeAt(i);
      if (x === y) continue;
      if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff)) return a.codePointAt(i) - b.codePointAt(i);
      return x - y;
    }
    return a.length - b.length;
  }

  function codePoints(s) {
    var n = s.length;
    for (var i = 0; i < s.length; i++) { var c = s.charCodeAt(i); if (c >= 0xdc00 && c <= 0xdfff) n--; }
    return n;
  }

  // The first index i of sorted `terms` with terms[i] >= key.
  function lowerBound(terms, key) {
    var lo = 0, hi = terms.length;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (compareTerms(terms[mid], key) < 0) lo = mid + 1; else hi = mid; }
    return lo;
  }

  function startsWith(term, prefix) { return term.lastIndexOf(prefix, 0) === 0; }

  // One compact index (a site below search.SHARD_FROM papers) and its store: everything is loaded
  // up front, so nothing is ever missing but lunr.js, for query syntax. `env`: {load(path,
  // callback), global} (search.js; tests/js/load.js in Node).
  function IndexSource(enc, store, env) {
    var data = decode(enc);
    this.env = env;
    this.data = data;
    this.enc = enc;
    this.store = store;
    this.fields = data.fields;
    this.documents = data.refs.length;
    this.number = Object.create(null);
    for (var t = 0; t < data.terms.length; t++) this.number[data.terms[t]] = t;
    this.sorted = data.terms.slice().sort(compareTerms);
    this.index = null;
  }
  IndexSource.prototype.df = function (term) {
    var t = this.number[term];
    return t === undefined ? 0 : this.data.df[t];
  };
  IndexSource.prototype.count = function (term, f) {
    var t = this.number[term];
    return t === undefined ? 0 : this.data.counts[f][t];
  };
  IndexSource.prototype.termsWithPrefix = function (prefix) {
    var out = [];
    for (var i = lowerBound(this.sorted, prefix); i < this.sorted.length && startsWith(this.sorted[i], prefix); i++) out.push(this.sorted[i]);
    return out;
  };
  IndexSource.prototype.postings = function (term, f) { return this.data.postingList(f, this.number[term]); };
  IndexSource.prototype.need = function () { return []; };
  IndexSource.prototype.load = function (names, callback) { loadLunr(this.env, callback); };
  IndexSource.prototype.entry = function (d) {
    var ref = this.data.refs[d], doc = this.store.docs[ref];
    return doc ? entryOf(ref, doc[0], doc[1], doc.slice(2), this.store) : null;
  };
  // A result as search.js shows it. `rest`: [tag slugs, summary, venue, year, first authors as
  // [name, page slug or null], author count] (search.py: byline).
  function entryOf(ref, title, url, rest, store) {
    var author = store.author;
    return { ref: ref, title: title, url: url, tags: rest[0], summary: rest[1], venue: rest[2], year: rest[3], authorCount: rest[5],
             authors: rest[4].map(function (a) { return { name: a[0], url: a[1] === null ? null : author[0] + a[1] + author[1] }; }) };
  }
  IndexSource.prototype.allDocs = function () {
    var out = [];
    for (var d = 0; d < this.documents; d++) out.push(d);
    return out;
  };
  IndexSource.prototype.tagDocs = function (slug) {
    var self = this;
    return this.allDocs().filter(function (d) { var e = self.entry(d); return e && e.tags.indexOf(slug) >= 0; });
  };
  // lunr query syntax: lunr.js over the whole index (lunr.js loaded by `search` when this throws).
  IndexSource.prototype.syntaxSearch = function (text) {
    if (!lunrLib) throw new Missing(["lunr"]);
    if (!this.index) this.index = loadIndex(lunrLib, this.enc);
    var number = Object.create(null), refs = this.data.refs;
    for (var d = 0; d < refs.length; d++) number[refs[d]] = d;
    return this.index.search(fold(text)).map(function (r) {
      return { doc: number[r.ref], score: r.score, terms: termSet(Object.keys(r.matchData.metadata)) };
    });
  };

  var LUNR_JS = "assets/vendor/lunr.js";  // papersite/urls.py LUNR_JS

  var lunrWaiting = null;  // callbacks while lunr.js loads: it is loaded once, however many ask

  function loadLunr(env, callback) {
    if (lunrLib) { callback(null); return; }
    if (lunrWaiting) { lunrWaiting.push(callback); return; }
    lunrWaiting = [callback];
    env.load(LUNR_JS, function (error) {
      if (!error && !env.global.lunr) error = new Error("lunr.js did not load");
      if (!error) register(env.global.lunr);
      var callbacks = lunrWaiting;
      lunrWaiting = null;
      callbacks.forEach(function (cb) { cb(error); });
    });
  }

  function termSet(list) {
    var set = Object.create(null);
    list.forEach(function (t) { set[t] = true; });
    return set;
  }

  // ---------------------------------------------------------------------------------------
  // The as-you-type query (tests/support/search_query.py: the rules are explained there).

  var PREFIX_BOOST = 1, EXACT_BOOST = 10, FUZZY_BOOST = 3, FORM_BOOST = 10;
  var MAX_EXPANSIONS = 20, EXPANSION_BUDGET = 5000, MIN_PREFIX = 2, MIN_FUZZY = 4, FUZZY_KEEP = 2;
  var ALPHABET = "abcdefghijklmnopqrstuvwxyz";
  var COMMON_SHARE = 0.4, COMMON_MIN = 1000, COMMON_MAX = 20000, COMMON_FIELDS = ["title"];
  var QUERY_ONLY_FIELDS = ["venue", "year"];  // lunr_index.py QUERY_ONLY_FIELDS: never matched by plain words
  // A title's words as written, marked (lunr_index.py FORM_MARK, title_forms), in their own field.
  var FORM_MARK = "\u01c2", FORMS_FIELD = "forms", FORM_SHARE = 0.5;
  // Field clauses of the query syntax (search_query.py: field_query, rule 5): "author:bengio" is
  // "+authors:bengio", so a named field narrows the results.
  var FIELD_CLAUSE_RE = /(^|[ \t\n\r\f\v])([+-]?)(authors?|venue|year):/gi;
  var FIELD_NAMES = { author: "authors", authors: "authors", venue: "venue", year: "year" };
  // lunr's English stop words (lunr.stopWordFilter; tests/test_search.py checks the list).
  var STOP_WORDS = termSet(("a able about across after all almost also am among an and any are as at be because been but by " +
    "can cannot could dear did do does either else ever every for from get got had has have he her hers him his how however " +
    "i if in into is it its just least let like likely may me might most must my neither no nor not of off often on only " +
    "or other our own rather said say says she should since so some than that the their them then there these they this " +
    "tis to too twas us wants was we were what when where which while who whom why will with would yet you your").split(" "));

  // A colon makes a field clause only after a field's name, at a word's start ("title:diffusion",
  // "-author:bengio"); any other ("GMNN: Graph Markov Neural Networks", "3:1", a URL) separates
  // words, as it does in the index. A field's name with nothing after it, as while it is typed, is
  // left out (search_query.py: plain_colons).
  var FIELD_HEAD_RE = /^[+-]?(?:title|tags|authors?|body|venue|year):/i, TOKEN_RE = /[^ \t\n\r\f\v]+/g;
  function plainColons(text) {
    return String(text).replace(TOKEN_RE, function (token) {
      var head = FIELD_HEAD_RE.exec(token), kept = head ? head[0] : "";
      return kept.length === token.length && kept ? "" : kept + token.slice(kept.length).replace(/:/g, " ");
    });
  }

  function isSyntax(text) { return SYNTAX_RE.test(plainColons(text)); }

  function queryUnits(text) {
    var units = [];
    String(text).split(SPACE_SPLIT_RE).forEach(function (token) {
      compoundRuns(token, QUERY_RUN_RE).forEach(function (run) {
        if (run[0].length) units.push({ words: run[0], forms: compoundForms(run[0], run[1]) });
      });
    });
    return units;
  }

  function sameFrom(a, b, i, j) {  // a.slice(i) equals b.slice(j), arrays of code points
    if (a.length - i !== b.length - j) return false;
    for (; i < a.length; i++, j++) if (a[i] !== b[j]) return false;
    return true;
  }

  // a and b (arrays of code points) differ by one dropped, added or changed character or two swapped neighbours.
  function withinOneEdit(a, b) {
    if (Math.abs(a.length - b.length) > 1) return false;
    var i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    if (a.length === b.length) {
      if (i === a.length) return true;
      return sameFrom(a, b, i + 1, i + 1) ||
        (i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && sameFrom(a, b, i + 2, i + 2));
    }
    return a.length < b.length ? sameFrom(a, b, i, i + 1) : sameFrom(a, b, i + 1, i);
  }

  function variants(word) {
    var w = Array.from(word), n = w.length, out = [], i, c;
    function join(parts) { return parts.join(""); }
    for (i = FUZZY_KEEP; i <= n; i++) {
      for (c = 0; c < ALPHABET.length; c++) out.push(join(w.slice(0, i).concat([ALPHABET[c]], w.slice(i))));
      if (i < n) {
        out.push(join(w.slice(0, i).concat(w.slice(i + 1))));
        for (c = 0; c < ALPHABET.length; c++) {
          if (ALPHABET[c] !== w[i]) out.push(join(w.slice(0, i).concat([ALPHABET[c]], w.slice(i + 1))));
        }
        if (i + 1 < n && w[i] !== w[i + 1]) out.push(join(w.slice(0, i).concat([w[i + 1], w[i]], w.slice(i + 2))));
      }
    }
    return out;
  }

  function isCommon(source, term) {
    var df = source.df(term);
    return df > COMMON_MIN && (df > COMMON_SHARE * source.documents || df > COMMON_MAX);
  }

  function isForm(term) { return term.slice(-FORM_MARK.length) === FORM_MARK; }

  function fieldsFor(source, term) {
    var all = [], form = isForm(term), common = !form && isCommon(source, term);
    for (var f = 0; f < source.fields.length; f++) {
      var name = source.fields[f];
      if (form ? name === FORMS_FIELD
               : (!common || COMMON_FIELDS.indexOf(name) >= 0) && QUERY_ONLY_FIELDS.indexOf(name) < 0 && name !== FORMS_FIELD) all.push(f);
    }
    return all;
  }

  function fieldQuery(text) {
    return String(text).replace(FIELD_CLAUSE_RE, function (m, space, sign, name) {
      return space + (sign || "+") + FIELD_NAMES[name.toLowerCase()] + ":";
    });
  }

  function byLengthThenTerm(a, b) { return codePoints(a) - codePoints(b) || compareTerms(a, b); }

  // Shortest first, at most MAX_EXPANSIONS, skipping a term that would pass EXPANSION_BUDGET.
  function choose(source, candidates, exclude) {
    var list = Object.keys(candidates).filter(function (t) { return !(t in exclude); }).sort(byLengthThenTerm);
    var chosen = [], spent = 0;
    for (var i = 0; i < list.length && chosen.length < MAX_EXPANSIONS; i++) {
      var cost = 0;
      fieldsFor(source, list[i]).forEach(function (f) { cost += source.count(list[i], f); });
      if (spent + cost <= EXPANSION_BUDGET) { chosen.push(list[i]); spent += cost; }
    }
    return chosen;
  }

  function fuzzyCandidates(source, word, wordStems) {
    var keep = Array.from(word).slice(0, FUZZY_KEEP).join(""), found = Object.create(null);
    var starts = [word].concat(wordStems).map(function (s) { return Array.from(s); });
    source.termsWithPrefix(keep).forEach(function (t) {
      var points = Array.from(t);
      if (!isForm(t) && starts.some(function (s) { return withinOneEdit(points, s); })) found[t] = true;
    });
    variants(word).forEach(function (variant) {
      stems(variant).forEach(function (s) { if (startsWith(s, keep) && source.df(s)) found[s] = true; });
    });
    return found;
  }

  function wordGroup(source, word, last) {
    var stop = word in STOP_WORDS;
    if (stop && !last) return null;
    var group = { word: word, exact: [], forms: [], prefix: [], fuzzy: [], soft: false };
    var wordStems = stop ? [] : stems(word);
    group.exact = wordStems.filter(function (s) { return source.df(s) > 0; });
    group.soft = group.exact.some(function (s) { return isCommon(source, s); });
    group.forms = (stop ? [] : [word + FORM_MARK]).filter(function (form) { return tellsApart(source, form, group.exact); });
    if (last && codePoints(word) >= MIN_PREFIX) {
      // The word as typed begins them; its stem too when the index has no term for the word. A stem
      // that is a term already stands for the word's endings, and as a prefix it begins words the
      // reader is not typing ("generation" is "gener": "generalist", "generalized"; search_query.py).
      var found = Object.create(null);
      unique(group.exact.length ? [word] : [word].concat(wordStems)).forEach(function (start) {
        source.termsWithPrefix(start).forEach(function (t) { if (!isForm(t)) found[t] = true; });
      });
      group.prefix = choose(source, found, termSet(group.exact));
    }
    // A number is never misspelt: 1706 is not 1704 (search_query.py: word_group).
    if (!group.exact.length && !group.prefix.length && !stop && codePoints(word) >= MIN_FUZZY && !/[0-9]/.test(word)) {
      group.fuzzy = choose(source, fuzzyCandidates(source, word, wordStems), {});
    }
    return group;
  }

  // A form is looked up where it tells titles apart: fewer than FORM_SHARE of the titles with its
  // word's stem have it (search_query.py: tells_apart).
  function tellsApart(source, form, wordStems) {
    var df = source.df(form), title = source.fields.indexOf(COMMON_FIELDS[0]), most = 0;
    wordStems.forEach(function (s) { most = Math.max(most, source.count(s, title)); });
    return df > 0 && df < FORM_SHARE * most;
  }

  function unique(list) {
    var seen = Object.create(null), out = [];
    list.forEach(function (x) { if (!(x in seen)) { seen[x] = true; out.push(x); } });
    return out;
  }

  function planQuery(source, text) {
    var units = queryUnits(text), partial = text.length > 0 && !SPACE_RE.test(text), groups = [];
    units.forEach(function (unit, u) {
      var lastUnit = partial && u === units.length - 1;
      for (var i = 0; i < unit.forms.length; i++) {
        var group = wordGroup(source, unit.forms[i], lastUnit);
        if (group && (group.exact.length || group.prefix.length)) { groups.push(group); return; }
      }
      unit.words.forEach(function (word, i) {
        var group = wordGroup(source, word, lastUnit && i === unit.words.length - 1);
        if (group) groups.push(group);
      });
    });
    return groups;
  }

  function groupTerms(group) {
    var out = [], seen = Object.create(null);
    [[group.exact, EXACT_BOOST], [group.forms, FORM_BOOST], [group.prefix, PREFIX_BOOST], [group.fuzzy, FUZZY_BOOST]].forEach(function (kind) {
      kind[0].forEach(function (term) {
        if (!(term in seen)) { seen[term] = true; out.push([term, kind[1]]); }
      });
    });
    return out;
  }

  function clausesOf(source, groups) {
    var clauses = [];
    groups.forEach(function (g) {
      groupTerms(g).forEach(function (c) { clauses.push({ term: c[0], boost: c[1], fields: fieldsFor(source, c[0]) }); });
    });
    return clauses;
  }

  function popcount(x) {
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }

  // lunr's Index.query over the clauses (terms the index has, no wildcards), with its arithmetic
  // in its order: a query vector per field (boosts summed), each (field, document) scored as
  // dot(query, field vector) / |query|, the products summed in term order; a document's fields
  // summed in the order they first matched; results in the order documents first matched, then
  // sorted by score (a stable sort, as lunr's). search_query.py `score` is the same. Then the
  // ranking (search_query.py `rank`): results matching more of the words first (of the words
  // that must match, then of the common ones), by score within each: one stable sort. Which
  // words a document matched is kept as bits (32 words to an Uint32Array).
  // -> {results: [{doc, score, groups, common}] ranked, every: how many match every word that must}
  function score(source, clauses, groups) {
    var nDocs = source.documents, nFields = source.fields.length, f, i, b;
    var blocks = Math.max(1, Math.ceil(groups.length / 32)), masks = [], wanted = new Uint32Array(blocks), common = new Uint32Array(blocks);
    var termBits = Object.create(null);   // term -> the groups it belongs to, as bits
    groups.forEach(function (g, k) {
      var terms = groupTerms(g);
      if (!terms.length) return;
      (g.soft ? common : wanted)[k >> 5] |= 1 << (k & 31);
      terms.forEach(function (c) { (termBits[c[0]] || (termBits[c[0]] = new Uint32Array(blocks)))[k >> 5] |= 1 << (k & 31); });
    });
    for (b = 0; b < blocks; b++) masks.push(new Uint32Array(nDocs));
    var vectors = [], seen = Object.create(null), order = [], marked = new Uint8Array(nDocs * nFields);
    for (f = 0; f < nFields; f++) vectors.push(Object.create(null));
    clauses.forEach(function (clause) {
      var bits = termBits[clause.term];
      clause.fields.forEach(function (f) {
        var v = vectors[f];
        v[clause.term] = clause.term in v ? v[clause.term] + clause.boost : clause.boost;
        var key = clause.term + "/" + f;
        if (key in seen) return;
        seen[key] = true;
        var docs = source.postings(clause.term, f).docs;
        for (var i = 0; i < docs.length; i++) {
          var d = docs[i], at = f * nDocs + d;
          if (!marked[at]) { marked[at] = 1; order.push(at); }
          for (var b = 0; b < blocks; b++) masks[b][d] |= bits[b];
        }
      });
    });
    var dots = [], magnitude = [];
    for (f = 0; f < nFields; f++) {
      var terms = Object.keys(vectors[f]).sort(compareTerms), sum = 0, dot = new Float64Array(nDocs);
      for (i = 0; i < terms.length; i++) {
        var value = vectors[f][terms[i]], list = source.postings(terms[i], f);
        sum += value * value;
        for (var j = 0; j < list.docs.length; j++) dot[list.docs[j]] += value * list.weights[j];
      }
      dots.push(dot);
      magnitude.push(Math.sqrt(sum));
    }
    var results = [], byDoc = new Int32Array(nDocs).fill(-1), nWanted = 0;
    for (b = 0; b < blocks; b++) nWanted += popcount(wanted[b]);
    for (i = 0; i < order.length; i++) {
      f = Math.floor(order[i] / nDocs);
      var d = order[i] - f * nDocs, s = dots[f][d] / magnitude[f] || 0;
      if (byDoc[d] >= 0) { results[byDoc[d]].score += s; continue; }
      var r = { doc: d, score: s, groups: 0, common: 0, position: results.length };
      for (b = 0; b < blocks; b++) { r.groups += popcount(masks[b][d] & wanted[b]); r.common += popcount(masks[b][d] & common[b]); }
      byDoc[d] = results.length;
      results.push(r);
    }
    results.sort(function (x, y) { return y.groups - x.groups || y.common - x.common || y.score - x.score || x.position - y.position; });
    var every = 0;
    for (i = 0; i < results.length && results[i].groups === nWanted; i++) every++;
    return { results: results, every: every };
  }

  // The index terms result `r` of a typed query matched (for highlighting): the clauses' terms
  // whose postings, in the clauses' fields, hold its document.
  function matchedTerms(source, clauses, r) {
    var terms = Object.create(null);
    clauses.forEach(function (c) {
      if (c.term in terms) return;
      c.fields.forEach(function (f) {
        var docs = source.postings(c.term, f).docs, lo = 0, hi = docs.length;
        while (lo < hi) { var mid = (lo + hi) >> 1; if (docs[mid] < r.doc) lo = mid + 1; else hi = mid; }
        if (lo < docs.length && docs[lo] === r.doc) terms[c.term] = true;
      });
    });
    return terms;
  }

  // -> {results: [{doc, score, groups, common}], mode: "syntax" | "all" | "some" | "any" | "none",
  //     every: results (the first ones) matching every word, fuzzy: words matched by close
  //     spellings, unmatched: words nothing matched, error, terms(result): the index terms it
  //     matched}. Throws Missing.
  function runQuery(source, text) {
    var none = { results: [], mode: "none", every: 0, fuzzy: [], unmatched: [], error: null };
    text = plainColons(text);
    if (!text.trim()) return none;
    if (isSyntax(text)) {
      try {
        return { results: source.syntaxSearch(fieldQuery(text)), mode: "syntax", every: 0, fuzzy: [], unmatched: [], error: null,
                 terms: function (r) { return r.terms; } };
      } catch (err) {
        if (lunrLib && (err instanceof lunrLib.QueryParseError || err.name === "QueryParseError")) {
          return { results: [], mode: "syntax", every: 0, fuzzy: [], unmatched: [], error: err.message };
        }
        throw err;
      }
    }
    var groups = planQuery(source, text), clauses = clausesOf(source, groups);
    var unmatched = groups.filter(function (g) { return !groupTerms(g).length && !(g.word in STOP_WORDS); }).map(function (g) { return g.word; });
    if (!clauses.length) return { results: [], mode: "none", every: 0, fuzzy: [], unmatched: unmatched, error: null };
    var wanted = source.need(clauses);
    if (wanted.length) throw new Missing(wanted);
    var scored = score(source, clauses, groups), results = scored.results, every = scored.every;
    return {
      results: results, every: every, error: null, unmatched: unmatched,
      mode: !results.length ? "none" : every === results.length ? "all" : every ? "some" : "any",
      fuzzy: groups.filter(function (g) { return g.fuzzy.length; }).map(function (g) { return g.word; }),
      terms: function (r) { return r.terms || (r.terms = matchedTerms(source, clauses, r)); }
    };
  }

  // runQuery, loading what the source lacks first: callback(outcome) (at once when nothing is
  // missing, as with one index), or callback(null, error) when a file cannot be loaded.
  function search(source, text, callback) {
    var tries = 0, first = source.prefetch && !isSyntax(text) ? source.prefetch(lookups(text)) : [];
    if (first.length) source.load(first, function (error) { if (error) callback(null, error); else attempt(); });
    else attempt();
    function attempt() {
      var outcome;
      try {
        outcome = runQuery(source, text);
      } catch (err) {
        if (!(err instanceof Missing) || ++tries > 12) { callback(null, err); return; }
        source.load(err.names, function (error) { if (error) callback(null, error); else attempt(); });
        return;
      }
      callback(outcome, null);
    }
  }

  // What planning a typed query looks up first, known from its text alone: {terms: every form,
  // word and stem, prefixes: what the word being typed may begin}. A sharded source loads their
  // buckets in one round before the query runs.
  function lookups(text) {
    var units = queryUnits(text), partial = text.length > 0 && !SPACE_RE.test(text), terms = [], prefixes = [];
    units.forEach(function (unit, u) {
      var last = partial && u === units.length - 1;
      unit.forms.concat(unit.words).forEach(function (word, i) {
        var wordStems = stems(word);
        terms.push.apply(terms, wordStems.concat([word + FORM_MARK]));
        if (last && (i < unit.forms.length || i === unit.forms.length + unit.words.length - 1) && codePoints(word) >= MIN_PREFIX) {
          prefixes.push.apply(prefixes, unique([word].concat(wordStems)));
        }
      });
    });
    return { terms: unique(terms), prefixes: unique(prefixes) };
  }

  // The store entries of documents `docs`: callback(entries) once loaded (one index: at once), or
  // callback(null, error).
  function entries(source, docs, callback) {
    var missing = Object.create(null), out = [];
    docs.forEach(function (d) {
      try {
        out.push(source.entry(d));
      } catch (err) {
        if (!(err instanceof Missing)) throw err;
        err.names.forEach(function (name) { missing[name] = true; });
      }
    });
    var names = Object.keys(missing);
    if (!names.length) { callback(out, null); return; }
    source.load(names, function (error) {
      if (error) { callback(null, error); return; }
      try { out = docs.map(function (d) { return source.entry(d); }); } catch (err) { callback(null, err); return; }
      callback(out, null);
    });
  }

  // ---------------------------------------------------------------------------------------
  // Highlighting shown text (static/search.js): the words a result matched, found the way the
  // index found them.

  // Words at even positions, what separates them at odd ones.
  function displayParts(text) {
    return String(text).split(DISPLAY_SPLIT_RE);
  }

  // The parts of a word that mixes capitals ("HyperGAN": Hyper, GAN), as the index has them
  // (lunr_index.py: camel_parts).
  var CAMEL_WORD_RE = /^[A-Za-z0-9]*(?:[a-z][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*$/;
  var CAMEL_PART_RE = /[A-Z]+(?=[A-Z][a-z]{2})|[A-Z]?[a-z]+|[A-Z]+[a-z]?|[0-9]+/g;

  // `terms`: the index terms a result matched. A word is matched by itself, its stem, the
  // joined form of its compounds or one of its capitalised parts.
  function wordMatches(word, terms) {
    var words = tokenWords(word);
    if (CAMEL_WORD_RE.test(word)) words = words.concat((word.match(CAMEL_PART_RE) || []).filter(function (p) { return p.length >= 3; }).map(fold));
    for (var i = 0; i < words.length; i++) {
      if (words[i] in terms || stemWord(words[i]) in terms) return true;
    }
    return false;
  }

  // A compound shown as words and hyphens ("Off-Policy"): matched by its joined form alone.
  function compoundMatches(words, terms) {
    var joined = fold(words.join("")).replace(APOSTROPHE_RE, "");
    return joined in terms || stemWord(joined) in terms;
  }

  var api = global.PapersiteSearch = global.PapersiteSearch || {};
  api.FORMAT = FORMAT;
  api.fold = fold;
  api.normaliseWords = normaliseWords;
  api.tokenWords = tokenWords;
  api.stemWord = stemWord;
  api.stems = stems;
  api.register = register;
  api.expandIndex = expandIndex;
  api.loadIndex = loadIndex;
  api.IndexSource = IndexSource;
  api.entryOf = entryOf;
  api.Missing = Missing;
  api.compareTerms = compareTerms;
  api.lowerBound = lowerBound;
  api.startsWith = startsWith;
  api.termSet = termSet;
  api.loadLunr = loadLunr;
  api.decode = decode;
  api.readVarints = readVarints;
  api.decodeGaps = decodeGaps;
  api.frontDecode = frontDecode;
  api.runQuery = runQuery;
  api.planQuery = planQuery;
  api.search = search;
  api.entries = entries;
  api.isSyntax = isSyntax;
  api.isStopWord = function (word) { return word in STOP_WORDS; };
  api.isForm = isForm;
  api.lookups = lookups;
  api.displayParts = displayParts;
  api.wordMatches = wordMatches;
  api.compoundMatches = compoundMatches;
  api.lunr = function () { return lunrLib; };
})(typeof window !== "undefined" ? window : this);
