"""Authors and venues on small projects: which spellings are one person, their slugs, authors.yml's
merges, splits and redirects, author pages and the venue pages (tests/test_authors_real.py has the
real corpus)."""

from __future__ import annotations

import html
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import build_args, make_project, paper_text, snapshot
from papersite import urls, workers
from papersite.enrich import authors as authors_module
from papersite.enrich import people
from papersite.enrich.authors import author_pages
from papersite.enrich.bibtex import author_list
from papersite.enrich.people import Authorship, Credit, Person
from papersite.errors import Report
from papersite.model import Paper
from papersite.inputs.names import index_letter, index_name, name_key, name_slug, shown_name
from support.linkcheck import check_site


@pytest.mark.parametrize("raw, shown", [
    ("Bengio, Yoshua", "Yoshua Bengio"),
    ("  Yoshua\t Bengio ", "Yoshua Bengio"),
    ("Daumé, Hal, III", "Hal Daumé III"),
    ("John Smith, Jr.", "John Smith Jr."),
    ("Jose\u0301 Garci\u0301a", "José García"),   # decomposed accents become NFC
])
def test_shown_names_are_nfc_given_name_first(raw, shown):
    assert shown_name(raw) == shown


@pytest.mark.parametrize("a, b", [
    ("Yoshua Bengio", "yoshua  BENGIO"),
    ("Bengio, Yoshua", "Yoshua Bengio"),
    ("Michael A. Osborne", "Michael A Osborne"),
    ("José García", "Jose\u0301 Garci\u0301a"),
    ("Sean O'Connor", "Sean O’Connor"),
])
def test_spellings_of_one_name_share_a_key(a, b):
    assert name_key(a) == name_key(b)


def test_accents_count_in_names_and_are_folded_in_slugs():
    assert name_key("José García") != name_key("Jose Garcia")
    assert name_slug(name_key("Jose Garcia")) == "jose-garcia"
    accented = name_slug(name_key("José García"))
    assert re.fullmatch(r"jose-garcia-[0-9a-f]{6}", accented)
    # A function of the name alone: the same in every build, whatever else the collection holds.
    assert name_slug(name_key("José  GARCÍA")) == accented
    assert name_slug(name_key("Index")) != "index"


def test_index_names_sort_by_family_name():
    assert index_name("Mihaela van der Schaar") == "van der Schaar, Mihaela"
    assert index_letter("Mihaela van der Schaar") == "s"
    assert index_name("Hal Daumé III") == "Daumé III, Hal"
    assert index_letter("Élodie Ørsted") == "o"
    assert index_letter("李 明") == "other"
    # A family name as the content spells it, with a stray hyphen before it, is still under its letter.
    assert index_letter("Saeed Sharifi -Malvajerdi") == "m"


@pytest.mark.parametrize("raw, last, lineage, first", [
    ("Hal Daumé III", "Daumé", "III", "Hal"),
    ("Daumé, Hal, III", "Daumé", "III", "Hal"),
    ("Mauricio Breternitz Jr.", "Breternitz", "Jr.", "Mauricio"),
    ("Frederick A Matsen IV", "Matsen", "IV", "Frederick A"),
    ("Yoshua Bengio", "Bengio", "", "Yoshua"),
    ("Mihaela van der Schaar", "Schaar", "", "Mihaela"),
])
def test_bibtex_reads_each_name_as_the_page_shows_it(raw, last, lineage, first):
    """pybtex splits names as BibTeX does: a suffix is read as one only in "Family, Suffix, Given"."""
    from pybtex.database import parse_string

    [person] = parse_string(f"@misc{{a, author = {{{author_list([raw])}}}}}", "bibtex").entries["a"].persons["author"]
    assert (" ".join(person.last_names), " ".join(person.lineage_names), " ".join(person.first_names + person.middle_names)) == (last, lineage, first)


def paper(n: int, authors: str, venue: str = "NeurIPS", year: int = 2025, **fields) -> str:
    return paper_text(id=f"p-{n:04d}", slug=f"paper-{n}", title=f"Paper number {n}", venue=venue, year=str(year),
                      authors=authors, **fields)


PAPERS = {
    "1.md": paper(1, "[Ada Lovelace, 'Babbage, Charles']", year=2024),
    "2.md": paper(2, "[ada lovelace, Alan Turing]", year=2025),
    "3.md": paper(3, "[A. Lovelace, 'José García']", venue="ICML", year=2025),
    "4.md": paper(4, "[Alan Turing]", venue="ICML", year=2019),
}


