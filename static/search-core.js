// Search, the half that must agree with the Python build: text normalisation, the stemmer, the
// compact index and the as-you-type query. static/search.js (the header box and the results page)
// loads this file with a <script> element on first use of a search box, so a plain page view
// never fetches it.
//
// It mirrors Python function for function: `fold`, `normaliseWords` and the pipelines
// (papersite/publish/lunr_index.py), `stemWord` (a port of lunr.py's Porter stemmer, which
// differs from lunr.js's), the compact index (papersite/publish/search_codec.py encodes it;
// `expandIndex` decodes it to exactly the JSON that lunr.py's Index.serialize() wrote, and
// `loadIndex` hands it to lunr.Index.load with the costly parts decoded on first use) and the
// query (`runSearch`; tests/support/search_oracle.py has the same steps in Python). Both pipeline
// functions are registered under the names the index's pipeline uses ("normalise", "stemmer").
// Change one side, change the other; tests/test_search.py runs both over the same files and
// compares.
//
// Everything is exposed on window.PapersiteSearch, the object search.js also fills in (whichever
// runs first creates it). No DOM here: tests/js/ runs this file in Node.
(function (global) {
  "use strict";

  var FORMAT = 1;

  // ---------------------------------------------------------------------------------------
  // Normalisation (papersite/publish/lunr_index.py: fold, normalise_words).

  var LETTER_FOLDS = { "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d",
                       "þ": "th", "ı": "i", "ħ": "h", "ŀ": "l", "ς": "σ" };
  var LETTER_FOLD_RE = /[ßæœøłđðþıħŀς]/g;
  var COMBINING_RE = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;
  var APOSTROPHE_RE = /['\u2019\u02bc]/g;
  var SEPARATOR_RE = /[\x00-\x2f\x3a-\x60\x7b-\xbf\xd7\xf7\u2000-\u2bff\u2e00-\u2e7f\u3000-\u303f\ufe10-\ufe1f\ufe30-\ufe6f\uff00-\uffff]+/;
  // For highlighting shown text: the same separators, except that capitals and apostrophes are
  // part of words (they are folded or dropped, not split on).
  var DISPLAY_SPLIT_RE = /([\x00-\x26\x28-\x2f\x3a-\x40\x5b-\x60\x7b-\xbf\xd7\xf7\u2000-\u2018\u201a-\u2bff\u2e00-\u2e7f\u3000-\u303f\ufe10-\ufe1f\ufe30-\ufe6f\uff00-\uffff]+)/;
  var MAX_WORD = 64;
  var SPACE_RE = /[ \t\n\r\f\v]$/;
  var SYNTAX_RE = /[:~^*+]|(^|[ \t\n\r\f\v])-[^ \t\n\r\f\v]/;

  function fold(text) {
    text = String(text).toLowerCase().normalize("NFKD").replace(COMBINING_RE, "").toLowerCase();
    return text.replace(LETTER_FOLD_RE, function (c) { return LETTER_FOLDS[c]; });
  }

  function capWord(word) {
    if (word.length <= MAX_WORD) return word;
    var points = Array.from(word);
    return points.length > MAX_WORD ? points.slice(0, MAX_WORD).join("") : word;
  }

  function normaliseWords(text) {
    var parts = fold(text).replace(APOSTROPHE_RE, "").split(SEPARATOR_RE), words = [];
    for (var i = 0; i < parts.length; i++) if (parts[i]) words.push(capWord(parts[i]));
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
  // lunr pipeline functions, registered under the names the index's pipeline lists.

  var lunrLib = null;

  function normalisePipeline(token) {
    var words = normaliseWords(token.toString());
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
    return { enc: enc, fields: fields, refs: refs, df: df, invertedIndex: invertedIndex, weights: weights, warm: byDocOf };
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
  // The as-you-type query (tests/support/search_oracle.py: plan_query, add_fuzzy, run_groups,
  // search; the comment there explains the rules).

  var PREFIX_BOOST = 1, EXACT_BOOST = 10, FUZZY_BOOST = 0.2;
  var MAX_EXPANSIONS = 40, MIN_PREFIX = 2, MIN_FUZZY = 4, FEW_RESULTS = 3;
  var COMMON_SHARE = 0.4, COMMON_MIN = 1000, COMMON_FIELDS = ["title"];

  function codePoints(s) { return Array.from(s).length; }

  function shortestFirst(terms) {
    var keyed = terms.map(function (t) { return [codePoints(t), t]; });
    keyed.sort(function (x, y) { return x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0); });
    return keyed.slice(0, MAX_EXPANSIONS).map(function (x) { return x[1]; });
  }

  function unique(list) {
    var seen = Object.create(null), out = [];
    list.forEach(function (x) { if (!(x in seen)) { seen[x] = true; out.push(x); } });
    return out;
  }

  function expand(index, tokenSet, found, exclude) {
    var terms = index.tokenSet.intersect(tokenSet).toArray();
    for (var i = 0; i < terms.length; i++) if (!(terms[i] in exclude)) found[terms[i]] = true;
  }

  function isStopWord(word) {
    return !lunrLib.stopWordFilter(new lunrLib.Token(word));
  }

  // Per index: the number of documents and, from expandIndex, lunr's document frequencies.
  function stats(index) {
    if (!index.papersite) index.papersite = { documents: Object.keys(index.fieldVectors).length / index.fields.length, df: null };
    return index.papersite;
  }

  // lunr's own count for idf: documents with the term, once per field.
  function documentFrequency(index, term) {
    var posting = index.invertedIndex[term], df = stats(index).df;
    if (df) return df[posting._index];
    return index.fields.reduce(function (n, f) { return n + Object.keys(posting[f]).length; }, 0);
  }

  function isCommon(index, term) {
    var df = documentFrequency(index, term);
    return df > COMMON_MIN && df > COMMON_SHARE * stats(index).documents;
  }

  function planQuery(index, text) {
    var words = normaliseWords(text), partial = text.length > 0 && !SPACE_RE.test(text), groups = [];
    for (var i = 0; i < words.length; i++) {
      var word = words[i], last = partial && i === words.length - 1, stop = isStopWord(word);
      if (stop && !last) continue;
      var group = { word: word, stems: stop ? [] : index.pipeline.runString(word), exact: [], prefix: [], fuzzy: [], soft: false };
      group.exact = group.stems.filter(function (s) { return s in index.invertedIndex; });
      group.soft = group.exact.some(function (s) { return isCommon(index, s); });
      if (last && codePoints(word) >= MIN_PREFIX) {
        var found = Object.create(null), taken = Object.create(null);
        group.exact.forEach(function (s) { taken[s] = true; });
        unique([word].concat(group.stems)).forEach(function (start) {
          expand(index, lunrLib.TokenSet.fromString(start + "*"), found, taken);
        });
        group.prefix = shortestFirst(Object.keys(found));
      }
      groups.push(group);
    }
    return groups;
  }

  function addFuzzy(index, groups) {
    var added = false;
    groups.forEach(function (group) {
      if (codePoints(group.word) < MIN_FUZZY) return;
      var found = Object.create(null), taken = Object.create(null);
      group.exact.concat(group.prefix).forEach(function (s) { taken[s] = true; });
      unique(group.stems.concat([group.word])).forEach(function (start) {
        expand(index, lunrLib.TokenSet.fromFuzzyString(start, 1), found, taken);
      });
      group.fuzzy = shortestFirst(Object.keys(found));
      added = added || group.fuzzy.length > 0;
    });
    return added;
  }

  function groupTerms(group) {
    var out = [], seen = Object.create(null);
    [[group.exact, EXACT_BOOST], [group.prefix, PREFIX_BOOST], [group.fuzzy, FUZZY_BOOST]].forEach(function (kind) {
      kind[0].forEach(function (term) {
        if (!(term in seen)) { seen[term] = true; out.push([term, kind[1]]); }
      });
    });
    return out;
  }

  function runGroups(index, groups) {
    var clauses = [], wanted = [];
    var commonFields = index.fields.filter(function (f) { return COMMON_FIELDS.indexOf(f) >= 0; });
    groups.forEach(function (g) {
      var terms = groupTerms(g), set = Object.create(null);
      terms.forEach(function (c) { clauses.push(c); set[c[0]] = true; });
      if (terms.length && !g.soft) wanted.push(set);
    });
    if (!clauses.length) return { every: [], all: [] };
    var results = index.query(function (q) {
      clauses.forEach(function (c) {
        var options = { usePipeline: false, boost: c[1] };
        if (isCommon(index, c[0])) options.fields = commonFields;
        q.term(c[0], options);
      });
    });
    var every = results.filter(function (r) {
      var matched = Object.keys(r.matchData.metadata);
      return wanted.every(function (set) { return matched.some(function (t) { return t in set; }); });
    });
    return { every: every, all: results };
  }

  // -> {results: lunr results, mode: "syntax" | "all" | "any" | "none", fuzzy, error}
  function runSearch(index, text) {
    if (!String(text).trim()) return { results: [], mode: "none", fuzzy: false, error: null };
    if (SYNTAX_RE.test(text)) {
      try {
        return { results: index.search(fold(text)), mode: "syntax", fuzzy: false, error: null };
      } catch (err) {
        if (err instanceof lunrLib.QueryParseError) return { results: [], mode: "syntax", fuzzy: false, error: err.message };
        throw err;
      }
    }
    var groups = planQuery(index, text), fuzzy = false;
    var found = runGroups(index, groups);
    if (found.every.length < FEW_RESULTS && addFuzzy(index, groups)) {
      fuzzy = true;
      found = runGroups(index, groups);
    }
    if (found.every.length) return { results: found.every, mode: "all", fuzzy: fuzzy, error: null };
    if (found.all.length) return { results: found.all, mode: "any", fuzzy: fuzzy, error: null };
    return { results: [], mode: "none", fuzzy: fuzzy, error: null };
  }

  // ---------------------------------------------------------------------------------------
  // Highlighting shown text (static/search.js): the words a result matched, found the way the
  // index found them.

  // Words at even positions, what separates them at odd ones.
  function displayParts(text) {
    return String(text).split(DISPLAY_SPLIT_RE);
  }

  // `terms`: the index terms a result matched (the keys of lunr's matchData.metadata).
  function wordMatches(word, terms) {
    var words = normaliseWords(word);
    for (var i = 0; i < words.length; i++) {
      if (words[i] in terms || stemWord(words[i]) in terms) return true;
    }
    return false;
  }

  var api = global.PapersiteSearch = global.PapersiteSearch || {};
  api.FORMAT = FORMAT;
  api.fold = fold;
  api.normaliseWords = normaliseWords;
  api.stemWord = stemWord;
  api.register = register;
  api.expandIndex = expandIndex;
  api.loadIndex = loadIndex;
  api.runSearch = runSearch;
  api.planQuery = planQuery;
  api.displayParts = displayParts;
  api.wordMatches = wordMatches;
})(typeof window !== "undefined" ? window : this);
