"""The topic map (home page, map.html, map/<topic>.html), laid out at build time.

Layout only: this module turns papers into plain frozen data (viewBox coordinates,
colours, shapes); the SVG itself is written by Jinja partials
(`templates/partials/topic_map.html`, `topic_map_preview.html`, `tag_chart.html`) so
autoescape covers every title and name.

- Positions come from `projection.project_2d` over each paper's title and abstract
  (t-SNE, kept from build to build), so papers with similar abstracts sit near each other.
- The dense regions are named by their distinctive terms (`maplabels`), on the full map
  and the overview, in two sizes: one for a wide screen, one for a phone.
- Each paper is drawn in the colour and shape of its first tag. Tags are ranked by
  how many papers they head (ties in taxonomy order); the first ten get circles in
  the ten palette colours, the next ten squares, and so on, so the commonest topics
  get the most distinct marks and every tag of a 47-tag taxonomy has its own.
- Every palette colour has a contrast of at least 3:1 against both the light and
  the dark page background (WCAG 1.4.11), so one `fill` works in both themes.
- Up to MAP_PAGE_POINTS papers, map.html links every paper. Above it, map.html is an
  overview (every paper a plain dot, one link per topic) and each topic gets its own
  map page linking its papers, over the other topics as faint dots; a topic
  too large for one page is split into parts, left to right.

Everything is a pure function of its input, ordered and rounded, so a rebuild gives
byte-identical SVG.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from ..digests import digest, leaf
from ..model import Taxonomy
from .listings import PaperPage
from .maplabels import NARROW_SIZE, WIDE_SIZE, MapLabel, dense_regions, place_labels
from .terms import TermMatrix

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
# The preview draws at most this many papers (evenly spaced in content order), so the home
# page stays light however large the collection grows (~7 bytes a dot).
PREVIEW_MAX_DOTS = 3000
SWATCH_RADIUS = 5.5     # legend marks, in a 16 × 16 box

# The most paper links one map page carries: map.html links every paper up to this many (as the
# home page does up to HOME_FULL_MAP_LIMIT), and a topic's own map is split into parts above it.
# A link costs 186 bytes on average at 5,000 papers (slug, title, coordinates; 283 for the longest
# slug and title), so 500 of them take ~95 KB (~140 KB at worst) and the page, with its dot layers
# and the site chrome, stays under 200 KB (test_a_full_topic_page_stays_under_the_budget).
MAP_PAGE_POINTS = 500
# The overview and the dot layers of a topic's map draw at most about this many dots (~8.5 bytes
# each, sampled evenly within each topic): ~34 KB, however large the collection.
MAP_MAX_DOTS = 4000
UNTAGGED = ""   # group tag of papers without a tag (content normally gives every paper one)
# Their key (ids, data-group, map/<key>.html): "_" is never in a tag slug, so it cannot collide with one.
UNTAGGED_KEY = "_untagged"


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
    dots: str = ""      # a sample of the points as "M x y h0" dots in viewBox units, for the overview

    @property
    def key(self) -> str:
        """A token safe in ids, class names and file names."""
        return self.tag or UNTAGGED_KEY


@dataclass(frozen=True)
class PreviewGroup:
    colour: str
    path: str           # "M x y h0" per distinct integer cell: round-capped strokes draw the dots


@dataclass(frozen=True)
class TopicPart:
    """One page of a topic's own map: the papers it links, over the rest of the collection as dots."""

    points: tuple[MapPoint, ...]
    backdrop: str       # the other topics' papers as dots (sampled as on the overview)
    rest: str = ""      # the topic's own papers as dots, when it has other parts to point at


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
    dot_count: int = 0                    # papers drawn as dots (a sample above MAP_MAX_DOTS)
    labels: tuple[MapLabel, ...] = ()     # the dense regions' names that fit on a wide screen ...
    narrow_labels: tuple[MapLabel, ...] = ()   # ... and, larger, on a phone
    label_size: int = WIDE_SIZE
    narrow_label_size: int = NARROW_SIZE
    # The digest of all of the above (map_version): the map's pages' specs carry it
    # (render/plan.py), so their keys do not digest its points again.
    version: bytes = field(default=b"", compare=False, repr=False)

    @property
    def full_on_home(self) -> bool:
        return self.count <= HOME_FULL_MAP_LIMIT

    @property
    def overview(self) -> bool:
        """Too many papers to link on one page: map.html shows dots and links each topic's own map."""
        return self.count > MAP_PAGE_POINTS

    def shape_path(self, shape: str) -> str:
        """Path data of a mark centred on (0, 0), with the area of a circle of `radius` (circle: "")."""
        return shape_path(shape, self.radius)

    def swatch_path(self, shape: str) -> str:
        """The same mark at legend size (a circle is drawn with <circle r=SWATCH_RADIUS>)."""
        return shape_path(shape, SWATCH_RADIUS)



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


def radius_for(count: int) -> float:
    return round(min(RADIUS_MAX, max(RADIUS_MIN, RADIUS_BUDGET / math.sqrt(max(count, 1)))), 2)


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


