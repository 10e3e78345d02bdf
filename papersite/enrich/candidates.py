"""Which pairs of papers related papers scores: each paper indexed under its most heavily weighted terms,
and the exact cosine of every pair that shares one of them.

Scoring every pair is quadratic (100,000 papers: 5·10⁹ pairs). A paper's nearest neighbours nearly
always share one of its few heaviest terms with it, so each paper is indexed under its `m` heaviest
terms and a pair is scored only when the two papers share an indexed term; scored, it gets its
exact cosine over the whole vectors. `m` is the largest number of terms (up to MAX_TERMS) for which
the pairs to score stay within CELLS_PER_PAPER per paper: a small corpus is indexed deeply and ranked
as good as exactly, a large one on its rarest, most telling terms, in time linear in its size
(bench/README.md, "Related papers", has the recall and the timings).

Whether a pair is scored depends on its two vectors only, so an edit changes only the pairs of the
papers whose vectors it changed (`related.rank_with_previous`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import numpy as np
import scipy.sparse as sp

# Terms a paper is indexed under: at most this many, and fewer when the pairs to score would
# exceed CELLS_PER_PAPER per paper on average.
MAX_TERMS = 32
CELLS_PER_PAPER = 800
# Twice the largest change rounding to 4 decimals can make, with room for float32 error.
CANDIDATE_MARGIN = 2e-4
# Papers of a term's block scored at once: bounds a dense block of scores to CHUNK² cells and the
# dense columns it is multiplied with to CHUNK × the block's vocabulary.
CHUNK = 256
# Blocks of fewer papers are scored BATCH_ROWS papers at a time (score_batch).
BATCH_ROWS = 128
# Rows an edit re-ranks, scored this many at a time (score_rows).
QUERY_ROWS = 16
# Rows whose terms term_ranks ranks at once, and entries terms_within_budget counts at once.
RANK_ROWS = 8192
RANK_ENTRIES = 1 << 20


@dataclass(frozen=True)
class TermIndex:
    """Each paper's `terms` heaviest terms (`row_terms`, CSR by paper), and the papers indexed under
    each term (`members`, CSR by term, papers ascending): each term's block. `heaviest` (kept for
    the next build) holds each paper's `terms` + 1 heaviest columns, heaviest first, -1 past its last."""

    terms: int
    heaviest: np.ndarray
    row_indptr: np.ndarray
    row_terms: np.ndarray
    term_indptr: np.ndarray
    members: np.ndarray

    def block(self, term: int) -> np.ndarray:
        """The papers indexed under `term`, ascending."""
        return self.members[self.term_indptr[term] : self.term_indptr[term + 1]]


def index_terms(vectors: sp.csr_array) -> TermIndex:
    """Each row of `vectors` indexed under its heaviest terms, as many as the budget allows."""
    n, width = vectors.shape
    ranks = term_ranks(vectors)
    m = terms_within_budget(ranks, vectors.indices, width, CELLS_PER_PAPER * max(n, 1), MAX_TERMS)
    return index_of(heaviest_columns(vectors, ranks, m + 1), m, width)


def reindex(vectors: sp.csr_array, heaviest: np.ndarray, renumbered: np.ndarray, changed: np.ndarray, m: int) -> TermIndex | None:
    """The index of `vectors` from the previous build's `heaviest` columns (`renumbered[old]`: an old
    column's number now, -1 if gone), when the budget still gives `m` terms; None when it does not.
    A paper whose vector did not change has the heaviest terms it had: only `changed` rows are ranked."""
    n, width = vectors.shape
    if heaviest.shape != (n, m + 1):
        return None
    table = np.append(renumbered, -1).astype(np.int32)[heaviest]   # -1 stays -1
    rows = np.flatnonzero(changed)
    if len(rows):
        some = vectors[rows]
        table[rows] = heaviest_columns(some, term_ranks(some), m + 1)
    # Is m still what terms_within_budget gives: within the budget (or 1), and m + 1 over it?
    sizes = np.zeros(width, dtype=np.int64)
    cells = []
    for count in range(min(m + 1, MAX_TERMS)):
        sizes += np.bincount(table[:, count][table[:, count] >= 0], minlength=width)
        cells.append(int(sizes @ sizes))
    budget = CELLS_PER_PAPER * max(n, 1)
    if (m > 1 and cells[m - 1] > budget) or (m < MAX_TERMS and cells[m] <= budget):
        return None
    return index_of(table, m, width)


