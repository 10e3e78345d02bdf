"""A fresh layout of the topic map: t-SNE (openTSNE) of the papers' LSA vectors, which keeps each
paper's neighbourhood, where the first two PCA directions kept only the global spread.

- Every TF-IDF row is reduced to LSA_DIMS dimensions (the top singular directions of the core's
  rows) and scaled to unit length, so a dot product is a cosine.
- The core, up to CORE papers evenly spaced in content order (every paper of a conference-sized
  collection), is laid out by t-SNE: exact nearest neighbours, a PCA start, Barnes-Hut gradients.
- Every other paper is placed at the median point of its PLACE_K most similar core papers, as an
  added paper is placed later (`place_among`), so 100,000 papers cost little more than CORE.
- The result is turned to its principal axes (so the map's wide axis is the layout's widest) and
  each axis is scaled to [0, 1], a few outlying papers squeezed into the edges (`unit_square`).

Deterministic: fixed seeds, one thread, ties broken by row. The settings are the cheapest that
kept neighbourhoods as well as openTSNE's defaults on the real corpus (bench/README.md, "Topic map").
"""

from __future__ import annotations

import logging
import math

import numpy as np
import scipy.sparse as sp

LSA_DIMS = 50
# Up to this many papers are laid out by t-SNE itself; beyond, the rest are placed by their neighbours.
CORE = 6000
PERPLEXITY = 10
THETA = 1.0                 # Barnes-Hut accuracy: 1.0 halves the time of 0.5 for the same neighbourhoods
EARLY_ITERATIONS = 50       # with exaggeration, which forms the clusters ...
ITERATIONS = 75             # ... then without, which settles each paper among its neighbours
EXAGGERATION = 12
SEED = 0
PLACE_K = 10                # a placed paper sits at the median point of this many nearest papers
CHUNK = 1024                # query rows per similarity block: 1024 × 6000 floats at most at a time
GROUPS_PER_K = 8            # top_k bounds a row's k-th largest value by the maxima of this many groups per k
DECIMALS = 4
# From this many papers on, each axis is stretched so the central 98% of papers fill 94% of the
# map: a few outlying abstracts would otherwise squeeze everyone else into the middle. Outliers
# keep their order and side, compressed into the outer 3% on each edge.
ROBUST_FROM = 100
ROBUST_QUANTILES = (1.0, 99.0)
ROBUST_EDGE = 0.03
NO_SPREAD = 1e-9
RANK_TOLERANCE = 1e-8       # singular values below this share of the largest are rounding noise


def tsne_layout(vectors: sp.csr_array) -> np.ndarray:
    """Unit-square points (n × 2) for the rows of a TF-IDF matrix, neighbours near each other."""
    n = vectors.shape[0]
    core = np.unique(np.linspace(0, n, min(n, CORE), endpoint=False).astype(np.int64))
    lsa = lsa_vectors(vectors, core)
    points = np.zeros((n, 2))
    points[core] = embed(lsa[core])
    rest = np.setdiff1d(np.arange(n), core)
    if len(rest):
        neighbours, _ = nearest(lsa[rest], lsa[core], PLACE_K)
        points[rest] = np.median(points[core][neighbours], axis=1)
    return unit_square(principal_axes(points))


def lsa_vectors(vectors: sp.csr_array, core: np.ndarray) -> np.ndarray:
    """Unit-length LSA vectors of every row, the directions fitted on the core's rows (float32)."""
    fitted = vectors[core]
    dims = min(LSA_DIMS, min(fitted.shape) - 1)
    if dims < 1:
        return np.zeros((vectors.shape[0], 1), dtype=np.float32)
    # Imported here, as in projection.sparse_svd: only a fresh layout needs it.
    from scipy.sparse.linalg import svds

    # A fixed start makes ARPACK reproducible.
    start = np.random.default_rng(SEED).uniform(-1.0, 1.0, size=min(fitted.shape))
    _, values, directions = svds(fitted.astype(np.float64), k=dims, v0=start, solver="arpack")
    # Directions of a (near) zero singular value span the rows' null space, which ARPACK fills with
    # rounding noise that differs from run to run (duplicate or templated abstracts give one); t-SNE
    # would magnify that noise into a different map for the same inputs.
    directions = directions[values > RANK_TOLERANCE * values.max(initial=0.0)]
    if not len(directions):
        return np.zeros((vectors.shape[0], 1), dtype=np.float32)
    reduced = np.asarray(vectors @ directions.T, dtype=np.float32)
    norms = np.linalg.norm(reduced, axis=1, keepdims=True)
    return reduced / np.maximum(norms, NO_SPREAD)


