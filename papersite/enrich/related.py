"""Related papers: for each paper, the most similar others by cosine of TF-IDF vectors, and the terms they share.

The papers compared with each paper are those sharing one of its heaviest terms (`candidates`:
linear in the corpus, where comparing every pair is quadratic), each compared exactly.
Deterministic: ties are broken by position and scores rounded to 4 decimals, so a rebuild of the
same content gives byte-identical pages. The ranking is kept for the next build, which re-ranks
only the rows an edit touches (`rank_with_previous`), with the same result as ranking from scratch.
A paper added, removed or moved (its year changed) leaves most vectors as they were (term weights
are rounded: terms.py), so the previous ranking, its rows renumbered (`aligned`), serves that build too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from ..digests import leaf
from . import candidates
from .candidates import Found, TermIndex, index_terms, reindex, score_all, score_rows
from .moves import old_places
from .terms import TermMatrix

SHARED_TERM_LIMIT = 3
DECIMALS = 4
# An edit is re-ranked from the previous ranking while it touches at most this share of the rows:
# a re-ranked row costs 10-20 times what it costs in a full ranking (its candidates are gathered
# for it alone, not shared in blocks) at 25,000-100,000 papers (bench/README.md).
INCREMENTAL_SHARE = 0.05
# Pairs whose shared terms are named at once: bounds the memory of their products (80 MB for
# 32,768 pairs at 100,000 papers, at the cold build's peak; as fast).
PAIRS_AT_ONCE = 1 << 13
# best_pairs packs (row, score, col) into one int64 while rows and cols fit in COL_BITS.
COL_BITS = 24
SCORE_BITS = 14
RELATED_COUNT = 5
RELATED_THRESHOLD = 0.08


@dataclass(frozen=True)
class RelatedLink:
    slug: str
    title_html: str
    shared_terms: tuple[str, ...]


# A link as plain texts (slug, title HTML, shared terms): what a related list's version digests,
# pickled in C (dataclasses pickle through Python, at twice the cost: bench/README.md;
# tests/test_digests.py checks it misses no field of RelatedLink).
LinkTexts = tuple[str, str, tuple[str, ...]]


@dataclass(frozen=True, eq=False)
class RelatedTable:
    """Every paper's related papers as the ranking pairs them, read a row at a time: a page's links
    are made when it is rendered, by the worker rendering it. Made for every paper at every build,
    an anthology's 500,000 links took 1.4 s of an edit that renders seven pages (bench/README.md)."""

    pages: Sequence                       # per paper, its page data (its slug and title)
    cols: np.ndarray                      # the ranking's pairs, in rank order ...
    shared: tuple[tuple[str, ...], ...]   # ... and the keys of the terms each pair shares most
    label_of: dict[str, str]              # each key's readable label
    bounds: np.ndarray                    # row r's pairs are bounds[r]:bounds[r + 1]

    def texts(self, row: int) -> tuple[LinkTexts, ...]:
        start, end = int(self.bounds[row]), int(self.bounds[row + 1])
        label = self.label_of.__getitem__
        pages = self.pages
        return tuple((pages[col].paper.slug, pages[col].title_html, tuple(map(label, keys)))
                     for col, keys in zip(self.cols[start:end].tolist(), self.shared[start:end]))


@dataclass(frozen=True)
class RelatedList:
    """The papers one paper's page lists as related, best first. Kept apart from the paper's own
    page data, which every listing shows: an edit re-ranks hundreds of papers' neighbours, and the
    pages listing those papers do not show their neighbours."""

    # The digest of the links' texts (link_version): a page's key takes it instead of the links.
    version: bytes = b""
    table: RelatedTable | None = field(default=None, compare=False, repr=False)
    row: int = field(default=0, compare=False, repr=False)

    @cached_property
    def links(self) -> tuple[RelatedLink, ...]:
        return tuple(RelatedLink(*texts) for texts in self.table.texts(self.row)) if self.table is not None else ()


