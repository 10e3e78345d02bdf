"""Test oracles for the search: the Python mirror of the browser's half, and the reference index.

- `expand_index` decodes the compact index as static/search-core.js `expandIndex` does;
- `search` is the as-you-type query of search-core.js `runSearch`, step for step;
- `plain_index` is a plain `lunr()` call with the build's fields and pipelines, which the
  build's faster MemoBuilder must equal.

The tests run both halves over the same files and compare refs and order.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from lunr import lunr
from lunr.builder import Builder
from lunr.exceptions import QueryParseError
from lunr.index import Index
from lunr.stop_word_filter import WORDS as STOP_WORDS
from lunr.token_set import TokenSet

from papersite.publish.lunr_index import FIELDS, INDEX_PIPELINE, SEARCH_PIPELINE, fold, normalise_words
from papersite.publish import search_codec
from papersite.publish.search_codec import DIGITS, FORMAT, VARINT_END, VARINT_MORE, rice_k


def plain_index(docs: Iterable[dict]) -> Index:
    """The reference: a plain `lunr()` call with the same fields and pipelines (for tests and the benchmark)."""
    builder = Builder()
    builder.pipeline.add(*INDEX_PIPELINE)
    builder.search_pipeline.add(*SEARCH_PIPELINE)
    return lunr(ref="ref", fields=[{"field_name": n, "boost": b} for n, b in FIELDS], documents=list(docs), builder=builder)


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



def unpack_bits(text: str) -> str:
    return "".join(format(DIGITS.index(c), "06b") for c in text)



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
    """The compact form back into `Index.serialize()` JSON; static/search-core.js `expandIndex` does the same."""
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
                elements += [t, fixes.get((f, d, t), search_codec.js_round3(score))]
            vectors[name + "/" + refs[d]] = elements
    return {
        "version": encoded["version"],
        "fields": fields,
        "fieldVectors": [[name + "/" + ref, vectors[name + "/" + ref]] for ref in refs for name in fields],
        "invertedIndex": [[term, inverted[t]] for t, term in enumerate(terms)],
        "pipeline": encoded["pipeline"],
    }



# ---------------------------------------------------------------------------------------------
# The as-you-type query. static/search-core.js `runSearch` is the same algorithm, step for step.
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



def read_js_global(text: str) -> dict:
    """The value of a file written by js_global (for tests and the benchmark)."""
    start, end = text.index("JSON.parse('") + len("JSON.parse('"), text.rstrip().rindex("');")
    return json.loads(re.sub(r"\\(.)", r"\1", text[start:end], flags=re.DOTALL))
