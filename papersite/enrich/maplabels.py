"""Names for the topic map's dense regions: where papers crowd together, their most distinctive terms.

A region is a REGION_CELLS × REGION_CELLS block of CELL-sized squares of the map holding at least
REGION_SHARE of the papers (and MIN_REGION_PAPERS); the densest blocks are taken first, none
overlapping one already taken. Each is named by the two terms whose TF-IDF weight its papers
carry most above the collection's (without the terms, by its commonest first topic), and points
at that topic. A name goes where its papers are, and is left out where its box would overlap a
name already placed, so names never cover each other. Names are placed twice: at the map's usual
size for a wide screen, and larger (so fewer fit) for a phone, where the map is drawn at about
a third of its viewBox size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .terms import TermMatrix

CELL = 40                   # viewBox units
REGION_CELLS = 3
REGION_SHARE = 0.015
MIN_REGION_PAPERS = 5
MAX_REGIONS = 14
TERMS_PER_NAME = 2
MIN_TERM_LENGTH = 3
LABEL_PAD = 4
# Font sizes in viewBox units: a wide screen shows the 960-unit map at about 1 px a unit, a 390 px
# phone at about 0.37, where 30 units are an 11 px name.
WIDE_SIZE = 13
NARROW_SIZE = 30
CHAR_WIDTH = 0.6            # of the font size: a generous average for system-ui, so estimated boxes rarely undershoot


@dataclass(frozen=True)
class MapLabel:
    """A dense region's name on the map, centred on its papers (baseline at y), pointing at its commonest topic."""

    key: str
    name: str
    x: float
    y: float


@dataclass(frozen=True)
class Region:
    name: str
    key: str                # the group key of its commonest first topic
    x: float                # the mean point of its papers
    y: float


def dense_regions(points: np.ndarray, keys: Sequence[str], names: dict[str, str], terms: TermMatrix | None,
                  width: int, height: int) -> list[Region]:
    """The map's dense regions, densest first. `points` are viewBox points in the row order of
    `terms`; `keys[i]` is point i's group key, `names` each key's topic name."""
    count = len(points)
    if not count:
        return []
    columns, rows = math.ceil(width / CELL), math.ceil(height / CELL)
    cell_x = np.clip((points[:, 0] // CELL).astype(np.int64), 0, columns - 1)
    cell_y = np.clip((points[:, 1] // CELL).astype(np.int64), 0, rows - 1)
    grid = np.zeros((rows, columns), dtype=np.int64)
    np.add.at(grid, (cell_y, cell_x), 1)
    reach = REGION_CELLS // 2
    padded = np.pad(grid, reach)
    blocks = sum(padded[dy:dy + rows, dx:dx + columns] for dy in range(REGION_CELLS) for dx in range(REGION_CELLS))
    least = max(MIN_REGION_PAPERS, math.ceil(REGION_SHARE * count))
    order = sorted(((-int(blocks[r, c]), r, c) for r in range(rows) for c in range(columns) if blocks[r, c] >= least))
    taken: list[tuple[int, int]] = []
    regions = []
    for _, r, c in order:
        if len(regions) == MAX_REGIONS:
            break
        if any(abs(r - tr) < REGION_CELLS and abs(c - tc) < REGION_CELLS for tr, tc in taken):
            continue
        members = np.flatnonzero((np.abs(cell_y - r) <= reach) & (np.abs(cell_x - c) <= reach))
        taken.append((r, c))
        key = commonest([keys[i] for i in members.tolist()])
        name = distinctive_terms(terms, members) if terms is not None else ""
        regions.append(Region(name or names.get(key, key), key, float(points[members, 0].mean()),
                              float(points[members, 1].mean())))
    return regions


def commonest(keys: list[str]) -> str:
    counts: dict[str, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    return min(counts, key=lambda key: (-counts[key], key))


def distinctive_terms(terms: TermMatrix, members: np.ndarray) -> str:
    """The TERMS_PER_NAME terms the members weigh most above the whole collection, most first:
    each term scored by its mean weight among them times the log of how much that exceeds its mean
    weight overall (frequent there and rare elsewhere)."""
    vectors = terms.vectors
    overall = np.asarray(vectors.sum(axis=0)).ravel() / max(vectors.shape[0], 1)
    inside = np.asarray(vectors[members].sum(axis=0)).ravel() / max(len(members), 1)
    used = np.flatnonzero(inside > 0)
    score = inside[used] * np.log(inside[used] / np.maximum(overall[used], 1e-12))
    picked: list[str] = []
    for column in used[np.lexsort((used, -score))].tolist():
        label = terms.labels[column]
        if len(label) >= MIN_TERM_LENGTH and label not in picked:
            picked.append(label)
        if len(picked) == TERMS_PER_NAME:
            break
    return " · ".join(picked)


def place_labels(regions: Sequence[Region], width: int, height: int, size: int) -> tuple[MapLabel, ...]:
    """The regions' names at font `size`, densest first, each inside the map and skipped where it
    would overlap one already placed."""
    placed: list[tuple[float, float, float, float]] = []
    labels = []
    for region in regions:
        half = label_width(region.name, size) / 2
        x = min(max(region.x, half), width - half)
        # The baseline sits a third of the size below the centre, so the text is centred on it.
        y = min(max(region.y + size / 3, size + LABEL_PAD), height - LABEL_PAD)
        box = (x - half, y - size - LABEL_PAD / 2, x + half, y + LABEL_PAD)
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed):
            continue
        placed.append(box)
        labels.append(MapLabel(region.key, region.name, round(x, 1), round(y, 1)))
    return tuple(labels)


def label_width(name: str, size: int) -> float:
    """The width a name takes at font `size` (estimated), with its padding."""
    return len(name) * CHAR_WIDTH * size + LABEL_PAD
