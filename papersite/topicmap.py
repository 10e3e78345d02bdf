"""The topic map (home page, map.html) and the papers-per-tag chart (tag index), laid out at build time.

Layout only: this module turns papers into plain frozen data (viewBox coordinates,
colours, shapes); the SVG itself is written by Jinja partials
(`templates/partials/topic_map.html`, `topic_map_preview.html`, `tag_chart.html`) so
autoescape covers every title and name.

- Positions come from `similarity.project_2d` over each paper's title and abstract,
  so papers with similar abstracts sit near each other.
- Each paper is drawn in the colour and shape of its first tag. Tags are ranked by
  how many papers they head (ties in taxonomy order); the first ten get circles in
  the ten palette colours, the next ten squares, and so on, so the commonest topics
  get the most distinct marks and every tag of a 47-tag taxonomy has its own.
- Every palette colour has a contrast of at least 3:1 against both the light and
  the dark page background (WCAG 1.4.11), so one `fill` works in both themes.

Everything is a pure function of its input, ordered and rounded, so a rebuild gives
byte-identical SVG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .enrich import PaperPage
from .model import Taxonomy
from .similarity import project_2d

# Contrast against #ffffff / #16181d (the page backgrounds): all between 3.5 and 4.6.
PALETTE = (
    "#4477cc",  # blue
    "#d1661f",  # orange
    "#2e9148",  # green
    "#d6455a",  # red
    "#8e62c9",  # purple
    "#168f95",  # teal
    "#c7499c",  # pink
    "#9b6b3a",  # brown
    "#868a16",  # olive
    "#7b7f8c",  # grey
)
SHAPES = ("circle", "square", "triangle", "diamond", "triangle-down")

MAP_WIDTH = 960
MAP_HEIGHT = 540
# Points are this far from the edge at least, so no mark is clipped.
MAP_MARGIN = 12
# Radius of a point in viewBox units: large for a few papers, small (but still a
# visible dot) for thousands; its area roughly shares out a fixed budget.
RADIUS_MAX = 8.0
RADIUS_MIN = 1.8
RADIUS_BUDGET = 80.0

# Up to this many papers the home page shows the full map (one link per paper);
# above it, a compact preview linking to map.html keeps the home page light.
HOME_FULL_MAP_LIMIT = 500
PREVIEW_WIDTH = 480
PREVIEW_HEIGHT = 270
PREVIEW_MARGIN = 3
# From this many papers on, each axis is stretched so the central 98% of papers fill 94% of
# the map: min-max scaling would let a few outlying abstracts squeeze everyone else into the
# middle. Outliers keep their order and side, compressed into the outer 3% on each edge.
ROBUST_FROM = 100
ROBUST_QUANTILES = (1.0, 99.0)
ROBUST_EDGE = 0.03
# The preview draws at most this many papers (evenly spaced in content order), so the home
# page stays light however large the collection grows (~7 bytes a dot).
PREVIEW_MAX_DOTS = 3000
SWATCH_RADIUS = 5.5     # legend marks, in a 16 × 16 box

UNTAGGED = ""   # group key of papers without a tag (content normally gives every paper one)


@dataclass(frozen=True)
class MapPoint:
    slug: str
    title: str          # plain text: the link's accessible name and tooltip
    x: float            # viewBox units, 1 decimal
    y: float


@dataclass(frozen=True)
class MapGroup:
    """The papers whose first tag is `tag`: one legend entry, one SVG group."""

    tag: str            # tag slug, or UNTAGGED
    name: str
    colour: str
    shape: str
    points: tuple[MapPoint, ...]

    @property
    def key(self) -> str:
        """A token safe in ids and class names."""
        return self.tag or "untagged"


@dataclass(frozen=True)
class PreviewGroup:
    colour: str
    path: str           # "M x y h0" per distinct integer cell: round-capped strokes draw the dots


@dataclass(frozen=True)
class TopicMap:
    width: int
    height: int
    radius: float
    count: int
    groups: tuple[MapGroup, ...]          # most papers first: drawn first, so small groups stay on top
    preview: tuple[PreviewGroup, ...]     # the compact map for a home page of many papers
    preview_count: int = 0                # papers drawn in the preview (a sample above PREVIEW_MAX_DOTS)
    preview_width: int = PREVIEW_WIDTH
    preview_height: int = PREVIEW_HEIGHT

    @property
    def full_on_home(self) -> bool:
        return self.count <= HOME_FULL_MAP_LIMIT

    def shape_path(self, shape: str) -> str:
        """Path data of a mark centred on (0, 0), with the area of a circle of `radius` (circle: "")."""
        return shape_path(shape, self.radius)

    def swatch_path(self, shape: str) -> str:
        """The same mark at legend size (a circle is drawn with <circle r=SWATCH_RADIUS>)."""
        return shape_path(shape, SWATCH_RADIUS)


@dataclass(frozen=True)
class TagBar:
    slug: str
    name: str
    count: int
    percent: float      # of the largest tag, for the bar width


def shape_path(shape: str, radius: float) -> str:
    """Equal-area marks, so no topic looks bigger than another only because of its shape."""
    def f(v: float) -> str:
        return f"{v:.2f}".rstrip("0").rstrip(".")
    area = math.pi * radius * radius
    if shape == "square":
        h = math.sqrt(area) / 2
        return f"M{f(-h)} {f(-h)}H{f(h)}V{f(h)}H{f(-h)}Z"
    if shape == "diamond":
        d = math.sqrt(area / 2)
        return f"M0 {f(-d)}L{f(d)} 0L0 {f(d)}L{f(-d)} 0Z"
    if shape in ("triangle", "triangle-down"):
        side = math.sqrt(4 * area / math.sqrt(3))
        height = side * math.sqrt(3) / 2
        apex, base = -2 * height / 3, height / 3   # centroid at the origin
        if shape == "triangle-down":
            apex, base = -apex, -base
        return f"M0 {f(apex)}L{f(side / 2)} {f(base)}L{f(-side / 2)} {f(base)}Z"
    return ""


def map_text(page: PaperPage) -> str:
    """What the map compares: the same title + abstract text the related-papers stage uses."""
    return f"{page.title_text}. {page.text}"


def radius_for(count: int) -> float:
    return round(min(RADIUS_MAX, max(RADIUS_MIN, RADIUS_BUDGET / math.sqrt(max(count, 1)))), 2)


def build_topic_map(papers: Sequence[PaperPage], taxonomy: Taxonomy) -> TopicMap:
    coordinates = project_2d([map_text(p) for p in papers])
    return layout_map(papers, coordinates, taxonomy)


def spread_outliers(coordinates: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Piecewise-linear rescaling of each axis through (min, 0), (1st pct, 3%), (99th pct, 97%), (max, 1)."""
    if len(coordinates) < ROBUST_FROM:
        return list(coordinates)
    points = np.asarray(coordinates, dtype=np.float64)
    axes = []
    for axis in points.T:
        low, q_low, q_high, high = (float(axis.min()), *np.percentile(axis, ROBUST_QUANTILES).tolist(), float(axis.max()))
        if not low < q_low < q_high < high:
            axes.append(axis)
            continue
        axes.append(np.round(np.interp(axis, [low, q_low, q_high, high], [0.0, ROBUST_EDGE, 1.0 - ROBUST_EDGE, 1.0]), 4))
    return list(zip(axes[0].tolist(), axes[1].tolist()))