def heaviest_columns(vectors: sp.csr_array, ranks: np.ndarray, count: int) -> np.ndarray:
    """Per row, the columns of its `count` heaviest terms (`ranks` from term_ranks), heaviest first, -1 past its last."""
    kept = np.flatnonzero(ranks < count)
    table = np.full((vectors.shape[0], count), -1, dtype=np.int32)
    table[np.searchsorted(vectors.indptr, kept, side="right") - 1, ranks[kept]] = vectors.indices[kept]
    return table


def index_of(heaviest: np.ndarray, m: int, width: int) -> TermIndex:
    """The index of the first `m` columns of each row of `heaviest`."""
    rows, ranks = np.nonzero(heaviest[:, :m] >= 0)   # rows ascending
    columns = heaviest[rows, ranks]
    row_indptr = np.zeros(len(heaviest) + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=len(heaviest)), out=row_indptr[1:])
    order = np.argsort(columns, kind="stable")   # by term; rows stay ascending within each
    term_indptr = np.zeros(width + 1, dtype=np.int64)
    np.cumsum(np.bincount(columns, minlength=width), out=term_indptr[1:])
    return TermIndex(m, heaviest, row_indptr, columns, term_indptr, rows[order].astype(np.int32))


def term_ranks(vectors: sp.csr_array) -> np.ndarray:
    """Per entry of `vectors`, its place among its row's entries by weight: 0 for the heaviest, equal
    weights to the lower column (and weights within ~1e-10 of each other, which one key cannot tell apart)."""
    n = vectors.shape[0]
    ranks = np.empty(vectors.nnz, dtype=np.int32)
    # RANK_ROWS rows at a time: the keys and their order are 16 bytes an entry, 110 MB over the
    # whole matrix at 100,000 papers, at the build's peak (bench/README.md). A row's keys never
    # mix with another's, so each chunk sorts as the whole would.
    for start in range(0, n, RANK_ROWS):
        stop = min(n, start + RANK_ROWS)
        first, last = int(vectors.indptr[start]), int(vectors.indptr[stop])
        lengths = np.diff(vectors.indptr[start : stop + 1])
        # One stable sort on a single key: the row, then 1 - weight (weights are in (0, 1]) halved so
        # it stays below the next row. A row's entries are in column order, so ties keep that order.
        key = np.repeat(np.arange(start, stop, dtype=np.float64), lengths)
        key += (1.0 - vectors.data[first:last]) * 0.5
        order = np.argsort(key, kind="stable")
        del key
        ranks[first + order] = np.arange(last - first, dtype=np.int32) - np.repeat(vectors.indptr[start:stop] - first, lengths).astype(np.int32)
    return ranks


def terms_within_budget(ranks: np.ndarray, columns: np.ndarray, width: int, budget: int, most: int) -> int:
    """The largest m <= `most` (at least 1) for which the blocks of the papers indexed under their m
    heaviest terms have at most `budget` cells in all (a block of p papers has p² cells)."""
    counts = np.zeros(most * width, dtype=np.int64)
    for start in range(0, len(ranks), RANK_ENTRIES):   # a few bytes an entry at a time, not 24 at once
        part_ranks, part_columns = ranks[start : start + RANK_ENTRIES], columns[start : start + RANK_ENTRIES]
        within = part_ranks < most
        counts += np.bincount(part_ranks[within].astype(np.int64) * width + part_columns[within], minlength=most * width)
    sizes = np.zeros(width, dtype=np.int64)
    best = 1
    for m, added in enumerate(counts.reshape(most, width), start=1):
        sizes += added
        if int(sizes @ sizes) > budget:
            break
        best = m
    return best