@pytest.fixture
def proj(tmp_path):
    return make_project(tmp_path / "proj", PAPERS)


def read(root, rel: str) -> str:
    return (root / "site" / rel).read_text(encoding="utf-8")


def author_links(html: str, prefix: str) -> list[str]:
    """The author pages a paper page's byline links."""
    byline = re.search(r'<p class="paper-authors">.*?</p>', html).group(0)
    return re.findall(rf'<a href="{re.escape(prefix)}([^"/]+)\.html">', byline)


def test_author_pages_list_papers_by_year_with_coauthors_venues_and_topics(proj, cli):
    assert cli(*build_args(proj)).code == 0
    ada = read(proj, "authors/ada-lovelace.html")
    assert "<h1>Ada Lovelace</h1>" in ada and "2 papers" in ada
    assert ada.index('id="y2025"') < ada.index('id="y2024"')
    assert "../papers/paper-1.html" in ada and "../papers/paper-2.html" in ada and "paper-3" not in ada
    assert '<a href="charles-babbage.html">Charles Babbage</a> (1)' in ada
    assert '<a href="alan-turing.html">Alan Turing</a> (1)' in ada
    assert '<a href="../venues/neurips.html">NeurIPS</a> (2)' in ada
    assert "Reinforcement learning</a> (2)" in ada
    assert '<a href="ada-lovelace.bib" download>' in ada and "reading-list.js" not in ada
    assert (proj / "site" / "authors" / "ada-lovelace.bib").read_text().count("@") == 2
    # An author of one paper has that paper's Cite box as their BibTeX, no file of their own.
    assert '<a href="../papers/paper-1.html#cite">BibTeX</a>' in read(proj, "authors/charles-babbage.html")
    assert not (proj / "site" / "authors" / "charles-babbage.bib").exists()
    # Nor counts of one: its paper's line links its venue and topics.
    babbage = read(proj, "authors/charles-babbage.html")
    assert '<small><a href="../venues/neurips.html">NeurIPS</a> · <a href="../tags/reinforcement-learning.html">' in babbage
    assert "<h2>Venues</h2>" not in babbage and "<h2>Venues</h2>" in ada
    assert "application/ld+json" not in babbage
    assert '<h2>Co-authors</h2>\n<p class="tally"><a href="ada-lovelace.html">Ada Lovelace</a></p>' in babbage
    # What only scripts use is theirs to make (static/site.js), not every author page's to carry.
    assert '<input id="search-input" name="q" placeholder="Search" aria-label="Search papers">' in babbage
    assert not re.search(r'combobox|search-popup|theme-toggle|shortcuts-hint|reading\.css', babbage)
    # "Babbage, Charles" is shown given name first, and links from the paper page.
    assert author_links(read(proj, "papers/paper-1.html"), "../authors/") == ["ada-lovelace", "charles-babbage"]
    garcia = next(p for p in (proj / "site" / "authors").glob("jose-garcia-*.html"))
    assert "<h1>José García</h1>" in garcia.read_text(encoding="utf-8")
    assert check_site(proj / "site") == []


def test_at_anthology_size_an_authors_bibtex_is_made_in_the_browser(proj, cli, monkeypatch):
    """From urls.EXPORTS_SPLIT_FROM papers on the build writes no authors/<slug>.bib (79,398 files
    at 100,000 papers): the page's link, hidden until reading-list.js shows it, makes the file
    (tests/test_reading_browser.py)."""
    monkeypatch.setattr(urls, "EXPORTS_SPLIT_FROM", 1)
    assert cli(*build_args(proj)).code == 0
    ada = read(proj, "authors/ada-lovelace.html")
    assert '<span class="author-bibtex" hidden> · <a href="#" data-bibtex-file="ada-lovelace.bib">BibTeX</a></span>' in ada
    assert "assets/reading-list.js" in ada and not list((proj / "site" / "authors").glob("*.bib"))
    babbage = read(proj, "authors/charles-babbage.html")
    assert '<a href="../papers/paper-1.html#cite">BibTeX</a>' in babbage and "reading-list.js" not in babbage


def test_author_index_has_letter_pages_sorted_by_family_name(proj, cli):
    assert cli(*build_args(proj)).code == 0
    index = read(proj, "authors/index.html")
    assert 'href="letters/l.html"' in index and 'href="letters/t.html"' in index
    letter = read(proj, "authors/letters/l.html")
    assert '<a href="../ada-lovelace.html">Lovelace, Ada</a> <span class="count">2</span>' in letter
    b = read(proj, "authors/letters/b.html")
    assert "Babbage, Charles" in b


