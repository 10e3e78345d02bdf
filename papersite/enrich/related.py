"""Related papers: for each paper, the most similar others by cosine of TF-IDF vectors, and the terms they share.

Deterministic: ties are broken by position and scores rounded to 4 decimals, so a rebuild of the
same content gives byte-identical pages. The ranking is kept for the next build, which re-ranks
only the rows an edit touches (`rank_with_previous`): exactly, not approximately.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from .terms import TermMatrix

SHARED_TERM_LIMIT = 3
DECIMALS = 4
# Twice the largest change rounding to DECIMALS can make, with room for float32 error.
CANDIDATE_MARGIN = 2e-4
# Cells of the dense similarity block scored at once: bounds memory (32 MB of float64)
# whatever the corpus size, while keeping the blocks large for speed.
BLOCK_CELLS = 1 << 22
# SciPy's sparse product releases the GIL, so row blocks run in parallel threads.
WORKERS = min(4, os.cpu_count() or 1)
# An edit is ranked incrementally while the rows to rank again are at most this share of all.
INCREMENTAL_SHARE = 0.25
RELATED_COUNT = 5
RELATED_THRESHOLD = 0.08


@dataclass(frozen=True)
class RelatedLink:
    slug: str
    title_html: str
    shared_terms: tuple[str, ...]


@dataclass(frozen=True)
class RelatedList:
    """The papers one paper's page lists as related, best first. Kept apart from the paper's own
    page data, which every listing shows: an edit re-ranks hundreds of papers' neighbours, and the
    pages listing those papers do not show their neighbours."""

    links: tuple[RelatedLink, ...] = ()


@dataclass(frozen=True)
class Related:
    index: int                     # position of the related paper in the input list
    score: float                   # cosine similarity, rounded to 4 decimals
    shared_terms: tuple[str, ...]  # up to 3 readable terms both papers share, most important first



def relate_papers(pages: Sequence, terms: TermMatrix, previous: Ranking | None = None) -> tuple[tuple[RelatedList, ...], Ranking | None]:
    """Each page's related papers, in page order (`terms` has a row per page), and the ranking for the next build."""
    found, ranking = related_papers(terms, RELATED_COUNT, RELATED_THRESHOLD, previous)
    lists = []
    for related in found:
        lists.append(RelatedList(tuple(RelatedLink(pages[r.index].paper.slug, pages[r.index].title_html, r.shared_terms)
                                       for r in related)))
    return tuple(lists), ranking


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
    label_of = dict(zip(terms.keys, terms.labels))
    related: list[list[Related]] = [[] for _ in range(n)]
    for row, col, score, keys in zip(ranking.rows.tolist(), ranking.cols.tolist(), ranking.scores.tolist(), ranking.shared):
        related[row].append(Related(col, score, tuple(map(label_of.__getitem__, keys))))
    return [tuple(found) for found in related], ranking


@dataclass(frozen=True)
class Ranking:
    """A build's ranking and what it was made from: the next build re-ranks only what changed."""

    k: int
    threshold: float
    digests: tuple[bytes, ...]     # per row, the digest of its text ...
    idf: dict[str, float]          # ... and the weight of each term: together they make the vectors
    rows: np.ndarray               # the pairs, as rank_rows orders them
    cols: np.ndarray
    scores: np.ndarray
    shared: tuple[tuple[str, ...], ...]   # per pair, the keys of the terms it shares most


def rank_with_previous(terms: TermMatrix, k: int, threshold: float, previous: Ranking | None = None) -> Ranking:
    """Every row's ranked pairs (`rank_rows`) and each pair's shared terms, starting from the `previous`
    build's ranking when few vectors changed. Exact, not approximate: the pairs are those a full
    ranking gives.

    Why it is exact: a pair's score and shared terms depend only on its two vectors. For a row
    whose vector is unchanged and none of whose previous neighbours changed, the previous top k
    is the top k among the unchanged columns; the new top k is then the top k of those k pairs
    and the pairs with the changed columns, scored now. Every other row is ranked in full.
    """
    vectors = terms.vectors.astype(np.float32)
    if not (isinstance(previous, Ranking) and (previous.k, previous.threshold) == (k, threshold)
            and len(previous.digests) == vectors.shape[0]):
        previous = None   # a paper added or removed changes every weight
    changed = changed_rows(previous, terms) if previous is not None else None
    found = rerank(previous, changed, vectors, k, threshold) if previous is not None else None
    rows, cols, scores = found if found is not None else rank_rows(vectors, np.arange(vectors.shape[0]), k, threshold)
    ranking = Ranking(k, threshold, terms.digests, dict(zip(terms.keys, terms.idf.tolist())), rows, cols, scores,
                      shared_keys(terms, rows, cols, previous, changed))
    return ranking