def link_version(texts: Sequence[LinkTexts]) -> bytes:
    return leaf(tuple(texts))


@dataclass(frozen=True)
class Related:
    index: int                     # position of the related paper in the input list
    score: float                   # cosine similarity, rounded to 4 decimals
    shared_terms: tuple[str, ...]  # up to 3 readable terms both papers share, most important first



def relate_papers(pages: Sequence, terms: TermMatrix, previous: Ranking | None = None) -> tuple[tuple[RelatedList, ...], Ranking | None]:
    """Each page's related papers, in page order (`terms` has a row per page), and the ranking for the
    next build. A list whose pairs, and whose papers' page data, are as the `previous` build had
    them keeps its version, and its links are made only if its page is rendered."""
    if not terms.vectors.shape[0]:
        return (), None
    ids = tuple(page.paper.slug for page in pages)
    if isinstance(previous, Ranking) and previous.ids and previous.ids != ids:
        previous = aligned(previous, ids)
    ranking = rank_with_previous(terms, RELATED_COUNT, RELATED_THRESHOLD, previous)
    table = RelatedTable(pages, ranking.cols, ranking.shared, dict(zip(terms.keys, terms.labels)),
                         np.searchsorted(ranking.rows, np.arange(len(pages) + 1)))
    page_versions = tuple(page.version for page in pages)
    stale = stale_rows(previous, ranking, table, page_versions)
    if stale is None:
        versions = tuple(link_version(table.texts(row)) for row in range(len(pages)))
    else:
        kept = previous.versions
        versions = tuple(link_version(table.texts(row)) if again else kept[row] for row, again in enumerate(stale.tolist()))
    ranking = replace(ranking, page_versions=page_versions, labels=terms.labels, versions=versions, ids=ids)
    return tuple(RelatedList(version, table, row) for row, version in enumerate(versions)), ranking


def aligned(previous: Ranking, ids: tuple[str, ...]) -> Ranking:
    """The `previous` ranking with its rows renumbered to this build's papers (`ids`, by slug): an
    added paper has no pairs, and no text digest or list version, so it is ranked and listed as
    changed; so is a paper that listed a removed one, whose list needs its next best. A paper that
    moved among the others (its year changed) is both: removed from its old place, added at its new
    one. Ties go to the lower row, so only papers that kept their order keep their pairs."""
    places = old_places(previous.ids, ids)
    found = np.flatnonzero(places >= 0)
    new_of = np.full(len(previous.ids), -1, dtype=np.int64)
    new_of[places[found]] = found
    stays = new_of >= 0
    pairs = stays[previous.rows] & stays[previous.cols]
    lost = set(new_of[previous.rows[~pairs & stays[previous.rows]]].tolist())

    def moved(values: tuple, lost_too: bool = False) -> tuple:
        """Per paper of this build, its previous value; b"" for an added one and, `lost_too`, for
        one that listed a removed paper."""
        out = [b""] * len(ids) if values else []
        for row, value in zip(new_of.tolist(), values):
            if row >= 0 and not (lost_too and row in lost):
                out[row] = value
        return tuple(out)

    heaviest = np.full((len(ids), previous.heaviest.shape[1]), -1, dtype=previous.heaviest.dtype)
    heaviest[new_of[stays]] = previous.heaviest[stays]
    return replace(previous, ids=ids, heaviest=heaviest, digests=moved(previous.digests, lost_too=True),
                   rows=new_of[previous.rows[pairs]].astype(previous.rows.dtype), cols=new_of[previous.cols[pairs]].astype(previous.cols.dtype),
                   scores=previous.scores[pairs], shared=tuple(keys for keys, kept in zip(previous.shared, pairs.tolist()) if kept),
                   page_versions=moved(previous.page_versions), versions=moved(previous.versions, lost_too=True))