def test_each_page_of_a_letter_marks_its_letter(proj, cli, monkeypatch):
    monkeypatch.setattr(urls, "AUTHORS_PER_PAGE", 1)   # a letter of two authors: two pages
    assert cli(*build_args(proj)).code == 0
    current = r'<a href="([^"]+)" aria-current="(page|true)"'
    assert re.findall(current, read(proj, "authors/letters/l.html")) == [("l.html", "page")]
    second = urls.author_letter_path("l", 2)
    assert re.findall(current, read(proj, second)) == [("../l.html", "true")]
    # An alphabetical list's pages are neither newer nor older: the links say previous and next.
    assert '<a href="../l.html" rel="prev">← Previous page</a>' in read(proj, second)
    assert 'rel="next">Next page →</a>' in read(proj, "authors/letters/l.html")


def test_authors_yml_merges_variants_and_leaves_a_redirect(proj, cli):
    assert cli(*build_args(proj)).code == 0
    assert (proj / "site" / "authors" / "a-lovelace.html").is_file()
    (proj / "content" / "authors.yml").write_text(
        "authors:\n"
        "  - name: Ada Lovelace\n"
        "    variants: [A. Lovelace]\n"
        "    homepage: https://example.org/ada\n"
        "    orcid: 0000-0002-1825-0097\n"
        "    note: Analyst of the engine\n", encoding="utf-8")
    assert cli(*build_args(proj)).code == 0
    ada = read(proj, "authors/ada-lovelace.html")
    assert "3 papers" in ada and "../papers/paper-3.html" in ada
    assert "Analyst of the engine" in ada and 'href="https://orcid.org/0000-0002-1825-0097"' in ada
    person = json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', ada).group(1))
    assert person["sameAs"] == ["https://orcid.org/0000-0002-1825-0097", "https://example.org/ada"]
    moved = read(proj, "authors/a-lovelace.html")
    assert '<meta http-equiv="refresh" content="0; url=ada-lovelace.html">' in moved
    assert author_links(read(proj, "papers/paper-3.html"), "../authors/")[0] == "ada-lovelace"


def test_authors_yml_splits_two_people_who_share_a_name(proj, cli):
    (proj / "content" / "authors.yml").write_text(
        "authors:\n  - name: Alan Turing\n    papers: [p-0004]\n    slug: alan-turing-icml\n    note: The other one\n",
        encoding="utf-8")
    assert cli(*build_args(proj)).code == 0
    assert "paper-4" in read(proj, "authors/alan-turing-icml.html")
    turing = read(proj, "authors/alan-turing.html")
    assert "paper-2" in turing and "paper-4" not in turing


def test_slugs_stay_when_papers_are_added(proj, cli):
    assert cli(*build_args(proj)).code == 0
    before = sorted(p.name for p in (proj / "site" / "authors").glob("*.html"))
    # Another spelling that folds to the same slug, and a new paper by an existing author.
    (proj / "content" / "papers" / "5.md").write_text(paper(5, "[Jose Garcia, Ada Lovelace]"), encoding="utf-8")
    assert cli(*build_args(proj)).code == 0
    after = sorted(p.name for p in (proj / "site" / "authors").glob("*.html"))
    assert set(before) <= set(after) and "jose-garcia.html" in after
    assert "<h1>José García</h1>" in read(proj, f"authors/{next(n for n in before if n.startswith('jose-garcia-'))}")


def test_venue_and_year_pages_and_paper_breadcrumbs(proj, cli):
    assert cli(*build_args(proj)).code == 0
    venues = read(proj, "venues/index.html")
    assert 'href="icml.html">ICML</a>' in venues and 'href="neurips/2024.html">2024</a>' in venues
    icml = read(proj, "venues/icml.html")
    assert "<svg" in icml and 'href="icml/2019.html"' in icml and 'href="icml/2025.html"' in icml
    toc = read(proj, "venues/icml/2025.html")
    assert "paper-3.html" in toc and "paper-4.html" not in toc and "paper-2.html" not in toc
    page = read(proj, "papers/paper-3.html")
    crumbs = re.search(r'<nav class="breadcrumbs".*?</nav>', page, re.S).group(0)
    assert re.findall(r"<li>(.*?)</li>", crumbs) == [
        '<a href="../index.html">Home</a>', '<a href="../venues/icml.html">ICML</a>', '<a href="../venues/icml/2025.html">2025</a>']


