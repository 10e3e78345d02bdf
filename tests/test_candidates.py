"""Which pairs related papers scores: each paper indexed under its heaviest terms, and the exact,
bit-for-bit reproducible cosines of the pairs sharing one."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from papersite.enrich import candidates
from papersite.enrich.terms import weigh_terms

from support.texts import GRAPHS, corpus


def matrix(rows: list[list[float]]) -> sp.csr_array:
    return sp.csr_array(np.array(rows, dtype=np.float32))


def test_terms_rank_heaviest_first_ties_to_the_lower_column():
    vectors = matrix([[0.2, 0.5, 0.2, 0.0, 0.7], [0.0, 0.3, 0.0, 0.3, 0.0]])
    # Row 0's entries are columns 0, 1, 2, 4; row 1's are 1 and 3, tied.
    assert candidates.term_ranks(vectors).tolist() == [2, 1, 3, 0, 0, 1]


def test_the_budget_caps_the_terms_per_paper(monkeypatch):
    vectors = matrix([[0.9, 0.1, 0.0, 0.05], [0.8, 0.0, 0.2, 0.05], [0.7, 0.3, 0.0, 0.05]])
    # One term each: column 0's block of 3 papers, 9 cells; two: + column 1's 2 papers and column
    # 2's 1, 14 cells; three: + column 3's 3 papers, 23 cells, and no paper has more.
    found = []
    for cells in (3, 4, 5, 7, 8, 1):
        monkeypatch.setattr(candidates, "CELLS_PER_PAPER", cells)
        found.append(candidates.index_terms(vectors).terms)
    assert found == [1, 1, 2, 2, 32, 1]   # never fewer than one
    monkeypatch.setattr(candidates, "MAX_TERMS", 1)
    monkeypatch.setattr(candidates, "CELLS_PER_PAPER", 5)
    assert candidates.index_terms(vectors).terms == 1


def test_the_index_lists_each_terms_papers_in_order(monkeypatch):
    monkeypatch.setattr(candidates, "MAX_TERMS", 3)
    vectors = weigh_terms(corpus(30))[0].vectors.astype(np.float32)
    index = candidates.index_terms(vectors)
    ranks = candidates.term_ranks(vectors)
    for row in range(vectors.shape[0]):
        start, end = vectors.indptr[row], vectors.indptr[row + 1]
        heaviest = set(vectors.indices[start:end][ranks[start:end] < 3].tolist())
        assert set(index.row_terms[index.row_indptr[row] : index.row_indptr[row + 1]].tolist()) == heaviest
        for term in heaviest:
            assert row in index.block(term)
    for term in range(vectors.shape[1]):
        block = index.block(term)
        assert np.all(np.diff(block) > 0)


@pytest.mark.parametrize("rows, entries", [(1, 1), (3, 7), (7, 50)])
def test_ranks_and_the_budget_are_the_same_a_few_rows_at_a_time(monkeypatch, rows, entries):
    vectors = weigh_terms(corpus(30) + [GRAPHS] * 4)[0].vectors.astype(np.float32)
    ranks, index = candidates.term_ranks(vectors), candidates.index_terms(vectors)
    monkeypatch.setattr(candidates, "RANK_ROWS", rows)
    monkeypatch.setattr(candidates, "RANK_ENTRIES", entries)
    assert np.array_equal(candidates.term_ranks(vectors), ranks)
    chunked = candidates.index_terms(vectors)
    assert chunked.terms == index.terms and np.array_equal(chunked.heaviest, index.heaviest)


@pytest.mark.parametrize("chunk, batch, query", [(256, 128, 64), (3, 2, 1), (4, 7, 5)])
def test_a_pair_gets_the_same_bits_however_it_is_scored(monkeypatch, chunk, batch, query):
    monkeypatch.setattr(candidates, "CHUNK", chunk)
    monkeypatch.setattr(candidates, "BATCH_ROWS", batch)
    monkeypatch.setattr(candidates, "QUERY_ROWS", query)
    monkeypatch.setattr(candidates, "MAX_TERMS", 4)
    vectors = weigh_terms(corpus(40) + [GRAPHS] * 6)[0].vectors.astype(np.float32)
    index = candidates.index_terms(vectors)
    exact = (vectors @ vectors.T).toarray()   # scipy's float32 product: each cell summed in column order
    n = vectors.shape[0]
    everything = candidates.score_rows(vectors, index, np.arange(n), np.ones(n, dtype=bool), 3, 0.0)
    some = candidates.score_rows(vectors, index, np.arange(0, n, 3), np.arange(n) % 2 == 0, 3, 0.0)
    best = candidates.score_all(vectors, index, 3, 0.0, candidates.Found()).arrays()
    for rows, cols, scores in (everything, some, best):
        assert np.array_equal(scores, exact[rows, cols])   # bit for bit, and so symmetric
        assert np.all(rows != cols)
    # score_rows gives every pair sharing an indexed term (all are within 0.0 of the threshold 0.0).
    shared = {(int(r), int(c)) for r, c in zip(*everything[:2])}
    assert shared == {(r, c) for r in range(vectors.shape[0]) for c in range(vectors.shape[0]) if r != c and
                      set(index.row_terms[index.row_indptr[r] : index.row_indptr[r + 1]].tolist())
                      & set(index.row_terms[index.row_indptr[c] : index.row_indptr[c + 1]].tolist())}
