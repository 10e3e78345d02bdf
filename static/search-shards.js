// Search on a sharded site: the source search-core.js queries when the site has more papers than
// papersite/publish/search.py SHARD_FROM. static/search.js loads this file when search-index.js
// turns out to hold the shards' meta; everything else is loaded as a query needs it (papersite/publish/search_shards.py
// describes the files; tests/support/shard_oracle.py reads them the same way in Python).
//
// Each file registers itself in window.PAPERSITE_SEARCH under its name. The source decodes a file
// the first time a query asks for something in it; a question about a file not loaded yet throws
// search-core.js `Missing` with the names of every file that question needs, and search-core.js
// `search` loads them (`load`) and asks again. A query so loads, in at most four rounds: the
// dictionary buckets of its words (and, for a misspelt word, the buckets of its first letters),
// then the postings files of its terms, then the store chunks of the results shown.
(function (global) {
  "use strict";

  var api = global.PapersiteSearch = global.PapersiteSearch || {};
  var REGISTRY = "PAPERSITE_SEARCH", DIRECTORY = "assets/search/", FORMAT = 1;
  var NAME_CHARACTERS = /^[a-z0-9]$/, MAX_NAME = 64;

  // A term or bucket key as a file name (search_shards.py: file_name).
  function fileName(term) {
    var name = "", points = Array.from(term);
    points.forEach(function (c) { name += NAME_CHARACTERS.test(c) ? c : "_" + c.codePointAt(0).toString(16) + "_"; });
    if (name.length <= MAX_NAME) return name;
    var h = 0x811c9dc5;
    points.forEach(function (c) { h = Math.imul(h ^ c.codePointAt(0), 0x01000193) >>> 0; });
    return name.slice(0, MAX_NAME - 9) + "~" + ("0000000" + h.toString(16)).slice(-8);
  }

  // lunr.py's round(x, 3), exactly: the decimal nearest x, ties to even. Near a half, toFixed,
  // which rounds the exact binary value (only exact ties, x * 16 an odd integer, need the even
  // rule); elsewhere x * 1000 is far enough from a half for its rounding error not to matter.
  function round3(x) {
    var scaled = x * 1000, n = Math.floor(scaled), frac = scaled - n;
    if (Math.abs(frac - 0.5) > 1e-6) return (frac < 0.5 ? n : n + 1) / 1000;  // far from a half: the nearest is clear
    var y = x * 16;
    if (y === Math.floor(y) && y % 2 === 1) { var n = Math.floor(x * 1000); return (n % 2 === 0 ? n : n + 1) / 1000; }
    return +x.toFixed(3);
  }

  // `meta`: the shards' meta (search-index.js's `shards`); `store`: search-store.js's value (the
  // pages, the topics, the papers' URL pattern); `env`: {load(path, callback), global} (search.js;
  // tests/js/load.js).
  function ShardSource(meta, store, env) {
    if (!meta || meta.v !== FORMAT) throw new Error("search shards format " + (meta && meta.v) + " is not " + FORMAT);
    this.meta = meta;
    this.store = store;
    this.env = env;
    this.fields = meta.fields;
    this.documents = meta.docs;
    this.keys = api.frontDecode(meta.buckets);
    this.buckets = Object.create(null);
    this.lists = Object.create(null);
    this.tokenSets = Object.create(null);
  }

  ShardSource.prototype.file = function (name) {
    var registry = this.env.global[REGISTRY];
    return registry && registry[name];
  };

  // Loads the named files (or lunr.js, named "lunr") in parallel; callback(error or null).
  ShardSource.prototype.load = function (names, callback) {
    var left = names.length, failed = null, self = this;
    if (!left) { callback(null); return; }
    names.forEach(function (name) {
      function done(error) {
        failed = failed || error;
        if (--left === 0) callback(failed);
      }
      if (name === "lunr") api.loadLunr(self.env, done);
      else if (self.file(name)) done(null);
      else self.env.load(DIRECTORY + name + ".js", done);
    });
  };

  // --- the dictionary ------------------------------------------------------------------------

  ShardSource.prototype.bucketOf = function (term) {
    var lo = 0, hi = this.keys.length;   // the last key <= term
    while (lo < hi) { var mid = (lo + hi) >> 1; if (api.compareTerms(this.keys[mid], term) <= 0) lo = mid + 1; else hi = mid; }
    return lo - 1;
  };

  ShardSource.prototype.bucketName = function (n) { return "d-" + (fileName(this.keys[n]) || "_"); };

  // Buckets `numbers`, decoded; throws Missing with every one not loaded yet.
  ShardSource.prototype.bucketsFor = function (numbers) {
    var self = this, missing = [];
    numbers.forEach(function (n) { if (!(n in self.buckets) && !self.file(self.bucketName(n))) missing.push(self.bucketName(n)); });
    if (missing.length) throw new api.Missing(missing);
    return numbers.map(function (n) { return self.bucket(n); });
  };

  ShardSource.prototype.bucket = function (n) {
    if (n in this.buckets) return this.buckets[n];
    var raw = this.file(this.bucketName(n));
    if (!raw) throw new api.Missing([this.bucketName(n)]);
    var terms = api.frontDecode(raw.terms), inline = this.meta.inline, nDocs = this.documents, f, t;
    var bucket = { terms: terms, index: Object.create(null), counts: [], inline: [] };
    for (t = 0; t < terms.length; t++) bucket.index[terms[t]] = t;
    for (f = 0; f < this.fields.length; f++) {
      var counts = api.readVarints(raw.counts[f], terms.length), small = new Int32Array(terms.length), starts = new Int32Array(terms.length + 1), total = 0;
      for (t = 0; t < terms.length; t++) {
        starts[t] = total;
        if (counts[t] <= inline) { small[t] = counts[t]; total += counts[t]; }
      }
      starts[terms.length] = total;
      var docs = new Int32Array(total);
      api.decodeGaps(raw.gaps[f], small, nDocs, docs);
      bucket.counts.push(counts);
      bucket.inline.push({ starts: starts, docs: docs, tfs: api.readVarints(raw.tf[f], total), lengths: api.readVarints(raw.len[f], total),
                           fixes: Object.create(null) });
    }
    raw.fix.forEach(function (fx) { bucket.inline[fx[0]].fixes[fx[1] + ":" + fx[2]] = fx[3]; });
    this.buckets[n] = bucket;
    return bucket;
  };

  // The buckets not loaded yet of search-core.js `lookups`: the terms and prefixes a query's text names.
  ShardSource.prototype.prefetch = function (wanted) {
    var self = this, numbers = Object.create(null), missing = [];
    if (!this.keys.length) return [];
    wanted.terms.forEach(function (term) { numbers[self.bucketOf(term)] = true; });
    wanted.prefixes.forEach(function (prefix) { self.bucketsWithPrefix(prefix).forEach(function (n) { numbers[n] = true; }); });
    Object.keys(numbers).forEach(function (n) {
      if (!(n in self.buckets) && !self.file(self.bucketName(+n))) missing.push(self.bucketName(+n));
    });
    return missing;
  };

  ShardSource.prototype.lookup = function (term) {
    if (!this.keys.length) return null;
    var bucket = this.bucket(this.bucketOf(term)), t = bucket.index[term];
    return t === undefined ? null : { bucket: bucket, t: t };
  };

  ShardSource.prototype.df = function (term) {
    var at = this.lookup(term), n = 0;
    if (at) for (var f = 0; f < this.fields.length; f++) n += at.bucket.counts[f][at.t];
    return n;
  };

  ShardSource.prototype.count = function (term, f) {
    var at = this.lookup(term);
    return at ? at.bucket.counts[f][at.t] : 0;
  };

  // The buckets that can hold terms beginning with `prefix`.
  ShardSource.prototype.bucketsWithPrefix = function (prefix) {
    if (!this.keys.length) return [];
    var numbers = [Math.max(0, this.bucketOf(prefix))];
    while (numbers[numbers.length - 1] + 1 < this.keys.length && api.startsWith(this.keys[numbers[numbers.length - 1] + 1], prefix)) {
      numbers.push(numbers[numbers.length - 1] + 1);
    }
    return numbers;
  };

  ShardSource.prototype.termsWithPrefix = function (prefix) {
    var out = [];
    this.bucketsFor(this.bucketsWithPrefix(prefix)).forEach(function (bucket) {
      var terms = bucket.terms;
      for (var i = api.lowerBound(terms, prefix); i < terms.length && api.startsWith(terms[i], prefix); i++) out.push(terms[i]);
    });
    return out;
  };

  // --- postings and weights ------------------------------------------------------------------

  ShardSource.prototype.listName = function (term, f) { return "p" + f + "-" + fileName(term); };

  // The postings files the clauses need and that are not loaded (search-core.js: runQuery).
  ShardSource.prototype.need = function (clauses) {
    var self = this, missing = Object.create(null);
    clauses.forEach(function (c) {
      c.fields.forEach(function (f) {
        if (self.count(c.term, f) > self.meta.inline && !self.file(self.listName(c.term, f))) missing[self.listName(c.term, f)] = true;
      });
    });
    return Object.keys(missing);
  };

  // Term `term`'s postings in field f: {docs, weights}, the weights as lunr.py's Builder made them.
  ShardSource.prototype.postings = function (term, f) {
    var key = f + "/" + term;
    if (key in this.lists) return this.lists[key];
    var at = this.lookup(term);
    if (!at) return { docs: new Int32Array(0), weights: new Float64Array(0) };
    var count = at.bucket.counts[f][at.t], docs, tfs, lengths, fixes = Object.create(null), i;
    if (count <= this.meta.inline) {
      var inline = at.bucket.inline[f], from = inline.starts[at.t];
      docs = inline.docs.subarray(from, from + count);
      tfs = inline.tfs.subarray(from, from + count);
      lengths = inline.lengths.subarray(from, from + count);
      for (i = 0; i < count; i++) if ((at.t + ":" + i) in inline.fixes) fixes[i] = inline.fixes[at.t + ":" + i];
    } else {
      var entriesOfFile = this.file(this.listName(term, f));
      if (!entriesOfFile) throw new api.Missing([this.listName(term, f)]);
      var entry = entriesOfFile.filter(function (e) { return e[0] === term; })[0];
      docs = new Int32Array(count);
      api.decodeGaps(entry[1], [count], this.documents, docs);
      tfs = api.readVarints(entry[2], count);
      lengths = api.readVarints(entry[3], count);
      entry[4].forEach(function (fx) { fixes[fx[0]] = fx[1]; });
    }
    var df = this.df(term), n = this.documents, meta = this.meta, k1 = meta.k1, b = meta.b;
    var idf = Math.log(1 + Math.abs((n - df + 0.5) / (df + 0.5))), boost = meta.boosts[f], average = meta.average[f];
    var siteDocs = new Int32Array(count), weights = new Float64Array(count);
    for (i = 0; i < count; i++) {
      var tf = tfs[i] + 1, score = idf * ((k1 + 1) * tf) / (k1 * (1 - b + b * (lengths[i] / average)) + tf);
      score *= boost;
      siteDocs[count - 1 - i] = this.siteNumber(docs[i]);   // ascending in site order too
      weights[count - 1 - i] = i in fixes ? fixes[i] : round3(score);
    }
    return (this.lists[key] = { docs: siteDocs, weights: weights });
  };

  // The files number documents in reverse site order (search_shards.py: an added volume leaves the
  // other numbers as they were); a number in the files and the site's number are each other's.
  ShardSource.prototype.siteNumber = function (d) { return this.documents - 1 - d; };

  // --- the store -----------------------------------------------------------------------------

  ShardSource.prototype.entry = function (d) {
    var n = this.siteNumber(d), chunk = this.file("s-" + Math.floor(n / this.meta.chunk));
    if (!chunk) throw new api.Missing(["s-" + Math.floor(n / this.meta.chunk)]);
    var doc = chunk[n % this.meta.chunk], paper = this.store.paper;
    return doc ? api.entryOf(doc[0], doc[1], paper[0] + doc[0] + paper[1], doc.slice(2), this.store) : null;
  };

  // Every document, or a topic's (its file is loaded on first use).
  ShardSource.prototype.allDocs = function () {
    var out = [];
    for (var d = 0; d < this.documents; d++) out.push(d);
    return out;
  };

  ShardSource.prototype.tagDocs = function (slug) {
    var raw = this.file("t-" + slug);
    if (!raw) throw new api.Missing(["t-" + slug]);
    var gaps = api.readVarints(raw.gaps, raw.count), out = [], d = -1;
    for (var i = 0; i < gaps.length; i++) out.push(this.siteNumber(d += gaps[i] + 1));
    return out.reverse();
  };

  // --- lunr query syntax ---------------------------------------------------------------------

  // lunr.js's Index.search over an Index of what the query can reach (shard_oracle.py: the same):
  // the dictionary buckets of each clause's term (of its prefix, for a trailing wildcard; all of
  // them for a leading wildcard or an edit distance), the terms lunr expands the clauses to in
  // them, and those terms' postings in the clauses' fields.
  ShardSource.prototype.syntaxSearch = function (text) {
    var lunr = api.lunr();
    if (!lunr) throw new api.Missing(["lunr"]);
    var self = this, query = new lunr.Query(this.fields), q = api.fold(text);
    new lunr.QueryParser(q, query).parse();
    var numbers = Object.create(null), plans = [];
    query.clauses.forEach(function (clause) {
      (clause.usePipeline ? api.stems(clause.term) : [clause.term]).forEach(function (term) {
        var star = term.indexOf("*"), found;
        if (clause.editDistance || (star >= 0 && star < term.replace(/\*+$/, "").length)) {
          found = self.keys.map(function (k, n) { return n; });
        } else if (star >= 0) {
          found = self.bucketsWithPrefix(term.slice(0, star));
        } else {
          found = self.keys.length ? [self.bucketOf(term)] : [];
        }
        found.forEach(function (n) { numbers[n] = true; });
        plans.push({ clause: clause, term: term });
      });
    });
    var wanted = Object.keys(numbers).map(Number).sort(function (x, y) { return x - y; }), key = wanted.join(" ");
    var buckets = this.bucketsFor(wanted), tokenSet = this.tokenSets[key], reach = Object.create(null);
    if (!tokenSet) {   // kept: the whole dictionary's, for an edit distance, is costly to make
      var terms = [];
      buckets.forEach(function (bucket) { terms = terms.concat(bucket.terms); });
      terms.sort();  // lunr.TokenSet wants JavaScript's order
      tokenSet = this.tokenSets[key] = lunr.TokenSet.fromArray(terms);
    }
    plans.forEach(function (plan) {
      var clause = Object.assign({}, plan.clause, { term: plan.term });
      tokenSet.intersect(lunr.TokenSet.fromClause(clause)).toArray().forEach(function (term) {
        var fields = reach[term] || (reach[term] = Object.create(null));
        clause.fields.forEach(function (name) { fields[self.fields.indexOf(name)] = true; });
      });
    });
    var clauses = Object.keys(reach).map(function (term) { return { term: term, fields: Object.keys(reach[term]).map(Number) }; });
    var missing = this.need(clauses);
    if (missing.length) throw new api.Missing(missing);
    return this.miniIndex(lunr, tokenSet, reach).search(q).map(function (r) {
      return { doc: +r.ref, score: r.score, terms: api.termSet(Object.keys(r.matchData.metadata)) };
    });
  };

  ShardSource.prototype.miniIndex = function (lunr, tokenSet, reach) {
    var self = this, fields = this.fields, nDocs = this.documents, invertedIndex = Object.create(null), vectors = Object.create(null);
    Object.keys(reach).sort(api.compareTerms).forEach(function (term, n) {
      var posting = invertedIndex[term] = { _index: n };
      fields.forEach(function (name, f) {
        posting[name] = {};
        if (!reach[term][f]) return;
        var list = self.postings(term, f);
        for (var i = 0; i < list.docs.length; i++) {
          posting[name][list.docs[i]] = {};
          (vectors[name + "/" + list.docs[i]] || (vectors[name + "/" + list.docs[i]] = [])).push([n, list.weights[i]]);
        }
      });
    });
    var made = Object.create(null), keys = null;
    function locate(key) {
      var slash = typeof key === "string" ? key.indexOf("/") : -1;
      if (slash < 0 || fields.indexOf(key.slice(0, slash)) < 0) return false;
      var d = key.slice(slash + 1);
      return /^(0|[1-9][0-9]*)$/.test(d) && +d < nDocs;
    }
    function vector(key) {
      if (key in made) return made[key];
      if (!locate(key)) return undefined;
      var pairs = (vectors[key] || []).sort(function (x, y) { return x[0] - y[0]; }), elements = [];
      pairs.forEach(function (p) { elements.push(p[0], p[1]); });
      return (made[key] = new lunr.Vector(elements));
    }
    var fieldVectors = new Proxy(made, {   // every document's, in Index.serialize() order, made on first use
      get: function (target, key) { return vector(key); },
      has: function (target, key) { return locate(key); },
      ownKeys: function () {
        if (!keys) { keys = []; for (var d = 0; d < nDocs; d++) fields.forEach(function (name) { keys.push(name + "/" + d); }); }
        return keys.slice();
      },
      getOwnPropertyDescriptor: function (target, key) {
        return locate(key) ? { get: function () { return vector(key); }, enumerable: true, configurable: true } : undefined;
      }
    });
    return new lunr.Index({ invertedIndex: invertedIndex, fieldVectors: fieldVectors, tokenSet: tokenSet, fields: fields,
                            pipeline: lunr.Pipeline.load(this.meta.pipeline) });
  };

  api.ShardSource = ShardSource;
  api.fileName = fileName;
  api.round3 = round3;
})(typeof window !== "undefined" ? window : this);