def relative_dots(cells: Sequence[tuple[int, int]]) -> str:
    """Path data with a zero-length segment per cell ("M3 4h0m5-2h0..."): relative moves keep it short."""
    parts = []
    px = py = None
    for x, y in sorted(cells, key=lambda c: (c[1], c[0])):
        if px is None:
            parts.append(f"M{x} {y}h0")
        else:
            dx, dy = x - px, y - py
            parts.append(f"m{dx}{' ' if dy >= 0 else ''}{dy}h0")
        px, py = x, y
    return "".join(parts)


def layout_map(papers: Sequence[PaperPage], coordinates: Sequence[tuple[float, float]], taxonomy: Taxonomy) -> TopicMap:
    """Place unit-square coordinates in the viewBox and group the papers by first tag."""
    coordinates = spread_outliers(coordinates)
    radius = radius_for(len(papers))
    margin = MAP_MARGIN + radius
    by_tag: dict[str, list[MapPoint]] = {}
    cells: dict[str, dict[tuple[int, int], None]] = {}
    count = len(papers)
    in_preview = (set(range(count)) if count <= PREVIEW_MAX_DOTS
                  else {i * count // PREVIEW_MAX_DOTS for i in range(PREVIEW_MAX_DOTS)})
    for index, (page, (ux, uy)) in enumerate(zip(papers, coordinates)):
        tag = page.paper.tags[0] if page.paper.tags else UNTAGGED
        # SVG y grows downwards; flip so the second component points up, as in a plot.
        x = round(margin + ux * (MAP_WIDTH - 2 * margin), 1)
        y = round(margin + (1.0 - uy) * (MAP_HEIGHT - 2 * margin), 1)
        by_tag.setdefault(tag, []).append(MapPoint(page.paper.slug, page.title_text, x, y))
        cell = (round(PREVIEW_MARGIN + ux * (PREVIEW_WIDTH - 2 * PREVIEW_MARGIN)),
                round(PREVIEW_MARGIN + (1.0 - uy) * (PREVIEW_HEIGHT - 2 * PREVIEW_MARGIN)))
        group_cells = cells.setdefault(tag, {})
        if index in in_preview:
            group_cells[cell] = None
    position = {t.slug: i for i, t in enumerate(taxonomy.tags)}
    names = {t.slug: t.name for t in taxonomy.tags}
    ranked = sorted(by_tag, key=lambda tag: (-len(by_tag[tag]), position.get(tag, len(position)), tag))
    groups = tuple(
        MapGroup(tag, names.get(tag, "No topic"), PALETTE[i % len(PALETTE)],
                 SHAPES[min(i // len(PALETTE), len(SHAPES) - 1)], tuple(by_tag[tag]))
        for i, tag in enumerate(ranked)
    )
    preview = tuple(
        PreviewGroup(group.colour, relative_dots(list(cells[group.tag])))
        for group in groups if cells[group.tag]
    )
    return TopicMap(MAP_WIDTH, MAP_HEIGHT, radius, count, groups, preview, preview_count=len(in_preview))


def tag_bars(listings: Sequence) -> tuple[TagBar, ...]:
    """Papers per tag for the tag-index chart: non-empty tags, most papers first, then by name."""
    counted = [(listing.tag, len(listing.papers)) for listing in listings if listing.papers]
    if not counted:
        return ()
    largest = max(count for _, count in counted)
    return tuple(
        TagBar(tag.slug, tag.name, count, round(100.0 * count / largest, 2))
        for tag, count in sorted(counted, key=lambda tc: (-tc[1], tc[0].name.lower(), tc[0].slug))
    )