def nearest(queries: np.ndarray, base: np.ndarray, k: int, skip_diagonal: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """For each query row, the indices of its `k` most similar base rows (most similar first, ties
    by index) and their cosine similarities; `skip_diagonal` leaves out row i for query i."""
    k = min(k, len(base) - (1 if skip_diagonal else 0))
    found = np.zeros((len(queries), k), dtype=np.int64)
    similar = np.zeros((len(queries), k), dtype=np.float32)
    for start in range(0, len(queries), CHUNK):
        block = queries[start:start + CHUNK] @ base.T
        rows = np.arange(len(block))
        if skip_diagonal:
            block[rows, start + rows] = -np.inf
        found[start:start + len(block)], similar[start:start + len(block)] = top_k(block, k)
    return found, similar


def top_k(block: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of a similarity block, the columns of its `k` largest values (largest first, ties by
    column) and those values.

    Only the values at or above a bound are sorted: the k-th largest of the maxima of at least k
    column groups, which k of the row's values reach (one per group). A handful of values a row
    pass it. Partitioning every row whole was most of the map's layout at 100,000 papers
    (bench/README.md)."""
    rows, n = block.shape
    if k <= 0 or not rows:
        return np.zeros((rows, 0), dtype=np.int64), np.zeros((rows, 0), dtype=block.dtype)
    size = max(1, n // max(k, min(n, GROUPS_PER_K * k)))
    whole = n // size * size
    maxima = block[:, :whole].reshape(rows, -1, size).max(axis=2)
    if whole < n:
        maxima = np.concatenate([maxima, block[:, whole:].max(axis=1, keepdims=True)], axis=1)
    bound = np.partition(maxima, maxima.shape[1] - k, axis=1)[:, maxima.shape[1] - k]
    at, cols = np.nonzero(block >= bound[:, None])
    scores = block[at, cols]
    order = np.lexsort((cols, -scores, at))
    first = np.searchsorted(at[order], np.arange(rows))
    taken = order[first[:, None] + np.arange(k)]
    return cols[taken], scores[taken]


def import_tsne() -> None:
    """Import openTSNE (and scikit-learn under it): most of a second, which only a build that lays
    the map out afresh spends, and which its worker spends before the papers' vectors exist."""
    import openTSNE  # noqa: F401


def embed(lsa: np.ndarray) -> np.ndarray:
    """openTSNE on unit vectors: cosine neighbours, a PCA start, the two optimisation phases."""
    # Imported here, at once if import_tsne ran (see there).
    from openTSNE import TSNEEmbedding
    from openTSNE.affinity import PerplexityBasedNN
    from openTSNE.nearest_neighbors import PrecomputedNeighbors

    n = len(lsa)
    perplexity = min(PERPLEXITY, (n - 1) / 3)
    neighbours, similar = nearest(lsa, lsa, int(3 * perplexity), skip_diagonal=True)
    distances = np.clip(1.0 - similar.astype(np.float64), 0.0, 2.0)
    quiet = logging.getLogger("openTSNE")
    level = quiet.level
    quiet.setLevel(logging.ERROR)    # it logs a note when handed neighbours it did not find itself
    try:
        affinities = PerplexityBasedNN(perplexity=perplexity, knn_index=PrecomputedNeighbors(neighbours, distances),
                                       n_jobs=1, random_state=SEED)
    finally:
        quiet.setLevel(level)
    layout = TSNEEmbedding(pca_start(lsa), affinities, negative_gradient_method="bh", theta=THETA, n_jobs=1,
                           random_state=SEED)
    layout = layout.optimize(n_iter=EARLY_ITERATIONS, exaggeration=EXAGGERATION, momentum=0.5)
    layout = layout.optimize(n_iter=ITERATIONS, momentum=0.8)
    return np.asarray(layout, dtype=np.float64)


def pca_start(lsa: np.ndarray) -> np.ndarray:
    """The first two principal components, signs fixed, scaled to t-SNE's customary tiny spread."""
    centred = lsa.astype(np.float64) - lsa.mean(axis=0)
    scores = fixed_signs(centred @ np.linalg.svd(centred, full_matrices=False)[2][:2].T)
    spread = float(np.std(scores[:, 0]))
    if not spread > NO_SPREAD:
        # Identical texts have no components: a fixed scatter lets t-SNE start anyway.
        scores, spread = np.random.default_rng(SEED).normal(size=(len(lsa), 2)), 1.0
    return np.ascontiguousarray(scores / spread * 1e-4)


def fixed_signs(scores: np.ndarray) -> np.ndarray:
    """Each column's largest-magnitude value made positive: SVD signs are otherwise arbitrary."""
    for column in range(scores.shape[1]):
        if scores[np.argmax(np.abs(scores[:, column])), column] < 0:
            scores[:, column] = -scores[:, column]
    return scores


def principal_axes(points: np.ndarray) -> np.ndarray:
    """The points turned so their widest spread runs along x (the map is wider than tall)."""
    centred = points - points.mean(axis=0)
    if len(points) < 2 or not np.abs(centred).max(initial=0.0) > NO_SPREAD:
        return centred
    return fixed_signs(centred @ np.linalg.svd(centred, full_matrices=False)[2].T)


def unit_square(points: np.ndarray) -> np.ndarray:
    """Each axis to [0, 1], rounded; outliers compressed into the edges from ROBUST_FROM points on;
    an axis without spread at 0.5."""
    axes = []
    for axis in points.T:
        low, high = float(axis.min(initial=0.0)), float(axis.max(initial=0.0))
        if not math.isfinite(high - low) or high - low <= NO_SPREAD:
            axes.append(np.full(len(axis), 0.5))
            continue
        knots, targets = [low, high], [0.0, 1.0]
        if len(axis) >= ROBUST_FROM:
            q_low, q_high = np.percentile(axis, ROBUST_QUANTILES).tolist()
            if low < q_low < q_high < high:
                knots, targets = [low, q_low, q_high, high], [0.0, ROBUST_EDGE, 1.0 - ROBUST_EDGE, 1.0]
        axes.append(np.round(np.interp(axis, knots, targets), DECIMALS))
    return np.column_stack(axes) if axes else np.zeros((0, 2))
