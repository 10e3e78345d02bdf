"""The topic map's coordinates, kept from build to build: each paper's point on the unit square, by its id.

A fresh layout (`tsne.tsne_layout`; PCA for fewer than TSNE_MIN papers) is made on the first
build, and again only when enough has changed since the last one. In between, a build keeps every
point it can:

- a paper whose text (title and abstract) is unchanged keeps its point, so an edit moves nobody else;
- an added paper is placed at the median point of its PLACE_K most similar papers (TF-IDF cosine);
- an edited paper keeps its point while that point still lies among its most similar papers (no
  farther from their median point than the farthest of them); otherwise it moves there too (on
  the real corpus, 98% of papers lie so among their neighbours: a small edit leaves them be);
- a removed paper's point is simply gone.

Papers placed or removed since the last fresh layout are counted; once they pass FRESH_SHARE of
the papers that layout placed, the next build lays the whole map out afresh.

Deterministic: the same texts and the same previous state give the same points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import scipy.sparse as sp

from ..digests import digest
from .terms import TermMatrix
from .tsne import PLACE_K, top_k, tsne_layout, unit_square

# Below this many papers there are too few for neighbourhoods; PCA shows them as well.
TSNE_MIN = 50
# A fresh layout is made once the papers placed or removed since the last one pass this share of it.
FRESH_SHARE = 0.2
# Added papers compared with all the others at a time: their rows as a dense block of 16 ×
# vocabulary floats (~25 MB at 100,000 papers) makes one fast sparse-times-dense product.
PLACE_CHUNK = 16
# Below this many matrix cells PCA uses a dense SVD; above it, ARPACK on an
# implicitly centred sparse matrix (centring explicitly would densify it).
DENSE_CELLS = 2_000_000
# A principal component whose singular value is below this is rounding noise
# (e.g. all texts identical): its axis is collapsed to the centre.
NOISE_SINGULAR_VALUE = 1e-6


# The state kept for the next build is a dict, so that an edit saves only the entries it changed:
# each paper's (text digest, x, y) by its id, and under LAYOUT (an id has no control characters,
# so no paper has this key) how the layout came about.
LAYOUT = "\0layout"
Projection = dict


@dataclass(frozen=True)
class Layout:
    texts: bytes        # digest of every (id, text digest): unchanged means every point stays
    laid_out: int       # papers in the last fresh layout ...
    moved: int = 0      # ... and papers placed or removed since


def project_2d(terms: TermMatrix, ids: Sequence[str], previous: Projection | None = None,
               fresh: Callable[[], np.ndarray] | None = None) -> tuple[list[tuple[float, float]], Projection]:
    """A point in [0, 1]² per row of `terms` (the paper `ids[row]`): the `previous` build's points
    where they still hold, new papers placed among their neighbours, or a fresh layout (`fresh()`
    when given: `fresh_layout(terms.vectors)`, perhaps made meanwhile by another process)."""
    ids = list(ids)
    # Ids hold no control characters (the content loader drops them), so NUL separates them.
    texts = digest("\0".join(ids).encode("utf-8", "surrogatepass") + b"".join(terms.digests))
    last = previous.get(LAYOUT) if previous else None
    if last is not None and last.texts == texts:
        return [previous[paper][1:] for paper in ids], previous
    kept = kept_layout(terms, ids, previous, last) if last is not None else None
    if kept is None:
        laid = fresh() if fresh is not None else fresh_layout(terms.vectors)
        points, layout = [(x, y) for x, y in laid.tolist()], Layout(texts, len(ids))
    else:
        points, moved = kept
        layout = Layout(texts, last.laid_out, last.moved + moved)
    # An unchanged entry is the previous build's very object: the cache saves what is not (by identity).
    old = previous if kept is not None else {}
    state: Projection = {}
    for paper, text, (x, y) in zip(ids, terms.digests, points):
        entry = old.get(paper)
        state[paper] = entry if entry is not None and entry == (text, x, y) else (text, x, y)
    state[LAYOUT] = layout
    return points, state


def tsne_ahead(previous: Projection | None, count: Callable[[], int]) -> bool:
    """Whether a build of `count()` papers will surely lay its map out afresh with t-SNE: the previous
    build left no layout to keep points from (a first build, --clean, a lost cache). `count` is
    asked only then (the build counts the page files before it reads them)."""
    return not (previous and LAYOUT in previous) and count() >= TSNE_MIN


def fresh_layout(vectors: sp.csr_array) -> np.ndarray:
    """The whole map laid out anew: t-SNE, or PCA for a handful of papers."""
    if vectors.shape[0] >= TSNE_MIN:
        return tsne_layout(vectors)
    if not vectors.shape[0]:
        return np.zeros((0, 2))
    return unit_square(score_components(vectors, components=2))


def kept_layout(terms: TermMatrix, ids: list[str], previous: Projection,
                last: Layout) -> tuple[list[tuple[float, float]], int] | None:
    """The previous points kept, the added and edited papers placed, and how many papers were
    placed or removed; None when too much changed since the last fresh layout."""
    entries = [previous.get(paper) for paper in ids]
    known = np.array([entry is not None for entry in entries], dtype=bool)
    same = np.array([entry is not None and entry[0] == text for entry, text in zip(entries, terms.digests)], dtype=bool)
    anchors = np.flatnonzero(same)
    removed = len(previous) - 1 - int(known.sum())
    budget = FRESH_SHARE * max(last.laid_out, 1)
    if not len(anchors) or last.moved + int((~known).sum()) + removed > budget:
        return None
    old = np.array([entry[1:] if entry is not None else (0.0, 0.0) for entry in entries], dtype=np.float64).reshape(-1, 2)
    points = old.copy()
    placed = np.flatnonzero(~same)
    moved = removed
    # In float32, as the related papers are ranked: each chunk's product over the whole matrix
    # takes a third of float64's time (a volume of 2,000 papers at 100,000: bench/README.md).
    vectors = terms.vectors.astype(np.float32) if len(placed) else terms.vectors
    for start in range(0, len(placed), PLACE_CHUNK):
        chunk = placed[start:start + PLACE_CHUNK]
        targets, spreads = neighbour_points(vectors, chunk, anchors, old[anchors])
        for row, target, spread in zip(chunk.tolist(), np.round(targets, 4), spreads):
            if known[row] and np.hypot(*(old[row] - target)) <= spread:
                continue      # still among its neighbours: it stays
            points[row] = target
            moved += 1
    if last.moved + moved > budget:
        return None
    return [(x, y) for x, y in points.tolist()], moved


def neighbour_points(vectors: sp.csr_array, rows: np.ndarray, anchors: np.ndarray,
                     anchor_points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row, the median point of its PLACE_K most similar anchors, and how far the farthest
    of them lies from it."""
    # All rows against the few, then the anchors' columns: slicing the anchors out of the matrix
    # first would copy nearly all of it.
    similarity = np.asarray(vectors @ vectors[rows].toarray().T).T[:, anchors]
    neighbours, _ = top_k(similarity, min(PLACE_K, len(anchors)))
    around = anchor_points[neighbours]
    targets = np.median(around, axis=1)
    spreads = np.hypot(*(around - targets[:, None, :]).transpose(2, 0, 1)).max(axis=1)
    return targets, spreads


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
    # Imported here: SciPy's linear algebra takes ~0.15 s to import, and only a fresh layout needs it
    # (bench/README.md, Measured choices).
    from scipy.sparse.linalg import LinearOperator, svds

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
