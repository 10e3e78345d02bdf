"""The topic map (home page, map.html) and the papers-per-topic chart (tag index), drawn at build time."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

from conftest import REPO, axe_violations, build_args, make_project
from support.linkcheck import check_site

from papersite import urls
from papersite.enrich import maplabels, topicmap
from papersite.enrich.listings import PaperPage, Site, list_site
from papersite.enrich.projection import project_2d
from papersite.enrich.terms import page_texts, weigh_terms
from papersite.inputs.taxonomy import load_taxonomy
from papersite.model import Paper, SiteConfig
from papersite.render.jinja import Renderer, make_environment
from papersite.render.plan import plan_home, plan_maps, plan_tag_index, recently_added, site_chrome

SCALE = 5_876
HOME_BUDGET = 200_000


# --- helpers ---------------------------------------------------------------------------


class Svg(HTMLParser):
    """Links, titles and legend entries of the map SVG and the chart on a page."""

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
        if tag == "a" and self.inside("tag-chart-list"):
            self.chart_links.append({"href": attrs["href"], "title": attrs["title"]})
        if tag == "a" and "map-preview" in (attrs.get("class") or ""):
            self.preview_links.append(attrs["href"])
        if tag == "use" and self.inside("topic-map-svg") and self.map_links:
            self.map_links[-1].update(x=float(attrs["x"]), y=float(attrs["y"]), shape=attrs["href"])
        if tag == "li" and self.inside("map-legend"):
            self.legend.append(attrs["data-group"])
        if tag == "title" and self.inside("topic-map-svg"):
            self._title = []
        if tag not in ("use", "circle", "path", "rect", "meta", "link", "input", "br"):
            self.stack.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in ("use", "circle", "path", "rect", "meta", "link", "input", "br"):
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag == "title" and self._title is not None:
            if self.map_links:
                self.map_links[-1]["title"] = "".join(self._title)
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
                      aliases=(), links=(), body=text, path=f"content/papers/p{i}.md", body_line=12)
        pages.append(PaperPage(paper=paper, title_html=title, title_text=title, abstract_html=f"<p>{text}</p>",
                               title_latex=title, text=text, summary=text[:240], words=40, reading_minutes=1,
                               prev_slug=None, next_slug=None))
    return pages


def build_topic_map(pages, taxonomy) -> topicmap.TopicMap:
    """The map as a build lays it out afresh: the pages' TF-IDF vectors projected, placed by first tag,
    with one BLAS thread as the build has it (stages.py): with more, the summation order, and so
    the points' last digits, may differ from one layout to the next."""
    with threadpool_limits(limits=1, user_api="blas"):
        terms = weigh_terms(page_texts(pages))[0]
        return topicmap.layout_map(pages, project_2d(terms, [p.paper.id for p in pages])[0], taxonomy, terms)


def render(specs, site: Site) -> dict[str, str]:
    renderer = Renderer(make_environment(REPO / "templates"), site_chrome(site))
    return {spec.path: renderer.render(spec) for spec in specs}


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
    first = build_topic_map(pages, taxonomy)
    assert first == build_topic_map(list(pages), taxonomy)
    assert first.count == 60 and sum(len(g.points) for g in first.groups) == 60


def test_the_maps_version_changes_with_every_field_of_it(taxonomy):
    """The map's pages are keyed by its version (topicmap.map_version), which digests its groups and
    points field by field: a field added to MapPoint or MapGroup must be added there (and here)."""
    from dataclasses import fields, replace

    tm = build_topic_map(synthetic_pages(60, tuple(t.slug for t in taxonomy.tags[:6])), taxonomy)
    assert tm.version == topicmap.map_version(tm) and tm.version == build_topic_map(
        synthetic_pages(60, tuple(t.slug for t in taxonomy.tags[:6])), taxonomy).version
    group, point = tm.groups[0], tm.groups[0].points[0]
    point_changes = {"slug": "other", "title": "Other", "x": point.x + 0.1, "y": point.y + 0.1}
    group_changes = {"tag": "other", "name": "Other", "colour": "#000000", "shape": "diamond", "dots": "M0 0h0",
                     "points": group.points[1:]}
    map_changes = {f.name: None for f in fields(topicmap.TopicMap) if f.name not in ("groups", "version")}
    assert set(point_changes) == {f.name for f in fields(topicmap.MapPoint)}
    assert set(group_changes) == {f.name for f in fields(topicmap.MapGroup)}
    changed = [replace(tm, groups=(replace(group, points=(replace(point, **{name: value}), *group.points[1:])), *tm.groups[1:]))
               for name, value in point_changes.items()]
    changed += [replace(tm, groups=(replace(group, **{name: value}), *tm.groups[1:])) for name, value in group_changes.items()]
    changed += [replace(tm, **{name: value}) for name, value in map_changes.items()]
    versions = {tm.version} | {topicmap.map_version(other) for other in changed}
    assert len(versions) == 1 + len(changed)


