"""Author and venue pages on the real corpus: all 5,876 papers of bench/data/ml-abstracts.jsonl.gz
imported and built once for the session (conftest.real_corpus). The oracles read the imported front
matter, not the build's own data."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from conftest import real_corpus_args
from support.imported import read_page

PAPER_LINK_RE = re.compile(r'href="\.\./(?:\.\./)*papers/([^"#/]+)\.html"')

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def real(real_corpus):
    """The imported project, built, and each paper's front matter by slug."""
    root = real_corpus
    fronts = {}
    for path in (root / "content" / "papers").glob("*.md"):
        front, _ = read_page(path)
        fronts[front["slug"]] = front
    assert len(fronts) == 5876
    return root, fronts


def simple_key(name: str) -> str:
    """An independent, stricter oracle of "one name": NFC, case and white space only."""
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def papers_on(page: Path) -> set[str]:
    """The papers a listing page links, over all its pages (page-2.html, ...)."""
    found = set(PAPER_LINK_RE.findall(page.read_text(encoding="utf-8")))
    more = page.with_suffix("")
    for extra in sorted(more.glob("page-*.html")) if more.is_dir() else ():
        found |= set(PAPER_LINK_RE.findall(extra.read_text(encoding="utf-8")))
    return found


def byline(html: str) -> list[tuple[str, str]]:
    """(author page slug, name) of each linked name of a paper page's byline (a long one's in two parts)."""
    lines = re.findall(r'<p class="paper-authors">(.*?)</p>', html, re.S)
    return re.findall(r'<a href="\.\./authors/([^"/]+)\.html">([^<]*)</a>', "".join(lines))


def test_the_most_prolific_authors_pages_list_every_one_of_their_papers(real):
    root, fronts = real
    by_name = defaultdict(set)
    for slug, front in fronts.items():
        for name in front["authors"]:
            by_name[simple_key(name)].add(slug)
    counts = Counter({name: len(slugs) for name, slugs in by_name.items()})
    for name, count in counts.most_common(5):
        slug = next(link for link, shown in byline((root / "site" / "papers" / f"{min(by_name[name])}.html").read_text(encoding="utf-8"))
                    if simple_key(shown) == name)
        page = root / "site" / "authors" / f"{slug}.html"
        listed = papers_on(page)
        assert by_name[name] <= listed, name
        assert f"{len(listed)} papers" in page.read_text(encoding="utf-8")
    assert counts.most_common(1)[0] == ("sergey levine", 42)


def test_every_name_on_every_paper_page_resolves_to_a_page_listing_that_paper(real):
    root, fronts = real
    listed: dict[str, set[str]] = {}
    names = 0
    for slug, front in fronts.items():
        credits = byline((root / "site" / "papers" / f"{slug}.html").read_text(encoding="utf-8"))
        assert len(credits) == len(front["authors"]), slug
        for author, shown in credits:
            if author not in listed:
                listed[author] = papers_on(root / "site" / "authors" / f"{author}.html")
            assert slug in listed[author], (slug, author)
            names += 1
    assert names > 20_000 and len(listed) > 15_000


def test_each_venue_year_page_lists_exactly_its_papers(real):
    root, fronts = real
    expected = defaultdict(set)
    for slug, front in fronts.items():
        expected[front["venue"].lower(), front["year"]].add(slug)
    assert len(expected) == 6
    venues = (root / "site" / "venues" / "index.html").read_text(encoding="utf-8")
    for (venue, year), slugs in expected.items():
        assert f'href="{venue}/{year}.html"' in venues
        assert papers_on(root / "site" / "venues" / venue / f"{year}.html") == slugs, (venue, year)


def test_merging_two_variants_in_authors_yml_moves_their_papers_onto_one_page_and_leaves_a_redirect(real, cli):
    root, fronts = real
    site = root / "site"
    lee = papers_on(site / "authors" / "jason-lee.html")
    d_lee = papers_on(site / "authors" / "jason-d-lee.html")
    assert lee and d_lee and not lee & d_lee
    (root / "content" / "authors.yml").write_text(
        "authors:\n  - name: Jason D. Lee\n    variants: [Jason Lee]\n", encoding="utf-8")
    try:
        assert cli(*real_corpus_args(root)).code == 0
        merged = site / "authors" / "jason-d-lee.html"
        assert papers_on(merged) == lee | d_lee
        assert f"{len(lee | d_lee)} papers" in merged.read_text(encoding="utf-8")
        moved = (site / "authors" / "jason-lee.html").read_text(encoding="utf-8")
        assert '<meta http-equiv="refresh" content="0; url=jason-d-lee.html">' in moved
        for slug in lee:
            assert ("jason-d-lee", "Jason Lee") in byline((site / "papers" / f"{slug}.html").read_text(encoding="utf-8"))
    finally:
        # The site is shared with the session's other tests: built again as they expect it.
        (root / "content" / "authors.yml").unlink()
        assert cli(*real_corpus_args(root)).code == 0