def entry_positions(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Positions of the entries of CSR rows that start at `starts` and hold `lengths` entries, row after row."""
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(starts - offsets, lengths) + np.arange(int(lengths.sum()), dtype=np.int64)


# --- scoring ---------------------------------------------------------------------------


class PairSink(Protocol):
    """Where scored pairs go, block by block: `Found` keeps them as they are, `related.PairKeys` packs them."""

    def add(self, rows: np.ndarray, cols: np.ndarray, scores: np.ndarray) -> None: ...


Sink = TypeVar("Sink", bound=PairSink)


@dataclass
class Found:
    """(row, col, raw float32 score) triples, gathered block by block."""

    rows: list = field(default_factory=list)
    cols: list = field(default_factory=list)
    scores: list = field(default_factory=list)

    def add(self, rows: np.ndarray, cols: np.ndarray, scores: np.ndarray) -> None:
        self.rows.append(rows.astype(np.int32))
        self.cols.append(cols.astype(np.int32))
        self.scores.append(scores)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not self.rows:
            return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.float32)
        return np.concatenate(self.rows), np.concatenate(self.cols), np.concatenate(self.scores)


class Block:
    """The vectors of one term's papers over their own columns: a CSR matrix (`data`, `local`,
    `indptr`) and, chunk by chunk, the same as dense columns to multiply it with."""

    def __init__(self, vectors: sp.csr_array, papers: np.ndarray, slot: np.ndarray):
        starts = vectors.indptr[papers]
        lengths = vectors.indptr[papers + 1] - starts
        self.indptr = np.zeros(len(papers) + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.indptr[1:])
        at = entry_positions(starts, lengths)
        columns, self.data = vectors.indices[at], vectors.data[at]
        # Number the block's columns 0, 1, ... without sorting: `slot` (one cell per column of
        # `vectors`, scratch) records the last entry of each column, entries that are last are numbered.
        slot[columns] = np.arange(len(columns))
        last = slot[columns]
        is_last = np.zeros(len(columns), dtype=bool)
        is_last[last] = True
        self.local = (np.cumsum(is_last) - 1)[last]
        self.width = int(is_last.sum())
        self.papers = papers

    def rows(self, start: int, stop: int) -> sp.csr_array:
        a, b = self.indptr[start], self.indptr[stop]
        return sp.csr_array((self.data[a:b], self.local[a:b], self.indptr[start : stop + 1] - a), shape=(stop - start, self.width))

    def columns(self, start: int, stop: int) -> np.ndarray:
        """Dense (block vocabulary × papers start..stop) float32: a product with it gives cosines."""
        a, b = self.indptr[start], self.indptr[stop]
        dense = np.zeros((self.width, stop - start), dtype=np.float32)
        dense[self.local[a:b], np.repeat(np.arange(stop - start), np.diff(self.indptr[start : stop + 1]))] = self.data[a:b]
        return dense


def score_all(vectors: sp.csr_array, index: TermIndex, k: int, threshold: float, found: Sink) -> Sink:
    """Every scored pair that can be among its row's top k, for every row, added to `found` as
    (rows, cols, raw scores) block by block; `found` returned.

    Each term's block is scored in CHUNK × CHUNK pieces, each piece once: the product of chunks a
    and b (a < b) serves the rows of a and, transposed, those of b (cosines are symmetric, and the
    same in float32 bits both ways: each is summed over the shared terms in column order). Blocks
    of fewer than BATCH_ROWS papers are scored several at once (`score_batch`)."""
    slot = np.zeros(vectors.shape[1], dtype=np.int64)
    sizes = np.diff(index.term_indptr)
    small = np.flatnonzero((sizes >= 2) & (sizes < BATCH_ROWS))
    small = small[np.argsort(sizes[small], kind="stable")]
    batch: list[int] = []
    stacked = 0
    for term, size in zip(small.tolist(), sizes[small].tolist()):
        if batch and stacked + size > BATCH_ROWS:
            score_batch(vectors, index, np.array(batch), slot, found, k, threshold)
            batch, stacked = [], 0
        batch.append(term)
        stacked += size
    if batch:
        score_batch(vectors, index, np.array(batch), slot, found, k, threshold)
    for term in np.flatnonzero(sizes >= BATCH_ROWS).tolist():
        block = Block(vectors, index.block(term), slot)
        size = len(block.papers)
        for b in range(0, size, CHUNK):
            b_end = min(size, b + CHUNK)
            dense = block.columns(b, b_end)
            for a in range(0, b + 1, CHUNK):
                a_end = min(size, a + CHUNK)
                scores = block.rows(a, a_end) @ dense
                if a == b:
                    np.fill_diagonal(scores, -np.inf)
                keep_best(found, scores, block.papers[a:a_end], block.papers[b:b_end], k, threshold)
                if a != b:
                    keep_best(found, scores.T, block.papers[b:b_end], block.papers[a:a_end], k, threshold)
    return found


def score_batch(vectors: sp.csr_array, index: TermIndex, terms: np.ndarray, slot: np.ndarray, found: PairSink, k: int,
                threshold: float) -> None:
    """Score the small blocks of `terms` as one: their papers stacked (a paper once per block), every
    pair of stacked papers scored, and only the pairs within a block kept. Each small block alone costs
    more in NumPy's fixed costs per call than all of its pairs in arithmetic."""
    papers = np.concatenate([index.block(term) for term in terms.tolist()])
    owner = np.repeat(np.arange(len(terms)), np.diff(index.term_indptr)[terms])
    block = Block(vectors, papers, slot)
    scores = block.rows(0, len(papers)) @ block.columns(0, len(papers))
    scores[owner[:, None] != owner[None, :]] = -np.inf
    np.fill_diagonal(scores, -np.inf)
    keep_best(found, scores, papers, papers, k, threshold)