def test_points_stay_inside_the_view_box(taxonomy):
    for count in (1, 2, 19, 300):
        tm = build_topic_map(synthetic_pages(count, ("optimization", "robotics")), taxonomy)
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
    tm = build_topic_map(pages, taxonomy)
    sizes = [len(g.points) for g in tm.groups]
    assert sizes == sorted(sizes, reverse=True)
    assert {g.tag for g in tm.groups} == {p.paper.tags[0] for p in pages}
    names = {t.slug: t.name for t in taxonomy.tags}
    assert all(g.name == names[g.tag] for g in tm.groups)


def test_every_tag_of_the_taxonomy_gets_its_own_mark(taxonomy):
    slugs = tuple(t.slug for t in taxonomy.tags)
    tm = build_topic_map(synthetic_pages(len(slugs) * 2, slugs), taxonomy)
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
    from support import pagescan

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
    assert " hidden" in toggle and 'data-url="papers/fastsverl.html"' in toggle


# --- scale -----------------------------------------------------------------------------


def test_every_page_stays_light_at_scale(taxonomy):
    """5,876 papers: the home page gets a compact preview, map.html an overview linking each topic's
    own map, and the topic maps link every paper once; every page under the budget."""
    import time

    pages = synthetic_pages(SCALE, tuple(t.slug for t in taxonomy.tags))
    config = SiteConfig(title="Scale", description="Many papers.")
    started = time.perf_counter()
    site, tm = list_site(config, taxonomy, pages), build_topic_map(pages, taxonomy)
    layout_seconds = time.perf_counter() - started
    home = render(plan_home(site, tm, recently_added(site.papers)), site)[urls.HOME]
    maps = render(plan_maps(site, tm), site)
    overview = maps[urls.MAP]

    assert len(home.encode("utf-8")) < HOME_BUDGET, len(home)
    assert 'class="map-preview"' in home and 'href="map.html"' in home
    assert "topic-map-svg" not in home          # no per-paper links on the home page at this size
    assert "papers/synthetic-paper-number-" not in overview
    assert overview.count('<li data-group="') == len(taxonomy.tags)
    assert "assets/topicmap.js" in overview
    topic_pages = {urls.map_topic_path(t.slug) for t in taxonomy.tags}
    assert set(maps) == {urls.MAP} | topic_pages
    assert all(f'href="{path}"' in overview for path in topic_pages)
    linked = re.findall(r'<a href="\.\./papers/([^"]+)\.html"><title>', "".join(maps.values()))
    assert sorted(linked) == sorted(p.paper.slug for p in pages)
    sizes = {path: len(html.encode("utf-8")) for path, html in maps.items()}
    assert max(sizes.values()) < HOME_BUDGET, max(sizes.items(), key=lambda item: item[1])
    tags_page = render([plan_tag_index(site)], site)[urls.TAG_INDEX]
    assert tags_page.count('<span class="bar-label">') == len(taxonomy.tags)
    assert layout_seconds < 30, layout_seconds


