"""Papers that moved in site order between two builds (a year changed): which kept their order.

A stage that keeps per-paper state by position (the related papers' ranking, the author pages'
versions) renumbers it to the new order; only the papers that moved among the others, not those
merely shifted by them, are then taken as changed.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Hashable, Sequence

import numpy as np


def old_places(before: Sequence[Hashable], after: Sequence[Hashable]) -> np.ndarray:
    """Per paper of `after` (by slug or id), its place in `before`; -1 for a paper that is new
    there or that moved among the others (outside a longest run of papers that kept their order)."""
    at = {key: place for place, key in enumerate(before)}
    places = np.fromiter((at.get(key, -1) for key in after), dtype=np.int64, count=len(after))
    found = np.flatnonzero(places >= 0)
    if np.any(np.diff(places[found]) <= 0):
        places[found[~longest_rising(places[found].tolist())]] = -1
    return places


def longest_rising(values: list[int]) -> np.ndarray:
    """Mask of a longest strictly rising run of `values`, not necessarily adjacent (patience
    sorting): the papers that kept their order when one or a few moved, n log n."""
    tails: list[int] = []      # the smallest last value of a rising run of each length ...
    tail_at: list[int] = []    # ... and where it is
    before = [-1] * len(values)
    for i, value in enumerate(values):
        length = bisect_left(tails, value)
        if length:
            before[i] = tail_at[length - 1]
        if length == len(tails):
            tails.append(value)
            tail_at.append(i)
        else:
            tails[length], tail_at[length] = value, i
    keep = np.zeros(len(values), dtype=bool)
    i = tail_at[-1] if tail_at else -1
    while i >= 0:
        keep[i] = True
        i = before[i]
    return keep
