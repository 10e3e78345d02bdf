"""The renderer's shortcuts: a frame rendered once per directory and kind, plain functions called directly,
the lists of links made in Python (render/fragments.py)."""

from __future__ import annotations

import posixpath
import re
import shutil

import jinja2
import markupsafe
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from conftest import REPO, make_project, paper_text
from papersite import urls
from papersite.enrich.authors import AuthorPaper, IndexLetter
from papersite.enrich.people import Credit
from papersite.errors import SiteError
from papersite.model import SiteConfig, Tag
from papersite.options import BuildOptions
from papersite.pipeline import build
from papersite.render import fragments
from papersite.render.escaping import escape_output
from papersite.render.jinja import FragmentCache, Renderer, make_environment
from papersite.render.pagination import Pagination
from papersite.render.plan import Chrome
from papersite.render.specs import PageSpec
from papersite.stages import Built

CHROME = Chrome(SiteConfig("A site", "About it."), (), True)


def spec(path: str, kind: str = "author", title: str = "A page") -> PageSpec:
    return PageSpec(path, kind, "author_letter.html", title, "About it.", context={
        "letter": "A", "letters": (), "count": 0, "letter_page": IndexLetter("a", ()), "pagination": None})


def test_a_frame_is_rendered_once_for_each_directory_and_kind():
    renderer = Renderer(make_environment(REPO / "templates"), CHROME)
    first = renderer.frame(spec("authors/a.html"))
    assert renderer.frame(spec("authors/b.html", title="Another page")) is first
    assert renderer.frame(spec("authors/letters/a.html")) is not first
    assert renderer.frame(spec("authors/index.html", kind="authors")) is not first
    assert 'href="../index.html"' in first.header and 'href="../tags/index.html"' in first.footer


def test_a_frame_partial_cannot_read_the_page(tmp_path):
    """A frame is shared by the pages of its group: a partial that read the page's title would put the
    first page's title on all of them, so reading it is an error, never a wrong page."""
    templates = tmp_path / "templates"
    shutil.copytree(REPO / "templates", templates)
    footer = templates / "partials" / "footer.html"
    footer.write_text(footer.read_text(encoding="utf-8").replace("</footer>", "{{ page.title }}</footer>"), encoding="utf-8")
    with pytest.raises(SiteError, match="'page' is undefined"):
        Renderer(make_environment(templates), CHROME).render(spec("authors/a.html"))


def test_links_from_a_directory_are_those_of_its_pages_and_point_to_no_page_in_particular():
    from_page, from_directory = urls.Links().from_page("tags/x.html"), urls.Links().from_directory("tags")
    for target in (urls.HOME, urls.TAG_INDEX, urls.tag_path("y"), urls.paper_path("p") + "#cite"):
        assert from_directory(target) == from_page(target)
    assert (from_directory(""), from_directory("#main")) == ("", "#main")
    assert urls.Links().from_directory("")(urls.SEARCH) == "search.html"


def link_by_relpath(from_path: str, to_path: str) -> str:
    """A link as posixpath.relpath makes it, the definition urls.relative_url follows."""
    target, _, anchor = to_path.partition("#")
    rel = posixpath.relpath(target, posixpath.dirname(from_path) or ".") if target else posixpath.basename(from_path)
    return f"{rel}#{anchor}" if anchor else rel


SITE_PATH = st.lists(st.sampled_from(["papers", "authors", "x.html", "index.html", "a", "b.html", ".", "..", ""]),
                     min_size=1, max_size=4).map("/".join)


@settings(max_examples=500, deadline=None)
@given(SITE_PATH, SITE_PATH, st.sampled_from(["", "#cite"]))
def test_a_link_between_two_pages_is_the_relative_path_between_them(from_path, to_path, anchor):
    assume(not from_path.startswith("/") and not to_path.startswith("/"))
    assert urls.relative_url(from_path, to_path + anchor) == link_by_relpath(from_path, to_path + anchor)
    assert urls.Links().from_page(from_path)(to_path + anchor) == link_by_relpath(from_path, to_path + anchor)


