"""The topic map's coordinates: each paper placed on the unit square by PCA of its TF-IDF vector.

Deterministic: the SVD starts from a fixed vector and each component's sign is fixed, so a
rebuild of the same content places every paper where it was.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, svds

from ..digests import digest
from .terms import TermMatrix

DECIMALS = 4
# Below this many matrix cells PCA uses a dense SVD; above it, ARPACK on an
# implicitly centred sparse matrix (centring explicitly would densify it).
DENSE_CELLS = 2_000_000
# A principal component whose singular value is below this is rounding noise
# (e.g. all texts identical): its axis is collapsed to the centre.
NOISE_SINGULAR_VALUE = 1e-6


@dataclass(frozen=True)
class Projection:
    """One build's coordinates and what they were computed from (every text), for the next build."""

    texts: bytes
    coordinates: tuple[tuple[float, float], ...]


def project_2d(terms: TermMatrix, previous: Projection | None = None) -> tuple[list[tuple[float, float]], Projection]:
    """A point in [0, 1]² per row: the first two principal components of the TF-IDF vectors.

    Each axis is min-max scaled on its own; an axis with no spread (fewer than three distinct
    texts, or identical ones) sits at 0.5. The `previous` build's coordinates are given again
    when no text changed.
    """
    texts = digest(b"".join(terms.digests))
    if previous is not None and previous.texts == texts:
        return list(previous.coordinates), previous
    coordinates: list[tuple[float, float]] = []
    if terms.vectors.shape[0]:
        scores = score_components(terms.vectors, components=2)
        axes = [scale_unit(scores[:, c]) for c in range(2)]
        coordinates = list(zip(axes[0].tolist(), axes[1].tolist()))
    return coordinates, Projection(texts, tuple(coordinates))


def score_components(vectors: sp.csr_array, components: int) -> np.ndarray:
    """PCA scores (n × components); components beyond the data's rank are zero columns.

    Each component's sign is fixed so its largest-magnitude score is positive:
    SVD signs are otherwise arbitrary and the map could flip between builds.
    """
    n, width = vectors.shape
    mean = np.asarray(vectors.mean(axis=0)).ravel()
    if n * width <= DENSE_CELLS or min(n, width) <= components + 1:
        left, singular = dense_svd(vectors, mean)
    else:
        left, singular = sparse_svd(vectors, mean, components)
    scores = np.zeros((n, components))
    for c in range(min(components, len(singular))):
        if singular[c] <= NOISE_SINGULAR_VALUE:
            continue
        column = left[:, c] * singular[c]
        if column[np.argmax(np.abs(column))] < 0:
            column = -column
        scores[:, c] = column
    return scores


def dense_svd(vectors: sp.csr_array, mean: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    centred = vectors.toarray() - mean
    left, singular, _ = np.linalg.svd(centred, full_matrices=False)
    return left, singular


def sparse_svd(vectors: sp.csr_array, mean: np.ndarray, components: int) -> tuple[np.ndarray, np.ndarray]:
    """Top singular pairs of (vectors - mean) without ever forming the dense centred matrix."""
    transposed = vectors.T.tocsr()
    centred = LinearOperator(
        shape=vectors.shape,
        dtype=np.float64,
        matvec=lambda v: vectors @ v - mean @ v,
        rmatvec=lambda u: transposed @ u - mean * u.sum(),
        matmat=lambda m: vectors @ m - np.outer(np.ones(vectors.shape[0]), mean @ m),
        rmatmat=lambda m: transposed @ m - np.outer(mean, m.sum(axis=0)),
    )
    # A fixed pseudo-random start makes ARPACK reproducible; a constant vector would
    # not do, as it is orthogonal to every centred row and so to the answer.
    start = np.random.default_rng(0).uniform(-1.0, 1.0, size=min(vectors.shape))
    left, singular, _ = svds(centred, k=components, v0=start, solver="arpack")
    order = np.argsort(-singular, kind="stable")
    return left[:, order], singular[order]


def scale_unit(values: np.ndarray) -> np.ndarray:
    """Min-max scale to [0, 1], rounded; an axis without spread goes to the centre."""
    low, high = float(values.min()), float(values.max())
    if not math.isfinite(high - low) or high - low <= NOISE_SINGULAR_VALUE:
        return np.full(len(values), 0.5)
    return np.round((values - low) / (high - low), DECIMALS)
