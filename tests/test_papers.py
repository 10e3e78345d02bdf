"""Content loading: valid pages become Papers; each broken fixture gives its path:line message;
headings inside an abstract get ids and anchor links (markup.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import REPO, build_args, make_project, paper_text, snapshot
from papersite.digests import text_digest
from papersite.inputs.papers import count_paper_files, load_content, split_front_matter
from papersite.errors import Report, SiteError
from support.linkcheck import check_site
from papersite.text.markdown import MarkdownRenderer

INVALID = Path(__file__).parent / "fixtures" / "invalid"
CASES = sorted(p.name for p in INVALID.iterdir() if (p / "expected.txt").is_file())


@pytest.mark.parametrize("case", CASES)
def test_invalid_fixture_reports_file_and_line_and_keeps_previous_site(case, tmp_path, cli):
    root = make_project(tmp_path, {"good.md": paper_text(id="good-0001", slug="good")})
    assert cli(*build_args(root)).code == 0
    before = snapshot(root / "site")
    fixture = INVALID / case
    for page in (fixture / "papers").glob("*.md"):
        shutil.copyfile(page, root / "content" / "papers" / page.name)
    # Optional: a tags.yml or site.yml replacing the project's, an authors.yml, and extra arguments (args.txt).
    for name, target in (("tags.yml", root / "content" / "tags.yml"), ("site.yml", root / "site.yml"),
                         ("authors.yml", root / "content" / "authors.yml")):
        if (fixture / name).is_file():
            shutil.copyfile(fixture / name, target)
    extra = (fixture / "args.txt").read_text().split() if (fixture / "args.txt").is_file() else []
    result = cli(*build_args(root), *extra)
    assert result.code == 1
    for expected in (fixture / "expected.txt").read_text().splitlines():
        assert expected in result.err, f"{case}: expected {expected!r} in:\n{result.err}"
    assert "Traceback" not in result.err
    assert "nothing was written" in result.err
    assert snapshot(root / "site") == before


def test_every_problem_is_reported_once_per_line(tmp_path, cli):
    root = make_project(tmp_path)
    shutil.copytree(INVALID / "several-problems" / "papers", root / "content" / "papers", dirs_exist_ok=True)
    result = cli(*build_args(root))
    problems = [line for line in result.err.splitlines() if ".md:" in line]
    assert len(problems) == 2
    assert "failed with 2 errors" in result.err


def test_valid_page_loads_into_a_paper(project):
    (project / "content" / "papers" / "a.md").write_text(paper_text(authors="[Ada Lovelace, Alan Turing]"))
    report = Report()
    papers, taxonomy, _ = load_content(project / "content", report)
    assert not report.errors
    [paper] = papers
    assert paper.slug == "a-paper" and paper.year == 2025
    assert paper.authors == ("Ada Lovelace", "Alan Turing")
    assert paper.tags == ("reinforcement-learning",)
    assert paper.body.startswith("We study reinforcement learning")
    assert paper.body_line == 13
    assert taxonomy.fallback in taxonomy.by_slug()
    assert paper.text_version == text_digest(paper.title, paper.body)


def test_texts_are_keyed_by_the_digest_the_parsers_took(project, monkeypatch):
    """An edit does not digest every paper's title and abstract again to find their texts."""
    from papersite.enrich import texts

    (project / "content" / "papers" / "a.md").write_text(paper_text(authors="[Ada Lovelace]"))
    report = Report()
    papers = load_content(project / "content", report)[0]
    made, memo = texts.render_texts(papers, report)
    digested = []
    monkeypatch.setattr(texts, "text_digest", lambda *parts: digested.append(parts) or text_digest(*parts))
    again, _ = texts.render_texts(papers, report, previous=memo)
    assert again == made and all(a is b for a, b in zip(again, made)) and digested == []