def test_links_between_the_sites_directories():
    assert [urls.relative_url(page, target) for page, target in [
        ("index.html", "papers/x.html"), ("papers/a.html", "papers/b.html#cite"), ("venues/neurips/2016.html", "papers/x.html"),
        ("papers/a.html", "index.html"), ("papers/x.html", "papers"), ("tags/x.html", "#main")]] == [
        "papers/x.html", "b.html#cite", "../../papers/x.html", "../index.html", ".", "x.html#main"]


def test_functions_asking_for_the_context_still_get_it():
    env = make_environment(REPO / "templates")
    env.globals["title_of"] = jinja2.pass_context(lambda context, suffix: context["title"] + suffix)
    env.globals["shout"] = str.upper
    assert env.from_string("{{ title_of('!') }} {{ shout(title) }} {{ urls.paper_path(title) }}").render(title="x") == \
        "x! X papers/x.html"


ESCAPED_VALUES = ["", "plain", '<script>alert("x")</script>', "O'Brien & <b>", "é ∑ 😀 <", 42, 1.5, None, ("a", "<b>"),
                  Markup("<em>safe</em>"), Markup("&amp;")]


class HTMLish:
    def __html__(self) -> str:
        return "<i>its own</i>"


@pytest.mark.parametrize("value", ESCAPED_VALUES + [HTMLish(), type("Text", (str,), {})("<sub>")])
def test_a_value_written_out_is_escaped_as_markupsafe_escapes_it(value):
    assert escape_output(value) == str(markupsafe.escape(value))
    assert type(escape_output(value)) in (str, Markup)


def test_templates_write_values_out_escaped_once_whatever_holds_them():
    """Every template the environment makes writes its values with escape_output, and Jinja calls
    it only where a value is written out: in the page, in a block set aside, in a macro and in a
    call block, each value is escaped once and safe text not at all."""
    env = make_environment(REPO / "templates")
    env.globals["cached"] = FragmentCache()
    template = env.from_string(
        "{{ v }}|{{ s }}|{% set kept %}{{ v }}{% endset %}{{ kept }}|{% macro m(x) %}[{{ x }}]{% endmacro %}{{ m(v) }}"
        "|{% call cached('k') %}{{ v }}{% endcall %}|{{ v ~ s }}|{{ [v]|join(',') }}|{{ v|upper }}|{{ s|safe }}")
    assert template.root_render_func.__globals__["escape"] is escape_output
    assert env.get_template("paper.html").root_render_func.__globals__["escape"] is escape_output
    hostile, safe = '<b>"&\'', Markup("<em>ok</em>")
    e = "&lt;b&gt;&#34;&amp;&#39;"
    assert template.render(v=hostile, s=safe) == \
        f"{e}|<em>ok</em>|{e}|[{e}]|{e}|{e}<em>ok</em>|{e}|&lt;B&gt;&#34;&amp;&#39;|<em>ok</em>"


def shown_numbers(number: int, count: int) -> list[int | None]:
    paths = tuple(urls.home_path(n) for n in range(1, count + 1))
    return [entry and entry[0] for entry in Pagination(number, count, paths).shown]


def test_pagination_links_the_ends_and_the_pages_near_this_one():
    """Every page number on every page was 106 KB on each of the 2,000 pages of a 100,000-paper listing."""
    assert shown_numbers(1, 1) == [1]
    assert shown_numbers(2, 7) == [1, 2, 3, 4, None, 7]
    assert shown_numbers(5, 9) == [1, 2, 3, 4, 5, 6, 7, 8, 9]       # a skip of one page shows the page
    assert shown_numbers(1000, 2000) == [1, None, 998, 999, 1000, 1001, 1002, None, 2000]
    assert shown_numbers(2000, 2000) == [1, None, 1998, 1999, 2000]


def test_a_listing_page_of_many_links_a_handful_of_pages():
    paths = tuple(urls.home_path(n) for n in range(1, 2001))
    page = PageSpec(paths[999], "home", "author_letter.html", "Page 1000", "About it.", context={
        "letter": "A", "letters": (), "count": 0, "letter_page": IndexLetter("a", ()),
        "pagination": Pagination(1000, 2000, paths)})
    html = Renderer(make_environment(REPO / "templates"), CHROME).render(page)
    nav = html[html.index('<nav class="pagination"'):]
    nav = nav[:nav.index("</nav>")]
    assert re.findall(r'<a href="([^"]+)">(\d+)</a>', nav) == [
        ("../index.html", "1"), ("page-998.html", "998"), ("page-999.html", "999"), ("page-1001.html", "1001"),
        ("page-1002.html", "1002"), ("page-2000.html", "2000")]
    assert '<span aria-current="page">1000</span>' in nav and nav.count("…") == 2
    assert 'href="page-999.html" rel="prev"' in nav and 'href="page-1001.html" rel="next"' in nav


