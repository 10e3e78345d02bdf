"""The search index of a large site as term shards: a query loads only the files its words need.

Every file is a self-registering script, `(window.PAPERSITE_SEARCH ||= {})[name] = JSON.parse('…')`
(a fetch fails under file://), in `assets/search/`; static/search-shards.js loads them with
<script> elements, tests/support/shard_oracle.py reads them in Python. The files:

- the meta, in `assets/search-index.js` as `{"shards": meta}` (search.py), where a small site
  has its one index: the format, lunr's version, fields, boosts, k1, b and search pipeline; the
  global statistics every score needs (the number of documents, each field's average length);
  the dictionary's bucket keys; how many postings are kept in a bucket; the store's chunk size.
- `d-<key>.js` (`d-_.js` for the first), the dictionary: the sorted terms from the bucket's
  start key to the next bucket's, front-coded, with each term's posting count per field, and the
  postings of every (term, field) with at most `inline` of them (most terms: author names, rare
  words). Start keys are prefixes, from a trie split by the next character wherever a range is
  larger than `bucket_bytes` (`bucket_keys`); a term is in the last bucket that starts at or
  before it, and the terms that begin with p in that bucket and the following ones that start
  with p. Prefix and typo expansion read the buckets of the word's first characters, never the
  whole dictionary.
- `p<f>-<term>.js`: the postings of one term in field f, when more than `inline`. Named by the
  term (letters and digits as they are, any other character as `_<hex>_`, a name over
  MAX_NAME characters cut and completed by a hash), so the browser knows the name from the term;
  the file holds a list of [term, postings], so two terms whose cut names met would share it.
- `s-<n>.js`: the result store, chunk n: documents n*chunk .. (n+1)*chunk - 1, each [slug,
  title, tag slugs, summary, venue, year, first authors, author count] (search.py: byline): a
  query loads the chunks of the results it shows.
- `t-<slug>.js`: the documents of one topic, for the results page's topic filter.

Postings: document numbers as Rice-coded gaps (search_codec.rice_code), term frequencies minus
one and the document's field length as varints. The browser computes every weight as lunr.py's
Builder did, from the term's document frequency (the sum of its counts), the number of
documents, the field's average length and the posting: one index's global statistics, so a
shard's scores are exactly the single index's. The weight is rounded with an
exact decimal rounding (search-core.js `round3`), and a weight whose unrounded value is within
NEAR_HALF of a rounding boundary (where a last-bit difference between Python's and V8's `log`
could tip it) is listed in `fix` with Python's value.

What an edit changes: the buckets and posting files of the edited paper's terms (old and new),
its store chunk, the meta (the average lengths), the files whose near-half weights moved with
the average lengths (a few dozen), and nothing else; every file is written with sorted keys, so
unchanged content is the same bytes. A build encodes only those files (`Shards.to_make`, told
the edited papers' terms by search_terms.changed_terms); the others are the previous output's.

Documents are numbered in reverse site order, oldest year first (search.py), and
static/search-shards.js reads a number d as the site's documents - 1 - d (so the results page
sees site order, as in a small site's index). An anthology grows by volumes of the newest year,
first on the site: numbered last, they leave every other number as it was. An add then changes
the files of the new papers' terms, those whose Rice parameters or near-half weights moved with
the number of documents, and the last store chunks; a build encodes only those when it adds at
most search_terms.MOST_CHANGED documents. A paper added or removed elsewhere renumbers the
documents numbered after it, and changes most files.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from lunr import __TARGET_JS_VERSION__ as LUNR_JS_VERSION

from ..digests import digest
from .lunr_index import B, K1, lunr_idf
from .search_codec import NEAR_HALF, front_code, gaps_of, rice_ks, rice_segments, varint_segments, varints
from .search_terms import TermCounts

FORMAT = 1
GLOBAL = "PAPERSITE_SEARCH"
DIRECTORY = "assets/search"
NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
MAX_NAME = 64       # characters of a file name's term part; longer ones are cut and hashed


@dataclass(frozen=True)
class Layout:
    """How a large index is split (search.SHARD_FROM decides when it is)."""

    bucket_bytes: int = 12_000   # a dictionary bucket larger than this (estimated, raw) is split ...
    max_key: int = 6             # ... unless its key is this many characters long
    inline: int = 12             # a (term, field) with at most this many postings lives in its bucket
    chunk: int = 8               # documents per result-store chunk


@dataclass(frozen=True)
class Shards:
    """A large index's files but the store's chunks, before any is encoded: each file's terms and
    the near-half weights it lists, so that a build encodes only the files it must (`encode`).

    Segments: in each field, bucket b's inline postings are segment b, and the postings of the
    i-th term with a file of its own (`own[f][i]`) are segment len(buckets) + i."""

    counts: TermCounts
    layout: Layout
    keys: list[tuple[str, int, int]]   # the buckets: (start key, first term, end), as bucket_keys gives them
    per_field: list[np.ndarray]        # each term's number of postings, per field
    idf: np.ndarray                    # each term's, as lunr_idf gives it
    tag_docs: dict[str, list[int]]     # each topic's document numbers

    @cached_property
    def firsts(self) -> np.ndarray:
        return np.array([first for _, first, _ in self.keys] + [len(self.counts.terms)], dtype=np.int64)

    @cached_property
    def bucket_of(self) -> np.ndarray:
        """Each term's bucket."""
        return np.repeat(np.arange(len(self.keys)), np.diff(self.firsts))

    @cached_property
    def buckets(self) -> list[str]:
        """The bucket files' names, in key order."""
        return ["d-" + (file_name(key) or "_") for key, _, _ in self.keys]

    @cached_property
    def own(self) -> list[np.ndarray]:
        """Per field, the terms with a file of their own (more than `inline` postings), ascending."""
        return [np.flatnonzero(c > self.layout.inline) for c in self.per_field]

    @cached_property
    def lists(self) -> dict[str, list[tuple[int, int]]]:
        """Each posting file's (field, term), in order (two terms whose cut names met share a file)."""
        lists: dict[str, list[tuple[int, int]]] = {}
        for f, terms in enumerate(self.own):
            for t in terms.tolist():
                lists.setdefault(list_name(f, self.counts.terms[t]), []).append((f, t))
        return lists

    @cached_property
    def fixes(self) -> tuple[dict[str, list], dict[tuple[int, int], list]]:
        """The near-half weights (`near_boundary`) each file lists: a bucket's, by its file name, as
        [field, term within the bucket, posting within the term, weight]; a term with a file of its
        own's, by (field, term), as [posting within the term, weight]. In field order, then posting order."""
        bucket_fixes: dict[str, list] = {}
        term_fixes: dict[tuple[int, int], list] = {}
        for f, (postings, c) in enumerate(zip(self.counts.postings, self.per_field)):
            starts = np.concatenate([[0], np.cumsum(c)])
            for row, weight in near_boundary(postings, self.counts.boosts[f], self.idf):
                t = int(postings.terms[row])
                if c[t] > self.layout.inline:
                    term_fixes.setdefault((f, t), []).append([row - int(starts[t]), weight])
                else:
                    b = int(self.bucket_of[t])
                    bucket_fixes.setdefault(self.buckets[b], []).append([f, t - int(self.firsts[b]), row - int(starts[t]), weight])
        return bucket_fixes, term_fixes

    @cached_property
    def rice_ks(self) -> np.ndarray:
        """Each term's Rice parameter for its gaps, per field: [term, field] (it moves with the number of documents)."""
        n_docs = len(self.counts.refs)
        return np.stack([rice_ks(c, n_docs) for c in self.per_field], axis=1).astype(np.int8) if self.per_field else np.zeros((0, 0), np.int8)

    @cached_property
    def made_from(self) -> dict[str, tuple]:
        """What each file of the postings is made of, but its terms' postings: its terms (a bucket's
        as its range), their Rice parameters, the near-half weights it lists and the layout. Two
        builds whose files agree in this made the same file, unless a term of it had a posting
        change (`to_make`)."""
        (bucket_fixes, term_fixes), terms, ks, out = self.fixes, self.counts.terms, self.rice_ks, {}
        for name, (key, first, last) in zip(self.buckets, self.keys):
            out[name] = (key, terms[first], terms[last - 1] if last > first else None, last - first, digest(ks[first:last].tobytes()),
                         tuple(map(tuple, bucket_fixes.get(name, ()))), self.layout)
        for name, entries in self.lists.items():
            out[name] = (tuple((f, terms[t], int(ks[t, f]), tuple(map(tuple, term_fixes.get((f, t), ())))) for f, t in entries), self.layout)
        return out

    def to_make(self, changed: Collection[str] | None, previous: dict[str, tuple]) -> set[str]:
        """The posting and bucket files to encode: those the `previous` build did not make from
        what they are made of now (Shards.made_from), and those holding a term in `changed` (whose
        postings changed: every term of an edited document, as it was and as it is; None, any)."""
        if changed is None:
            return set(self.made_from)
        terms, inline = self.counts.terms, self.layout.inline
        hit = set()
        for term in changed:
            t = bisect.bisect_left(terms, term)
            if t < len(terms) and terms[t] == term:
                hit.add(self.buckets[self.bucket_of[t]])
                hit.update(list_name(f, term) for f, c in enumerate(self.per_field) if c[t] > inline)
            else:   # gone: the buckets beside where it was
                hit.update(self.buckets[self.bucket_of[near]] for near in (t - 1, t) if 0 <= near < len(terms))
        return {name for name, made in self.made_from.items()
                if name in hit or previous.get(name) is None or previous[name][0] != made}

    def meta(self, pipeline: list[str]) -> dict:
        counts = self.counts
        return {
            "v": FORMAT,
            "version": LUNR_JS_VERSION,
            "fields": list(counts.fields),
            "boosts": list(counts.boosts),
            "k1": K1,
            "b": B,
            "pipeline": pipeline,
            "docs": len(counts.refs),
            "average": [p.average for p in counts.postings],
            "buckets": front_code([key for key, _, _ in self.keys]),
            "inline": self.layout.inline,
            "chunk": self.layout.chunk,
        }

    def encode(self, names: Collection[str]) -> dict[str, object]:
        """name -> value of the bucket and posting files among `names`.

        The segments of a field are encoded together (numpy), a million postings at a time, each
        segment's code on its own: a file is the same whether it is encoded alone or with all."""
        names = set(names)
        (bucket_fixes, term_fixes), counts, n_buckets = self.fixes, self.counts, len(self.keys)
        chosen = np.array([b for b, name in enumerate(self.buckets) if name in names], dtype=np.int64)
        buckets = {int(b): {"terms": front_code(counts.terms[self.firsts[b]:self.firsts[b + 1]]), "counts": [], "gaps": [], "tf": [],
                            "len": [], "fix": bucket_fixes.get(self.buckets[b], [])} for b in chosen.tolist()}
        wanted: list[list[int]] = [[] for _ in counts.postings]   # per field, the terms of the posting files named
        for name in names & self.lists.keys():
            for f, t in self.lists[name]:
                wanted[f].append(t)
        files: dict[str, object] = {}
        for f, (postings, c, own) in enumerate(zip(counts.postings, self.per_field, self.own)):
            kept = np.searchsorted(own, np.array(sorted(wanted[f]), dtype=np.int64))   # their places among `own`
            for b, text in zip(buckets, varint_segments(*selected(c, self.firsts, chosen))):
                buckets[b]["counts"].append(text)
            inline_rows = np.flatnonzero((c <= self.layout.inline)[postings.terms])
            bounds = np.concatenate([[0], np.cumsum(np.bincount(self.bucket_of[postings.terms[inline_rows]], minlength=n_buckets)),
                                     len(inline_rows) + np.cumsum(c[own])])
            order = np.concatenate([inline_rows, np.flatnonzero((c > self.layout.inline)[postings.terms])])
            rows, local = selected(order, bounds, np.concatenate([chosen, n_buckets + kept]))
            k_of_term = self.rice_ks[:, f]
            texts = []
            for a, z in segment_chunks(local):   # a million postings at a time: numpy's temporaries stay small
                part, bounds_part = rows[local[a]:local[z]], local[a:z + 1] - local[a]
                # A segment is whole terms: in `part` a term's postings follow one another, as gaps_of needs.
                doc_gaps = gaps_of(postings.docs[part], postings.terms[part])
                texts += zip(rice_segments(doc_gaps, k_of_term[postings.terms[part]], bounds_part),
                             varint_segments(postings.tfs[part] - 1, bounds_part),
                             varint_segments(postings.lengths[postings.docs[part]], bounds_part))
            for b, (gaps, tfs, lengths) in zip(buckets, texts):
                buckets[b]["gaps"].append(gaps)
                buckets[b]["tf"].append(tfs)
                buckets[b]["len"].append(lengths)
            for i, (gaps, tfs, lengths) in zip(kept.tolist(), texts[len(buckets):]):
                t = int(own[i])
                term, name = counts.terms[t], list_name(f, counts.terms[t])
                files.setdefault(name, []).append([term, gaps, tfs, lengths, term_fixes.get((f, t), [])])
        for b, bucket in buckets.items():
            files[self.buckets[b]] = bucket
        return files

    def topic_files(self) -> dict[str, dict]:
        """name -> value of each topic's file: its documents."""
        files = {}
        for slug, numbers in self.tag_docs.items():
            gaps = np.diff(np.asarray(numbers, dtype=np.int64), prepend=-1) - 1
            files["t-" + slug] = {"count": len(numbers), "gaps": varints(gaps.tolist())}
        return files


