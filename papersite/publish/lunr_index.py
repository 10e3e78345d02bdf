"""The Lunr index as lunr.py builds it, several times faster: text normalisation, the pipelines, MemoBuilder.

What is built here is read by `static/search-core.js`; the two must agree exactly:

- Text normalisation (`normalise`, in both the index and the search pipeline) folds case and
  accents and splits on punctuation. search-core.js registers a function under the same
  name with the same rules, so queries are normalised like the documents were.
- The stemmer: lunr.py 0.8 keeps the original Porter rule for "y" ("shapley" -> "shaplei")
  where lunr.js 2.3.9 does not ("shapley"). The browser registers an exact port of lunr.py's
  stemmer under the name `stemmer`, so a query is stemmed as its document was.
- The index is built by `MemoBuilder`: lunr's Builder with the pipeline run once per distinct
  token, several times faster than a plain `lunr()` call (bench/search.py measures both;
  tests/support/search_oracle.py has the plain call the tests compare against).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from itertools import chain

from lunr.builder import Builder
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.stemmer import stemmer
from lunr.stop_word_filter import stop_word_filter
from lunr.token import Token
from lunr.token_set import TokenSet
from lunr.tokenizer import Tokenizer
from lunr.vector import Vector

from ..digests import text_digest

# (name, boost): the title counts most, then topics, then authors, then the abstract.
FIELDS = (("title", 10), ("tags", 5), ("authors", 3), ("body", 1))

# ---------------------------------------------------------------------------------------------
# Normalisation. Mirrored character for character in static/search-core.js (`normaliseWords`).

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




# lunr finds pipeline functions by name in its own registry (a serialised index names them).
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

    A corpus repeats its vocabulary: it has a dozen times more tokens than distinct ones (the
    counts for the real corpus are in bench/README.md), and running the pipeline (mostly the Porter stemmer) per
    token is most of a plain build. Pipeline functions are pure functions of the token text, so
    their results are cached. Everything else - postings, field lengths, the BM25 weights and
    their rounding - is computed exactly as `Builder` does, so the index is the same;
    `tests/test_search.py` checks that against a plain `lunr()` call.

    Two further differences, neither visible in search results: term indices (`_index`) are
    numbered in sorted term order rather than first-seen order, so the compact encoding needs no
    table of them; and the inverted index, the field vectors and the token set are made on
    first use (LazyIndex), since the compact encoding needs none of them.
    """

    def __init__(self, known: dict[bytes, tuple] | None = None):
        super().__init__()
        self.known = known or {}                  # the previous build's field counts, by document text
        self.counted: dict[bytes, tuple] = {}     # this build's, for the next
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
        """Each field's term counts, kept by the document's text for the next build (`counted`), so
        an edit runs the pipeline over the edited papers alone (plain dicts: a Counter unpickles far slower)."""
        if not all(isinstance(value, str) for value in values):
            return tuple(self._field_counts(name, value) for name, value in zip(self._fields, values))
        key = text_digest(*self._fields, *values)
        counts = self.known.get(key)
        if counts is None:
            counts = tuple(self._field_counts(name, value) for name, value in zip(self._fields, values))
        self.counted[key] = counts
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


def build_index(docs: Iterable[dict], known: dict[bytes, tuple] | None = None) -> LazyIndex:
    """The index of `docs`. `known`: the previous build's field counts by document text (its
    builder's `counted` holds this build's, for the next)."""
    builder = configured_builder(MemoBuilder(known))
    for doc in docs:
        builder.add(doc)
    return builder.build()

