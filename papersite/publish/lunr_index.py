"""The Lunr index's text rules: normalisation, compounds, the pipelines; and the index as lunr.py would build it.

What is built here is read by `static/search-core.js`; the two must agree exactly:

- Text normalisation (`normalise`, in both the index and the search pipeline) folds case and
  accents and splits on punctuation. search-core.js registers a function under the same
  name with the same rules, so queries are normalised like the documents were.
- Compounds: a field is split into tokens at white space only (lunr splits at hyphens too), so
  the normaliser sees "off-policy" whole. It gives the words ("off", "policy") and the joined
  compound ("offpolicy"): every spelling of a hyphenated compound finds the others. A word
  followed by "+" or "++" ("LoRA+", "C++") is also indexed with the pluses spelt out
  ("loraplus", "cplusplus"), so such names can be told apart from the plain word.
- Capitals: "HyperGAN" is indexed as "hypergan" and also under its parts "hyper" and "gan"
  (`camel_parts`, added to the title and abstract by `indexed_document`), so GAN finds HyperGAN.
- The stemmer: lunr.py 0.8 keeps the original Porter rule for "y" ("shapley" -> "shaplei")
  where lunr.js 2.3.9 does not ("shapley"). The browser registers an exact port of lunr.py's
  stemmer under the name `stemmer`, so a query is stemmed as its document was.
- The term counts come from `search_terms.count_terms` (vectorised, kept between builds);
  `LazyIndex` makes lunr's inverted index and field vectors from them with lunr's arithmetic,
  for Python queries and the tests (tests/support/search_oracle.py has the plain `lunr()` call
  it must equal).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata

from lunr.builder import Builder
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.stemmer import stemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS
from lunr.stop_word_filter import stop_word_filter
from lunr.token import Token
from lunr.token_set import TokenSet
from lunr.vector import Vector

# (name, boost): the title counts most, then topics, then authors, then the abstract. The venue
# and year are searched only when a query names them (`venue:neurips`, `year:2025`, the search
# page's filters): plain queries leave them out (QUERY_ONLY_FIELDS), so a venue's name or a year
# does not lift every paper it applies to.
# "forms" holds a title's words as written (`title_forms`), only for the query's exact words: it
# counts for half the title (5, the best of 3, 5 and 10 on bench/search_quality.py's queries).
FIELDS = (("title", 10), ("tags", 5), ("authors", 3), ("body", 1), ("venue", 1), ("year", 1), ("forms", 5))
QUERY_ONLY_FIELDS = ("venue", "year")
FORMS_FIELD = "forms"
# Marks a word as written: a letter that survives normalisation and that the stemmer leaves
# alone ("linearizationǂ" stays so), and that no word of a text is followed by.
FORM_MARK = "\u01c2"
K1, B = 1.2, 0.75  # lunr's BM25 parameters (Builder's defaults)

# ---------------------------------------------------------------------------------------------
# Normalisation. Mirrored character for character in static/search-core.js (`normaliseWords`).

# Letters NFKD leaves alone but a reader types without the accent; and the Latin look-alikes
# NFKD makes of superscript Greek letters (mathtext writes $D^\\alpha$ as "Dᵅ", NFKD "Dɑ").
LETTER_FOLDS = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d",
                "þ": "th", "ı": "i", "ħ": "h", "ŀ": "l", "ς": "σ", "ɑ": "α", "ɛ": "ε", "ɩ": "ι", "ɸ": "φ"}
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
# Compounds: words joined by these characters, then at most MAX_PLUSES "+" not followed by a
# word. The index joins at hyphens (a hyphen, U+2010, U+2011); a query also at "^" and "_", as
# mathtext writes x^2 and x_i as "x²" and "xᵢ", which fold to "x2" and "xi".
INDEX_JOINERS = "\\-\\u2010\\u2011"
QUERY_JOINERS = INDEX_JOINERS + "\\^_"
MAX_PLUSES = 2
PLUS = "plus"


def run_regex(joiners: str) -> re.Pattern:
    word = "[^" + SEPARATOR_CLASS + "]+"
    return re.compile(f"({word}(?:[{joiners}]{word})*)(\\+*)(?![^{SEPARATOR_CLASS}])")


INDEX_RUN_RE = run_regex(INDEX_JOINERS)
QUERY_RUN_RE = run_regex(QUERY_JOINERS)


def fold(text: str) -> str:
    """Lower case without accents: "Rényi" -> "renyi". Leaves punctuation (and so lunr query syntax) alone."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = COMBINING_RE.sub("", text).lower()
    return LETTER_FOLD_RE.sub(lambda m: LETTER_FOLDS[m.group()], text)


