"""Stage 5: the Lunr search index and the result store, shipped as self-registering JS files.

What is built here is read by `static/search.js`; the two halves must agree exactly:

- Text normalisation (`normalise`, in both the index and the search pipeline) folds case and
  accents and splits on punctuation. `static/search.js` registers a function under the same
  name with the same rules, so queries are normalised like the documents were.
- The stemmer: lunr.py 0.8 keeps the original Porter rule for "y" ("shapley" -> "shaplei")
  where lunr.js 2.3.9 does not ("shapley"). The browser registers an exact port of lunr.py's
  stemmer under the name `stemmer`, so a query is stemmed as its document was.
- The index ships in a compact form (`encode_index`, about a fifth of the serialized JSON,
  gzip to gzip) that decodes to exactly the JSON of `Index.serialize()` (`expand_index` here,
  `expandIndex` there); the browser loads it with `lunr.Index.load`.
- The index is built by `MemoBuilder`: lunr's Builder with the pipeline run once per distinct
  token, several times faster than a plain `lunr()` call (bench/search.py measures both).
- The as-you-type query (`search`) is written twice, here and in `static/search.js`, step for
  step; the tests run both over the same files and compare refs and order.

A `fetch` of JSON fails under file://, so each file assigns a global instead, and
search.js loads them with a <script> element the first time the search box is used.
"""

from __future__ import annotations

import base64
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain

import numpy as np
from lunr import __TARGET_JS_VERSION__ as LUNR_JS_VERSION
from lunr import lunr
from lunr.builder import Builder
from lunr.exceptions import QueryParseError
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.stemmer import stemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS
from lunr.stop_word_filter import stop_word_filter
from lunr.token import Token
from lunr.token_set import TokenSet
from lunr.tokenizer import Tokenizer
from lunr.vector import Vector

from . import cache as cache_
from . import urls
from .render import SiteData

FORMAT = 1
# (name, boost): the title counts most, then topics, then authors, then the abstract.
FIELDS = (("title", 10), ("tags", 5), ("authors", 3), ("body", 1))
INDEX_GLOBAL = "PAPERSITE_INDEX"
STORE_GLOBAL = "PAPERSITE_STORE"

# ---------------------------------------------------------------------------------------------
# Normalisation. Mirrored character for character in static/search.js (`normaliseWords`).

# Letters NFKD leaves alone but a reader types without the accent.
LETTER_FOLDS = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d",
                "þ": "th", "ı": "i", "ħ": "h", "ŀ": "l", "ς": "σ"}
LETTER_FOLD_RE = re.compile("[" + "".join(LETTER_FOLDS) + "]")
COMBINING_RE = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
APOSTROPHE_RE = re.compile("['\u2019\u02bc]")
# Everything that separates words once text is folded: ASCII other than a-z and 0-9, Latin-1
# punctuation and symbols, general punctuation, arrows, maths symbols, CJK and full-width
# punctuation. Explicit ranges, not \W, so Python and JavaScript split identically.
SEPARATOR_CLASS = ("\\x00-\\x2f\\x3a-\\x60\\x7b-\\xbf\\xd7\\xf7\\u2000-\\u2bff\\u2e00-\\u2e7f"
                   "\\u3000-\\u303f\\ufe10-\\ufe1f\\ufe30-\\ufe6f\\uff00-\\uffff")
SEPARATOR_RE = re.compile("[" + SEPARATOR_CLASS + "]+")
MAX_WORD = 64  # code points; longer runs are cut (they are never words, and the stemmer recurses)


