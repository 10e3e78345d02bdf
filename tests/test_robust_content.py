"""Whatever content holds, a build ends in time linear in it, with a site or with `path:line: message`.

The classes the hostile probe of issue 17 found, each with a property test that would have found
it: pages whose abstract, title or front matter is any mix of the tokens parsers care about,
repeated to tens of kilobytes, must be read, checked and converted within a budget of seconds (a
quadratic parser takes minutes on them); content/papers/ holding any mix of file types (a FIFO,
/dev/zero, a socket, a directory, broken and looping links) must build or name each bad entry;
and what pages never show (text/chars.py) reaches no page. Each example runs in a forked child,
so a hang fails the test instead of hanging it. The single cases are fixtures in
fixtures/invalid/ (test_papers.py builds each).
"""

from __future__ import annotations

import datetime

import multiprocessing
import os
import re
import socket
import subprocess
import sys
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import REPO, build_args, make_project, paper_text
from papersite.digests import fingerprint
from papersite.enrich.texts import convert_text
from papersite.errors import Report, SiteError
from papersite.ingest.importer import plan_import
from papersite.ingest.records import RawRecord
from papersite.inputs.papers import load_paper
from papersite.inputs.taxonomy import load_taxonomy
from papersite.text.chars import UNSHOWABLE_RE
from papersite.text.markdown import MarkdownRenderer
from papersite.text.bounds import MAX_DEPTH, MAX_PARAGRAPH

# Seconds one page may take, whatever it holds: linear work on 32 KB takes a fraction of a
# second even on a loaded machine; the quadratic parsers this guards against took minutes.
BUDGET = 20.0
SIZE = 32_000
PROPERTY = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# What parsers look for: brackets, code, emphasis, math, quotes, lists, escapes, HTML, LaTeX.
TOKENS = ["[", "]", "(", ")", "{", "}", "`", "``", "*", "**", "_", "__", "$", "$$", "\\", "\\(", "\\)", "\\[", "\\]", "<",
          ">", "&", "#", "!", "%", "[@a;", "](", "![", "\\frac{", "\\text{", "\\emph{", "\\texttt{", "\\cite{", "\\url{",
          "\\begin{itemize}", "\\item", "\\end{itemize}", "\\begin{equation}", "^", "~", "'", '"', "``", "''", "--", "- ",
          "1. ", "> ", "    ", "  ", "\t", "\n", "\n\n", "http://x.org/", "https://github.com/a/b", "<a href=", "<!--", "&#",
          "x", "a", " ", "|", ":", ". ", ", ", "We ", "FooNet", ": a ", "method", "\u202e", "\u200d", "\u2028", "\x1b"]
# Found by this test's search (runs of 300 random pieces): each took import or build from ten
# seconds to minutes at 32 KB, through math openers that never close or `$` inside braces that
# never close (text/mathspans.py), open brackets and escapes (text/bounds.py), emphasis and code openers
# without a closer and link labels across paragraphs (text/plain.py), runs of white space
# (ingest/title_cleaning.py).
SLOW_BEFORE = ["\\[``", "\\[__", "_\\[~", "> 1. \\(\\()", "\\(<``x- ", "a\\[](", "{\\[>&$", ">\\, __\\texttt{$$$",
               "\\(<!--\\end{itemize}\\cite{\n( {\\)](]", "-  #\\url{~\\<-x$- \\cite{", "$  ,   \\cite{", "[[[[", "_a ",
               "`" * 40, "[@a; ", "[@a;>\n\n-\\[![@a;**-", ", #1. **", "\t", "\n\n  >- [){\\)[``\t:", "\\]", "`<"]