def stale_rows(previous: Ranking | None, ranking: Ranking, table: RelatedTable, page_versions: tuple[bytes, ...]) -> np.ndarray | None:
    """Mask of the rows whose related list may differ from the `previous` build's; None for every
    row (no previous lists, another number of papers, page data without versions). A row's list is
    its pairs' papers' slugs and titles, which their page data's versions cover, and the labels of
    the terms its pairs share."""
    n = len(page_versions)
    if not (isinstance(previous, Ranking) and len(previous.versions) == len(previous.page_versions) == n
            and len(previous.labels) == len(previous.idf) and all(page_versions)):
        return None
    rows, cols, bounds = ranking.rows, ranking.cols, table.bounds
    before = np.searchsorted(previous.rows, np.arange(n + 1))
    stale = np.diff(bounds) != np.diff(before)
    stale[[row for row, version in enumerate(previous.versions) if not version]] = True   # added, or lost a pair (`aligned`)
    # A row with as many pairs as before: each pair against the previous one at its place.
    at = np.flatnonzero(~stale[rows])
    was = before[rows[at]] + at - bounds[rows[at]]
    old_shared = np.fromiter(previous.shared, dtype=object, count=len(previous.shared))
    new_shared = np.fromiter(ranking.shared, dtype=object, count=len(ranking.shared))
    stale[rows[at[(previous.cols[was] != cols[at]) | (old_shared[was] != new_shared[at])]]] = True
    moved = np.fromiter((a != b for a, b in zip(previous.page_versions, page_versions)), dtype=bool, count=n)
    stale[rows[moved[cols]]] = True
    old_label = dict(zip(previous.idf, previous.labels))
    relabelled = {key for key, label in table.label_of.items() if old_label.get(key) != label}
    if relabelled:
        stale[rows[np.fromiter((not relabelled.isdisjoint(keys) for keys in ranking.shared), dtype=bool, count=len(rows))]] = True
    return stale


def related_papers(terms: TermMatrix, k: int = RELATED_COUNT, threshold: float = RELATED_THRESHOLD,
                   previous: Ranking | None = None) -> tuple[list[tuple[Related, ...]], Ranking | None]:
    """For each row, up to `k` other rows with cosine similarity >= `threshold`, best first, and the ranking.

    Ties in (rounded) score go to the lower index. A text sharing nothing with any other gets
    an empty tuple. The `previous` build's ranking is where this one starts from.
    """
    n = terms.vectors.shape[0]
    if not n or k <= 0:
        return [() for _ in range(n)], None
    ranking = rank_with_previous(terms, k, threshold, previous)
    related: list[list[Related]] = [[] for _ in range(n)]
    for row, col, score, labels in zip(ranking.rows.tolist(), ranking.cols.tolist(), ranking.scores.tolist(),
                                       shared_labels(terms, ranking)):
        related[row].append(Related(col, score, labels))
    return [tuple(found) for found in related], ranking


def shared_labels(terms: TermMatrix, ranking: Ranking) -> list[tuple[str, ...]]:
    """Per pair of `ranking`, the readable labels of the terms it shares most."""
    label_of = dict(zip(terms.keys, terms.labels))
    labels: dict[tuple[str, ...], tuple[str, ...]] = {}   # many pairs share the same terms
    return [labels[keys] if keys in labels else labels.setdefault(keys, tuple(map(label_of.__getitem__, keys)))
            for keys in ranking.shared]


@dataclass(frozen=True)
class Ranking:
    """A build's ranking and what it was made from: the next build re-ranks only what changed."""

    k: int
    threshold: float
    budget: tuple[int, int]        # candidates.CELLS_PER_PAPER and MAX_TERMS
    terms_per_paper: int           # the terms each paper was indexed under (candidates.index_terms) ...
    heaviest: np.ndarray           # ... and its heaviest columns (TermIndex.heaviest)
    digests: tuple[bytes, ...]     # per row, its text's key (terms.count_words) ...
    idf: dict[str, float]          # ... and the weight of each term: together they make the vectors
    rows: np.ndarray               # the pairs, in rank order (row, score descending, col)
    cols: np.ndarray
    scores: np.ndarray
    shared: tuple[tuple[str, ...], ...]   # per pair, the keys of the terms it shares most
    # What the related lists were made from besides the pairs, and their versions (relate_papers):
    page_versions: tuple[bytes, ...] = ()   # per row, its paper's page data's version
    labels: tuple[str, ...] = ()            # per term, in the order of `idf`, its label
    versions: tuple[bytes, ...] = ()        # per row, its related list's version
    ids: tuple[str, ...] = ()               # per row, its paper's slug (`aligned`)