def fold(text: str) -> str:
    """Lower case without accents: "Rényi" -> "renyi". Leaves punctuation (and so lunr query syntax) alone."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = COMBINING_RE.sub("", text).lower()
    return LETTER_FOLD_RE.sub(lambda m: LETTER_FOLDS[m.group()], text)


def normalise_words(text: str) -> list[str]:
    """The words of `text` as the index stores them before stemming: folded, apostrophes dropped
    ("learner's" -> "learners"), split on punctuation ("o(n)" -> "o", "n")."""
    words = SEPARATOR_RE.split(APOSTROPHE_RE.sub("", fold(text)))
    return [w[:MAX_WORD] for w in words if w]


def normalise(token: Token, i=None, tokens=None):
    """Pipeline function: one token in, zero or more normalised tokens out."""
    words = normalise_words(token.string)
    if not words:
        return None
    if len(words) == 1:
        token.string = words[0]
        return token
    return [Token(word, dict(token.metadata)) for word in words]


Pipeline.register_function(normalise, "normalise")

INDEX_PIPELINE = (normalise, stop_word_filter, stemmer)
SEARCH_PIPELINE = (normalise, stemmer)


def configured_builder(builder: Builder | None = None) -> Builder:
    builder = builder or Builder()
    builder.pipeline.add(*INDEX_PIPELINE)
    builder.search_pipeline.add(*SEARCH_PIPELINE)
    builder.ref("ref")
    for name, boost in FIELDS:
        builder.field(name, boost=boost)
    return builder


# ---------------------------------------------------------------------------------------------
# Building the index.

TOKEN_RE = re.compile("[^ \t\n\r\f\v\xa0-]+")  # a token between lunr.tokenizer's separators


class MemoBuilder(Builder):
    """lunr's Builder with the per-token work done once per distinct token.

    A corpus repeats its vocabulary: 5,876 abstracts have ~700,000 tokens but ~57,000 distinct
    ones (~35,000 distinct words), and running the pipeline (mostly the Porter stemmer) per
    token is most of a plain build. Pipeline functions are pure functions of the token text, so
    their results are cached. Everything else - postings, field lengths, the BM25 weights and
    their rounding - is computed exactly as `Builder` does, so the index is the same;
    `tests/test_search.py` checks that against a plain `lunr()` call.

    Two further differences, neither visible in search results: term indices (`_index`) are
    numbered in sorted term order rather than first-seen order, so the compact encoding needs no
    table of them; and the inverted index, the field vectors and the token set are made on
    first use (LazyIndex), since the compact encoding needs none of them.
    """

    def __init__(self):
        super().__init__()
        self._memos: dict[str, tuple] = {}        # pipeline-skip key -> (memo, terms_of)
        self._field_memos: dict[str, tuple] = {}  # field name -> the same

    @staticmethod
    def _tokens(value) -> list[str]:
        """Token texts, split exactly as lunr.Tokenizer splits."""
        if value is None:
            return []
        if isinstance(value, str):
            return TOKEN_RE.findall(value.lower())
        return [str(t) for t in Tokenizer(value)]

    def _pipeline_memo(self, field_name: str):
        """Token text -> terms, through the pipeline once per distinct text.

        Two levels: the first pipeline function (normalise: "learning," and "(learning" both
        give "learning") is cached per token text, the rest (stop words, stemmer) per word it
        gives, so the stemmer runs once per distinct word.
        """
        key = field_name if any(field_name in names for names in self.pipeline._skip.values()) else ""
        if key not in self._memos:
            head, rest = Pipeline(), Pipeline()
            head._stack, rest._stack = self.pipeline._stack[:1], self.pipeline._stack[1:]
            head._skip = rest._skip = self.pipeline._skip
            words: dict[str, tuple[str, ...]] = {}

            def terms_of(text: str) -> tuple[str, ...]:
                out: list[str] = []
                for token in head.run([Token(text, {})], field_name):
                    word = str(token)
                    done = words.get(word)
                    if done is None:
                        done = words[word] = tuple(str(t) for t in rest.run([Token(word, {})], field_name))
                    out.extend(done)
                return tuple(out)

            self._memos[key] = ({}, terms_of)
        return self._memos[key]

    def add(self, doc, attributes=None):
        doc_ref = str(doc[self._ref])
        self._documents[doc_ref] = attributes or {}
        self.document_count += 1
        values = tuple(doc[name] if fld.extractor is None else fld.extractor(doc) for name, fld in self._fields.items())
        for field_name, counts in zip(self._fields, self._document_counts(values)):
            field_ref = field_name + "/" + doc_ref
            self.field_term_frequencies[field_ref] = counts
            self.field_lengths[field_ref] = sum(counts.values())

    def _document_counts(self, values: tuple) -> tuple[dict[str, int], ...]:
        """Each field's term counts. Kept in the build cache by the document's text, so an edit
        runs the pipeline over the edited papers alone (plain dicts: a Counter unpickles ~10x slower)."""
        cache, key = cache_.current(), None
        if cache is not None and all(isinstance(value, str) for value in values):
            # Each part length-prefixed, so no two (fields, values) give the same bytes.
            parts = [part.encode("utf-8", "surrogatepass") for part in ("search.document_counts", *self._fields, *values)]
            key = cache_.digest(b"".join(len(part).to_bytes(8, "big") + part for part in parts))
            known = cache.get("memo", key)
            if known is not None:
                return known
        counts = tuple(self._field_counts(name, value) for name, value in zip(self._fields, values))
        if key is not None:
            cache.put("memo", key, counts)
        return counts

    def _field_counts(self, field_name: str, value) -> dict[str, int]:
        memos = self._field_memos
        memo, terms_of = memos[field_name] if field_name in memos else memos.setdefault(field_name, self._pipeline_memo(field_name))
        tokens = TOKEN_RE.findall(value.lower()) if isinstance(value, str) else self._tokens(value)
        for text in set(tokens).difference(memo):
            memo[text] = terms_of(text)
        return dict(Counter(chain.from_iterable(map(memo.__getitem__, tokens))))

    def _calculate_average_field_lengths(self):
        """Builder's, without a FieldRef object per field of every document (the sums are of
        integers, so the averages are the same floats)."""
        totals, documents = dict.fromkeys(self._fields, 0), dict.fromkeys(self._fields, 0)
        for field_ref, length in self.field_lengths.items():
            name = field_ref[:field_ref.index("/")]
            totals[name] += length
            documents[name] += 1
        self.average_field_length = {name: totals[name] / documents[name] for name in self._fields}

    def build(self) -> LazyIndex:
        self._calculate_average_field_lengths()
        index = LazyIndex(inverted_index=None, field_vectors=None, token_set=None,
                          fields=list(self._fields.keys()), pipeline=self.search_pipeline)
        index.builder = self
        index.terms = sorted(set().union(*self.field_term_frequencies.values()))
        return index

    def _create_inverted_index(self, terms: list[str]) -> None:
        """lunr's inverted index, as Builder.add makes it (refs in the order documents were added)."""
        inverted = {}
        for number, term in enumerate(terms):
            inverted[term] = {name: {} for name in self._fields}
            inverted[term]["_index"] = number
        for field_ref, counts in self.field_term_frequencies.items():
            field_name, doc_ref = field_ref.split("/", 1)
            for term in counts:
                # lunr keeps whitelisted token metadata here; none is whitelisted.
                inverted[term][field_name][doc_ref] = {}
        self.inverted_index = inverted

    def _create_field_vectors(self):
        """Builder._create_field_vectors with the same arithmetic, minus a binary-search insert per element."""
        k1, b = self._k1, self._b
        term_info = {term: (posting["_index"], lunr_idf(posting, self.document_count))
                     for term, posting in self.inverted_index.items()}
        vectors = {}
        for field_ref, frequencies in self.field_term_frequencies.items():
            field_name, doc_ref = field_ref.split("/", 1)
            field_boost = self._fields[field_name].boost
            doc_boost = self._documents[doc_ref].get("boost", 1)
            if not frequencies:
                vectors[field_ref] = Vector([])
                continue
            norm = k1 * (1 - b + b * (self.field_lengths[field_ref] / self.average_field_length[field_name]))
            pairs = []
            for term, tf in frequencies.items():
                number, idf = term_info[term]
                score = idf * ((k1 + 1) * tf) / (norm + tf)
                score *= field_boost
                score *= doc_boost
                pairs.append((number, round(score, 3)))
            pairs.sort()
            vectors[field_ref] = Vector([x for pair in pairs for x in pair])
        self.field_vectors = vectors