def test_a_full_topic_page_stays_under_the_budget(taxonomy):
    """The worst case the cap must hold: MAP_PAGE_POINTS papers on one topic page, each with a slug and
    a title as long as the longest of the 5,000-paper corpus (52 and 150 characters), over a
    backdrop of MAP_MAX_DOTS dots spread all over the map (no two in one cell)."""
    from dataclasses import replace

    count = topicmap.MAP_MAX_DOTS + topicmap.MAP_PAGE_POINTS
    pages = synthetic_pages(count, tuple(t.slug for t in taxonomy.tags[1:9]))
    for i in range(topicmap.MAP_PAGE_POINTS):
        slug = f"a-slug-of-the-longest-length-seen-in-the-corpus-{i:04d}"
        pages[i] = replace(pages[i], title_text=(f"{i:04d} " + pages[i].title_text * 3)[:150],
                           paper=replace(pages[i].paper, slug=slug, tags=("reinforcement-learning",)))
    spread = [((i * 7919) % count / count, (i * 104729) % count / count) for i in range(count)]
    site = list_site(SiteConfig(title="Scale", description="Many papers."), taxonomy, pages)
    maps = render(plan_maps(site, topicmap.layout_map(pages, spread, taxonomy)), site)
    page = maps[urls.map_topic_path("reinforcement-learning")]
    assert page.count('<a href="../papers/a-slug-of-the-longest') == topicmap.MAP_PAGE_POINTS
    assert page.count("h0") > 0.85 * topicmap.MAP_MAX_DOTS     # the other topics' share of the dots, no two in one cell
    assert len(page.encode("utf-8")) < HOME_BUDGET, len(page)
    assert max(len(html.encode("utf-8")) for html in maps.values()) < HOME_BUDGET


def test_map_links_every_paper_up_to_the_cap(taxonomy):
    pages = synthetic_pages(topicmap.MAP_PAGE_POINTS, tuple(t.slug for t in taxonomy.tags))
    site, tm = list_site(SiteConfig(title="Cap", description="Just few enough."), taxonomy, pages), build_topic_map(pages, taxonomy)
    maps = render(plan_maps(site, tm), site)
    assert list(maps) == [urls.MAP] and not tm.overview
    assert maps[urls.MAP].count('<a href="papers/synthetic-paper-number-') == len(pages)
    assert len(maps[urls.MAP].encode("utf-8")) < HOME_BUDGET


def test_small_collection_keeps_the_full_map_on_the_home_page(taxonomy):
    pages = synthetic_pages(19, ("optimization", "robotics"))
    site = list_site(SiteConfig(title="Small", description="A few papers."), taxonomy, pages)
    home = render(plan_home(site, build_topic_map(pages, taxonomy), recently_added(site.papers)), site)[urls.HOME]
    assert home.count('<a href="papers/synthetic-paper-number-') >= 19 * 2   # map + list
    assert "map-preview" not in home and "assets/topicmap.js" in home


def test_preview_is_bounded():
    cells = [(x, y) for x in range(100) for y in range(60)]
    path = topicmap.relative_dots(cells)
    assert path.startswith("M0 0h0") and path.count("h0") == len(cells)


def test_overview_dots_are_bounded_and_show_every_topic(taxonomy):
    slugs = tuple(t.slug for t in taxonomy.tags)
    tm = build_topic_map(synthetic_pages(SCALE, slugs), taxonomy)
    assert tm.overview and topicmap.MAP_MAX_DOTS <= tm.dot_count <= topicmap.MAP_MAX_DOTS + len(tm.groups)
    assert all(g.dots.startswith("M") for g in tm.groups)
    assert sum(g.dots.count("h0") for g in tm.groups) <= tm.dot_count


def label_boxes(labels, size: int) -> list[tuple[float, float, float, float]]:
    boxes = []
    for label in labels:
        half = maplabels.label_width(label.name, size) / 2
        boxes.append((label.x - half, label.y - size, label.x + half, label.y))
    return boxes


def test_labels_stay_inside_the_map_without_overlapping(taxonomy):
    slugs = tuple(t.slug for t in taxonomy.tags)
    tm = build_topic_map(synthetic_pages(2000, slugs), taxonomy)
    assert tm.labels and tm.narrow_labels and len(tm.narrow_labels) <= len(tm.labels)
    for labels, size in ((tm.labels, tm.label_size), (tm.narrow_labels, tm.narrow_label_size)):
        boxes = label_boxes(labels, size)
        assert all(0 <= b[0] and b[2] <= tm.width and 0 <= b[1] and b[3] <= tm.height for b in boxes), boxes
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)


