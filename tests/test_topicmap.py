"""The topic map (home page, map.html) and the papers-per-topic chart (tag index), drawn at build time."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import REPO, build_args, make_project
from papersite import topicmap, urls
from papersite.content import load_taxonomy
from papersite.enrich import PaperPage
from papersite.linkcheck import check_site
from papersite.model import Paper, SiteConfig
from papersite.render import build_site_data, make_environment, render_home, render_map, render_tag_index

SCALE = 5_876
HOME_BUDGET = 200_000


# --- helpers ---------------------------------------------------------------------------


class Svg(HTMLParser):
    """Links, titles and legend entries of the map and chart SVGs on a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []
        self.map_links: list[dict] = []       # {"href", "title", "group", "x", "y"}
        self.legend: list[str] = []
        self.chart_links: list[dict] = []
        self.preview_links: list[str] = []
        self._title: list[str] | None = None

    def inside(self, cls: str) -> bool:
        return any(cls in (attrs.get("class") or "").split() for _, attrs in self.stack)

    def group(self) -> str | None:
        return next((attrs.get("data-group") for _, attrs in reversed(self.stack) if attrs.get("data-group")), None)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and self.inside("topic-map-svg"):
            self.map_links.append({"href": attrs["href"], "title": "", "group": self.group()})
        if tag == "a" and self.inside("tag-chart-svg"):
            self.chart_links.append({"href": attrs["href"], "title": ""})
        if tag == "a" and "map-preview" in (attrs.get("class") or ""):
            self.preview_links.append(attrs["href"])
        if tag == "use" and self.inside("topic-map-svg") and self.map_links:
            self.map_links[-1].update(x=float(attrs["x"]), y=float(attrs["y"]), shape=attrs["href"])
        if tag == "li" and self.inside("map-legend"):
            self.legend.append(attrs["data-group"])
        if tag == "title" and (self.inside("topic-map-svg") or self.inside("tag-chart-svg")):
            self._title = []
        if tag not in ("use", "circle", "path", "rect", "meta", "link", "input", "br"):
            self.stack.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in ("use", "circle", "path", "rect", "meta", "link", "input", "br"):
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag == "title" and self._title is not None:
            target = self.chart_links if self.inside("tag-chart-svg") else self.map_links
            if target:
                target[-1]["title"] = "".join(self._title)
            self._title = None
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self._title is not None:
            self._title.append(data)


def scan(path: Path) -> Svg:
    parser = Svg()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


WORDS = ("graph node message neighbour protein folding sequence amino bandit regret arm exploration "
         "diffusion denoising score image shapley attribution explanation feature robot grasp policy "
         "reward language token prompt reasoning kernel gaussian process privacy federated client").split()