def test_author_and_venue_pages_are_in_the_sitemap(proj, cli):
    assert cli(*build_args(proj, "--base-url", "https://example.org/p/")).code == 0
    sitemap = read(proj, "sitemap.xml")
    for rel in ("authors/index.html", "authors/ada-lovelace.html", "authors/letters/l.html", "venues/index.html",
                "venues/icml.html", "venues/icml/2025.html"):
        assert f"<loc>https://example.org/p/{rel}</loc>" in sitemap, rel
    # Neither link previews nor the feed link on author pages (there are more of them than papers).
    ada = read(proj, "authors/ada-lovelace.html")
    assert 'rel="canonical"' in ada and "og:" not in ada and "twitter:" not in ada and "atom+xml" not in ada
    assert 'property="og:url"' in read(proj, "papers/paper-1.html")
    assert "atom+xml" in read(proj, "papers/paper-1.html")
    jsonld = json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', read(proj, "papers/paper-1.html")).group(1))
    assert jsonld["author"][0] == {"@type": "Person", "name": "Ada Lovelace", "url": "https://example.org/p/authors/ada-lovelace.html"}


def test_author_names_are_escaped(tmp_path, cli):
    root = make_project(tmp_path / "proj", {"1.md": paper(1, "['<script>alert(1)</script> Evil', 'Ann &amp; Co']")})
    assert cli(*build_args(root)).code == 0
    for path in (root / "site" / "authors").glob("*.html"):
        assert "<script>alert" not in path.read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Evil" in read(root, "papers/paper-1.html")


def test_coauthor_names_with_json_syntax_are_shown_as_written(tmp_path, cli):
    # An author page's counts are kept as JSON text until the page is rendered (enrich/authors.py):
    # quotes, backslashes, brackets and accents in a name must come back as they were.
    names = ['Zoë "Q" O\'Brien', 'Bo\\b ]["x', "Ünïcødé Ñame"]
    authors = "[" + ", ".join(json.dumps(name) for name in names) + "]"
    root = make_project(tmp_path / "proj", {"1.md": paper(1, authors), "2.md": paper(2, authors, year=2024)})
    assert cli(*build_args(root)).code == 0
    slugs = author_links(read(root, "papers/paper-1.html"), "../authors/")
    pages = {slug: read(root, f"authors/{slug}.html") for slug in slugs}
    shown = {slug: html.unescape(re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)) for slug, page in pages.items()}
    assert sorted(shown.values()) == sorted(names)
    for slug, page in pages.items():
        tally = re.search(r'<h2>Co-authors.*?</h2>\n<p class="tally">(.*?)</p>', page, re.S).group(1)
        listed = [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in re.findall(r"<a .*?</a> \(\d+\)", tally)]
        assert sorted(listed) == sorted(f"{shown[other]} (2)" for other in slugs if other != slug)


def test_authors_read_in_a_worker_make_the_same_site(tmp_path, cli, monkeypatch):
    """From people.APART_FROM papers on, a build reading every author afresh does it in a worker
    while the abstracts are converted (stages.py)."""
    here = make_project(tmp_path / "here", PAPERS)
    assert cli(*build_args(here), "--jobs", "2").code == 0
    monkeypatch.setattr(people, "APART_FROM", 1)
    apart = make_project(tmp_path / "apart", PAPERS)
    assert cli(*build_args(apart), "--jobs", "2").code == 0
    assert snapshot(apart / "site") == snapshot(here / "site")


def test_a_build_with_the_last_builds_people_identifies_them_in_the_build_process(tmp_path, cli, monkeypatch):
    """Only a build reading every author afresh identifies them in a worker: after a paper is
    added, the last build's spellings are known and the work is a pass over the names, which
    costs less than sending 100,000 papers' people back from a worker (bench/README.md)."""
    monkeypatch.setattr(people, "APART_FROM", 1)
    apart = []
    background = workers.Background
    monkeypatch.setattr(workers, "Background", lambda func, jobs: apart.extend(
        [1] if getattr(func, "func", None) is people.identify_apart else []) or background(func, jobs))
    proj = make_project(tmp_path / "proj", PAPERS)
    assert cli(*build_args(proj), "--jobs", "2").code == 0
    assert apart == [1]
    (proj / "content" / "papers" / "new.md").write_text(
        paper_text(id="p-new", slug="a-new-paper", title="A new paper", authors="[Ada Lovelace, Grace Hopper]"), encoding="utf-8")
    assert cli(*build_args(proj), "--jobs", "2").code == 0
    assert apart == [1]
    fresh = make_project(tmp_path / "fresh", {**PAPERS, "new.md": (proj / "content" / "papers" / "new.md").read_text(encoding="utf-8")})
    assert cli(*build_args(fresh), "--jobs", "2").code == 0
    assert snapshot(proj / "site") == snapshot(fresh / "site")


