"""Test oracles for the search: the Python mirror of the browser's half, and the reference index.

- `expand_index` decodes the compact index as static/search-core.js `expandIndex` does;
- `search` is the as-you-type query of search-core.js `runQuery` (search_query.py, over any
  source: `IndexSource` here, shard_oracle.ShardSource for a sharded site);
- `plain_index` is a plain `lunr()` call with the build's fields, pipelines and tokenizer, which
  the build's term counts (search_terms.py) must equal.

The tests run both halves over the same files and compare refs and order.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable

from lunr import builder as lunr_builder
from lunr import lunr
from lunr.builder import Builder
from lunr.index import Index

from papersite.publish import search_codec
from papersite.publish.lunr_index import FIELDS, INDEX_PIPELINE, SEARCH_PIPELINE, TOKEN_SEPARATORS, fold, indexed_document
from papersite.publish.search_codec import DIGITS, FORMAT, VARINT_END, VARINT_MORE, rice_k

from . import search_query


class WhiteSpaceBuilder(Builder):
    """lunr's Builder with the build's tokenizer: fields split at white space only (lunr_index.TOKEN_SEPARATORS)."""

    def add(self, doc, attributes=None):
        tokenizer = lunr_builder.Tokenizer
        lunr_builder.Tokenizer = lambda value, metadata=None: tokenizer(value, metadata, separator=lambda c: c in TOKEN_SEPARATORS)
        try:
            super().add(doc, attributes)
        finally:
            lunr_builder.Tokenizer = tokenizer


def plain_index(docs: Iterable[dict]) -> Index:
    """The reference: a plain `lunr()` call with the same fields, pipelines and tokenizer (for tests and the benchmark)."""
    builder = WhiteSpaceBuilder()
    builder.pipeline.add(*INDEX_PIPELINE)
    builder.search_pipeline.add(*SEARCH_PIPELINE)
    return lunr(ref="ref", fields=[{"field_name": n, "boost": b} for n, b in FIELDS],
                documents=[indexed_document(doc) for doc in docs], builder=builder)


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


def read_rice_list(bits: str, pos: int, count: int, n_docs: int) -> tuple[list[int], int]:
    """`count` Rice-coded document gaps from `pos` of an unpacked bit string: the ascending document
    numbers, and the position after them."""
    k, d, docs = rice_k(n_docs, count), -1, []
    for _ in range(count):
        q = 0
        while bits[pos] == "1":
            q += 1
            pos += 1
        pos += 1
        r = int(bits[pos:pos + k], 2) if k else 0
        pos += k
        d += ((q << k) | r) + 1
        docs.append(d)
    return docs, pos



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
            posting = inverted[t][name]
            docs, pos = read_rice_list(bits, pos, count, n_docs)
            for d in docs:
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
# One index as a query source (search_query.py runs the as-you-type query on any source).


class IndexSource:
    """A lunr Index (expanded from the shipped compact index, or built in Python) as a source for
    search_query: search-core.js's single-index source does the same over the decoded index."""

    def __init__(self, index: Index):
        self.index = index
        self.fields = list(index.fields)
        self.documents = len(index.field_vectors) // len(self.fields)
        self.terms = sorted(index.inverted_index)
        self.refs = list(dict.fromkeys(key.split("/", 1)[1] for key in index.field_vectors))
        self.number = {ref: n for n, ref in enumerate(self.refs)}
        self._postings: dict[tuple[str, str], tuple[list[int], list[float]]] = {}

    def stem(self, word: str) -> list[str]:
        return self.index.pipeline.run_string(word)

    def df(self, term: str) -> int:
        posting = self.index.inverted_index.get(term)
        return sum(len(v) for k, v in posting.items() if k != "_index") if posting else 0

    def count(self, term: str, field_name: str) -> int:
        posting = self.index.inverted_index.get(term)
        return len(posting[field_name]) if posting else 0

    def terms_with_prefix(self, prefix: str) -> list[str]:
        start = bisect.bisect_left(self.terms, prefix)
        end = start
        while end < len(self.terms) and self.terms[end].startswith(prefix):
            end += 1
        return self.terms[start:end]

    def postings(self, term: str, field_name: str) -> tuple[list[int], list[float]]:
        """The documents (numbers, ascending) that have `term` in the field, and its weights there."""
        key = (term, field_name)
        if key not in self._postings:
            posting = self.index.inverted_index[term]
            refs = sorted(posting[field_name], key=self.number.__getitem__)
            weights = []
            for ref in refs:
                elements = self.index.field_vectors[field_name + "/" + ref].elements
                weights.append(elements[elements[::2].index(posting["_index"]) * 2 + 1])
            self._postings[key] = ([self.number[r] for r in refs], weights)
        return self._postings[key]

    def ref(self, number: int) -> str:
        return self.refs[number]

    def syntax_search(self, text: str) -> list[dict]:
        return [{"ref": self.number[r["ref"]], "score": r["score"], "terms": set(r["match_data"].metadata)}
                for r in self.index.search(fold(text))]


def search(index_or_source, text: str) -> search_query.Outcome:
    """The as-you-type query over an Index (or any source), as search-core.js runs it."""
    source = IndexSource(index_or_source) if isinstance(index_or_source, Index) else index_or_source
    return search_query.search(source, text)


def read_js_global(text: str) -> dict:
    """The value of a file written by js_global (for tests and the benchmark)."""
    start, end = text.index("JSON.parse('") + len("JSON.parse('"), text.rstrip().rindex("');")
    return json.loads(re.sub(r"\\(.)", r"\1", text[start:end], flags=re.DOTALL))