def rerank(previous: Ranking, changed: np.ndarray, vectors: sp.csr_array, k: int, threshold: float):
    """The ranking of float32 `vectors` from `previous`; None when too much changed to gain anything."""
    n = vectors.shape[0]
    touched = changed.copy()
    touched[previous.rows[changed[previous.cols]]] = True   # rows that had a changed neighbour
    if touched.sum() > INCREMENTAL_SHARE * n:
        return None
    again = rank_rows(vectors, np.flatnonzero(touched), k, threshold)
    kept = ~touched[previous.rows]
    merged = merge_changed_columns(vectors, np.flatnonzero(~touched), np.flatnonzero(changed),
                                   (previous.rows[kept], previous.cols[kept], previous.scores[kept]), k, threshold)
    rows, cols, scores = (np.concatenate(parts) for parts in zip(again, merged))
    order = np.lexsort((cols, -scores, rows))
    return rows[order], cols[order], scores[order]


def shared_keys(terms: TermMatrix, rows: np.ndarray, cols: np.ndarray, previous: Ranking | None,
                changed: np.ndarray | None) -> tuple[tuple[str, ...], ...]:
    """Per pair, the keys of the terms it shares most; a pair of two unchanged vectors that was
    ranked before keeps the keys it had (ties among terms go by key, whatever the columns)."""
    known = {}
    if previous is not None:
        known = {(r, c): keys for r, c, keys in zip(previous.rows.tolist(), previous.cols.tolist(), previous.shared)
                 if not changed[r] and not changed[c]}
    pairs = list(zip(rows.tolist(), cols.tolist()))
    todo = [i for i, pair in enumerate(pairs) if pair not in known]
    found = dict(zip(todo, name_shared_terms(terms, rows[todo], cols[todo])))
    return tuple(known[pair] if i not in found else tuple(terms.keys[c] for c in found[i]) for i, pair in enumerate(pairs))


def changed_rows(previous: Ranking, terms: TermMatrix) -> np.ndarray:
    """Mask of the rows whose vector may differ from the previous build's: a row's vector is a
    function of its text's word counts and its terms' weights, so it is unchanged when its text
    and the weight of each of its terms are."""
    changed = np.fromiter((a != b for a, b in zip(previous.digests, terms.digests)), dtype=bool, count=len(terms.digests))
    weighed = np.fromiter((previous.idf.get(key) != weight for key, weight in zip(terms.keys, terms.idf.tolist())),
                          dtype=bool, count=len(terms.keys))
    vectors = terms.vectors
    entry_rows = np.repeat(np.arange(vectors.shape[0]), np.diff(vectors.indptr))
    changed[entry_rows[weighed[vectors.indices]]] = True
    return changed


def merge_changed_columns(vectors: sp.csr_array, rows: np.ndarray, columns: np.ndarray, kept, k: int, threshold: float):
    """Top k per row of `rows`: their kept pairs (unchanged columns) with their pairs in `columns`, scored now."""
    if not len(rows):
        return empty_pairs()
    # The same product, in the same order, as rank_rows: the float32 scores are the same bits.
    raw = (vectors[rows] @ vectors[columns].T.tocsr()).toarray()
    at_row, at_col = np.nonzero(raw > 0)
    scores = np.round(raw[at_row, at_col].astype(np.float64), DECIMALS)
    return best_pairs(np.concatenate([kept[0], rows[at_row]]), np.concatenate([kept[1], columns[at_col]]),
                      np.concatenate([kept[2], scores]), k, threshold)