def lunr_idf(posting: dict, document_count: int) -> float:
    """lunr.idf.idf, unchanged: documents_with_term counts a document once per field it has the term in."""
    documents_with_term = sum(len(v) for k, v in posting.items() if k != "_index")
    x = (document_count - documents_with_term + 0.5) / (documents_with_term + 0.5)
    return math.log(1 + abs(x))


class LazyIndex(Index):
    """An Index whose inverted index, field vectors and token set are made when first used.

    Shipping the site needs none of them: encode_index works from the builder's term
    frequencies, and the browser computes the weights and builds its own token set. Querying
    in Python and `serialize()` make them, with lunr's arithmetic.
    """

    @property
    def inverted_index(self):
        if self._inverted_index is None:
            self.builder._create_inverted_index(self.terms)
            self._inverted_index = self.builder.inverted_index
        return self._inverted_index

    @inverted_index.setter
    def inverted_index(self, value):
        self._inverted_index = value

    @property
    def field_vectors(self):
        if self._field_vectors is None:
            self.inverted_index  # noqa: B018 - the vectors need it
            self.builder._create_field_vectors()
            self._field_vectors = self.builder.field_vectors
        return self._field_vectors

    @field_vectors.setter
    def field_vectors(self, value):
        self._field_vectors = value

    @property
    def token_set(self):
        if self._token_set is None:
            self._token_set = TokenSet.from_list(self.terms)
        return self._token_set

    @token_set.setter
    def token_set(self, value):
        self._token_set = value