def rank_with_previous(terms: TermMatrix, k: int, threshold: float, previous: Ranking | None = None) -> Ranking:
    """Every row's ranked pairs and each pair's shared terms, starting from the `previous` build's
    ranking when few vectors changed. The pairs are those ranking from scratch gives (`rank_all`).

    Why it is the same: whether a pair is scored, its score and its shared terms depend only on its
    two vectors. For a row whose vector is unchanged and none of whose previous neighbours changed,
    the previous top k is the top k among the unchanged columns; the new top k is then the top k of
    those k pairs and its scored pairs with the changed rows. Every other row is ranked in full.
    """
    vectors = terms.vectors.astype(np.float32)
    budget = (candidates.CELLS_PER_PAPER, candidates.MAX_TERMS)
    if not (isinstance(previous, Ranking) and (previous.k, previous.threshold, previous.budget) == (k, threshold, budget)
            and len(previous.digests) == vectors.shape[0]):
        previous = None   # another number of papers, and no slugs to align the rows by (`aligned`)
    changed = changed_rows(previous, terms) if previous is not None else None
    index = None
    if previous is not None:
        column_of = {key: column for column, key in enumerate(terms.keys)}
        renumbered = np.fromiter((column_of.get(key, -1) for key in previous.idf), dtype=np.int64, count=len(previous.idf))
        index = reindex(vectors, previous.heaviest, renumbered, changed, previous.terms_per_paper)
        if index is None:
            previous = None   # the budget gives another number of terms now: any pair may be scored or not
    index = index or index_terms(vectors)
    found = rerank(previous, changed, vectors, index, k, threshold) if previous is not None else None
    rows, cols, scores = found if found is not None else rank_all(vectors, index, k, threshold)
    ranking = Ranking(k, threshold, budget, index.terms, index.heaviest, terms.digests, dict(zip(terms.keys, terms.idf.tolist())),
                      rows, cols, scores, shared_keys(terms, rows, cols, previous, changed))
    return ranking


def rank_all(vectors: sp.csr_array, index: TermIndex, k: int, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, col, score) of each row's top k among its scored pairs, in rank order (row, score descending, col)."""
    if vectors.shape[0] > 1 << COL_BITS:
        return best_pairs(*rounded(score_all(vectors, index, k, threshold, Found()).arrays()), k, threshold)
    return best_of_keys(score_all(vectors, index, k, threshold, PairKeys(threshold)).keys(), k)


class PairKeys:
    """Scored pairs packed into keys as they are found (`pair_keys`), those that can be no one's
    neighbour left out: 8 bytes a pair, where the (row, col, score) triples gathered whole, then
    rounded and packed, took up to 100 bytes a pair at once, 300 MB at 100,000 papers, at the
    cold build's peak (bench/README.md)."""

    def __init__(self, threshold: float):
        self.threshold = threshold
        self.parts: list[np.ndarray] = []

    def add(self, rows: np.ndarray, cols: np.ndarray, scores: np.ndarray) -> None:
        scores = rounded_scores(scores)
        valid = neighbourly(scores, self.threshold)
        self.parts.append(pair_keys(rows[valid], cols[valid], scores[valid]))

    def keys(self) -> np.ndarray:
        keys = np.concatenate(self.parts) if self.parts else np.zeros(0, dtype=np.int64)
        self.parts.clear()
        return keys