def rank_rows(vectors: sp.csr_array, row_ids: np.ndarray, k: int, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, col, score) of each kept pair of the rows `row_ids` (ascending), ordered by row, then
    score descending, then col. `vectors` are float32: half the memory traffic of float64, and
    scores keep only 4 decimals anyway.

    Similarities are computed one block of rows at a time so memory stays bounded
    by BLOCK_CELLS rather than growing with n².
    """
    n = vectors.shape[0]
    transposed = vectors.T.tocsr()
    block = max(1, BLOCK_CELLS // n)

    def rank_some(start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ids = row_ids[start : start + block]
        return rank_block(vectors[ids] @ transposed, ids, k, threshold)

    if not len(row_ids):
        return empty_pairs()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        found = list(pool.map(rank_some, range(0, len(row_ids), block)))
    rows, cols, scores = (np.concatenate(parts) for parts in zip(*found))
    return rows, cols, scores


def empty_pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)


def rank_block(similarities: sp.csr_array, row_ids: np.ndarray, k: int, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top-k pairs of one block of rows (global indices `row_ids`), in the order of `rank_rows`."""
    # Rank on rounded scores so the order always agrees with the scores shown. Rounding the
    # whole block is most of the cost, so only candidates are rounded: rounding is monotone,
    # so a pair whose raw score is more than CANDIDATE_MARGIN below the k-th best raw score
    # (or below the threshold) has at least k valid pairs rounding strictly above it and can
    # never be in the top k. The result is the same as ranking every rounded score.
    raw = similarities.toarray()
    height, n = raw.shape
    raw[np.arange(height), row_ids] = -np.inf
    floor = np.full(height, threshold - CANDIDATE_MARGIN, dtype=np.float64)
    if k < n - 1:
        kth_raw = np.partition(raw, n - k, axis=1)[:, n - k].astype(np.float64)
        floor = np.maximum(floor, kth_raw - CANDIDATE_MARGIN)
    rows, cols = np.nonzero(raw >= floor[:, None].astype(raw.dtype))
    rows, cols, kept = best_pairs(rows, cols, np.round(raw[rows, cols].astype(np.float64), DECIMALS), k, threshold)
    return row_ids[rows], cols, kept


def best_pairs(rows: np.ndarray, cols: np.ndarray, scores: np.ndarray, k: int, threshold: float):
    """The first k pairs of each row by (rounded) score, ties to the lower col, in rank order
    (row, score descending, col). Zero means nothing in common: never a neighbour, whatever the threshold."""
    valid = (scores >= threshold) & (scores > 0.0)
    rows, cols, scores = rows[valid], cols[valid], scores[valid]
    order = np.lexsort((cols, -scores, rows))
    rows, cols, scores = rows[order], cols[order], scores[order]
    top = top_k(rows, k)
    return rows[top], cols[top], scores[top]


def top_k(rows: np.ndarray, k: int) -> np.ndarray:
    """Mask of the first k entries of each row in `rows` (sorted)."""
    return (np.arange(len(rows)) - np.searchsorted(rows, rows)) < k


def name_shared_terms(terms: TermMatrix, rows: np.ndarray, cols: np.ndarray) -> list[tuple[int, ...]]:
    """Per pair, the columns of the terms with the largest product of the two texts' weights."""
    if len(rows) == 0:
        return []
    products = (terms.vectors[rows] * terms.vectors[cols]).tocsr()
    products.sort_indices()
    pair_of = np.repeat(np.arange(len(rows)), np.diff(products.indptr))
    order = np.lexsort((products.indices, -products.data, pair_of))
    pair_of, columns = pair_of[order], products.indices[order]
    top = top_k(pair_of, SHARED_TERM_LIMIT)
    pair_of, columns = pair_of[top], columns[top]
    starts = np.searchsorted(pair_of, np.arange(len(rows) + 1))
    column_list = columns.tolist()
    return [tuple(column_list[a:b]) for a, b in zip(starts[:-1].tolist(), starts[1:].tolist())]