def build_index(docs: Iterable[dict]) -> LazyIndex:
    builder = configured_builder(MemoBuilder())
    for doc in docs:
        builder.add(doc)
    return builder.build()


def plain_index(docs: Iterable[dict]) -> Index:
    """The reference: a plain `lunr()` call with the same fields and pipelines (for tests and the benchmark)."""
    builder = Builder()
    builder.pipeline.add(*INDEX_PIPELINE)
    builder.search_pipeline.add(*SEARCH_PIPELINE)
    return lunr(ref="ref", fields=[{"field_name": n, "boost": b} for n, b in FIELDS], documents=list(docs), builder=builder)


# ---------------------------------------------------------------------------------------------
# The compact encoding.
#
# A serialized lunr index stores every (term, field, document) triple twice - once in the
# inverted index, once in the document's field vector - with the document's slug spelt out each
# time and the BM25 weight as a decimal. The compact form stores each triple once, as a gap
# between document numbers plus the term frequency, and the browser recomputes the weights with
# lunr's own formula (idf from the postings, field lengths from the frequencies). A weight the
# browser's rounding (`js_round3`) would get wrong is listed in `fix`, so the expansion gives
# exactly the JSON of `Index.serialize()`.
#
#   v         format version (FORMAT)
#   version   lunr version the expanded index declares ("2.3.9")
#   fields    field names; boosts: their boosts; k1, b: lunr's BM25 parameters
#   pipeline  the search pipeline, by registered name
#   refs      document refs (slugs), in the order they were added; a document's number is its place
#   terms     sorted terms, front-coded: items joined by " ", each item one character giving the
#             length of the prefix shared with the previous term (DIGITS[n]), then the rest
#   counts    per field: for every term in order, how many documents have it in that field (varints)
#   gaps      per field: for every term in order, for each of its documents in ascending order,
#             the gap (number - previous number - 1, previous starting at -1) Rice-coded with
#             k = rice_k(documents, count): gap >> k as that many 1 bits and a 0, then the low k
#             bits; the bits packed six to a character (DIGITS), most significant first
#   tf        per field: for every posting in the same order, term frequency - 1 (varints)
#   fix       [field number, doc number, term number, weight] where recomputation differs
#
# Varints are base-32 digits, most significant first, all but the last from VARINT_MORE and the
# last from VARINT_END, so no separators are needed. gzip does well on the varint streams (mostly
# small numbers) but poorly on document gaps, which are close to random; Rice coding gets those
# within a few per cent of their entropy.

DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
VARINT_END = "abcdefghijklmnopqrstuvwxyz012345"
VARINT_MORE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ6789+/"


def varint(n: int) -> str:
    digits = [VARINT_END[n & 31]]
    n >>= 5
    while n:
        digits.append(VARINT_MORE[n & 31])
        n >>= 5
    return "".join(reversed(digits))


def read_varints(text: str) -> list[int]:
    values, n = [], 0
    more = {c: i for i, c in enumerate(VARINT_MORE)}
    end = {c: i for i, c in enumerate(VARINT_END)}
    for c in text:
        if c in more:
            n = (n << 5) | more[c]
        else:
            values.append((n << 5) | end[c])
            n = 0
    return values