def normalise_words(text: str) -> list[str]:
    """The words of `text` as the index stores them before stemming: folded, apostrophes dropped
    ("learner's" -> "learners"), split on punctuation ("o(n)" -> "o", "n")."""
    return split_words(APOSTROPHE_RE.sub("", fold(text)))


def split_words(folded: str) -> list[str]:
    return [w[:MAX_WORD] for w in SEPARATOR_RE.split(folded) if w]


def compound_runs(text: str, pattern: re.Pattern = INDEX_RUN_RE) -> list[tuple[list[str], int]]:
    """The runs of words of `text` joined by the pattern's joiners, each as (its words, how many
    "+" follow it, at most MAX_PLUSES): "k-means++ and C++" -> ([k, means], 2), ([and], 0), ([c], 2)."""
    return folded_runs(APOSTROPHE_RE.sub("", fold(text)), pattern)


def folded_runs(folded: str, pattern: re.Pattern) -> list[tuple[list[str], int]]:
    return [(split_words(m.group(1)), min(len(m.group(2)), MAX_PLUSES)) for m in pattern.finditer(folded)]


def compound_forms(words: list[str], pluses: int) -> list[str]:
    """A run's joined spellings, most specific first: "k-means++" -> ["kmeansplusplus", "kmeans"]."""
    joined = "".join(words)
    forms = [(joined + PLUS * pluses)[:MAX_WORD]] if pluses else []
    if len(words) > 1:
        forms.append(joined[:MAX_WORD])
    return forms


def token_words(text: str) -> list[str]:
    """What the index stores for one token (text between white space): its words, then the joined
    forms of its compounds: "off-policy," -> ["off", "policy", "offpolicy"]."""
    folded = APOSTROPHE_RE.sub("", fold(text))
    words = split_words(folded)
    if len(words) > 1 or "+" in folded:
        for parts, pluses in folded_runs(folded, INDEX_RUN_RE):
            words += compound_forms(parts, pluses)
    return words


# Parts of a word whose capitals mark its parts ("HyperGAN", "LightGBM", "GANLoss", "xLSTM"): a
# capitalised run or a lower-case one, a run of capitals before a capitalised word, digits.
CAMEL_PART_RE = re.compile("[A-Z]+(?=[A-Z][a-z]{2})|[A-Z]?[a-z]+|[A-Z]+[a-z]?|[0-9]+")
MIN_CAMEL_PART = 3
CAMEL_FIELDS = ("title", "body")
# Each byte of a text's UTF-8 as its class: a small ASCII letter "a", a capital "A", a digit "0",
# anything else (a byte of a non-ASCII character too) " ". A word is a run of classes other than
# " ", and it turns where "aA" (a capital after a small letter) or "AAa" (a capital before a
# capitalised word) begins. bytes.find looks for them several times faster than a regular
# expression scans the text (bench/README.md).
CHAR_CLASSES = bytes(ord("a") if 97 <= b <= 122 else ord("A") if 65 <= b <= 90 else ord("0") if 48 <= b <= 57 else ord(" ")
                     for b in range(256))
CAMEL_TURNS = (b"aA", b"AAa")


def camel_parts(text: str) -> list[str]:
    """The parts (of MIN_CAMEL_PART letters or more) of the words of `text` that mix capitals and
    small letters: "HyperGAN and LightGBM" -> ["Hyper", "GAN", "Light", "GBM"]. They are indexed
    beside the words (`indexed_document`), so "GAN" finds "HyperGAN". "GANs", "LLMs" and "LoRA"
    give none."""
    data = text.encode("utf-8", "surrogatepass")
    classes = data.translate(CHAR_CLASSES)
    turns = []
    for turn in CAMEL_TURNS:
        at = classes.find(turn)
        while at >= 0:
            turns.append(at)
            at = classes.find(turn, at + 1)
    out, end = [], -1
    for at in sorted(turns):
        if at < end:
            continue   # in the word just done
        start, end = classes.rfind(b" ", 0, at) + 1, classes.find(b" ", at)
        if end < 0:
            end = len(classes)
        word = data[start:end].decode("ascii")
        parts = [part for part in CAMEL_PART_RE.findall(word) if len(part) >= MIN_CAMEL_PART]
        if parts and parts != [word]:
            out += parts
    return out


def indexed_document(doc: dict) -> dict:
    """A search document as the index reads it: its title and abstract followed by their camel
    parts, and the title's forms (`title_forms`)."""
    out = dict(doc)
    for name in CAMEL_FIELDS:
        parts = camel_parts(doc.get(name) or "")
        if parts:
            out[name] = f"{doc[name]} {' '.join(parts)}"
    out[FORMS_FIELD] = title_forms(out.get("title") or "")
    return out