def sample(items: Sequence, size: int) -> list:
    """`size` items evenly spaced in order (all of them when there are no more)."""
    count = len(items)
    return list(items) if count <= size else [items[i * count // size] for i in range(size)]


def point_dots(points: Sequence[MapPoint]) -> str:
    """The points as dots on the integer grid of the viewBox (points in one cell share a dot)."""
    return relative_dots(list(dict.fromkeys((round(p.x), round(p.y)) for p in points)))


def sample_groups(groups: Sequence[MapGroup], count: int) -> dict[str, list[MapPoint]]:
    """Each group's share of MAP_MAX_DOTS dots, at least one, so every topic shows on the overview."""
    if count <= MAP_MAX_DOTS:
        return {g.key: list(g.points) for g in groups}
    return {g.key: sample(g.points, -(-len(g.points) * MAP_MAX_DOTS // count)) for g in groups}


def topic_parts(tm: TopicMap) -> dict[str, tuple[TopicPart, ...]]:
    """Each group's own map pages, by key: its papers in as few parts of at most MAP_PAGE_POINTS
    as will hold them, evenly sized.

    Parts split a topic left to right, so each covers one stretch of the map and its links are in
    reading order. Behind the links, the other topics' papers and (on a topic of several parts)
    the topic's own are dots from the overview's sample, so those layers together stay within
    about MAP_MAX_DOTS dots however large the collection or the topic."""
    pages = {}
    for group in tm.groups:
        # The other groups' overview dots, one subpath each: the same dots, no per-page layout work.
        backdrop = "".join(other.dots for other in tm.groups if other.key != group.key)
        count = len(group.points)
        parts = max(1, -(-count // MAP_PAGE_POINTS))
        if parts == 1:
            pages[group.key] = (TopicPart(group.points, backdrop),)
            continue
        ordered = sorted(group.points, key=lambda p: (p.x, p.y, p.slug))
        pages[group.key] = tuple(TopicPart(tuple(ordered[n * count // parts:(n + 1) * count // parts]), backdrop, group.dots)
                                 for n in range(parts))
    return pages


def view_point(ux: float, uy: float, margin: float) -> tuple[float, float]:
    """A unit-square point in viewBox units, as the map pages give it."""
    # SVG y grows downwards; flip so the second component points up, as in a plot.
    return round(margin + ux * (MAP_WIDTH - 2 * margin), 1), round(margin + (1.0 - uy) * (MAP_HEIGHT - 2 * margin), 1)


def layout_map(papers: Sequence[PaperPage], coordinates: Sequence[tuple[float, float]], taxonomy: Taxonomy,
               terms: TermMatrix | None = None) -> TopicMap:
    """Place unit-square coordinates in the viewBox, group the papers by first tag and name the
    dense regions (by their distinctive `terms`, rows in the order of `papers`; else by topic)."""
    radius = radius_for(len(papers))
    margin = MAP_MARGIN + radius
    count = len(papers)
    tags = [page.paper.tags[0] if page.paper.tags else UNTAGGED for page in papers]
    points = [view_point(ux, uy, margin) for ux, uy in coordinates]
    by_tag: dict[str, list[MapPoint]] = {}
    for page, tag, (x, y) in zip(papers, tags, points):
        by_tag.setdefault(tag, []).append(MapPoint(page.paper.slug, page.title_text, x, y))
    # The preview's sample of papers, each in the integer cell of the preview it falls in; its
    # group's cells in content order.
    in_preview = sample(range(count), PREVIEW_MAX_DOTS)
    cells: dict[str, dict[tuple[int, int], None]] = {tag: {} for tag in by_tag}
    for index in in_preview:
        ux, uy = coordinates[index]
        cells[tags[index]][(round(PREVIEW_MARGIN + ux * (PREVIEW_WIDTH - 2 * PREVIEW_MARGIN)),
                            round(PREVIEW_MARGIN + (1.0 - uy) * (PREVIEW_HEIGHT - 2 * PREVIEW_MARGIN)))] = None
    placed = np.array(points, dtype=float).reshape(count, 2)
    keys = [tag or UNTAGGED_KEY for tag in tags]
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
    dotted = sample_groups(groups, count)
    regions = dense_regions(placed, keys, {group.key: group.name for group in groups}, terms, MAP_WIDTH, MAP_HEIGHT)
    groups = tuple(replace(group, dots=point_dots(dotted[group.key])) for group in groups)
    topic_map = TopicMap(MAP_WIDTH, MAP_HEIGHT, radius, count, groups, preview, preview_count=len(in_preview),
                         dot_count=sum(len(points) for points in dotted.values()),
                         labels=place_labels(regions, MAP_WIDTH, MAP_HEIGHT, WIDE_SIZE),
                         narrow_labels=place_labels(regions, MAP_WIDTH, MAP_HEIGHT, NARROW_SIZE))
    return replace(topic_map, version=map_version(topic_map))


def map_version(topic_map: TopicMap) -> bytes:
    """The digest of every field of the map, its groups and their points as plain tuples, which
    pickle in C: the page keys of an anthology's map pages pickled its 100,000 points as
    dataclasses, through Python, most of a second at every edit (tests/test_topicmap.py checks it
    misses no field)."""
    groups = tuple((group.tag, group.name, group.colour, group.shape, group.dots,
                    tuple((point.slug, point.title, point.x, point.y) for point in group.points))
                   for group in topic_map.groups)
    return digest(leaf(groups) + leaf(replace(topic_map, groups=(), version=b"")))

