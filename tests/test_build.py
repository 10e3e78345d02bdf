"""End to end: the shipped corpus builds into a complete site a reader can use offline."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from conftest import REPO, build_args, snapshot
from support.linkcheck import check_site


class TextOf(HTMLParser):
    """Visible text of a page, and the text inside <math> separately."""

    def __init__(self):
        super().__init__()
        self.parts, self.stack = [], []

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        if not {"script", "style", "math", "code", "title"} & set(self.stack):
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = TextOf()
    parser.feed(html)
    return " ".join(parser.parts)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from conftest import make_project
    from papersite.cli import main

    root = make_project(tmp_path_factory.mktemp("e2e") / "proj", copy_papers=True)
    assert main(build_args(root)) == 0
    return root / "site"


def slugs():
    return sorted(p.stem for p in (REPO / "content" / "papers").glob("*.md"))


def test_every_page_exists(site):
    assert len(slugs()) == 19
    for slug in slugs():
        assert (site / "papers" / f"{slug}.html").is_file()
    for name in ("index.html", "tags/index.html", "search.html", "404.html", "assets/style.css",
                 "assets/vendor/lunr.js", ".papersite-build"):
        assert (site / name).is_file(), name
    used = {t for p in (REPO / "content" / "papers").glob("*.md") for t in re.findall(r"^tags: \[(.*)\]$", p.read_text(), re.M)[0].split(", ")}
    assert {p.stem for p in (site / "tags").glob("*.html")} - {"index"} == used


def test_every_internal_link_resolves_and_nothing_loads_from_another_host(site):
    assert check_site(site) == []
    for css in site.rglob("*.css"):
        assert not re.search(r"url\(\s*['\"]?(https?:)?//", css.read_text()), css


def test_each_search_landmark_has_a_name_of_its_own(site):
    """search.html has two search forms, the header's and its own: a screen reader's list of
    landmarks tells them apart by their names (axe: landmark-unique)."""
    for page, expected in (("index.html", ["Site search"]), ("search.html", ["Site search", "Search papers"])):
        forms = re.findall(r'<form [^>]*role="search"[^>]*>', (site / page).read_text())
        assert [re.search(r'aria-label="([^"]*)"', form).group(1) for form in forms] == expected, page


def test_home_lists_every_paper_with_summary_and_tags(site):
    home = (site / "index.html").read_text()
    for slug in slugs():
        assert f'href="papers/{slug}.html"' in home
    assert home.count('class="paper-card-summary"') == 19
    assert home.count('class="tag-chips"') == 19


def test_math_is_mathml_not_raw_latex(site):
    checked = 0
    for slug in slugs():
        source = (REPO / "content" / "papers" / f"{slug}.md").read_text()
        html = (site / "papers" / f"{slug}.html").read_text()
        text = visible_text(html)
        assert not re.search(r"\\[A-Za-z]+", text), slug
        if "$" in source.split("---", 2)[2]:
            assert "<math" in html, slug
            assert "$" not in text, slug
            checked += 1
    assert checked >= 5


def test_paper_page_shows_what_a_reader_needs(site):
    html = (site / "papers" / "redoubt.html").read_text()
    assert "<h1" in html and "REDOUBT" in html
    assert 'href="https://github.com/sgNicola/Redoubt"' in html
    assert 'href="../tags/' in html
    assert "min (" in html
    assert 'rel="prev"' in html or 'rel="next"' in html
    assert '<nav class="breadcrumbs"' in html


# A sentence the page writes as it is in the source: no markup, math or character HTML escapes.
PLAIN_SENTENCE = re.compile(r"[A-Z][A-Za-z0-9 ,;:()-]{40,}\.")


def test_paper_page_carries_its_abstract_once_and_its_summary_in_the_description_only(site):
    checked = 0
    for slug in slugs():
        html = (site / "papers" / f"{slug}.html").read_text()
        body = (REPO / "content" / "papers" / f"{slug}.md").read_text().split("---", 2)[2]
        [summary] = re.findall(r'<meta name="description" content="([^"]*)">', html)
        assert html.count(f'content="{summary}"') == 2, slug   # description and og:description
        assert "data-summary" not in html and "twitter:description" not in html, slug
        # A sentence from past the summary: in the visible abstract, and nowhere else on the page.
        sentences = [s for s in PLAIN_SENTENCE.findall(body) if s[:-1] not in summary]
        if not sentences:
            continue
        sentence = max(sentences, key=len)
        abstract = html[html.index('<section class="abstract"'):]
        assert html.count(sentence) == 1 and sentence in abstract[: abstract.index("</section>")], (slug, sentence)
        checked += 1
    assert checked >= 15


def test_citation_marker_is_quiet_and_never_a_raw_macro(site):
    html = (site / "papers" / "data-augmentation-contrastive-learning.html").read_text()
    assert '<span class="citation"' in html and "[oko2025statistical]" in html
    assert "\\cite" not in html


def test_builds_are_byte_identical(site, tmp_path):
    from conftest import make_project
    from papersite.cli import main

    root = make_project(tmp_path / "again", copy_papers=True)
    assert main(build_args(root)) == 0
    assert snapshot(root / "site") == snapshot(site)