def test_authors_read_in_a_worker_report_their_errors_with_the_pages(proj, cli, monkeypatch):
    """Every error at once: an authors.yml read in a worker, and a page read by the build."""
    monkeypatch.setattr(people, "APART_FROM", 1)
    (proj / "content" / "authors.yml").write_text("authors:\n  - name: Charles Babbage\n    slug: ada-lovelace\n", encoding="utf-8")
    (proj / "content" / "papers" / "5.md").write_text("---\nid: p-0005\nslug: paper-5\nvenue: V\nyear: 2025\n---\nText.\n",
                                                       encoding="utf-8")
    result = cli(*build_args(proj), "--jobs", "2")
    assert result.code == 1 and "Traceback" not in result.err
    assert "5.md:2: missing required field 'title'" in result.err
    assert ("authors.yml:3: the author page authors/ada-lovelace.html is already Ada Lovelace's: "
            "give Charles Babbage another 'slug'") in result.err
    # Without the page's error, the worker's own is reported after the abstracts are converted.
    (proj / "content" / "papers" / "5.md").unlink()
    result = cli(*build_args(proj), "--jobs", "2")
    assert result.code == 1 and "is already Ada Lovelace's" in result.err and "Traceback" not in result.err


def test_an_author_pages_version_follows_what_the_page_shows_and_an_edit_takes_its_authors_again_alone():
    """An author page's version changes with their papers' lines and their co-authors' names, and
    with nothing else; the versions an edit takes again (its paper's authors') are those a build
    taking every one gives."""
    bylines = (("ada", "bo"), ("bo",), ("cy",))

    def authorship(names):
        credits = tuple(tuple(Credit(names[slug], slug) for slug in byline) for byline in bylines)
        people = tuple(Person(slug, names[slug], None, tuple(i for i, byline in enumerate(bylines) if slug in byline))
                       for slug in sorted(names))
        return Authorship(credits, people, (), version=repr(sorted(names.items())).encode())

    def versions(authors):
        return {page.slug: page.version for page in authors.pages}

    names = {"ada": "Ada Byron", "bo": "Bo Chen", "cy": "Cy Young"}
    lines = [(f"p{i}", f"Paper {i}", "ICML", "icml", 2020, ("ml",)) for i in range(3)]
    first, state = author_pages(authorship(names), lines)
    # Bo's name as most of his papers now spell it: his page and his co-author Ada's.
    renamed, _ = author_pages(authorship({**names, "bo": "Bo B. Chen"}), lines)
    assert {slug for slug, version in versions(renamed).items() if version != versions(first)[slug]} == {"ada", "bo"}
    # Bo's own paper retitled, as an edit: his page alone, and the same versions as from nothing.
    lines[1] = ("p1", "Paper one, retitled", "ICML", "icml", 2020, ("ml",))
    edited, _ = author_pages(authorship(names), lines, state)
    assert versions(edited) == versions(author_pages(authorship(names), lines)[0])
    assert {slug for slug, version in versions(edited).items() if version != versions(first)[slug]} == {"bo"}


def test_papers_in_another_order_keep_their_people_renumbered():
    """A year changed moves a paper in site order: the last build's people, their papers renumbered
    (people.reidentified), are what identifying everyone afresh gives, and the author pages'
    versions taken again are those of the moved paper's authors alone."""
    bylines = [("Ada Lovelace", "Alan Turing"), ("Grace Hopper",), ("alan turing", "Grace Hopper"), ("Ada Lovelace",), ("Edsger Dijkstra",)]
    papers = [some_paper(n, names) for n, names in enumerate(bylines)]
    moved = [papers[3], *papers[:3], papers[4]]   # paper 3 moved first: papers 0-2 shift by one
    first, state = people.identify_authors(papers, (), Report())
    again, _ = people.identify_authors(moved, (), Report(), state)
    fresh, _ = people.identify_authors(moved, (), Report())
    assert again.people != first.people
    assert (again.credits, again.people, again.redirects, again.version) == (fresh.credits, fresh.people, fresh.redirects, fresh.version)
    assert again.bylines == fresh.bylines and again.paper_people == fresh.paper_people

    versioned = []
    page_version = authors_module.page_version
    _, pages_state = author_pages(first, author_lines(papers))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(authors_module, "page_version", lambda person, entries: versioned.append(person.slug) or page_version(person, entries))
        pages, _ = author_pages(again, author_lines(moved), pages_state)
    assert versioned == ["ada-lovelace"]
    assert [page.version for page in pages.pages] == [page.version for page in author_pages(fresh, author_lines(moved))[0].pages]