def score_rows(vectors: sp.csr_array, index: TermIndex, rows: np.ndarray, whole: np.ndarray, k: int,
               threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Like `score_all`, for the rows `rows` (ascending) only, and for those marked in `whole` (a mask
    over all rows) every scored pair that can round to `threshold` or more. An edit re-ranks a few
    hundred rows, each with its own candidates, so they are scored QUERY_ROWS at a time against the
    union of their candidates rather than block by block.

    The same float32 bits as `score_all`: a product summed over the other paper's entries instead of
    this one's adds the same products of shared terms in the same (column) order, and zeros."""
    found = Found()
    n, width = vectors.shape
    is_candidate, position = np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64)
    in_vocabulary, slot = np.zeros(width, dtype=bool), np.zeros(width, dtype=np.int64)
    indexed, sizes = np.diff(index.row_indptr), np.diff(index.term_indptr)
    for start in range(0, len(rows), QUERY_ROWS):
        queries = rows[start : start + QUERY_ROWS]
        # Every (query, candidate) pair, once per indexed term they share.
        terms = index.row_terms[entry_positions(index.row_indptr[queries], indexed[queries])]
        asking = np.repeat(np.repeat(np.arange(len(queries)), indexed[queries]), sizes[terms])
        met = index.members[entry_positions(index.term_indptr[terms], sizes[terms])]
        other = met != queries[asking]
        asking, met = asking[other], met[other]
        if not len(met):
            continue
        is_candidate[:] = False
        is_candidate[met] = True
        candidates = np.flatnonzero(is_candidate)
        position[candidates] = np.arange(len(candidates))
        # The queries as dense columns over their own vocabulary; the candidates' other columns all
        # point at a last row of zeros.
        lengths = vectors.indptr[queries + 1] - vectors.indptr[queries]
        at = entry_positions(vectors.indptr[queries], lengths)
        in_vocabulary[:] = False
        in_vocabulary[vectors.indices[at]] = True
        vocabulary = np.flatnonzero(in_vocabulary)
        slot[:] = len(vocabulary)
        slot[vocabulary] = np.arange(len(vocabulary))
        dense = np.zeros((len(vocabulary) + 1, len(queries)), dtype=np.float32)
        dense[slot[vectors.indices[at]], np.repeat(np.arange(len(queries)), lengths)] = vectors.data[at]
        lengths = vectors.indptr[candidates + 1] - vectors.indptr[candidates]
        at = entry_positions(vectors.indptr[candidates], lengths)
        indptr = np.zeros(len(candidates) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        matrix = sp.csr_array((vectors.data[at], slot[vectors.indices[at]], indptr), shape=(len(candidates), len(vocabulary) + 1))
        scored = matrix @ dense
        scores = np.full((len(queries), len(candidates)), -np.inf, dtype=np.float32)   # pairs never scored: -inf
        scores[asking, position[met]] = scored[position[met], asking]
        every = whole[queries]
        keep_best(found, scores[~every], queries[~every], candidates, k, threshold)
        keep_best(found, scores[every], queries[every], candidates, len(candidates), threshold)
    return found.arrays()


def keep_best(found: PairSink, scores: np.ndarray, rows: np.ndarray, cols: np.ndarray, k: int, threshold: float) -> None:
    """Add the cells of each row of `scores` (rows `rows` × columns `cols`) that can be among the
    row's top k by rounded score: rounding is monotone, so a cell more than CANDIDATE_MARGIN below
    the row's k-th best raw score (or below the threshold) has k cells rounding strictly above it."""
    height, width = scores.shape
    if not height or not width:
        return
    floor = np.full(height, threshold - CANDIDATE_MARGIN)
    if k < width:
        kth = np.partition(scores, width - k, axis=1)[:, width - k].astype(np.float64)
        floor = np.maximum(floor, kth - CANDIDATE_MARGIN)
    at_row, at_col = np.nonzero(scores >= floor[:, None].astype(scores.dtype))
    found.add(rows[at_row], cols[at_col], scores[at_row, at_col])