def test_a_clean_build_compiles_its_templates_anew_and_keeps_them_for_the_next(tmp_path, monkeypatch):
    """--clean reads no compiled template from the cache, but writes them: the edit after a clean
    build does not compile them again."""
    compiled = []
    real = jinja2.Environment.compile

    def counted(self, *args, **kwargs):
        compiled.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    bytecode = tmp_path / "templates-cache"
    make_environment(REPO / "templates", bytecode, read_bytecode=False)
    every = len(compiled)
    assert every > 10
    make_environment(REPO / "templates", bytecode, read_bytecode=False)
    assert len(compiled) == 2 * every   # nothing read
    make_environment(REPO / "templates", bytecode)
    assert len(compiled) == 2 * every   # what the clean builds wrote


HOSTILE_NAME = '<b>Bold</b> "Q" & O\'Brien'


def test_a_byline_links_each_named_author_escapes_every_name_and_cuts_at_the_limit():
    credits = (Credit(HOSTILE_NAME, "bold-q-obrien"), Credit("Ada Lovelace", "ada-lovelace"), Credit("--", None),
               Credit("Carol Ng", "carol-ng"))
    url = urls.Links().from_page("papers/x.html")
    assert fragments.credit_links(credits, url) == (
        '<a href="../authors/bold-q-obrien.html">&lt;b&gt;Bold&lt;/b&gt; &#34;Q&#34; &amp; O&#39;Brien</a>, '
        '<a href="../authors/ada-lovelace.html">Ada Lovelace</a>, --, <a href="../authors/carol-ng.html">Carol Ng</a>')
    assert fragments.credit_links(credits, url, limit=2) == (
        '<a href="../authors/bold-q-obrien.html">&lt;b&gt;Bold&lt;/b&gt; &#34;Q&#34; &amp; O&#39;Brien</a>, '
        '<a href="../authors/ada-lovelace.html">Ada Lovelace</a> et al.')
    assert fragments.credit_links(credits[:2], url, limit=2).endswith("Ada Lovelace</a>")


def test_a_long_byline_shows_its_first_names_and_the_rest_behind_a_disclosure():
    url = urls.Links().from_page("papers/x.html")
    credits = tuple(Credit(f"Author {n}", f"author-{n}") for n in range(71))
    html = str(fragments.paper_byline(credits, url))
    shown, hidden = html.split("<details", 1)
    assert re.findall(r'authors/(author-\d+)\.html', shown) == [f"author-{n}" for n in range(fragments.BYLINE_SHOWN)]
    assert "<summary>61 more authors</summary>" in hidden
    assert re.findall(r'authors/(author-\d+)\.html', hidden) == [f"author-{n}" for n in range(fragments.BYLINE_SHOWN, 71)]
    # A byline of up to BYLINE_LONG names is shown whole.
    whole = str(fragments.paper_byline(credits[:fragments.BYLINE_LONG], url))
    assert "<details" not in whole and whole.count("<a ") == fragments.BYLINE_LONG


def test_an_authors_counts_are_links_with_their_numbers_and_names_escaped():
    url = urls.Links().from_page("authors/me.html")
    coauthors = (("bold-q-obrien", HOSTILE_NAME, 3), ("ada-lovelace", "Ada Lovelace", 1))
    assert fragments.tally_links(coauthors, urls.author_path, url) == (
        '<a href="bold-q-obrien.html">&lt;b&gt;Bold&lt;/b&gt; &#34;Q&#34; &amp; O&#39;Brien</a> (3), '
        '<a href="ada-lovelace.html">Ada Lovelace</a> (1)')
    assert fragments.tally_links(coauthors, urls.author_path, url, counted=False) == (
        '<a href="bold-q-obrien.html">&lt;b&gt;Bold&lt;/b&gt; &#34;Q&#34; &amp; O&#39;Brien</a>, '
        '<a href="ada-lovelace.html">Ada Lovelace</a>')
    topics = (("rl", "", 2),)
    assert fragments.tally_links(topics, urls.tag_path, url, tags={"rl": Tag("rl", "<RL> & co", "")}) == (
        '<a href="../tags/rl.html">&lt;RL&gt; &amp; co</a> (2)')