NAMES = ["Ada Lovelace", "ada lovelace", "A. Lovelace", "Alan Turing", "Grace Hopper", "GRACE HOPPER", "José García",
         "Jose Garcia", "Edsger Dijkstra", "Qiang Liu", "qiang liu", "Barbara Liskov", "—"]


def some_paper(n: int, authors: tuple[str, ...]) -> Paper:
    return Paper(id=f"p-{n}", slug=f"paper-{n}", title=f"Paper {n}", title_source="given", venue="ICML", year=2024, tags=(),
                 code=(), authors=authors, aliases=(), links=(), body="An abstract.", path=f"content/papers/{n}.md", body_line=12)


def author_lines(papers):
    """The papers as author pages list them (enrich/listings.py paper_line)."""
    return [(p.slug, p.title, "ICML", "icml", 2024, ()) for p in papers]


def some_entries():
    """authors.yml's kinds of person: variants merged under a name, and a name that means someone
    else on one paper."""
    from papersite.model import PersonEntry
    merged = PersonEntry("Grace Hopper", ("G. Hopper",), None, ("grace",), None, None, None, (),
                         (name_key("Grace Hopper"), name_key("G. Hopper")), "content/authors.yml", 2)
    claimed = PersonEntry("Qiang Liu", (), "qiang-liu-2", (), None, None, None, ("p-1", "p-4"), (name_key("Qiang Liu"),),
                          "content/authors.yml", 5)
    return (merged, claimed)


@settings(max_examples=80, deadline=None)
@given(bylines=st.lists(st.lists(st.sampled_from(NAMES + ["G. Hopper"]), max_size=4).map(tuple), min_size=1, max_size=12),
       edits=st.lists(st.tuples(st.integers(0, 11), st.lists(st.sampled_from(NAMES + ["G. Hopper", "Brand New"]), max_size=4)
                               .map(tuple)), min_size=1, max_size=3),
       removed=st.sets(st.integers(0, 11), max_size=2), added=st.lists(st.lists(st.sampled_from(NAMES), max_size=3).map(tuple), max_size=2),
       moves=st.lists(st.tuples(st.integers(0, 15), st.integers(0, 15)), max_size=2), with_entries=st.booleans())
def test_papers_added_removed_moved_or_edited_identify_their_people_again_as_afresh(bylines, edits, removed, added, moves,
                                                                                   with_entries):
    """people.reidentified: after some papers' author lists changed, papers were added or removed
    and others moved, the people, their pages' versions and the author index are those
    identifying everyone afresh gives."""
    entries = some_entries() if with_entries else ()
    papers = [some_paper(n, names) for n, names in enumerate(bylines)]
    after = list(papers)
    for n, names in edits:
        after[n % len(papers)] = some_paper(n % len(papers), names)
    after = [paper for n, paper in enumerate(after) if n not in removed] + [some_paper(100 + n, names) for n, names in enumerate(added)]
    for source, target in moves:
        if after:
            after.insert(target % len(after), after.pop(source % len(after)))

    first, state = people.identify_authors(papers, entries, Report())
    _, pages_state = author_pages(first, author_lines(papers))
    fresh_report, again_report = Report(), Report()
    fresh, _ = people.identify_authors(after, entries, fresh_report)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(people, "identify", lambda *args: pytest.fail("everyone identified again"))
        try:
            again, _ = people.identify_authors(after, entries, again_report, state)
        except pytest.fail.Exception:
            assert fresh_report.errors   # only a build whose people would share a page identifies everyone
            return
    assert (again.credits, again.people, again.redirects, again.version) == (fresh.credits, fresh.people, fresh.redirects, fresh.version)
    assert again.bylines == fresh.bylines and again.paper_people == fresh.paper_people
    assert again_report.errors == fresh_report.errors
    pages, _ = author_pages(again, author_lines(after), pages_state)
    made, _ = author_pages(fresh, author_lines(after))
    assert [(page.slug, page.version) for page in pages.pages] == [(page.slug, page.version) for page in made.pages]
    assert pages.index == made.index