def test_dense_regions_are_named_by_their_distinctive_terms(taxonomy):
    """Two crowds of papers, one on protein folding and one on bandits, placed apart: each is named
    by its own vocabulary, where it is, and points at its commonest topic."""
    from dataclasses import replace

    pages = synthetic_pages(60, ("optimization", "robotics"))
    themes = ("protein folding predicts amino acid structure", "contextual bandit regret bounds for arm exploration")
    pages = [replace(page, text=f"{themes[i % 2]} {page.text}", paper=replace(page.paper, tags=(("optimization", "robotics")[i % 2],)))
             for i, page in enumerate(pages)]
    coordinates = [((0.2 if i % 2 == 0 else 0.8) + (i % 5) * 0.004, 0.5 + (i % 7) * 0.004) for i in range(len(pages))]
    terms = weigh_terms([page.text for page in pages])[0]
    tm = topicmap.layout_map(pages, coordinates, taxonomy, terms)
    assert len(tm.labels) == 2
    left, right = sorted(tm.labels, key=lambda label: label.x)
    assert left.x < tm.width / 2 < right.x
    assert set(left.name.split(" · ")) <= set(themes[0].split()) and left.key == "optimization"
    assert set(right.name.split(" · ")) <= set(themes[1].split()) and right.key == "robotics"


def test_topic_parts_split_evenly_left_to_right(taxonomy, monkeypatch):
    monkeypatch.setattr(topicmap, "MAP_PAGE_POINTS", 40)
    tm = build_topic_map(synthetic_pages(300, ("optimization", "robotics", "fairness")), taxonomy)
    parts = topicmap.topic_parts(tm)
    for group in tm.groups:       # 100 papers each: three parts of 33 or 34
        sizes = [len(part.points) for part in parts[group.key]]
        assert sizes == [33, 33, 34], sizes
        assert sorted(p.slug for part in parts[group.key] for p in part.points) == sorted(p.slug for p in group.points)
        assert all(part.rest == group.dots and part.backdrop for part in parts[group.key])
        xs = [(min(p.x for p in part.points), max(p.x for p in part.points)) for part in parts[group.key]]
        assert all(left[1] <= right[0] for left, right in zip(xs, xs[1:]))


def test_untagged_papers_get_their_own_topic_page(taxonomy, monkeypatch):
    from dataclasses import replace

    monkeypatch.setattr(topicmap, "MAP_PAGE_POINTS", 5)
    pages = synthetic_pages(12, ("optimization", "robotics"))
    pages[:3] = [replace(p, paper=replace(p.paper, tags=())) for p in pages[:3]]
    site = list_site(SiteConfig(title="Small", description="A few papers."), taxonomy, pages)
    maps = render(plan_maps(site, build_topic_map(pages, taxonomy)), site)
    page = maps[urls.map_topic_path(topicmap.UNTAGGED_KEY)]
    assert urls.map_topic_path(topicmap.UNTAGGED_KEY) == "map/_untagged.html"   # "_" is in no tag slug
    assert sorted(re.findall(r'<a href="\.\./papers/([^"]+)\.html"><title>', page)) == sorted(p.paper.slug for p in pages[:3])
    assert "No topic" in page and 'href="../tags/' not in page.split('<main', 1)[1].split("</header>", 1)[0]
    assert f'href="{urls.map_topic_path(topicmap.UNTAGGED_KEY)}"' in maps[urls.MAP]


# --- overview and topic pages (a collection above MAP_PAGE_POINTS) -----------------------

SAMPLE = REPO / "tests" / "fixtures" / "ml-sample.jsonl"
SMALL_CAP = 6      # with the 59-paper sample: map.html is an overview and the larger topics come in parts


@pytest.fixture(scope="module")
def sample_project(tmp_path_factory) -> Path:
    """The real-corpus sample (tests/test_scale.py), imported once."""
    import contextlib
    import io

    from papersite.cli import main

    root = make_project(tmp_path_factory.mktemp("overview") / "proj")
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert main(["import", str(SAMPLE), "--content", str(root / "content")]) == 0
    return root


def test_a_first_build_forks_the_layouts_worker_before_it_reads_a_page(sample_project, tmp_path, monkeypatch):
    """The t-SNE worker is forked while the build holds little: forked once the pages and their texts
    were made, it held copies of the build's memory (845 MB at 100,000 papers; bench/README.md)."""
    from papersite import stages
    from papersite.cli import main

    events = []
    standby, load_content = stages.Standby, stages.load_content
    monkeypatch.setattr(stages, "Standby", lambda *args: events.append("layout worker") or standby(*args))
    monkeypatch.setattr(stages, "load_content", lambda *args: events.append("pages read") or load_content(*args))

    assert main(build_args(sample_project, "--out", str(tmp_path / "site"), "--clean")) == 0
    assert events == ["layout worker", "pages read"]
    assert (tmp_path / "site" / urls.MAP).is_file()