def rerank(previous: Ranking, changed: np.ndarray, vectors: sp.csr_array, index: TermIndex, k: int, threshold: float):
    """The ranking of float32 `vectors` from `previous`; None when too much changed to gain anything."""
    n = vectors.shape[0]
    touched = changed.copy()
    touched[previous.rows[changed[previous.cols]]] = True   # rows that had a changed neighbour
    if touched.sum() > INCREMENTAL_SHARE * n:
        return None
    rows, cols, scores = rounded(score_rows(vectors, index, np.flatnonzero(touched), changed, k, threshold))
    # A changed row's pairs are all there: the other side of each is a candidate for the row it
    # meets, which keeps its previous pairs (none of them with a changed row).
    met = changed[rows]
    kept = ~touched[previous.rows]
    rows, cols, scores = (np.concatenate(parts) for parts in zip((rows, cols, scores), (cols[met], rows[met], scores[met]),
                                                                 (previous.rows[kept], previous.cols[kept], previous.scores[kept])))
    return best_pairs(rows, cols, scores, k, threshold)


def rounded(found: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scored pairs as int64 rows and cols and scores rounded to float64 (a pair that shares several
    indexed terms is scored in each of their blocks, to the same bits: best_pairs keeps it once)."""
    rows, cols, raw = found
    return rows.astype(np.int64), cols.astype(np.int64), rounded_scores(raw)


def rounded_scores(raw: np.ndarray) -> np.ndarray:
    """Raw float32 scores as the ranking compares them: float64, rounded to DECIMALS."""
    return np.round(raw.astype(np.float64), DECIMALS)


def shared_keys(terms: TermMatrix, rows: np.ndarray, cols: np.ndarray, previous: Ranking | None,
                changed: np.ndarray | None) -> tuple[tuple[str, ...], ...]:
    """Per pair, the keys of the terms it shares most; a pair of two unchanged vectors that was
    ranked before keeps the keys it had (ties among terms go by key, whatever the columns)."""
    shared = np.empty(len(rows), dtype=object)
    todo = np.arange(len(rows))
    if previous is not None and len(previous.rows) and len(rows):
        before = previous.rows.astype(np.int64) << 32 | previous.cols
        order = np.argsort(before)
        key = rows.astype(np.int64) << 32 | cols
        at = np.minimum(np.searchsorted(before[order], key), len(order) - 1)
        known = (before[order][at] == key) & ~changed[rows] & ~changed[cols]
        shared[known] = np.fromiter(previous.shared, dtype=object, count=len(previous.shared))[order[at[known]]]
        todo = np.flatnonzero(~known)
    shared[todo] = np.fromiter(name_shared_terms(terms, rows[todo], cols[todo]), dtype=object, count=len(todo))
    return tuple(shared.tolist())


def changed_rows(previous: Ranking, terms: TermMatrix) -> np.ndarray:
    """Mask of the rows whose vector may differ from the previous build's: a row's vector is a
    function of its text's word counts and its terms' weights, so it is unchanged when its text
    and the weight of each of its terms are."""
    changed = np.fromiter((a != b for a, b in zip(previous.digests, terms.digests)), dtype=bool, count=len(terms.digests))
    weighed = np.fromiter((previous.idf.get(key) != weight for key, weight in zip(terms.keys, terms.idf.tolist())),
                          dtype=bool, count=len(terms.keys))
    vectors = terms.vectors
    changed[np.searchsorted(vectors.indptr, np.flatnonzero(weighed[vectors.indices]), side="right") - 1] = True
    return changed


def best_pairs(rows: np.ndarray, cols: np.ndarray, scores: np.ndarray, k: int, threshold: float):
    """The first k pairs of each row by (rounded) score, ties to the lower col, in rank order
    (row, score descending, col), each pair once. Zero means nothing in common: never a neighbour,
    whatever the threshold."""
    valid = neighbourly(scores, threshold)
    rows, cols, scores = rows[valid], cols[valid], scores[valid]
    if len(rows) and max(int(rows.max()), int(cols.max())) < 1 << COL_BITS:
        return best_of_keys(pair_keys(rows, cols, scores), k)
    order = np.lexsort((cols, -scores, rows))
    rows, cols, scores = rows[order], cols[order], scores[order]
    once = np.ones(len(rows), dtype=bool)
    once[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1]) | (scores[1:] != scores[:-1])
    rows, cols, scores = rows[once], cols[once], scores[once]
    top = top_k(rows, k)
    return rows[top], cols[top], scores[top]


def neighbourly(scores: np.ndarray, threshold: float) -> np.ndarray:
    """Mask of the (rounded) scores that make a neighbour: zero means nothing in common, whatever the threshold."""
    return (scores >= threshold) & (scores > 0.0)


def pair_keys(rows: np.ndarray, cols: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """One integer key a pair, (row, 10⁴ - score in ten-thousandths, col), for rows and cols below
    1 << COL_BITS: sorted, they are in rank order, and a pair found more than once (with the same
    score) is one key."""
    tenths = np.rint(scores * 10**DECIMALS).astype(np.int64)
    return rows.astype(np.int64, copy=False) << (COL_BITS + SCORE_BITS) | (10**DECIMALS - tenths) << COL_BITS | cols


def best_of_keys(keys: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """best_pairs' result from the pairs' keys (`pair_keys`), which it sorts in place."""
    keys.sort()
    keys = keys[np.diff(keys, prepend=-1) != 0]
    rows, cols = keys >> (COL_BITS + SCORE_BITS), keys & ((1 << COL_BITS) - 1)
    scores = np.round((10**DECIMALS - (keys >> COL_BITS & ((1 << SCORE_BITS) - 1))) / 10**DECIMALS, DECIMALS)
    top = top_k(rows, k)
    return rows[top], cols[top], scores[top]


def top_k(rows: np.ndarray, k: int) -> np.ndarray:
    """Mask of the first k entries of each row in `rows` (sorted)."""
    starts = np.flatnonzero(np.diff(rows, prepend=rows[:1] - 1)) if len(rows) else np.zeros(0, dtype=np.int64)
    return np.arange(len(rows)) - np.repeat(starts, np.diff(starts, append=len(rows))) < k


def name_shared_terms(terms: TermMatrix, rows: np.ndarray, cols: np.ndarray) -> list[tuple[str, ...]]:
    """Per pair, the keys of the terms with the largest product of the two texts' weights, ties to
    the lower column; PAIRS_AT_ONCE pairs at a time, to bound memory."""
    keys = np.array(terms.keys, dtype=object)
    named: list[tuple[str, ...]] = []
    for start in range(0, len(rows), PAIRS_AT_ONCE):
        named += name_some(terms.vectors, keys, rows[start : start + PAIRS_AT_ONCE], cols[start : start + PAIRS_AT_ONCE])
    return named


def name_some(vectors: sp.csr_array, keys: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> list[tuple[str, ...]]:
    products = vectors[rows].multiply(vectors[cols]).tocsr()
    products.sum_duplicates()   # canonical: each pair's shared terms in column order
    starts, lengths = products.indptr[:-1], np.diff(products.indptr)
    pair_of = np.repeat(np.arange(len(rows)), lengths)
    values, has = products.data.copy(), lengths > 0
    picked, best = [], np.full(len(rows), -np.inf)
    # Each pair's largest product, the first (lowest column) of equals, SHARED_TERM_LIMIT times: the
    # order a sort by (pair, product descending, column) gives, in a few passes over the products.
    for _ in range(SHARED_TERM_LIMIT):
        if has.any():
            best[has] = np.maximum.reduceat(values, starts[has])
        at = np.flatnonzero((values == best[pair_of]) & (values > -np.inf))
        first = at[np.diff(pair_of[at], prepend=-1) != 0]
        picked.append(first)
        values[first] = -np.inf
    order = np.concatenate(picked)
    order = order[np.argsort(pair_of[order], kind="stable")]   # by pair, each pair's picks in turn
    named = keys[products.indices[order]].tolist()
    bounds = np.searchsorted(pair_of[order], np.arange(len(rows) + 1)).tolist()
    return [tuple(named[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
