"""The topic map's coordinates: PCA of the TF-IDF vectors, deterministic, and given again when no text changed."""

from __future__ import annotations

import numpy as np
import pytest

from papersite.enrich import projection
from papersite.enrich.terms import weigh_terms
from support.texts import GRAPHS, PROTEINS, corpus


def project(texts: list[str]) -> list[tuple[float, float]]:
    return projection.project_2d(weigh_terms(texts)[0])[0]


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
    points, state = projection.project_2d(weigh_terms(texts)[0])
    monkeypatch.setattr(projection, "score_components", lambda *args: pytest.fail("computed again"))
    assert projection.project_2d(weigh_terms(texts)[0], state) == (points, state)
