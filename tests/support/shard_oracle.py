"""A sharded site's search in Python: reads the files search_shards.py wrote as static/search-shards.js does.

`ShardSource` is a source for search_query (the as-you-type query): it loads the meta file,
then the dictionary buckets, posting files and store chunks a query needs, on demand, and
records which files it loaded (`loaded`), so the tests and bench/search.py can see what a query
downloads. Its weights are computed from the shipped statistics as the browser computes them.
`syntax_search` answers lunr query syntax with a lunr.py Index made of the loaded terms, as
search-shards.js does with lunr.js.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from pathlib import Path

from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.query import Query
from lunr.query_parser import QueryParser
from lunr.token_set import TokenSet
from lunr.vector import Vector

from papersite.publish.lunr_index import SEARCH_PIPELINE, fold
from papersite.publish.search_shards import DIRECTORY, FORMAT, file_name, list_name

from papersite import urls

from .search_oracle import front_decode, read_js_global, read_rice_list, read_varints, unpack_bits

REGISTER_RE = re.compile(r"^\(window\.(\w+) = window\.\1 \|\| \{\}\)\[(\"[^\"]*\")\] = JSON\.parse\('(.*)'\);\n$", re.DOTALL)


def read_registered(text: str) -> tuple[str, object]:
    """(name, value) of a file written by search.js_register."""
    m = REGISTER_RE.match(text)
    if not m:
        raise ValueError("not a registering script")
    return json.loads(m.group(2)), json.loads(re.sub(r"\\(.)", r"\1", m.group(3), flags=re.DOTALL))


def decode_gaps(bits: str, counts: list[int], n_docs: int) -> list[list[int]]:
    """Rice-coded gaps of consecutive lists (one per count) into ascending document numbers."""
    stream = unpack_bits(bits)
    pos, out = 0, []
    for count in counts:
        docs, pos = read_rice_list(stream, pos, count, n_docs) if count else ([], pos)
        out.append(docs)
    return out


class ShardSource:
    def __init__(self, site: Path):
        self.site = Path(site)
        self.files: dict[str, object] = {}
        meta = read_js_global((self.site / urls.SEARCH_INDEX).read_text(encoding="utf-8"))["shards"]
        self.store = read_js_global((self.site / urls.SEARCH_STORE).read_text(encoding="utf-8"))
        self.loaded = [urls.SEARCH_INDEX, urls.SEARCH_STORE]
        if meta["v"] != FORMAT:
            raise ValueError(f"shard format {meta['v']}")
        self.meta = meta
        self.fields = meta["fields"]
        self.documents = meta["docs"]
        self.keys = front_decode(meta["buckets"])
        self.buckets: dict[int, dict] = {}
        self.lists: dict[tuple[str, int], tuple[list[int], list[float]]] = {}
        self.pipeline = Pipeline()
        self.pipeline.add(*SEARCH_PIPELINE)

    def file(self, name: str):
        if name not in self.files:
            path = self.site / DIRECTORY / (name + ".js")
            registered, value = read_registered(path.read_text(encoding="utf-8"))
            assert registered == name, (registered, name)
            self.files[name] = value
            self.loaded.append(name)
        return self.files[name]

    # --- the dictionary -------------------------------------------------------------------

    def bucket_of(self, term: str) -> int:
        return bisect.bisect_right(self.keys, term) - 1

    def bucket(self, number: int) -> dict:
        """Bucket `number`: {"terms": [...], "index": {term: i}, "counts": [[per term] per field], ...}."""
        if number not in self.buckets:
            key = self.keys[number]
            raw = self.file("d-" + (file_name(key) or "_"))
            terms = front_decode(raw["terms"])
            counts = [read_varints(c) if terms else [] for c in raw["counts"]]
            inline = self.meta["inline"]
            lists = {}
            for f, c in enumerate(counts):
                small = [(t, n) for t, n in enumerate(c) if 0 < n <= inline]
                docs = decode_gaps(raw["gaps"][f], [n for _, n in small], self.documents)
                tfs, lens = read_varints(raw["tf"][f]), read_varints(raw["len"][f])
                at = 0
                for (t, n), ds in zip(small, docs):
                    lists[(t, f)] = (ds, [x + 1 for x in tfs[at:at + n]], lens[at:at + n], {})
                    at += n
            for f, t, i, w in raw["fix"]:
                lists[(t, f)][3][i] = w
            self.buckets[number] = {"terms": terms, "index": {t: i for i, t in enumerate(terms)}, "counts": counts, "lists": lists}
        return self.buckets[number]

    def entry(self, term: str) -> tuple[dict, int] | tuple[None, None]:
        if not self.keys:
            return None, None
        bucket = self.bucket(self.bucket_of(term))
        i = bucket["index"].get(term)
        return (bucket, i) if i is not None else (None, None)

    def df(self, term: str) -> int:
        bucket, i = self.entry(term)
        return sum(c[i] for c in bucket["counts"]) if bucket else 0

    def count(self, term: str, field_name: str) -> int:
        bucket, i = self.entry(term)
        return bucket["counts"][self.fields.index(field_name)][i] if bucket else 0

    def buckets_with_prefix(self, prefix: str) -> list[int]:
        first = max(0, self.bucket_of(prefix))
        numbers = [first]
        while numbers[-1] + 1 < len(self.keys) and self.keys[numbers[-1] + 1].startswith(prefix):
            numbers.append(numbers[-1] + 1)
        return numbers if self.keys else []

    def terms_with_prefix(self, prefix: str) -> list[str]:
        return [t for n in self.buckets_with_prefix(prefix) for t in self.bucket(n)["terms"] if t.startswith(prefix)]

    def stem(self, word: str) -> list[str]:
        return self.pipeline.run_string(word)

    # --- postings and weights -------------------------------------------------------------

    def postings(self, term: str, field_name: str) -> tuple[list[int], list[float]]:
        f = self.fields.index(field_name)
        key = (term, f)
        if key not in self.lists:
            bucket, i = self.entry(term)
            count = bucket["counts"][f][i]
            if not count:
                docs, tfs, lens, fix = [], [], [], {}
            elif count <= self.meta["inline"]:
                docs, tfs, lens, fix = bucket["lists"][(i, f)]
            else:
                entries = self.file(list_name(f, term))
                _, gaps, tf, length, fixes = next(e for e in entries if e[0] == term)
                docs = decode_gaps(gaps, [count], self.documents)[0]
                tfs, lens, fix = [x + 1 for x in read_varints(tf)], read_varints(length), dict(fixes)
            df = sum(c[i] for c in bucket["counts"])
            idf = math.log(1 + abs((self.documents - df + 0.5) / (df + 0.5)))
            k1, b, boost, average = self.meta["k1"], self.meta["b"], self.meta["boosts"][f], self.meta["average"][f]
            weights = []
            for n, (tf, length) in enumerate(zip(tfs, lens)):
                score = idf * ((k1 + 1) * tf) / (k1 * (1 - b + b * (length / average)) + tf)
                score *= boost
                weights.append(fix.get(n, round(score, 3)))
            # In site order, ascending (the files number documents in reverse site order).
            self.lists[key] = ([self.site_number(d) for d in reversed(docs)], weights[::-1])
        return self.lists[key]

    def site_number(self, d: int) -> int:
        """A number in the files as the site's (search-shards.js: siteNumber), and back."""
        return self.documents - 1 - d

    # --- the store ------------------------------------------------------------------------

    def ref(self, number: int) -> str:
        return self.doc(number)[0]

    def doc(self, number: int) -> list:
        n = self.site_number(number)
        return self.file(f"s-{n // self.meta['chunk']}")[n % self.meta["chunk"]]

    # --- lunr query syntax ------------------------------------------------------------------

    def syntax_search(self, text: str) -> list[dict]:
        """lunr.py's Index.search over an Index of what the query can reach: the dictionary buckets
        of each clause's term (of its prefix, for a trailing wildcard; all of them for a leading
        wildcard or an edit distance), the terms lunr expands the clauses to in them, and those
        terms' postings in the clauses' fields."""
        query = Query(self.fields)
        QueryParser(fold(text), query).parse()
        numbers, plans = set(), []
        for clause in query.clauses:
            for term in (self.pipeline.run_string(clause.term) if clause.use_pipeline else [clause.term]):
                star = term.find("*")
                if clause.edit_distance or 0 <= star < len(term.rstrip("*")):
                    numbers.update(range(len(self.keys)))
                elif star >= 0:
                    numbers.update(self.buckets_with_prefix(term[:star]))
                elif self.keys:
                    numbers.add(self.bucket_of(term))
                plans.append((clause, term))
        terms = sorted({t for n in numbers for t in self.bucket(n)["terms"]})
        token_set = TokenSet.from_list(terms)
        reach: dict[str, set[int]] = {}
        for clause, term in plans:
            original, clause.term = clause.term, term
            for found in token_set.intersect(TokenSet.from_clause(clause)).to_list():
                reach.setdefault(found, set()).update(self.fields.index(name) for name in clause.fields)
            clause.term = original
        index = self.mini_index(token_set, reach)
        return [{"ref": int(r["ref"]), "score": r["score"], "terms": set(r["match_data"].metadata)}
                for r in index.search(fold(text))]

    def mini_index(self, token_set: TokenSet, reach: dict[str, set[int]]) -> Index:
        inverted, vectors = {}, {}
        for n, term in enumerate(sorted(reach)):
            posting = inverted[term] = {"_index": n}
            for f, field_name in enumerate(self.fields):
                posting[field_name] = {}
                if f not in reach[term]:
                    continue
                docs, weights = self.postings(term, field_name)
                posting[field_name] = {str(d): {} for d in docs}
                for d, w in zip(docs, weights):
                    vectors.setdefault(f"{field_name}/{d}", []).append((n, w))
        field_vectors = {f"{name}/{d}": Vector([x for pair in sorted(vectors.get(f"{name}/{d}", [])) for x in pair])
                         for d in range(self.documents) for name in self.fields}
        return Index(inverted, field_vectors, token_set, list(self.fields), self.pipeline)