def test_a_papers_topics_are_chips_linking_their_pages_with_names_escaped():
    tags = {"rl": Tag("rl", "<RL> & co", ""), "nlp": Tag("nlp", "Language", "")}
    assert fragments.tag_chips(("rl", "nlp"), urls.Links().from_page("papers/x.html"), tags) == (
        '<ul class="tag-chips" aria-label="Tags">\n<li><a class="chip" href="../tags/rl.html">&lt;RL&gt; &amp; co</a></li>'
        '<li><a class="chip" href="../tags/nlp.html">Language</a></li></ul>\n')
    assert 'href="tags/nlp.html"' in fragments.tag_chips(("nlp",), urls.Links().from_page("index.html"), tags)
    assert fragments.tag_chips((), urls.Links().from_page("index.html"), tags) == ""


def test_an_authors_paper_lines_link_the_title_and_on_a_one_paper_page_its_venue_and_topics():
    url = urls.Links().from_page("authors/me.html")
    tags = {"rl": Tag("rl", "<RL> & co", ""), "ot": Tag("ot", "Transport", "")}
    papers = (AuthorPaper("p-1", "A <em>title</em>", "<V>", "v", 2024, ("rl", "ot")), AuthorPaper("p-2", "B", "V2", "v2", 2024, ()))
    assert fragments.author_paper_items(papers, url, tags, linked=False) == (
        '<li><a href="../papers/p-1.html">A <em>title</em></a><small>&lt;V&gt; · &lt;RL&gt; &amp; co · Transport</small></li>\n'
        '<li><a href="../papers/p-2.html">B</a><small>V2</small></li>\n')
    assert fragments.author_paper_items(papers[:1], url, tags, linked=True) == (
        '<li><a href="../papers/p-1.html">A <em>title</em></a><small><a href="../venues/v.html">&lt;V&gt;</a>'
        ' · <a href="../tags/rl.html">&lt;RL&gt; &amp; co</a> · <a href="../tags/ot.html">Transport</a></small></li>\n')


def test_pages_share_the_crumbs_they_begin_with(tmp_path):
    """An anthology's page plan holds 270,000 specs: the papers of one proceedings share their
    Home › venue › year crumbs, and the author pages their Home › Authors, as one tuple each."""
    root = make_project(tmp_path / "proj", {
        "a.md": paper_text(authors="[Ada Lovelace]"),
        "b.md": paper_text(id="test-0002", slug="b-paper", title="A second paper", authors="[Alan Turing]"),
    })
    kept: list = []
    build(BuildOptions(content=root / "content", config=root / "site.yml", out=root / "site"), keep=kept)
    plan = next(item.plan for item in kept if isinstance(item, Built))
    papers = [spec for spec in plan if spec.kind == "paper"]
    authors = [spec for spec in plan if spec.kind == "author"]
    assert len(papers) == 2 and len(authors) == 2
    assert [crumb[0] for crumb in papers[0].breadcrumbs] == ["Home", "NeurIPS", "2025", "A paper about reinforcement learning"]
    assert all(a is b for a, b in zip(papers[0].breadcrumbs[:3], papers[1].breadcrumbs[:3]))
    assert sorted(tuple(crumb[0] for crumb in spec.breadcrumbs) for spec in authors) == [
        ("Home", "Authors", "Ada Lovelace"), ("Home", "Authors", "Alan Turing")]
    assert all(a is b for a, b in zip(authors[0].breadcrumbs[:2], authors[1].breadcrumbs[:2]))