def build_with_small_cap(root: Path) -> Path:
    from papersite.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(topicmap, "MAP_PAGE_POINTS", SMALL_CAP)
        assert main(build_args(root)) == 0
    return root / "site"


@pytest.fixture(scope="module")
def overview(sample_project) -> Path:
    return build_with_small_cap(sample_project)


def map_pages(site: Path) -> list[Path]:
    return sorted((site / "map").rglob("*.html"))


def resolve(site: Path, page: Path, href: str) -> str:
    import posixpath

    return posixpath.normpath(posixpath.join(posixpath.dirname(str(page.relative_to(site))), href))


def topic_links(site: Path) -> dict[str, list[str]]:
    """Paper page path -> the keys of the topic pages that link it, each with a title."""
    found: dict[str, list[str]] = {}
    for page in map_pages(site):
        key = page.relative_to(site / "map").parts[0].removesuffix(".html")
        for link in scan(page).map_links:
            assert link["title"], (page, link)
            found.setdefault(resolve(site, page, link["href"]), []).append(key)
    return found


def first_tags(root: Path) -> dict[str, str]:
    """Paper page path -> the key of its first tag, from the content."""
    found = {}
    for path in (root / "content" / "papers").glob("*.md"):
        text = path.read_text(encoding="utf-8")
        slug = re.search(r"^slug: (\S+)", text, re.M).group(1)
        tags = re.search(r"^tags: \[([^\]]*)\]", text, re.M).group(1)
        found[urls.paper_path(slug)] = tags.split(",")[0].strip() or topicmap.UNTAGGED_KEY
    return found


def test_overview_links_every_topic_page_and_no_paper(overview):
    parsed = scan(overview / urls.MAP)
    targets = {resolve(overview, overview / urls.MAP, link["href"]) for link in parsed.map_links}
    first_pages = {str(p.relative_to(overview)) for p in map_pages(overview) if "/page-" not in str(p)}
    assert targets == first_pages and len(first_pages) == len(parsed.legend) > 1
    assert not any(t.startswith("papers/") for t in targets)
    text = (overview / urls.MAP).read_text(encoding="utf-8")
    assert 'href="papers/' not in text[text.index('<figure class="topic-map'):text.index("</figure>")]
    assert "assets/topicmap.js" in text and 'class="tm-label"' in text
    # Each topic's dots are one link named by the topic; its name on the map repeats it for the mouse only.
    assert all(re.fullmatch(r".+: \d+ papers?", link["title"]) for link in parsed.map_links if link["title"])
    assert len(re.findall(r'<g class="tm-labels [^"]*"[^>]*aria-hidden="true"', text)) == 2
    assert all('tabindex="-1"' in label for label in re.findall(r'<a class="tm-label"[^>]*>', text))


def test_every_paper_is_linked_from_exactly_one_topic_page(overview, sample_project):
    assert topic_links(overview) == {path: [key] for path, key in first_tags(sample_project).items()}