def body_of(piece: str) -> str:
    """`piece` repeated to a paragraph as long as a paragraph may be (the most a parser is handed at
    once), and that paragraph again to about SIZE characters."""
    paragraph = ("We study x. " + piece * (MAX_PARAGRAPH // len(piece) + 1))[:MAX_PARAGRAPH]
    return "\n\n".join([paragraph] * (SIZE // MAX_PARAGRAPH))


def unit() -> st.SearchStrategy[str]:
    """A short stretch of text, repeated to make a page: what repeats is what makes a parser slow."""
    return st.lists(st.sampled_from(TOKENS), min_size=1, max_size=12).map("".join)


def within(seconds: float, func, *args):
    """func(*args) in a forked child that is killed after `seconds`; its exception, if any, is raised here."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)

    def child():
        try:
            func(*args)
            writer.send(None)
        except BaseException:
            writer.send(traceback.format_exc())

    process = context.Process(target=child)
    process.start()
    writer.close()
    process.join(seconds)
    if process.is_alive():
        process.kill()
        process.join()
        raise AssertionError(f"took more than {seconds:.0f} s")
    failure = reader.recv() if reader.poll() else f"the child died (exit {process.exitcode})"
    if failure is not None:
        raise AssertionError(failure)


@pytest.fixture(scope="module")
def taxonomy():
    return load_taxonomy(REPO / "content" / "tags.yml")


def read_and_convert(path: Path, taxonomy) -> None:
    """What a build does with one page: read and check it, then make its texts; and what import
    does with an abstract. Either a Paper whose texts show nothing unshowable, or a SiteError/report."""
    report = Report()
    try:
        paper = load_paper(path, taxonomy, report)
    except SiteError as err:
        assert err.problems and all(problem.path == str(path) for problem in err.problems)
        return
    if paper is None:
        assert report.errors and all(problem.path == str(path) and problem.line for problem in report.errors)
        return
    text, _, _ = convert_text(MarkdownRenderer(), paper)
    abstract_html = text.abstract(paper.body)
    for shown in (paper.title, paper.body, text.title_html, abstract_html, text.plain_text(paper.body), text.title_text):
        assert not UNSHOWABLE_RE.search(shown), shown[:200]
    assert text.title_text.strip() and abstract_html.strip()


def import_then_build(folder: Path, taxonomy, abstract: str, title: str | None) -> None:
    """What `import` makes of a record with this abstract (and title, or none to derive one):
    an error at the record's line, or a page the build then reads without an error."""
    record = RawRecord(line=7, abstract=abstract, title=title, authors=("Ada Lovelace",), keywords=(), venue="NeurIPS",
                       year=2025, source_id="x")
    report = Report()
    writes, _ = plan_import([record], folder, taxonomy, "new", report, "source.jsonl", datetime.date(2026, 12, 2))
    if not writes:
        assert report.errors and all(problem.line == 7 for problem in report.errors)
        return
    path = folder / "imported.md"
    path.write_text(writes[0].text, encoding="utf-8")
    built = Report()
    assert load_paper(path, taxonomy, built) is not None and built.errors == [], built.errors
    read_and_convert(path, taxonomy)


@PROPERTY
@given(unit())
@example("\\[``")
def test_any_repeated_abstract_is_read_and_converted_within_budget(tmp_path_factory, taxonomy, piece):
    folder = tmp_path_factory.mktemp("linear")
    body = body_of(piece)
    (folder / "page.md").write_text(paper_text(body=body), encoding="utf-8")
    within(BUDGET, read_and_convert, folder / "page.md", taxonomy)
    (folder / "import").mkdir()
    within(BUDGET, import_then_build, folder / "import", taxonomy, body, None)


@pytest.mark.parametrize("piece", SLOW_BEFORE)
def test_pieces_that_were_slow_are_read_imported_and_built_within_budget(tmp_path, taxonomy, piece):
    body = body_of(piece)
    (tmp_path / "page.md").write_text(paper_text(body=body), encoding="utf-8")
    within(BUDGET, read_and_convert, tmp_path / "page.md", taxonomy)
    for number, title in enumerate((None, "A given title")):
        (tmp_path / f"import{number}").mkdir()
        within(BUDGET, import_then_build, tmp_path / f"import{number}", taxonomy, body, title)


@PROPERTY
@given(unit())
def test_any_repeated_title_is_read_and_converted_within_budget(tmp_path_factory, taxonomy, piece):
    path = tmp_path_factory.mktemp("linear") / "page.md"
    title = " ".join(("T " + piece * (4_000 // len(piece))).split()).replace("'", "''")
    path.write_text(paper_text(title=f"'{title}'"), encoding="utf-8")
    within(BUDGET, read_and_convert, path, taxonomy)


SCALARS = st.one_of(
    st.integers(min_value=-10**6, max_value=10**6).map(str),
    st.integers(min_value=1, max_value=20_000).map(lambda n: "9" * n),        # Python's int-string limit is 4,300 digits
    st.sampled_from(["1e999", "-.inf", ".nan", "0x" + "f" * 5000, "0b" + "1" * 5000, "1_000", "2025", "99999", "-5",
                     "null", "~", "true", "[]", "{}", "!!binary aGk=", "&a x", "*a", "'\\u202e'", '"\\u200d\\u2028"',
                     '"\\e"', "'" + "x" * 300 + "'"]),
    st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n),   # YAML nesting
    st.integers(min_value=1, max_value=5_000).map(lambda n: "[" + ", ".join(["reinforcement-learning"] * n) + "]"),
    st.integers(min_value=1, max_value=3000).map(lambda n: "{a: " * n + "1" + "}" * n),
)


@PROPERTY
@given(st.dictionaries(st.sampled_from(["id", "slug", "title", "venue", "year", "tags", "aliases", "code", "authors",
                                        "links", "title_source", "<<"]), SCALARS, max_size=4))
@example({"tags": "[" + ", ".join(["reinforcement-learning"] * 50_000) + "]"})   # each repeat was counted over the list
def test_any_front_matter_values_are_checked_within_budget(tmp_path_factory, taxonomy, values):
    path = tmp_path_factory.mktemp("front") / "page.md"
    path.write_text(paper_text(**values), encoding="utf-8")
    within(BUDGET, read_and_convert, path, taxonomy)


def test_nesting_just_within_the_bound_builds_and_just_beyond_is_an_error_at_its_line(tmp_path, cli):
    within_bound = "[" * MAX_DEPTH + "x" + "]" * MAX_DEPTH
    root = make_project(tmp_path / "proj", {"a.md": paper_text(body=f"Fine.\n\n{within_bound}\n\n" + "> " * MAX_DEPTH + "x")})
    assert cli(*build_args(root)).code == 0
    (root / "content" / "papers" / "a.md").write_text(paper_text(body="Fine.\n\nStill fine.\n\n" + "(" * (MAX_DEPTH + 1)))
    result = cli(*build_args(root))
    assert result.code == 1 and "Traceback" not in result.err
    assert "a.md:17: the abstract nests too deeply: parentheses" in result.err


def test_what_pages_never_show_reaches_no_page(tmp_path, cli):
    """Zero-width joiners, LRM/RLM and U+2028 in a title, U+202E and ESC in code URLs (YAML escapes
    make them from plain ASCII): none is in any file of the site."""
    root = make_project(tmp_path / "proj", {"a.md": paper_text(
        title='"Zero\\u200dwidth \\u200eTitle\\u2028here \\u2066isolated\\u2069"',
        code='["https://github.com/a/b\\u202e", "https://x.org/\\e[31m"]',
        authors='["Ada\\u200b Lovelace"]',
        body="An abstract\u2029 with \u200c joiners \u061c and marks \ufeff.")})
    result = cli(*build_args(root))
    assert result.code == 0, result.err
    for path in sorted((root / "site").rglob("*")):
        if path.is_file() and path.suffix in (".html", ".js", ".json", ".xml", ".bib", ".txt"):
            text = path.read_text(encoding="utf-8")
            found = {f"U+{ord(c):04X}" for c in UNSHOWABLE_RE.findall(text)}
            assert not found, f"{path.relative_to(root)} shows {sorted(found)}"
    page = (root / "site" / "papers" / "a-paper.html").read_text(encoding="utf-8")
    assert "Zerowidth Titlehere isolated" in page
    assert 'href="https://github.com/a/b"' in page


# --- content/papers/ holding anything a folder can hold ---------------------------------------

def make_entry(papers: Path, kind: str, index: int) -> str | None:
    """One entry of `kind` named `<kind>-<index>.md`; the text an error about it names, or None for a good page."""
    name = f"{kind}-{index}.md"
    path = papers / name
    if kind == "page":
        path.write_text(paper_text(id=f"p-{index}", slug=f"page-{index}"), encoding="utf-8")
        return None
    if kind == "link-to-page":
        target = papers.parent / f"elsewhere-{index}.txt"
        target.write_text(paper_text(id=f"l-{index}", slug=f"link-{index}"), encoding="utf-8")
        path.symlink_to(target)
        return None
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind == "broken-link":
        path.symlink_to(papers / "nowhere.md")
    elif kind == "looping-link":
        path.symlink_to(name)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "huge":
        with open(path, "wb") as f:   # sparse: no disk used
            f.truncate(64 * 1024 * 1024)
    return name


KINDS = ["page", "link-to-page", "fifo", "dev-zero", "directory", "socket", "broken-link", "looping-link", "empty", "huge"]


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=5))
@example(KINDS)
@example(["directory"])
@example(["fifo", "page"])
def test_any_mix_of_file_types_in_papers_builds_or_names_each_bad_entry(tmp_path_factory, kinds):
    """After a good build, so the incremental build's check of what changed meets them too."""
    root = make_project(tmp_path_factory.mktemp("types") / "proj", {"good.md": paper_text(id="good", slug="good")})
    process = subprocess.run([sys.executable, "build.py", *build_args(root)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    before = sorted(p.name for p in (root / "site" / "papers").iterdir())
    papers = root / "content" / "papers"
    bad = [name for i, kind in enumerate(kinds) if (name := make_entry(papers, kind, i)) is not None]
    process = subprocess.run([sys.executable, "build.py", *build_args(root)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in process.stderr
    if not bad:
        assert process.returncode == 0, process.stderr
        return
    assert process.returncode == 1
    for name in bad:
        assert re.search(rf"{re.escape(str(papers / name))}(:\d+)?: ", process.stderr), f"{name} not named in:\n{process.stderr}"
    assert sorted(p.name for p in (root / "site" / "papers").iterdir()) == before


def test_an_unreadable_page_is_named_not_a_traceback(tmp_path, monkeypatch, taxonomy):
    """As root every file is readable, so the refusal is injected where the file is opened."""
    from papersite.inputs import papers

    path = tmp_path / "secret.md"
    path.write_text(paper_text(), encoding="utf-8")
    opener = os.open

    def refuse(name, *args, **kwargs):
        if str(name) == str(path):
            raise PermissionError(13, "Permission denied", str(name))
        return opener(name, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", refuse)
        paper, problems, _, _ = papers.parse_page_file(taxonomy, fingerprint(taxonomy), path)
    assert paper is None
    assert [str(problem) for problem in problems.errors] == [f"{path}: cannot read it: Permission denied"]


def test_a_page_that_fails_while_read_is_named(tmp_path, cli):
    """A link to a file the kernel will not read (/proc/self/mem): an input/output error, named."""
    root = make_project(tmp_path / "proj", {"a.md": paper_text()})
    (root / "content" / "papers" / "mem.md").symlink_to("/proc/self/mem")
    result = cli(*build_args(root))
    assert result.code == 1 and "Traceback" not in result.err
    assert f"{root / 'content' / 'papers' / 'mem.md'}: cannot read it: " in result.err


def test_a_key_after_a_yaml_merge_overrides_it_and_is_no_duplicate(tmp_path, taxonomy):
    path = tmp_path / "page.md"
    path.write_text(paper_text(links='\n  <<: {pdf: "https://x.org/old.pdf", doi: "10.5555/1"}\n  pdf: "https://x.org/new.pdf"'),
                    encoding="utf-8")
    report = Report()
    paper = load_paper(path, taxonomy, report)
    assert report.errors == []
    assert dict(paper.links) == {"pdf": "https://x.org/new.pdf", "doi": "10.5555/1"}
    path.write_text(paper_text(links='\n  pdf: "https://x.org/a.pdf"\n  pdf: "https://x.org/b.pdf"'), encoding="utf-8")
    with pytest.raises(SiteError, match="duplicate key 'pdf'"):
        load_paper(path, taxonomy, Report())


def test_an_empty_papers_folder_is_a_message(tmp_path, cli):
    root = make_project(tmp_path / "proj")
    result = cli(*build_args(root))
    assert result.code == 1 and "Traceback" not in result.err
    assert f"{root / 'content' / 'papers'}: no pages (*.md) to build a site from" in result.err
    assert not (root / "site").exists()


def test_two_pages_at_one_path_stop_the_build_naming_the_path():
    """The inputs keep every name apart (an alias from its slug, a tag from `index`); should a new
    kind of page ever share a path with another, the plan refuses rather than let one replace the other."""
    from papersite.render.plan import check_one_page_a_path
    from papersite.render.specs import PageSpec

    pages = [PageSpec("tags/index.html", "tags", "tags.html", "Topics", ""), PageSpec("papers/a.html", "paper", "paper.html", "A", ""),
             PageSpec("tags/index.html", "tag", "tag.html", "Index", "")]
    with pytest.raises(SiteError) as raised:
        check_one_page_a_path(pages)
    assert [str(problem) for problem in raised.value.problems] == [
        "tags/index.html: two pages of the site would be written here; rename one of them"]
    check_one_page_a_path(pages[:2])