def test_the_home_page_shows_the_papers_added_on_the_latest_day_once_there_is_news(tmp_path, cli):
    def page(n: int, added: str | None) -> str:
        return paper_text(id=f"n-{n}", slug=f"paper-{n}", title=f"'Paper number {n}'", added=added)

    # A reading group's site: last week's papers, this week's two, and one page written by hand.
    root = make_project(tmp_path / "news", {"1.md": page(1, "2026-11-27"), "2.md": page(2, "2026-12-04"),
                                            "3.md": page(3, None), "4.md": page(4, "2026-12-04")})
    assert cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", root / "site").code == 0
    home = (root / "site" / "index.html").read_text(encoding="utf-8")
    news = re.search(r'<section class="recent".*?</section>', home, re.S)
    assert news and '<h2 id="recent-heading">Added <time datetime="2026-12-04">4 December 2026</time></h2>' in news[0]
    assert re.findall(r'href="papers/(paper-\d)\.html"', news[0]) == ["paper-2", "paper-4"]
    assert "more papers added that day" not in news[0]
    assert re.search(r'<p class="recent-more"><a href="added.html">Recently added papers, by day →</a></p>', news[0])
    # A site whose papers all came on one day (a conference imported at once) has no news to show.
    same = make_project(tmp_path / "same", {"1.md": page(1, "2026-12-04"), "2.md": page(2, "2026-12-04")})
    assert cli("build", "--content", same / "content", "--config", same / "site.yml", "--out", same / "site").code == 0
    assert 'class="recent"' not in (same / "site" / "index.html").read_text(encoding="utf-8")
    assert not (same / "site" / urls.ADDED).exists()


def test_the_home_page_names_how_many_more_were_added_than_it_shows(tmp_path, cli):
    from papersite.render.plan import RECENT_SHOWN

    pages = {f"{n}.md": paper_text(id=f"m-{n:02d}", slug=f"paper-{n:02d}", title=f"'Paper number {n}'", added="2026-12-04")
             for n in range(RECENT_SHOWN + 3)}
    pages["old.md"] = paper_text(id="m-old", slug="older", title="'An older paper'", added="2026-01-05")
    root = make_project(tmp_path / "many", pages)
    (root / "site.yml").write_text("title: T\ndescription: D\nper_page: 5\n", encoding="utf-8")
    assert cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", root / "site").code == 0
    home = (root / "site" / "index.html").read_text(encoding="utf-8")
    news = re.search(r'<section class="recent".*?</section>', home, re.S)[0]
    assert len(re.findall(r'class="paper-card"', news)) == RECENT_SHOWN
    assert '<a href="added.html">And 3 more papers added that day →</a>' in news
    # The news is the first page's only: the listing's next pages are the same without it.
    assert 'class="recent"' not in (root / "site" / urls.home_path(2)).read_text(encoding="utf-8")


def test_a_list_of_several_pages_has_a_search_of_its_own(tmp_path, cli):
    """A topic's or a proceedings' list over several pages has no find-in-page across them: its
    pages carry a search of that list alone (the search page's filters, hidden in the form)."""
    pages = {f"{n}.md": paper_text(id=f"s-{n}", slug=f"paper-{n}", title=f"'Paper number {n}'", venue="ICML", year="2019",
                                   tags="[reinforcement-learning]" if n < 6 else "[optimization]") for n in range(8)}
    root = make_project(tmp_path / "scoped", pages)
    (root / "site.yml").write_text("title: T\ndescription: D\nper_page: 5\n", encoding="utf-8")
    assert cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", root / "site").code == 0
    site = root / "site"

    def scoped(path: str) -> tuple[str, str, list[tuple[str, str]]] | None:
        form = re.search(r'<form class="search-page-form scoped-search" action="([^"]+)"[^>]*aria-label="([^"]+)">(.*?)</form>',
                         (site / path).read_text(encoding="utf-8"), re.S)
        return form and (form[1], form[2], re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form[3]))

    for path in (urls.tag_path("reinforcement-learning"), urls.tag_path("reinforcement-learning", 2)):
        assert scoped(path)[1:] == ("Search Reinforcement learning", [("tag", "reinforcement-learning")])
    assert scoped(urls.tag_path("reinforcement-learning"))[0] == "../search.html"
    assert scoped(urls.proceedings_path("icml", 2019, 2)) == ("../../../search.html", "Search ICML 2019", [("venue", "ICML"), ("year", "2019")])
    assert scoped(urls.tag_path("optimization")) is None   # one page: the browser's find is enough