def test_large_topics_are_split_into_linked_parts(overview, sample_project):
    from collections import Counter

    sizes = Counter(first_tags(sample_project).values())
    large = [key for key, size in sizes.items() if size > SMALL_CAP]
    assert large, sizes
    for key in large:
        parts = -(-sizes[key] // SMALL_CAP)
        paths = [overview / urls.map_topic_path(key, n) for n in range(1, parts + 1)]
        assert all(p.is_file() for p in paths) and not (overview / urls.map_topic_path(key, parts + 1)).exists()
        lefts = []
        for number, path in enumerate(paths, start=1):
            text = path.read_text(encoding="utf-8")
            links = scan(path).map_links
            assert sizes[key] // parts <= len(links) <= SMALL_CAP
            lefts.append((min(link["x"] for link in links), max(link["x"] for link in links)))
            assert f"part {number} of {parts}" in text and 'class="tm-rest"' in text
            prev = re.search(r'<a href="([^"]+)" rel="prev">', text)
            after = re.search(r'<a href="([^"]+)" rel="next">', text)
            assert (prev is None) == (number == 1) and (after is None) == (number == parts)
            if prev:
                assert resolve(overview, path, prev.group(1)) == str(paths[number - 2].relative_to(overview))
            if after:
                assert resolve(overview, path, after.group(1)) == str(paths[number].relative_to(overview))
        # Parts go left to right.
        assert all(left[1] <= right[0] for left, right in zip(lefts, lefts[1:])), lefts


def test_topic_pages_link_back_with_breadcrumbs(overview):
    for page in map_pages(overview):
        text = page.read_text(encoding="utf-8")
        crumbs = re.search(r'<nav class="breadcrumbs".*?</nav>', text, re.S).group(0)
        hrefs = [resolve(overview, page, h) for h in re.findall(r'href="([^"]+)"', crumbs)]
        assert hrefs[:2] == [urls.HOME, urls.MAP], page
        key = page.relative_to(overview / "map").parts[0].removesuffix(".html")
        links = [resolve(overview, page, h) for h in re.findall(r'href="([^"]+)"', text)]
        assert urls.MAP in links and urls.tag_path(key) in links
        assert "assets/topicmap.js" not in text        # one topic: nothing to filter


def test_map_pages_are_valid_safe_and_light(overview):
    from support import pagescan

    assert [p for p in check_site(overview) if "search.js" not in p] == []
    for page in [overview / urls.MAP, *map_pages(overview)]:
        assert pagescan.page_problems(overview, page) == [], page
        text = page.read_text(encoding="utf-8")
        assert " style=" not in text and len(text.encode("utf-8")) < HOME_BUDGET


def test_map_pages_pass_the_nu_html_checker(overview):
    from test_validity import need_java, nu_check

    need_java()
    others = tuple(str(p.relative_to(overview)) for p in overview.rglob("*.html")
                   if p.relative_to(overview).parts[0] != "map" and p.name != urls.MAP)
    assert nu_check(overview, skip=others) == []


def test_overview_build_is_byte_identical(overview, sample_project, tmp_path):
    import shutil

    root = tmp_path / "again"
    shutil.copytree(sample_project / "content", root / "content")
    shutil.copyfile(sample_project / "site.yml", root / "site.yml")
    again = build_with_small_cap(root)
    names = [p.relative_to(overview) for p in [overview / urls.MAP, *map_pages(overview)]]
    assert names == [p.relative_to(again) for p in [again / urls.MAP, *map_pages(again)]]
    assert all((again / name).read_bytes() == (overview / name).read_bytes() for name in names)


def test_an_incremental_build_moves_a_paper_to_its_new_topic_page(sample_project, tmp_path, monkeypatch):
    """Topic pages are keyed on the map (their specs hold it): after a paper changes its first topic
    the kept and re-rendered pages together are what a clean build writes."""
    import shutil

    import papersite.incremental.cache as build_cache
    from papersite.pipeline import BuildOptions, build

    code = build_cache.code_version()
    monkeypatch.setattr(build_cache, "code_version", lambda: code)   # another module edited meanwhile must not turn the build cold
    monkeypatch.setattr(topicmap, "MAP_PAGE_POINTS", SMALL_CAP)
    root = tmp_path / "proj"
    shutil.copytree(sample_project / "content", root / "content")
    shutil.copyfile(sample_project / "site.yml", root / "site.yml")

    def options(out: Path, **extra) -> BuildOptions:
        return BuildOptions(content=root / "content", config=root / "site.yml", out=out, jobs=1, **extra)

    build(options(root / "site"))
    # Swapping a paper's first two tags keeps every tag's count (in every page's key), so only
    # what shows the map, the paper or its tags is rendered again.
    source, text, tags = next((path, text, tags) for path in sorted((root / "content" / "papers").glob("*.md"))
                              for text in [path.read_text(encoding="utf-8")]
                              for tags in [re.search(r"^tags: \[([^\]]*)\]", text, re.M).group(1).split(", ")]
                              if len(tags) > 1)
    new_tag = tags[1]
    source.write_text(text.replace(f"tags: [{', '.join(tags)}]", f"tags: [{', '.join([tags[1], tags[0], *tags[2:]])}]"),
                      encoding="utf-8")
    result = build(options(root / "site"))
    assert result.reused > result.pages // 2

    site = root / "site"
    links = topic_links(site)
    assert links == {path: [key] for path, key in first_tags(root).items()}
    slug = re.search(r"^slug: (\S+)", text, re.M).group(1)
    assert links[urls.paper_path(slug)] == [new_tag]
    clean = tmp_path / "clean"
    build(options(clean / "site", clean=True, cache_dir=clean / "cache"))
    ours = sorted(p.relative_to(site) for p in site.rglob("*.html"))
    assert ours == sorted(p.relative_to(clean / "site") for p in (clean / "site").rglob("*.html"))
    assert [p for p in ours if (site / p).read_bytes() != (clean / "site" / p).read_bytes()] == []


# Where on the screen a dot of the topic's path is the topmost thing (its "M x y h0 m dx dy h0 ..." walked).
DOT_ON_TOP = """(key) => {
  const path = document.querySelector(`.tm-group[data-group="${key}"] path`);
  const link = path.closest("a");
  let x = 0, y = 0;
  for (const [, command, dx, dy] of path.getAttribute("d").matchAll(/([Mm])(-?\\d+) ?(-?\\d+)h0/g)) {
    x = command === "M" ? +dx : x + +dx;
    y = command === "M" ? +dy : y + +dy;
    const point = new DOMPoint(x, y).matrixTransform(path.getScreenCTM());
    const hit = document.elementFromPoint(point.x, point.y);
    if (hit && hit.closest("a") === link) return [point.x, point.y];
  }
  return null;
}"""


@pytest.mark.browser
def test_overview_legend_filters_topics_and_their_labels(overview, page):
    page.goto((overview / urls.MAP).resolve().as_uri())
    first = page.locator(".legend-filter").first
    key = first.get_attribute("data-group")
    count = page.locator(f'.tm-group[data-group="{key}"]').get_attribute("data-count")
    first.click()
    assert f"Highlighting 1 topic ({count} paper" in page.locator(".map-status").inner_text()
    assert page.locator(".tm-group.tm-faded").count() == page.locator(".tm-group").count() - 1
    others = page.locator(f'.tm-label:not([data-group="{key}"])').count()
    assert page.locator(".tm-label.tm-faded").count() == others and others < page.locator(".tm-label").count()
    page.click(".map-clear")
    # A topic's dots open its own map: click one that nothing drawn later covers.
    page.locator(".topic-map-svg").scroll_into_view_if_needed()
    x, y = page.evaluate(DOT_ON_TOP, key)
    page.mouse.click(x, y)
    page.wait_for_url(re.compile(re.escape(urls.map_topic_path(key)) + "$"))
    assert page.locator(".topic-map-svg a").count() > 0
    assert page.console_errors == []


VISIBLE_LABELS = """() => [...document.querySelectorAll('.tm-labels text')]
  .filter(t => getComputedStyle(t.closest('g.tm-labels')).display !== 'none')
  .map(t => { const r = t.getBoundingClientRect();
              return [r.left, r.top, r.right, r.bottom, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a]; })"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1280])
def test_overview_fits_the_screen_and_its_names_never_overlap(browser, overview, width):
    """On a 390 px phone the overview needs no sideways scrolling; on a phone and a desktop the region
    names shown are readable and none covers another."""
    context = browser.new_context(viewport={"width": width, "height": 844})
    tab = context.new_page()
    try:
        tab.goto((overview / urls.MAP).resolve().as_uri())
        assert tab.evaluate("document.documentElement.scrollWidth") <= width
        scroller = tab.locator(".topic-map-scroll")
        assert scroller.evaluate("e => e.scrollWidth <= e.clientWidth")
        labels = tab.evaluate(VISIBLE_LABELS)
        assert labels
        assert all(0 <= left and right <= width for left, _, right, _, _ in labels)
        assert min(size for *_, size in labels) >= 9, labels     # rendered px, a phone's smallest readable
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (a, b)
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations_on_the_map_pages(browser, overview, scheme):
    split = next(p for p in map_pages(overview) if "/page-" in str(p))
    context = browser.new_context(color_scheme=scheme)
    tab = context.new_page()
    problems = []
    try:
        for path in (overview / urls.MAP, map_pages(overview)[0], split):
            tab.goto(path.resolve().as_uri(), wait_until="load")
            problems += axe_violations(tab, f"{scheme} {path.name}")
    finally:
        context.close()
    assert problems == []