def title_forms(title: str) -> str:
    """The title's words as written, each followed by FORM_MARK: "Linearization of Policies" ->
    "linearizationǂ policiesǂ".

    The stemmer makes "linearization" "linear" and "generalization" "gener", as it makes "linear"
    and "generative": from stems alone, a title with the very word typed cannot be told from the
    hundreds that share its stem. A query also looks up each word's form (search-core.js
    `wordGroup`), which only the titles with that word have (bench/README.md, "Search": the
    title-word probes)."""
    return " ".join(form for token in TOKEN_RE.findall(title.lower()) for form in token_forms(token))


@functools.lru_cache(maxsize=1 << 16)
def token_forms(token: str) -> tuple[str, ...]:
    """One title token's forms (cached: titles share their words, and 100,000 titles took 1.7 s)."""
    return tuple(word + FORM_MARK for word in token_words(token) if word not in STOP_WORDS)


def normalise(token: Token, i=None, tokens=None):
    """Pipeline function: one token in, zero or more normalised tokens out."""
    words = token_words(token.string)
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
# lunr.Tokenizer's separators but the hyphen: compounds reach the normaliser whole.
TOKEN_SEPARATORS = " \t\n\r\f\v\xa0"
TOKEN_RE = re.compile(f"[^{TOKEN_SEPARATORS}]+")


def configured_builder(builder: Builder | None = None) -> Builder:
    builder = builder or Builder()
    builder.pipeline.add(*INDEX_PIPELINE)
    builder.search_pipeline.add(*SEARCH_PIPELINE)
    builder.ref("ref")
    for name, boost in FIELDS:
        builder.field(name, boost=boost)
    return builder


# ---------------------------------------------------------------------------------------------
# The index lunr.py would build, from the term counts (search_terms.TermCounts).


def lunr_idf(documents_with_term: int, document_count: int) -> float:
    """lunr.idf.idf: documents_with_term counts a document once per field it has the term in."""
    x = (document_count - documents_with_term + 0.5) / (documents_with_term + 0.5)
    return math.log(1 + abs(x))


def lunr_weight(idf: float, tf: int, length: int, average: float, boost: float) -> float:
    """A field vector's element, with the operations of lunr.py's Builder in its order, rounded as it rounds."""
    score = idf * ((K1 + 1) * tf) / (K1 * (1 - B + B * (length / average)) + tf)
    score *= boost
    return round(score, 3)


class LazyIndex(Index):
    """The lunr Index of some term counts; its inverted index, field vectors and token set are
    made when first used (shipping the site needs none of them; querying in Python and
    `serialize()` do). Term numbers (`_index`) follow sorted term order."""

    def __init__(self, counts):
        super().__init__(inverted_index=None, field_vectors=None, token_set=None,
                         fields=list(counts.fields), pipeline=Pipeline())
        self.pipeline.add(*SEARCH_PIPELINE)
        self.counts = counts
        self.terms = counts.terms

    @property
    def inverted_index(self):
        if self._inverted_index is None:
            counts, refs = self.counts, self.counts.refs
            inverted = {term: {"_index": n, **{name: {} for name in counts.fields}} for n, term in enumerate(counts.terms)}
            terms = counts.terms
            for name, postings in zip(counts.fields, counts.postings):
                for t, d in zip(postings.terms.tolist(), postings.docs.tolist()):
                    inverted[terms[t]][name][refs[d]] = {}   # lunr keeps whitelisted metadata here; none is
            self._inverted_index = inverted
        return self._inverted_index

    @inverted_index.setter
    def inverted_index(self, value):
        self._inverted_index = value

    @property
    def field_vectors(self):
        if self._field_vectors is None:
            counts = self.counts
            df = counts.document_frequencies()
            n_docs = len(counts.refs)
            idf = [lunr_idf(n, n_docs) for n in df.tolist()]
            elements: dict[str, list] = {}
            for name, boost, postings in zip(counts.fields, counts.boosts, counts.postings):
                per_doc: list[list] = [[] for _ in counts.refs]
                lengths = postings.lengths.tolist()
                for t, d, tf in zip(postings.terms.tolist(), postings.docs.tolist(), postings.tfs.tolist()):
                    per_doc[d].append((t, lunr_weight(idf[t], tf, lengths[d], postings.average, boost)))
                for d, ref in enumerate(counts.refs):
                    elements[name + "/" + ref] = [x for pair in sorted(per_doc[d]) for x in pair]
            self._field_vectors = {f"{name}/{ref}": Vector(elements[f"{name}/{ref}"])
                                   for ref in counts.refs for name in counts.fields}
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