def test_an_abstract_without_markup_is_kept_once(project):
    """A build keeps each abstract's Markdown, HTML and plain words; where the HTML is the Markdown's
    text as one paragraph and the plain words are the Markdown itself (most abstracts), the texts
    hold neither, and the page gives them from the paper's body."""
    from papersite.enrich.listings import paper_pages
    from papersite.enrich.texts import render_texts

    pages_dir = project / "content" / "papers"
    (pages_dir / "a.md").write_text(paper_text(body="We study bandits & arms when k < n."))
    (pages_dir / "b.md").write_text(paper_text(id="test-0002", slug="b-paper", body="See the [website](https://example.org) for *details*."))
    report = Report()
    papers = load_content(project / "content", report)[0]
    texts, _ = render_texts(papers, report)
    stored = {paper.slug: (text.abstract_html, text.text) for paper, text in zip(papers, texts)}
    assert stored["a-paper"] == (None, None)
    assert [text.abstract(paper.body) for paper, text in zip(papers, texts)] == [page.abstract for page in paper_pages(papers, texts)]
    assert stored["b-paper"][1] == "See the website for details." and 'href="https://example.org"' in stored["b-paper"][0]
    plain, marked = sorted(paper_pages(papers, texts), key=lambda page: page.paper.slug)
    assert plain.abstract == "<p>We study bandits &amp; arms when k &lt; n.</p>"
    assert plain.text == "We study bandits & arms when k < n." and plain.text is plain.paper.body
    assert marked.abstract == stored["b-paper"][0] and "<em>details</em>" in marked.abstract
    assert marked.text == "See the website for details." and marked.summary == marked.text


@pytest.mark.parametrize("encode", [
    pytest.param(lambda text: b"\xef\xbb\xbf" + text.encode(), id="bom"),
    pytest.param(lambda text: text.replace("\n", "\r\n").encode(), id="crlf"),
])
def test_bom_and_crlf_pages_build(encode, tmp_path, cli):
    root = make_project(tmp_path)
    (root / "content" / "papers" / "a.md").write_bytes(encode(paper_text()))
    assert cli(*build_args(root)).code == 0
    html = (root / "site" / "papers" / "a-paper.html").read_text()
    assert "A paper about reinforcement learning" in html


def test_front_matter_split_reports_body_line():
    _, body, line = split_front_matter("---\na: 1\n---\nbody\n", "x.md")
    assert body == "body\n" and line == 4


def test_missing_front_matter_is_an_error():
    with pytest.raises(SiteError, match="x.md:1: missing front matter"):
        split_front_matter("just text\n", "x.md")


def test_duplicate_yaml_key_is_an_error_not_silently_dropped(project, cli):
    (project / "content" / "papers" / "a.md").write_text(paper_text().replace("venue: NeurIPS\n", "venue: NeurIPS\ntitle: Again\n"))
    result = cli(*build_args(project))
    assert result.code == 1
    assert "papers/a.md:7: duplicate key 'title'" in result.err


def test_missing_content_directory(tmp_path, cli):
    shutil.copyfile(REPO / "site.yml", tmp_path / "site.yml")
    result = cli("build", "--content", tmp_path / "nope", "--config", tmp_path / "site.yml", "--out", tmp_path / "site")
    assert result.code == 1
    assert f"{tmp_path / 'nope'}: content directory not found" in result.err
    assert not (tmp_path / "site").exists()


def test_missing_site_config(project, cli):
    (project / "site.yml").unlink()
    (project / "content" / "papers" / "a.md").write_text(paper_text())
    result = cli(*build_args(project))
    assert result.code == 1
    assert "site.yml: site config not found" in result.err


def test_template_syntax_error_names_template_and_line(project, tmp_path, cli):
    (project / "content" / "papers" / "a.md").write_text(paper_text())
    templates = tmp_path / "templates"
    shutil.copytree(REPO / "templates", templates)
    (templates / "tag.html").write_text('{% extends "base.html" %}\n{% block content %}\n{% if %}\n{% endblock %}\n')
    result = cli(*build_args(project), "--templates", templates)
    assert result.code == 1
    assert f"{templates / 'tag.html'}:3: template syntax error" in result.err