def rice_k(documents: int, count: int) -> int:
    """Rice parameter for `count` postings among `documents`: about log2 of half the mean gap."""
    return ((documents - count) // (2 * count)).bit_length()


# A bytes table: bytes.translate is a C loop over a 256-entry table, ~50x faster than str.translate
# on the megabytes of an index.
BASE64_TO_DIGITS = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", DIGITS.encode("ascii"))


def unpack_bits(text: str) -> str:
    return "".join(format(DIGITS.index(c), "06b") for c in text)


def js_round3(x: float) -> float:
    """What search.js computes for lunr's round(score, 3), with the same IEEE operations."""
    return math.floor(x * 1000 + 0.5) / 1000


def encode_index(index: LazyIndex) -> dict:
    """The compact form of an index from `build_index` (whose builder has the term frequencies)."""
    builder = index.builder
    if any(attributes.get("boost", 1) != 1 for attributes in builder._documents.values()):
        raise ValueError("search.js knows no document boosts")
    fields, terms, refs = list(index.fields), index.terms, list(builder._documents)
    n_docs, n_terms = len(refs), len(terms)
    number = {term: i for i, term in enumerate(terms)}
    postings = []  # per field: term numbers, doc numbers, tfs of every posting, by term then doc
    for name in fields:
        counts_by_doc = [builder.field_term_frequencies[name + "/" + ref] for ref in refs]
        term_numbers: list[int] = []
        tf_values: list[int] = []
        for counts in counts_by_doc:
            term_numbers += map(number.__getitem__, counts)
            tf_values += counts.values()
        t = np.array(term_numbers, dtype=np.int64)
        d = np.repeat(np.arange(n_docs, dtype=np.int64), [len(c) for c in counts_by_doc])
        tf = np.array(tf_values, dtype=np.int64)
        # By term, then document: each (term, document) pair occurs once, so one integer key sorts
        # them (~4x faster than a two-key lexsort).
        order = np.argsort(t * max(1, n_docs) + d)
        postings.append((t[order], d[order], tf[order]))
    per_term = [np.bincount(t, minlength=n_terms) for t, _, _ in postings]
    df = sum(per_term)  # lunr's document frequency: once per field
    return {
        "v": FORMAT,
        "version": LUNR_JS_VERSION,
        "fields": fields,
        "boosts": [builder._fields[name].boost for name in fields],
        "k1": builder._k1,
        "b": builder._b,
        "pipeline": index.pipeline.serialize(),
        "refs": refs,
        "terms": front_code(terms),
        "counts": [varints(c.tolist()) for c in per_term],
        "gaps": [rice_code(d, t, counts, n_docs) for (t, d, _), counts in zip(postings, per_term)],
        "tf": [varints((tf - 1).tolist()) for _, _, tf in postings],
        "fix": browser_rounding_fixes(builder, fields, refs, postings, df),
    }


def varints(numbers: list[int]) -> str:
    table = varint_table()
    return "".join(map(table.__getitem__, numbers)) if max(numbers, default=0) < len(table) else "".join(map(varint, numbers))


@lru_cache(maxsize=1)
def varint_table() -> tuple[str, ...]:
    """varint(n) of the small numbers most counts are, looked up instead of encoded one by one."""
    return tuple(varint(n) for n in range(4096))


def rice_code(docs: np.ndarray, terms: np.ndarray, counts: np.ndarray, n_docs: int) -> str:
    """The document gaps of each term's postings (docs ascending within a term), Rice-coded."""
    if not len(docs):
        return ""
    # A few hundred distinct counts among tens of thousands of terms: rice_k once for each.
    distinct, which = np.unique(counts, return_inverse=True)
    k_of_term = np.array([rice_k(n_docs, c) if c else 0 for c in distinct.tolist()], dtype=np.int64)[which]
    k = k_of_term[terms]
    previous = np.empty_like(docs)
    previous[0] = -1
    previous[1:] = docs[:-1]
    previous[np.flatnonzero(np.r_[True, terms[1:] != terms[:-1]])] = -1  # each term starts from -1
    gap = docs - previous - 1
    unary, low = gap >> k, gap & ((1 << k) - 1)
    length = unary + 1 + k
    start = np.cumsum(length) - length
    total = int(length.sum())
    bits = np.zeros(total + (-total % 24), dtype=np.uint8)
    within = np.arange(int(unary.sum())) - np.repeat(np.cumsum(unary) - unary, unary)
    bits[np.repeat(start, unary) + within] = 1  # gap >> k ones; the zero after them is already there
    within = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
    k_rep = np.repeat(k, k)
    bits[np.repeat(start + unary + 1, k) + within] = (np.repeat(low, k) >> (k_rep - 1 - within)) & 1
    raw = np.packbits(bits).tobytes()
    return base64.b64encode(raw).translate(BASE64_TO_DIGITS).decode("ascii")


NEAR_HALF = 1e-6  # far wider than the rounding errors of x * 1000 + 0.5


def browser_rounding_fixes(builder: MemoBuilder, fields, refs, postings, df) -> list[list]:
    """[field, doc, term, weight] for every weight search.js's rounding would get wrong.

    lunr rounds a weight with round(x, 3), correctly rounded; search.js with
    floor(x * 1000 + 0.5) / 1000. They differ only when x * 1000 is within a rounding error of
    a half, so x is computed for every posting here (numpy, the same IEEE operations in the same
    order as lunr's builder and search.js) and only those near a half are compared exactly.
    """
    k1, b, n_docs = builder._k1, builder._b, builder.document_count
    idf = np.array([math.log(1 + abs((n_docs - n + 0.5) / (n + 0.5))) for n in df.tolist()], dtype=np.float64)
    fixes = []
    for f, (name, (t, d, tf)) in enumerate(zip(fields, postings)):
        if not len(d):
            continue
        average = builder.average_field_length[name]
        norm = np.array([k1 * (1 - b + b * (builder.field_lengths[name + "/" + ref] / average)) for ref in refs])
        score = idf[t] * ((k1 + 1) * tf) / (norm[d] + tf)
        score *= builder._fields[name].boost
        scaled = score * 1000
        for i in np.flatnonzero(np.abs(scaled - np.floor(scaled) - 0.5) < NEAR_HALF).tolist():
            x = float(score[i])
            weight = round(x, 3)
            if weight != js_round3(x):
                fixes.append([f, int(d[i]), int(t[i]), weight])
    return sorted(fixes)


def front_code(terms: list[str]) -> str:
    items, previous = [], ""
    for term in terms:
        shared = 0
        limit = min(len(term), len(previous), len(DIGITS) - 1)
        while shared < limit and term[shared] == previous[shared]:
            shared += 1
        items.append(DIGITS[shared] + term[shared:])
        previous = term
    return " ".join(items)


def front_decode(text: str) -> list[str]:
    terms, previous = [], ""
    if not text:
        return terms
    for item in text.split(" "):
        term = previous[: DIGITS.index(item[0])] + item[1:]
        terms.append(term)
        previous = term
    return terms


def expand_index(encoded: dict) -> dict:
    """The compact form back into `Index.serialize()` JSON; static/search.js `expandIndex` does the same."""
    if encoded.get("v") != FORMAT:
        raise ValueError(f"unknown search index format {encoded.get('v')!r}")
    fields, refs = encoded["fields"], encoded["refs"]
    terms = front_decode(encoded["terms"])
    k1, b = encoded["k1"], encoded["b"]
    n_docs = len(refs)
    inverted = [{"_index": t, **{name: {} for name in fields}} for t in range(len(terms))]
    per_field = []  # per field, per doc: [(term number, tf)]
    for f, name in enumerate(fields):
        counts = read_varints(encoded["counts"][f])
        tfs = read_varints(encoded["tf"][f])
        bits = unpack_bits(encoded["gaps"][f])
        pos = posting_number = 0
        doc_terms: list[list[tuple[int, int]]] = [[] for _ in range(n_docs)]
        for t in range(len(terms)):
            count = counts[t]
            if not count:
                continue
            k = rice_k(n_docs, count)
            d = -1
            posting = inverted[t][name]
            for _ in range(count):
                q = 0
                while bits[pos] == "1":
                    q += 1
                    pos += 1
                pos += 1
                r = int(bits[pos:pos + k], 2) if k else 0
                pos += k
                d += ((q << k) | r) + 1
                posting[refs[d]] = {}
                doc_terms[d].append((t, tfs[posting_number] + 1))
                posting_number += 1
        per_field.append(doc_terms)
    df = [sum(len(inverted[t][name]) for name in fields) for t in range(len(terms))]
    idf = [math.log(1 + abs((n_docs - n + 0.5) / (n + 0.5))) for n in df]
    fixes = {(f, d, t): w for f, d, t, w in encoded["fix"]}
    vectors = {}
    for f, name in enumerate(fields):
        lengths = [sum(freq for _, freq in doc) for doc in per_field[f]]
        average = sum(lengths) / n_docs
        boost = encoded["boosts"][f]
        for d, doc in enumerate(per_field[f]):
            norm = k1 * (1 - b + b * (lengths[d] / average)) if average else 0
            elements = []
            for t, freq in doc:
                score = idf[t] * ((k1 + 1) * freq) / (norm + freq)
                score *= boost
                elements += [t, fixes.get((f, d, t), js_round3(score))]
            vectors[name + "/" + refs[d]] = elements
    return {
        "version": encoded["version"],
        "fields": fields,
        "fieldVectors": [[name + "/" + ref, vectors[name + "/" + ref]] for ref in refs for name in fields],
        "invertedIndex": [[term, inverted[t]] for t, term in enumerate(terms)],
        "pipeline": encoded["pipeline"],
    }


# ---------------------------------------------------------------------------------------------
# The as-you-type query. static/search.js `runSearch` is the same algorithm, step for step.
#
# Each word becomes a group of index terms: its stem; for the last word, while it is being typed,
# the terms it is a prefix of (the raw word and its stem as prefixes: a wildcard skips the
# stemmer, and "shapley*" would miss "shaplei"); when that finds fewer than FEW_RESULTS papers,
# the terms within edit distance 1. All terms go to lunr as one query; results that match every
# group come first, else any. Very common terms (in more than COMMON_SHARE of the documents and
# more than COMMON_MIN, counting lunr's way, once per field) are looked up in COMMON_FIELDS only
# and need not match: "learning" is in 7,000 fields of the 5,876 real abstracts, and scoring
# them all costs lunr.js more than a keystroke may. Small sites never have common terms.

SYNTAX_RE = re.compile("[:~^*+]|(^|[ \t\n\r\f\v])-[^ \t\n\r\f\v]")  # JS: the same classes, not \\s
SPACES = " \t\n\r\f\v"
PREFIX_BOOST, EXACT_BOOST, FUZZY_BOOST = 1, 10, 0.2
MAX_EXPANSIONS = 40      # terms a prefix or fuzzy word may expand to (shortest first)
MIN_PREFIX = 2           # the last word is matched as a prefix from this many characters
MIN_FUZZY = 4            # words shorter than this are never fuzzy-matched
FEW_RESULTS = 3          # fewer results than this: retry with fuzzy matching
COMMON_SHARE = 0.4       # a term in more than this share of documents (lunr's count) ...
COMMON_MIN = 1000        # ... and in more than this many is common
COMMON_FIELDS = ("title",)


@dataclass
class Group:
    """One word of the query: the index terms that count as a match for it."""

    word: str
    stems: list[str]
    exact: list[str] = field(default_factory=list)
    prefix: list[str] = field(default_factory=list)
    fuzzy: list[str] = field(default_factory=list)
    soft: bool = False       # its own term is very common: need not match

    def terms(self) -> list[tuple[str, float]]:
        out, seen = [], set()
        for terms, boost in ((self.exact, EXACT_BOOST), (self.prefix, PREFIX_BOOST), (self.fuzzy, FUZZY_BOOST)):
            for term in terms:
                if term not in seen:
                    seen.add(term)
                    out.append((term, boost))
        return out


@dataclass
class Outcome:
    results: list[dict]
    mode: str                # "syntax", "all" (every word matched), "any" (some words), "none"
    fuzzy: bool = False
    error: str | None = None


def is_syntax(text: str) -> bool:
    return bool(SYNTAX_RE.search(text))


def shortest_first(terms: Iterable[str]) -> list[str]:
    return sorted(terms, key=lambda t: (len(t), t))[:MAX_EXPANSIONS]


def document_frequency(index: Index, term: str) -> int:
    """lunr's own count for idf: documents with the term, once per field."""
    return sum(len(v) for k, v in index.inverted_index[term].items() if k != "_index")


def is_common(index: Index, term: str) -> bool:
    documents = len(index.field_vectors) // len(index.fields)
    df = document_frequency(index, term)
    return df > COMMON_MIN and df > COMMON_SHARE * documents


def plan_query(index: Index, text: str) -> list[Group]:
    words = normalise_words(text)
    partial = bool(text) and text[-1] not in SPACES
    groups = []
    for i, word in enumerate(words):
        last = partial and i == len(words) - 1
        if word in STOP_WORDS and not last:
            continue
        group = Group(word, [] if word in STOP_WORDS else index.pipeline.run_string(word))
        group.exact = [s for s in group.stems if s in index.inverted_index]
        group.soft = any(is_common(index, s) for s in group.exact)
        if last and len(word) >= MIN_PREFIX:
            found = set()
            for start in dict.fromkeys([word, *group.stems]):
                found.update(index.token_set.intersect(TokenSet.from_string(start + "*")).to_list())
            group.prefix = shortest_first(found - set(group.exact))
        groups.append(group)
    return groups


def add_fuzzy(index: Index, groups: list[Group]) -> bool:
    """Adds the terms within edit distance 1 of each long enough word; True if any were found."""
    added = False
    for group in groups:
        if len(group.word) < MIN_FUZZY:
            continue
        found = set()
        for start in dict.fromkeys([*group.stems, group.word]):
            found.update(index.token_set.intersect(TokenSet.from_fuzzy_string(start, 1)).to_list())
        group.fuzzy = shortest_first(found - set(group.exact) - set(group.prefix))
        added = added or bool(group.fuzzy)
    return added


def run_groups(index: Index, groups: list[Group]) -> tuple[list[dict], list[dict]]:
    """All the groups' terms as one OR query; returns (results matching every group, all results)."""
    clauses = [(term, boost) for g in groups for term, boost in g.terms()]
    if not clauses:
        return [], []
    common_fields = [f for f in index.fields if f in COMMON_FIELDS]
    query = index.create_query()
    for term, boost in clauses:
        fields = common_fields if is_common(index, term) else None
        query.term(term, use_pipeline=False, boost=boost, fields=fields)
    results = index.query(query)
    wanted = [{t for t, _ in g.terms()} for g in groups if not g.soft]
    wanted = [w for w in wanted if w]
    every = [r for r in results if all(w & r["match_data"].metadata.keys() for w in wanted)]
    return every, results


def search(index: Index, text: str) -> Outcome:
    if not text.strip():
        return Outcome([], "none")
    if is_syntax(text):
        try:
            return Outcome(index.search(fold(text)), "syntax")
        except QueryParseError as err:
            return Outcome([], "syntax", error=str(err))
    groups = plan_query(index, text)
    every, results = run_groups(index, groups)
    fuzzy = False
    if len(every) < FEW_RESULTS and add_fuzzy(index, groups):
        fuzzy = True
        every, results = run_groups(index, groups)
    if every:
        return Outcome(every, "all", fuzzy)
    if results:
        return Outcome(results, "any", fuzzy)
    return Outcome([], "none", fuzzy)


# ---------------------------------------------------------------------------------------------
# The files.

def search_documents(site: SiteData) -> list[dict]:
    names = {listing.tag.slug: listing.tag.name for listing in site.tags}
    return [
        {
            "ref": page.paper.slug,
            "title": page.title_text,
            "tags": " ".join(names.get(t, t) for t in page.paper.tags),
            "authors": " ".join(page.paper.authors),
            "body": page.text,
        }
        for page in site.papers
    ]


def build_store(site: SiteData) -> dict:
    """What a result shows without loading the paper page.

    docs[ref] = [title, URL, tag slugs, summary]; tags[slug] = [name, URL]; URLs are relative
    to the site root, as are `search` (the results page) and `tagIndex`.
    """
    return {
        "v": FORMAT,
        "search": urls.SEARCH,
        "tagIndex": urls.TAG_INDEX,
        "tags": {listing.tag.slug: [listing.tag.name, urls.tag_path(listing.tag.slug)] for listing in site.tags},
        "docs": {
            page.paper.slug: [page.title_text, urls.paper_path(page.paper.slug), list(page.paper.tags), page.summary]
            for page in site.papers
        },
    }


def build_search_files(site: SiteData) -> dict[str, str]:
    index = build_index(search_documents(site))
    return {
        urls.SEARCH_INDEX: js_global(INDEX_GLOBAL, encode_index(index)),
        urls.SEARCH_STORE: js_global(STORE_GLOBAL, build_store(site)),
    }


def js_global(name: str, value) -> str:
    """`window.NAME = JSON.parse('...')`: a script that registers the data. V8 and the other engines
    read a large JSON string much faster than the same data as an object literal."""
    literal = to_json(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"window.{name} = JSON.parse('{literal}');\n"


def read_js_global(text: str) -> dict:
    """The value of a file written by js_global (for tests and the benchmark)."""
    start, end = text.index("JSON.parse('") + len("JSON.parse('"), text.rstrip().rindex("');")
    return json.loads(re.sub(r"\\(.)", r"\1", text[start:end], flags=re.DOTALL))


def to_json(value) -> str:
    # "</" escaped so no string in the data can close a <script> element.
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