def test_the_added_page_lists_the_papers_added_last_and_says_how_many_came_before(tmp_path, cli, monkeypatch):
    """An anthology's every dated paper by day was 2,000 pages (61 MB) nobody reads back: the listing stops
    at ADDED_LISTED papers, mid-day if need be, and its last page points to the listing by year."""
    from papersite.render import plan

    monkeypatch.setattr(plan, "ADDED_LISTED", 6)
    days = {1: "2026-11-27", 2: "2026-12-04", 3: "2026-11-27", 4: "2026-12-04", 5: "2026-10-01", 6: "2026-11-27",
            7: "2026-11-27", 8: "2026-12-04", 9: "2026-10-01"}
    pages = {f"{n}.md": paper_text(id=f"a-{n}", slug=f"paper-{n}", title=f"'Paper number {n}'", added=day)
             for n, day in days.items()}
    root = make_project(tmp_path / "capped", pages)
    (root / "site.yml").write_text("title: T\ndescription: D\nper_page: 5\n", encoding="utf-8")
    assert cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", root / "site").code == 0
    site = root / "site"
    first, second = ((site / path).read_text(encoding="utf-8") for path in (urls.ADDED, urls.added_path(2)))
    assert not (site / urls.added_path(3)).exists()
    listed = re.findall(r'href="(?:\.\./)?papers/(paper-\d)\.html"', first + second.split('<nav class="pagination"')[0])
    assert listed == ["paper-2", "paper-4", "paper-8", "paper-1", "paper-3", "paper-6"]
    assert "The 6 papers added last to T, by the day they were added, newest first." in first
    assert "6 papers · page 1 of 2" in first and "added before these" not in first
    assert '<p class="muted">3 papers were added before these: every paper is in the <a href="../index.html">listing by year</a>.</p>' in second


def test_the_added_page_lists_every_dated_paper_by_day_newest_first(tmp_path, cli):
    days = {1: "2026-11-27", 2: "2026-12-04", 3: None, 4: "2026-12-04", 5: "2026-11-27", 6: "2026-10-01", 7: "2026-11-27",
            8: "2026-11-27", 9: "2026-12-04"}
    pages = {f"{n}.md": paper_text(id=f"a-{n}", slug=f"paper-{n}", title=f"'Paper number {n}'", added=day)
             for n, day in days.items()}
    root = make_project(tmp_path / "added", pages)
    (root / "site.yml").write_text("title: T\ndescription: D\nper_page: 5\nbase_url: https://example.org/r/\n",
                                   encoding="utf-8")
    assert cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", root / "site").code == 0
    site = root / "site"

    def shown(path: str) -> list[tuple[str, list[str]]]:
        """Each day heading of the page, with the papers listed under it."""
        html = (site / path).read_text(encoding="utf-8")
        parts = re.split(r"<h2><time datetime=\"([\d-]+)\">[^<]+</time>", html.split('<nav class="pagination"')[0])[1:]
        return [(day, re.findall(r'href="(?:\.\./)?papers/(paper-\d)\.html"', rest)) for day, rest in zip(parts[::2], parts[1::2])]

    # Newest day first, a day's papers in the site's order; the undated paper is left to the listing by year.
    assert shown(urls.ADDED) == [("2026-12-04", ["paper-2", "paper-4", "paper-9"]), ("2026-11-27", ["paper-1", "paper-5"])]
    assert shown(urls.added_path(2)) == [("2026-11-27", ["paper-7", "paper-8"]), ("2026-10-01", ["paper-6"])]
    first, second = ((site / path).read_text(encoding="utf-8") for path in (urls.ADDED, urls.added_path(2)))
    assert '<h2><time datetime="2026-12-04">4 December 2026</time></h2>' in first
    assert "8 papers · page 1 of 2" in first and "1 more give no day" in first
    # A day that goes on from the page before says so.
    assert '<time datetime="2026-11-27">27 November 2026</time> <span class="muted">(continued)</span>' in second
    assert '<a href="../added.html">Recently added</a></li><li aria-current="page">Page 2</li>' in second
    assert "https://example.org/r/added.html" in (site / "sitemap.xml").read_text(encoding="utf-8")