def test_unconvertible_math_warns_then_fails_under_strict(project, cli):
    (project / "content" / "papers" / "a.md").write_text(paper_text(body="Intro line.\n\nWe bound $\\notacommand{x}$ tightly."))
    result = cli(*build_args(project))
    assert result.code == 0
    assert "papers/a.md:15: warning: unknown LaTeX command \\notacommand" in result.err
    html = (project / "site" / "papers" / "a-paper.html").read_text()
    assert '<code class="math-error">$\\notacommand{x}$</code>' in html
    strict = cli(*build_args(project), "--strict")
    assert strict.code == 1
    assert "papers/a.md:15: unknown LaTeX command \\notacommand" in strict.err


def test_an_author_listed_twice_is_a_warning_at_the_authors_line(project, cli):
    (project / "content" / "papers" / "a.md").write_text(paper_text(authors="[Xi Chen, Ada Lovelace, xi  CHEN]"))
    result = cli(*build_args(project))
    assert result.code == 0
    line = next(n for n, text in enumerate((project / "content" / "papers" / "a.md").read_text().splitlines(), start=1)
                if text.startswith("authors:"))
    assert f"papers/a.md:{line}: warning: 'authors' lists 'xi  CHEN' twice; its author page counts the paper once" in result.err
    page = (project / "site" / "authors" / "xi-chen.html").read_text()
    assert "1 paper" in page


# --- headings inside an abstract --------------------------------------------------------------

RELATED_PAPER = paper_text(id="test-0002", slug="b-paper", title="Another paper about reinforcement learning")


def heading_page(project: Path, cli, body: str) -> str:
    """The built page of a paper with this abstract (beside a related paper, so #related exists too)."""
    (project / "content" / "papers" / "a.md").write_text(paper_text(body=body), encoding="utf-8")
    (project / "content" / "papers" / "b.md").write_text(RELATED_PAPER, encoding="utf-8")
    assert cli(*build_args(project)).code == 0
    return (project / "site" / "papers" / "a-paper.html").read_text(encoding="utf-8")


def page_ids(html: str) -> list[str]:
    return re.findall(r'\sid="([^"]*)"', html)


def test_abstract_headings_get_ids_and_anchor_links_like_the_page_sections(project, cli):
    html = heading_page(project, cli, "We study bandits.\n\n# Setup\n\nText.\n\n## Main results\n\nMore text.")
    # A body `#` is h3 and `##` h4: the page owns h1 (title) and h2 (its sections).
    assert '<h3 id="abstract-setup"><a class="anchor" href="#abstract-setup">Setup</a></h3>' in html
    assert '<h4 id="abstract-main-results"><a class="anchor" href="#abstract-main-results">Main results</a></h4>' in html
    assert '<h2 id="abstract"><a class="anchor" href="#abstract">Abstract</a></h2>' in html
    assert check_site(project / "site") == []


def test_abstract_heading_levels_step_down_in_order(project, cli):
    html = heading_page(project, cli, "Intro.\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six")
    levels = re.findall(r'<h(\d) id="abstract-(\w+)"', html)
    assert levels == [("5", "three"), ("6", "four"), ("6", "five"), ("6", "six")]


def test_abstract_headings_never_take_an_id_of_the_page(project, cli):
    own_ids = page_ids(heading_page(project, cli, "No headings here."))
    assert {"title", "abstract", "cite", "bibtex", "related", "permalink", "main", "search-input"} <= set(own_ids)
    # A heading spelling out each of the page's ids, and one spelling the id a heading would get.
    headings = "".join(f"## {name.replace('-', ' ').title()}\n\n" for name in own_ids) + "## Abstract setup\n\n# Setup\n"
    html = heading_page(project, cli, "Intro.\n\n" + headings)
    ids = page_ids(html)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert '<h2 id="related"><a class="anchor" href="#related">Related papers</a></h2>' in html
    assert '<h4 id="abstract-related"><a class="anchor" href="#abstract-related">Related</a></h4>' in html
    assert '<h4 id="abstract-search-input"><a class="anchor" href="#abstract-search-input">Search Input</a></h4>' in html
    assert 'id="abstract-abstract-setup"' in html and 'id="abstract-setup"' in html
    assert check_site(project / "site") == []