def plan_shards(counts: TermCounts, tag_docs: dict[str, list[int]], layout: Layout = Layout()) -> Shards:
    """The files of the index of `counts` (`tag_docs`: each topic's document numbers), to encode."""
    n_terms = len(counts.terms)
    per_field = [np.bincount(p.terms, minlength=n_terms) for p in counts.postings]
    df = sum(per_field) if per_field else np.zeros(n_terms, np.int64)
    return Shards(counts, layout, bucket_keys(counts.terms, per_field, layout), per_field, idf_of(df, len(counts.refs)), tag_docs)


def selected(values: np.ndarray, bounds: np.ndarray, segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """values[bounds[s]:bounds[s + 1]] of each of `segments` (ascending), one after another, and
    the bounds of each among them."""
    if len(segments) == len(bounds) - 1:   # all of them
        return values, bounds
    sizes = bounds[segments + 1] - bounds[segments]
    local = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    positions = np.repeat(bounds[segments] - local[:-1], sizes) + np.arange(local[-1], dtype=np.int64)
    return values[positions], local


def idf_of(df: np.ndarray, n_docs: int) -> np.ndarray:
    """lunr_idf of each term's document frequency (math.log, as lunr.py computes it: numpy's log may
    differ in the last bit), once per distinct frequency."""
    distinct, which = np.unique(df, return_inverse=True)
    return np.array([lunr_idf(int(n), n_docs) for n in distinct.tolist()], dtype=np.float64)[which.reshape(-1)]


CHUNK_POSTINGS = 1 << 20


def segment_chunks(bounds: np.ndarray) -> list[tuple[int, int]]:
    """Runs of whole segments (bounds[a]:bounds[b]) of about CHUNK_POSTINGS postings each."""
    out, a = [], 0
    cut = np.searchsorted(bounds, bounds + CHUNK_POSTINGS, side="right").tolist()
    while a < len(bounds) - 1:
        b = max(a + 1, min(cut[a] - 1, len(bounds) - 1))
        out.append((a, b))
        a = b
    return out


def near_boundary(postings, boost: float, idf: np.ndarray) -> list[tuple[int, float]]:
    """(posting, Python's weight) of the postings whose weight is within NEAR_HALF of a rounding
    boundary, computed with the same IEEE operations in the same order as lunr.py's Builder."""
    out = []
    for start in range(0, len(postings.docs), CHUNK_POSTINGS):
        rows = slice(start, start + CHUNK_POSTINGS)
        tf = postings.tfs[rows].astype(np.float64)
        norm = K1 * (1 - B + B * (postings.lengths[postings.docs[rows]] / postings.average)) if postings.average else 0
        score = idf[postings.terms[rows]] * ((K1 + 1) * tf) / (norm + tf)
        score *= boost
        scaled = score * 1000
        near = np.flatnonzero(np.abs(scaled - np.floor(scaled) - 0.5) < NEAR_HALF)
        out += [(start + int(i), round(float(score[i]), 3)) for i in near.tolist()]
    return out


def script_path(name: str) -> str:
    """The output path of the shards' file `name` (a bucket, posting, topic or store chunk file)."""
    return f"{DIRECTORY}/{name}.js"


def list_name(f: int, term: str) -> str:
    """The file of a term's postings in field f."""
    return f"p{f}-{file_name(term)}"


def file_name(term: str) -> str:
    """A term or bucket key as a file name: [a-z0-9] as they are, any other character as _<hex>_;
    over MAX_NAME characters, cut, then ~ and a hash of the whole (FNV-1a over the code points)."""
    name = "".join(c if c in NAME_CHARACTERS else f"_{ord(c):x}_" for c in term)
    return name if len(name) <= MAX_NAME else f"{name[:MAX_NAME - 9]}~{fnv1a(term):08x}"


def fnv1a(text: str) -> int:
    h = 0x811C9DC5
    for c in text:
        h = ((h ^ ord(c)) * 0x01000193) & 0xFFFFFFFF
    return h


def bucket_keys(terms: Sequence[str], per_field: Sequence[np.ndarray], layout: Layout) -> list[tuple[str, int, int]]:
    """The dictionary's buckets, as (start key, first term, end): ranges of the sorted terms.

    A trie of prefixes: a range over `bucket_bytes` (estimated) is split by the next character
    (up to `max_key` characters), then neighbouring pieces of one parent are merged again while
    they fit. Each bucket starts at a prefix; a term is in the last bucket that starts at or
    before it (the first bucket starts at "")."""
    count = sum(per_field) if per_field else np.zeros(len(terms), np.int64)
    inline_postings = sum(np.where(c <= layout.inline, c, 0) for c in per_field) if per_field else count
    # Estimated raw bytes: the term, front coding, a count per field, ~4 characters per inline posting.
    size = np.array([len(t) + 2 + len(per_field) for t in terms], dtype=np.int64) + 4 * inline_postings
    cumulative = np.concatenate([[0], np.cumsum(size)]).tolist()

    def bytes_of(first: int, last: int) -> int:
        return cumulative[last] - cumulative[first]

    def split(key: str, first: int, last: int) -> list[tuple[str, int, int]]:
        if bytes_of(first, last) <= layout.bucket_bytes or len(key) >= layout.max_key:
            return [(key, first, last)]
        depth, pieces = len(key), []
        if len(terms[first]) == depth:   # the key itself is a term (sorted first)
            pieces.append((key, first, first + 1))
            first += 1
        while first < last:
            c, end = terms[first][depth], first
            while end < last and terms[end][depth] == c:
                end += 1
            pieces += split(key + c, first, end)
            first = end
        merged: list[tuple[str, int, int]] = []
        for piece in pieces:
            if merged and bytes_of(merged[-1][1], piece[2]) <= layout.bucket_bytes:
                merged[-1] = (merged[-1][0], merged[-1][1], piece[2])
            else:
                merged.append(piece)
        return merged

    if not terms:
        return []
    keys = split("", 0, len(terms))
    return [("", 0, keys[0][2])] + keys[1:]   # the first starts at "", before every term


def tag_documents(tags_of: Sequence[Sequence[str]]) -> dict[str, list[int]]:
    """Topic slug -> the numbers of its documents, ascending."""
    out: dict[str, list[int]] = {}
    for d, tags in enumerate(tags_of):
        for slug in tags:
            out.setdefault(slug, []).append(d)
    return out
