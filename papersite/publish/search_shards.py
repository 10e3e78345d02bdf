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
- `s-<n>.js`: the result store, chunk n: documents n*chunk .. (n+1)*chunk - 1, each
  [slug, title, tag slugs, summary, venue, year, first authors, author count] (search.py:
  byline): a query loads the chunks of the results it shows.
- `t-<slug>.js`: the documents of one topic, for the results page's topic filter.

Postings: document numbers (site order) as Rice-coded gaps (search_codec.rice_code), term
frequencies minus one and the document's field length as varints. The browser computes every
weight as lunr.py's Builder did, from the term's document frequency (the sum of its counts),
the number of documents, the field's average length and the posting: one index's global
statistics, so a shard's scores are exactly the single index's. The weight is rounded with an
exact decimal rounding (search-core.js `round3`), and a weight whose unrounded value is within
NEAR_HALF of a rounding boundary (where a last-bit difference between Python's and V8's `log`
could tip it) is listed in `fix` with Python's value.

What an edit changes: the buckets and posting files of the edited paper's terms (old and new),
its store chunk, the meta (the average lengths), and nothing else; every file is written with
sorted keys, so unchanged content is the same bytes. Adding or removing a paper renumbers the
papers after it, and so changes most files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from lunr import __TARGET_JS_VERSION__ as LUNR_JS_VERSION

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


def shard_files(counts: TermCounts, pipeline: list[str], tag_docs: dict[str, list[int]],
                layout: Layout = Layout()) -> tuple[dict, dict[str, object]]:
    """The meta, and name -> value of every other file but the store's chunks (search.py writes
    each as a script, and makes the chunks). `tag_docs`: each topic's document numbers.

    Every posting of a field is encoded at once (numpy), as segments: one per bucket for its
    terms' inline postings, one per term with a file of its own."""
    n_docs, n_terms = len(counts.refs), len(counts.terms)
    per_field = [np.bincount(p.terms, minlength=n_terms) for p in counts.postings]
    df = sum(per_field) if per_field else np.zeros(n_terms, np.int64)
    idf = idf_of(df, n_docs)
    keys = bucket_keys(counts.terms, per_field, layout)
    firsts = np.array([first for _, first, _ in keys] + [n_terms], dtype=np.int64)
    bucket_of = np.repeat(np.arange(len(keys)), np.diff(firsts))
    buckets = [{"terms": front_code(counts.terms[first:last]), "counts": [], "gaps": [], "tf": [], "len": [], "fix": []}
               for _, first, last in keys]
    files: dict[str, object] = {}
    for f, (postings, c) in enumerate(zip(counts.postings, per_field)):
        for bucket, text in zip(buckets, varint_segments(c, firsts)):
            bucket["counts"].append(text)
        starts = np.concatenate([[0], np.cumsum(c)])
        small = (c <= layout.inline)[postings.terms]
        inline_rows, own_rows = np.flatnonzero(small), np.flatnonzero(~small)
        big = np.flatnonzero(c > layout.inline)
        order = np.concatenate([inline_rows, own_rows])
        bounds = np.concatenate([[0], np.cumsum(np.bincount(bucket_of[postings.terms[inline_rows]], minlength=len(keys))),
                                 len(inline_rows) + np.cumsum(c[big])])
        all_gaps, k_of_term = gaps_of(postings.docs, postings.terms).astype(np.int32), rice_ks(c, n_docs).astype(np.int8)
        gaps, tfs, lengths = [], [], []
        for a, b in segment_chunks(bounds):   # a million postings at a time: numpy's temporaries stay small
            rows, local = order[bounds[a]:bounds[b]], bounds[a:b + 1] - bounds[a]
            gaps += rice_segments(all_gaps[rows], k_of_term[postings.terms[rows]], local)
            tfs += varint_segments(postings.tfs[rows] - 1, local)
            lengths += varint_segments(postings.lengths[postings.docs[rows]], local)
        del all_gaps
        fixes = near_boundary(postings, counts.boosts[f], idf)
        own: dict[int, list] = {int(t): [] for t in big.tolist()}
        for row, weight in fixes:
            t = int(postings.terms[row])
            if t in own:
                own[t].append([row - int(starts[t]), weight])
            else:
                b = int(bucket_of[t])
                buckets[b]["fix"].append([f, t - int(firsts[b]), row - int(starts[t]), weight])
        for b, bucket in enumerate(buckets):
            bucket["gaps"].append(gaps[b])
            bucket["tf"].append(tfs[b])
            bucket["len"].append(lengths[b])
        for i, t in enumerate(big.tolist(), len(buckets)):
            term = counts.terms[t]
            files.setdefault(list_name(f, term), []).append([term, gaps[i], tfs[i], lengths[i], own[t]])
    for (key, _, _), bucket in zip(keys, buckets):
        files["d-" + (file_name(key) or "_")] = bucket
    for slug, numbers in tag_docs.items():
        gaps = np.diff(np.asarray(numbers, dtype=np.int64), prepend=-1) - 1
        files["t-" + slug] = {"count": len(numbers), "gaps": varints(gaps.tolist())}
    meta = {
        "v": FORMAT,
        "version": LUNR_JS_VERSION,
        "fields": list(counts.fields),
        "boosts": list(counts.boosts),
        "k1": K1,
        "b": B,
        "pipeline": pipeline,
        "docs": n_docs,
        "average": [p.average for p in counts.postings],
        "buckets": front_code([key for key, _, _ in keys]),
        "inline": layout.inline,
        "chunk": layout.chunk,
    }
    return meta, files


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
    """The output path of the file `name` (a key of shard_files)."""
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