def test_repeated_abstract_headings_are_numbered_in_order(project, cli):
    html = heading_page(project, cli, "Intro.\n\n## Results\n\n## Results\n\n## Results 2\n\n## Results\n\n## $x$\n\n## $y$")
    assert page_ids(html)[page_ids(html).index("abstract"):][1:7] == [
        "abstract-results", "abstract-results-2", "abstract-results-2-2", "abstract-results-3",
        "abstract-section", "abstract-section-2"]
    assert '<h4 id="abstract-results-2-2"><a class="anchor" href="#abstract-results-2-2">Results 2</a></h4>' in html
    assert check_site(project / "site") == []


def test_math_and_markup_in_a_heading_stay_out_of_its_id(project, cli):
    body = ("Intro.\n\n# Regret $O(\\sqrt{K})$ for *deep* `x<y` and [code](https://example.org/r) \\*really\\* "
            "caf&eacute; [@smith2020]\n\n# Stra\u00dfe, na\u00efve \u03b1\u03b2 & \ufb01ne-tuning: 2nd try!")
    html = heading_page(project, cli, body)
    first = re.search(r'<h3 id="([^"]*)"><a class="anchor" href="#([^"]*)">(.*?)</a></h3>', html)
    assert first.group(1) == first.group(2) == "abstract-regret-for-deep-xy-and-code-really-cafe-smith2020"
    # The heading itself still shows all of it: MathML, emphasis, code, the link's text (a link cannot
    # sit inside the anchor), the escaped stars and the citation marker.
    shown = first.group(3)
    assert "<math" in shown and "<em>deep</em>" in shown and "<code>x&lt;y</code>" in shown
    assert "<span>code</span>" in shown and "*really*" in shown and 'class="citation"' in shown
    assert 'href="https://example.org/r"' not in shown
    assert '<h3 id="abstract-strasse-naive-\u03b1\u03b2-fine-tuning-2nd-try">' in html
    assert check_site(project / "site") == []


@pytest.mark.parametrize("title, shown", [
    ("#Exploration: A Study of Count-Based Exploration", "#Exploration: A Study of Count-Based Exploration"),
    ("# A title that looks like a heading", "# A title that looks like a heading"),
    ("1. Introduction to graphs", "1. Introduction to graphs"),
    ("- a title like a list item", "- a title like a list item"),
    ("> a title like a quote", "&gt; a title like a quote"),
    ("---", "---"),
    ("*Emphasis* first, then words", "<em>Emphasis</em> first, then words"),
])
def test_a_title_is_inline_text_however_it_starts(title, shown):
    """A one-line title never becomes a heading, list, quote or rule (and so never gets an anchor:
    it is shown on every listing of it, where an id would repeat)."""
    assert MarkdownRenderer().render_inline(title)[0] == shown


def test_a_title_starting_with_a_hash_is_the_page_heading_as_written(tmp_path, cli):
    project = make_project(tmp_path, {"hash.md": paper_text(title='"#Exploration: A Study of Count-Based Exploration"')})
    assert cli(*build_args(project)).code == 0
    page = (project / "site" / "papers" / "a-paper.html").read_text(encoding="utf-8")
    assert '<h1 id="title">#Exploration: A Study of Count-Based Exploration</h1>' in page
    assert "<title>#Exploration: A Study of Count-Based Exploration ·" in page
    assert "<h3" not in page.split('<section class="abstract"')[0]


def test_the_page_files_are_counted_before_they_are_read(tmp_path):
    """The build counts them to know whether a first build lays its map out afresh (stages.py)."""
    root = make_project(tmp_path / "proj", {"a.md": paper_text(id="a", slug="a"), "b.md": paper_text(id="b", slug="b")})
    (root / "content" / "papers" / ".hidden.md").write_text(paper_text(id="h", slug="h"), encoding="utf-8")
    (root / "content" / "papers" / "notes.txt").write_text("not a page", encoding="utf-8")

    assert count_paper_files(root / "content") == 2
    assert count_paper_files(tmp_path / "missing") == 0
