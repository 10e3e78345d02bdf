"""Comparing sites whose topic maps may place papers differently: an incremental build keeps every
point it can, a clean build lays the map out afresh (papersite/enrich/projection.py)."""

from __future__ import annotations

import re

MAP_POINT_RE = re.compile(rb'(<use href="[^"]*") x="[^"]*" y="[^"]*"')
MAP_DOTS_RE = re.compile(rb'(<path [^>]*?)d="[^"]*"')
MAP_NAMES_RE = re.compile(rb'<g class="tm-labels.*?</g>', re.S)


def without_map_points(page: bytes) -> bytes:
    """A page with the map's positions taken out (points, dots, the names of dense regions)."""
    if b"topic-map" not in page and b"map-preview" not in page:
        return page
    return MAP_NAMES_RE.sub(b"", MAP_DOTS_RE.sub(rb"\1", MAP_POINT_RE.sub(rb"\1", page)))


def without_points(files: dict[str, bytes]) -> dict[str, bytes]:
    """A snapshot of a site with the map's positions taken out of every page."""
    return {path: without_map_points(data) for path, data in files.items()}
