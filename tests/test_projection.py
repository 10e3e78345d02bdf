"""The topic map's coordinates: a fresh layout (t-SNE; PCA for a handful of papers), deterministic, and
kept from build to build: an edit moves no other paper, an added paper lands among its neighbours."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import REPO

from papersite.enrich import projection, tsne
from papersite.enrich.terms import weigh_terms
from support.texts import GRAPHS, PROTEINS, corpus

SAMPLE = REPO / "tests" / "fixtures" / "ml-sample.jsonl"


def ids_for(texts: list[str]) -> list[str]:
    return [f"paper-{i:04d}" for i in range(len(texts))]


def project(texts: list[str]) -> list[tuple[float, float]]:
    return projection.project_2d(weigh_terms(texts)[0], ids_for(texts))[0]


# --- project_2d ------------------------------------------------------------------------


def test_projection_is_deterministic_and_within_unit_square():
    texts = corpus(40)
    points = project(texts)

    assert points == project(texts)
    assert len(points) == len(texts)
    assert all(0.0 <= x <= 1.0 and 0.0 <= y <= 1.0 for x, y in points)
    assert all(round(v, 4) == v for point in points for v in point)
    assert {min(x for x, _ in points), max(x for x, _ in points)} == {0.0, 1.0}


def test_projection_separates_two_clusters():
    vision = [f"Convolutional image segmentation of {w} scenes with pixel labels" for w in ("urban", "indoor", "aerial", "medical")]
    language = [f"Language translation of {w} sentences with token alignment" for w in ("legal", "spoken", "news", "poetic")]
    points = project(vision + language)

    first, second = [x for x, _ in points[:4]], [x for x, _ in points[4:]]
    assert max(first) < min(second) or max(second) < min(first)


def test_sparse_and_dense_svd_agree(monkeypatch):
    texts = corpus(30)
    dense = project(texts)
    monkeypatch.setattr(projection, "DENSE_CELLS", 0)
    sparse = project(texts)
    assert np.allclose(sparse, dense, atol=1e-3)


@pytest.mark.parametrize(
    "texts, expected",
    [
        ([], []),
        ([GRAPHS], [(0.5, 0.5)]),
        ([""], [(0.5, 0.5)]),
        (["", ""], [(0.5, 0.5), (0.5, 0.5)]),
        ([GRAPHS] * 4, [(0.5, 0.5)] * 4),
    ],
)
def test_projection_degenerate_inputs_sit_at_the_centre(texts, expected):
    assert project(texts) == expected


def test_projection_of_two_texts_spreads_one_axis():
    points = project([GRAPHS, PROTEINS])
    assert sorted(x for x, _ in points) == [0.0, 1.0]
    assert [y for _, y in points] == [0.5, 0.5]


def test_the_previous_coordinates_are_given_again_when_no_text_changed(monkeypatch):
    texts = corpus(30)
    points, state = projection.project_2d(weigh_terms(texts)[0], ids_for(texts))
    monkeypatch.setattr(projection, "fresh_layout", lambda *args: pytest.fail("computed again"))
    assert projection.project_2d(weigh_terms(texts)[0], ids_for(texts), state) == (points, state)



# --- t-SNE and what a rebuild keeps (the real-corpus sample: 59 papers, enough for t-SNE) ---------


def sample_texts() -> list[str]:
    records = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [f"{r['title']}. {r['abstract']}" for r in records]


TEXTS = sample_texts()
IDS = ids_for(TEXTS)


@pytest.fixture(scope="module")
def laid_out():
    """The sample laid out afresh once: its points and state."""
    assert len(TEXTS) >= projection.TSNE_MIN
    return projection.project_2d(weigh_terms(TEXTS)[0], IDS)


def text_neighbours(texts: list[str], row: int, k: int) -> set[int]:
    vectors = weigh_terms(texts)[0].vectors
    similarity = (vectors @ vectors[[row]].T).toarray().ravel()
    similarity[row] = -np.inf
    return set(np.argsort(-similarity, kind="stable")[:k].tolist())


def map_neighbours(points: list[tuple[float, float]], row: int, k: int) -> set[int]:
    distance = np.hypot(*(np.asarray(points) - np.asarray(points[row])).T)
    distance[row] = np.inf
    return set(np.argsort(distance, kind="stable")[:k].tolist())


def test_a_fresh_layout_is_deterministic_and_keeps_neighbourhoods(laid_out):
    points, state = laid_out
    again, state_again = projection.project_2d(weigh_terms(list(TEXTS))[0], list(IDS))
    assert again == points and state_again == state
    assert all(0.0 <= v <= 1.0 and round(v, 4) == v for point in points for v in point)
    assert state[projection.LAYOUT].laid_out == len(TEXTS) and state[projection.LAYOUT].moved == 0
    # Each paper's 5 most similar abstracts are among its 5 nearest points far more often than by chance (5/58).
    found = sum(len(text_neighbours(TEXTS, row, 5) & map_neighbours(points, row, 5)) for row in range(len(TEXTS)))
    assert found / (5 * len(TEXTS)) > 0.3


def test_the_layout_leaves_out_directions_that_are_rounding_noise():
    """Templated abstracts (here 12 pairs of words that always come together: a matrix of lower rank
    than LSA's dimensions) have a null space, which ARPACK fills with noise that differs between processes;
    laid out by t-SNE, that noise gave the same inputs a different map (and labels) from run to run."""
    from papersite.enrich import tsne

    pairs = ["graph lattice", "kernel spline", "protein enzyme", "bandit casino", "regret sorrow", "policy senate",
             "reward salary", "robot pilot", "vision camera", "token ticket", "sparse desert", "convex marble"]
    texts = [" ".join(pairs[(i + j * 5) % len(pairs)] for j in range(i % 7 + 3)) for i in range(80)]
    vectors = weigh_terms(texts)[0].vectors
    rank = np.linalg.matrix_rank(vectors.toarray())
    assert rank < min(vectors.shape) - 1            # without the guard, LSA would keep min(shape) - 1 directions
    lsa = tsne.lsa_vectors(vectors, np.arange(len(texts)))
    assert lsa.shape == (len(texts), rank)


def test_editing_one_abstract_moves_no_other_paper(laid_out):
    points, state = laid_out
    texts = list(TEXTS)
    texts[10] = texts[10] + " We release our code."
    after, new_state = projection.project_2d(weigh_terms(texts)[0], IDS, state)
    assert after == points         # a small edit leaves the paper among its neighbours: nobody moves
    texts[10] = TEXTS[40]          # rewritten as another paper's abstract: it moves to that paper's neighbours
    after, new_state = projection.project_2d(weigh_terms(texts)[0], IDS, state)
    assert [p for i, p in enumerate(after) if i != 10] == [p for i, p in enumerate(points) if i != 10]
    assert after[10] != points[10] and new_state[projection.LAYOUT].moved == 1
    assert len(map_neighbours(after, 10, 10) & (text_neighbours(TEXTS, 40, 10) | {40})) >= 5


def test_an_added_paper_lands_among_its_nearest_neighbours(laid_out):
    """Placed among its neighbours as well as the layout placed the others: as many of its 10 most
    similar abstracts among its 10 nearest points, on average (chance gives 1.7)."""
    points, state = laid_out
    laid = [len(text_neighbours(TEXTS, row, 10) & map_neighbours(points, row, 10)) for row in range(len(TEXTS))]
    found = []
    for base in (5, 25, 40):
        texts, ids = [*TEXTS, TEXTS[base] + " A closing remark."], [*IDS, "added"]
        after, new_state = projection.project_2d(weigh_terms(texts)[0], ids, state)
        assert after[:len(TEXTS)] == points              # nobody else moves
        assert new_state[projection.LAYOUT] == projection.Layout(new_state[projection.LAYOUT].texts, len(TEXTS), 1)
        found.append(len(map_neighbours(after, len(TEXTS), 10) & text_neighbours(texts, len(TEXTS), 10)))
    assert np.mean(found) >= np.mean(laid), (found, np.mean(laid))


def test_points_follow_the_paper_not_its_row(laid_out):
    points, state = laid_out
    order = list(range(len(TEXTS)))[::-1]
    after, _ = projection.project_2d(weigh_terms([TEXTS[i] for i in order])[0], [IDS[i] for i in order], state)
    assert after == [points[i] for i in order]
    # A removed paper's point is gone; the others stay.
    after, _ = projection.project_2d(weigh_terms(TEXTS[1:])[0], IDS[1:], state)
    assert after == points[1:]


def test_a_fresh_layout_once_enough_has_changed(laid_out):
    points, state = laid_out
    share = int(projection.FRESH_SHARE * len(TEXTS))
    few = [f"{text} Added again." for text in TEXTS[:share]]
    grown, grown_state = projection.project_2d(weigh_terms(TEXTS + few)[0], IDS + [f"grown-{i}" for i in range(share)], state)
    assert grown[:len(TEXTS)] == points and grown_state[projection.LAYOUT].moved == share
    one_more = projection.project_2d(weigh_terms(TEXTS + few + [TEXTS[3]])[0], [*IDS, *(f"grown-{i}" for i in range(share)), "one-more"], grown_state)[1]
    assert one_more[projection.LAYOUT].laid_out == len(TEXTS) + share + 1 and one_more[projection.LAYOUT].moved == 0


def test_a_first_build_is_told_to_lay_out_afresh_from_the_page_count_alone():
    """Asked before the pages are read, with the number of page files: counted only when no layout is kept."""
    texts = corpus(60)
    _, state = projection.project_2d(weigh_terms(texts)[0], ids_for(texts))

    assert not projection.tsne_ahead(state, lambda: pytest.fail("counted although a layout is kept"))
    assert projection.tsne_ahead(None, lambda: projection.TSNE_MIN)
    assert not projection.tsne_ahead(None, lambda: projection.TSNE_MIN - 1)


def test_a_rows_nearest_columns_are_its_largest_values_ties_by_column():
    """tsne.top_k sorts only the values at or above a bound; it must give what sorting whole rows gives."""
    rng = np.random.default_rng(1)
    for trial in range(200):
        rows, n = int(rng.integers(1, 30)), int(rng.integers(1, 250))
        k = int(rng.integers(0, n + 1))
        block = [rng.standard_normal((rows, n)), rng.integers(0, 3, (rows, n)).astype(float),   # ties everywhere
                 np.round(rng.random((rows, n)), 1), np.zeros((rows, n))][trial % 4]
        block = block.astype(np.float32 if trial % 2 else np.float64)
        if trial % 5 == 0:
            block[np.arange(rows), np.arange(rows) % n] = -np.inf   # a row's own column, as nearest() skips it
        order = np.lexsort((np.broadcast_to(np.arange(n), block.shape), -block), axis=1)[:, :k]
        cols, scores = tsne.top_k(block, k)
        assert cols.shape == (rows, k) and scores.dtype == block.dtype
        assert (cols == order).all() and (scores == np.take_along_axis(block, order, axis=1)).all(), (rows, n, k)