def synthetic_pages(count: int, tags: tuple[str, ...]) -> list[PaperPage]:
    """Deterministic papers with varied vocabulary and long-ish titles, without the enrich stage."""
    pages = []
    for i in range(count):
        words = [WORDS[(i * 7 + j * 13 + (i // 11) * j) % len(WORDS)] for j in range(40)]
        title = f"Paper {i}: {' '.join(words[:9])} with a deliberately long title for size"
        text = " ".join(words)
        tag_list = (tags[i % len(tags)], tags[(i * 5 + 1) % len(tags)])
        paper = Paper(id=f"synthetic-{i:05d}", slug=f"synthetic-paper-number-{i:05d}", title=title, title_source="given",
                      venue="NeurIPS", year=2025, tags=tag_list, code=(), authors=("Ada Lovelace", "Alan Turing"),
                      aliases=(), body=text, path=f"content/papers/p{i}.md", body_line=12)
        pages.append(PaperPage(paper=paper, title_html=title, title_text=title, abstract_html=f"<p>{text}</p>",
                               text=text, summary=text[:240], words=40, reading_minutes=1,
                               prev_slug=None, next_slug=None, related=()))
    return pages


@pytest.fixture(scope="module")
def taxonomy():
    return load_taxonomy(REPO / "content" / "tags.yml")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The shipped corpus built once for the whole module."""
    from papersite.cli import main

    root = make_project(tmp_path_factory.mktemp("map") / "shipped", copy_papers=True)
    assert main(build_args(root)) == 0
    return root / "site"


# --- layout ----------------------------------------------------------------------------


def test_layout_is_deterministic(taxonomy):
    pages = synthetic_pages(60, tuple(t.slug for t in taxonomy.tags[:6]))
    first = topicmap.build_topic_map(pages, taxonomy)
    assert first == topicmap.build_topic_map(list(pages), taxonomy)
    assert first.count == 60 and sum(len(g.points) for g in first.groups) == 60


def test_points_stay_inside_the_view_box(taxonomy):
    for count in (1, 2, 19, 300):
        tm = topicmap.build_topic_map(synthetic_pages(count, ("optimization", "robotics")), taxonomy)
        for group in tm.groups:
            for p in group.points:
                assert tm.radius <= p.x <= tm.width - tm.radius and tm.radius <= p.y <= tm.height - tm.radius


def test_points_shrink_as_the_collection_grows():
    assert topicmap.radius_for(19) == topicmap.RADIUS_MAX
    assert topicmap.radius_for(SCALE) == topicmap.RADIUS_MIN
    assert topicmap.radius_for(19) > topicmap.radius_for(500) > topicmap.radius_for(SCALE)


def test_groups_by_first_tag_most_papers_first(taxonomy):
    tags = ("optimization", "robotics", "fairness")
    pages = synthetic_pages(30, tags)[:25]    # 9, 8 and 8 papers per first tag
    tm = topicmap.build_topic_map(pages, taxonomy)
    sizes = [len(g.points) for g in tm.groups]
    assert sizes == sorted(sizes, reverse=True)
    assert {g.tag for g in tm.groups} == {p.paper.tags[0] for p in pages}
    names = {t.slug: t.name for t in taxonomy.tags}
    assert all(g.name == names[g.tag] for g in tm.groups)


def test_every_tag_of_the_taxonomy_gets_its_own_mark(taxonomy):
    slugs = tuple(t.slug for t in taxonomy.tags)
    tm = topicmap.build_topic_map(synthetic_pages(len(slugs) * 2, slugs), taxonomy)
    marks = [(g.colour, g.shape) for g in tm.groups]
    assert len(tm.groups) == len(slugs) and len(set(marks)) == len(marks)
    # The commonest topics get circles in distinct colours first.
    assert [g.shape for g in tm.groups[:len(topicmap.PALETTE)]] == ["circle"] * len(topicmap.PALETTE)


def test_palette_contrasts_with_both_themes():
    css = (REPO / "static" / "style.css").read_text(encoding="utf-8")
    backgrounds = set(re.findall(r"--bg(?:-soft)?: (#[0-9a-fA-F]{6})", css))
    assert len(backgrounds) >= 4, backgrounds   # light and dark, plain and soft
    for colour in topicmap.PALETTE:
        for background in backgrounds:
            assert contrast(colour, background) >= 3.0, (colour, background)


def polygon_area(d: str) -> float:
    """Area of a closed path of absolute M/L/H/V commands (shoelace)."""
    points, x, y = [], 0.0, 0.0
    for command, args in re.findall(r"([MLHVZ])([^MLHVZ]*)", d):
        numbers = [float(n) for n in re.findall(r"-?[\d.]+", args)]
        if command in "ML":
            x, y = numbers
        elif command == "H":
            x = numbers[0]
        elif command == "V":
            y = numbers[0]
        else:
            continue
        points.append((x, y))
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(points, points[1:] + points[:1]))) / 2


def test_marks_have_equal_areas():

    circle = 3.141592653589793 * 4.0 ** 2
    for shape in topicmap.SHAPES[1:]:
        assert polygon_area(topicmap.shape_path(shape, 4.0)) == pytest.approx(circle, rel=0.02), shape


def test_tag_bars_most_papers_first(built):
    bars = scan(built / urls.TAG_INDEX).chart_links
    counts = [int(re.search(r": (\d+) papers?$", b["title"]).group(1)) for b in bars]
    assert counts == sorted(counts, reverse=True) and counts[0] >= 1


# --- rendered pages --------------------------------------------------------------------


def paper_titles(site: Path) -> dict[str, str]:
    titles = {}
    for page in (site / "papers").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        if 'http-equiv="refresh"' in text:
            continue   # an alias redirect, not a paper
        titles[f"papers/{page.name}"] = re.search(r'<meta property="og:title" content="([^"]*)"', text).group(1)
    return titles


def test_map_has_one_link_per_paper_titled_with_the_paper(built):
    import html

    papers = {href: html.unescape(title) for href, title in paper_titles(built).items()}
    for page in (built / urls.MAP, built / urls.HOME):     # 19 papers: the home page has the full map too
        links = scan(page).map_links
        assert sorted(link["href"] for link in links) == sorted(papers), page.name
        assert all(link["title"] == papers[link["href"]] for link in links)
        assert all(link["shape"].startswith("#") for link in links)


def test_legend_lists_the_first_tags_used(built):
    first_tags = set()
    parsed = scan(built / urls.MAP)
    groups = {link["group"] for link in parsed.map_links}
    assert parsed.legend and sorted(parsed.legend) == sorted(groups)
    content = built.parent / "content" / "papers"
    for path in content.glob("*.md"):
        first_tags.add(re.search(r"^tags: \[([^,\]]+)", path.read_text(encoding="utf-8"), re.M).group(1).strip())
    assert set(parsed.legend) == first_tags
    text = (built / urls.MAP).read_text(encoding="utf-8")
    legend = text[text.index('<ul class="map-legend"'):]
    for slug in first_tags:
        assert f'href="tags/{slug}.html"' in legend


def test_map_is_byte_identical_across_builds(built, tmp_path):
    from papersite.cli import main

    root = make_project(tmp_path / "again", copy_papers=True)
    assert main(build_args(root)) == 0
    for name in (urls.MAP, urls.HOME, urls.TAG_INDEX):
        assert (root / "site" / name).read_bytes() == (built / name).read_bytes(), name


def test_chart_links_every_tag_with_papers(built):
    bars = scan(built / urls.TAG_INDEX).chart_links
    tag_pages = {f"{p.name}" for p in (built / "tags").glob("*.html") if p.name != "index.html"}
    assert sorted(b["href"] for b in bars) == sorted(tag_pages)    # relative to tags/index.html
    assert all(re.fullmatch(r".+: \d+ papers?", b["title"]) for b in bars)


def test_new_pages_pass_the_site_checks(built):
    import pagescan

    assert [p for p in check_site(built) if "search.js" not in p] == []
    for name in (urls.HOME, urls.MAP, urls.TAG_INDEX, urls.READING_LIST, "papers/fastsverl.html"):
        assert pagescan.page_problems(built, built / name) == [], name
        text = (built / name).read_text(encoding="utf-8")
        assert " style=" not in text


def test_reading_list_page_and_toggle_without_javascript(built):
    page = (built / urls.READING_LIST).read_text(encoding="utf-8")
    assert "<noscript>" in page and "needs JavaScript" in page
    assert re.search(r'<div id="reading-list" class="reading-list" hidden>', page)
    paper = (built / "papers" / "fastsverl.html").read_text(encoding="utf-8")
    toggle = re.search(r"<button[^>]*class=\"save-toggle\"[^>]*>", paper, re.S).group(0)
    assert " hidden" in toggle and 'aria-pressed="false"' in toggle and 'data-url="papers/fastsverl.html"' in toggle


# --- scale -----------------------------------------------------------------------------


def test_home_page_stays_light_at_scale(taxonomy):
    """5,876 papers: the home page gets a compact preview under the budget; map.html the full map."""
    import time

    pages = synthetic_pages(SCALE, tuple(t.slug for t in taxonomy.tags))
    config = SiteConfig(title="Scale", description="Many papers.")
    started = time.perf_counter()
    site = build_site_data(config, pages, taxonomy)
    layout_seconds = time.perf_counter() - started
    env = make_environment(REPO / "templates")
    home = render_home(env, site)[urls.HOME]
    full = render_map(env, site)[urls.MAP]

    assert len(home.encode("utf-8")) < HOME_BUDGET, len(home)
    assert 'class="map-preview"' in home and 'href="map.html"' in home
    assert "topic-map-svg" not in home          # no per-paper links on the home page at this size
    assert full.count('<a href="papers/synthetic-paper-number-') == SCALE
    assert full.count('<li data-group="') == len(taxonomy.tags)
    assert "assets/topicmap.js" in full
    tags_page = render_tag_index(env, site)[urls.TAG_INDEX]
    assert tags_page.count("<title>") == 1 + len(taxonomy.tags)
    assert layout_seconds < 30, layout_seconds


def test_small_collection_keeps_the_full_map_on_the_home_page(taxonomy):
    pages = synthetic_pages(19, ("optimization", "robotics"))
    site = build_site_data(SiteConfig(title="Small", description="A few papers."), pages, taxonomy)
    home = render_home(make_environment(REPO / "templates"), site)[urls.HOME]
    assert home.count('<a href="papers/synthetic-paper-number-') >= 19 * 2   # map + list
    assert "map-preview" not in home and "assets/topicmap.js" in home


def test_preview_is_bounded():
    cells = [(x, y) for x in range(100) for y in range(60)]
    path = topicmap.relative_dots(cells)
    assert path.startswith("M0 0h0") and path.count("h0") == len(cells)
