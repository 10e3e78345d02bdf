"""A site's own LaTeX macros (site.yml `math_macros`): expanded in every formula before it is read."""

from __future__ import annotations

import re

import pytest
from conftest import build_args, make_project, paper_text

from papersite.errors import LISTED_OF_A_KIND
from papersite.text.macros import (
    MacroError,
    expand_in_math,
    expand_macros,
    find_cycle,
    macro_table,
)

MACROS = macro_table((("\\R", "\\mathbb{R}"), ("\\eps", "\\epsilon"), ("\\norm", "\\left\\| #1 \\right\\|"),
                      ("\\ip", "\\langle #1, #2 \\rangle"), ("\\vx", "\\mathbf{x}"), ("\\nx", "\\norm{\\vx}")))


@pytest.mark.parametrize("latex, expanded", [
    ("x \\in \\R^d", "x \\in \\mathbb{R}^d"),
    ("\\eps x", "\\epsilon x"),                          # the space that ends a command name stays
    ("\\eps_1", "\\epsilon_1"),
    ("\\epsx", "\\epsx"),                                # another name, not \eps followed by x
    ("\\Re(z) + \\R", "\\Re(z) + \\mathbb{R}"),          # \R does not match the start of \Re
    ("\\norm{A - B}_p", "\\left\\| A - B \\right\\|_p"),
    ("\\norm x", "\\left\\| x \\right\\|"),              # an argument without braces: the next character
    ("\\norm\\vx", "\\left\\| \\mathbf{x} \\right\\|"),  # ... or the next command
    ("\\norm{a{b}c}", "\\left\\| a{b}c \\right\\|"),      # nested braces stay in the argument
    ("\\ip{a}{\\norm{b}}", "\\langle a, \\left\\| b \\right\\| \\rangle"),
    ("\\nx^2", "\\left\\| \\mathbf{x} \\right\\|^2"),     # a macro made of macros
    ("a \\\\ \\R", "a \\\\ \\mathbb{R}"),                 # a line break is no command
    ("\\{\\R\\}", "\\{\\mathbb{R}\\}"),
])
def test_macros_expand_as_tex_reads_them(latex, expanded):
    assert expand_macros(latex, MACROS) == expanded


@pytest.mark.parametrize("latex, message", [
    ("\\norm", "\\norm is missing an argument"),
    ("\\ip{a}", "\\ip is missing an argument"),
    ("\\norm{x", "an argument of \\norm has no closing brace"),
])
def test_a_macro_without_its_arguments_is_an_error(latex, message):
    with pytest.raises(MacroError, match=re.escape(message)):
        expand_macros(latex, MACROS)


def test_a_macro_that_grows_without_end_stops():
    with pytest.raises(MacroError, match="expand more than 1000 times"):
        expand_macros("\\a", macro_table((("\\a", "x\\a"),)))
    with pytest.raises(MacroError, match="longer than 20000 characters"):
        expand_macros("\\a{x}", macro_table((("\\a", "\\a{#1 #1}"),)))


def test_a_cycle_of_definitions_is_found():
    assert find_cycle({"\\a": "\\b + 1", "\\b": "\\c", "\\c": "\\a"}) == ["\\a", "\\b", "\\c", "\\a"]
    assert find_cycle({"\\a": "\\a"}) == ["\\a", "\\a"]
    assert find_cycle({"\\a": "\\b", "\\b": "\\mathbb{R}", "\\c": "\\b\\b"}) is None


def test_only_math_is_expanded_and_each_delimiter_is_kept():
    text = ("In \\R, $x \\in \\R^d$, $$\\norm{x}$$, \\(\\eps\\), \\[\\vx\\] and "
            "\\begin{equation}e^{\\eps}\\end{equation}; $\\norm$ stays.")
    expanded, problems = expand_in_math(text, MACROS)
    assert expanded == ("In \\R, $x \\in \\mathbb{R}^d$, $$\\left\\| x \\right\\|$$, \\(\\epsilon\\), \\[\\mathbf{x}\\] and "
                        "\\begin{equation}e^{\\epsilon}\\end{equation}; $\\norm$ stays.")
    assert problems == ["math_macros: \\norm is missing an argument in $\\norm$"]


MACRO_CONFIG = ("title: T\ndescription: D\nbase_url: https://example.org/\nmath_macros:\n"
                "  \\R: \\mathbb{R}\n  \\eps: \\epsilon\n  \\norm: '\\left\\| #1 \\right\\|'\n")
BODY = "We learn $f: \\R^d \\to \\R$ with $\\norm{f}_2 \\le \\eps$ from data."


def test_a_sites_macros_show_as_math_in_pages_search_and_bibtex(tmp_path, cli):
    page = paper_text(id="m-1", slug="macro-paper", title="'Learning in $\\R^d$'", body=BODY)
    root = make_project(tmp_path / "plain", {"a.md": page})
    # Without the definitions, each unknown command is a warning at its line, shown as code.
    result = cli(*build_args(root))
    assert result.code == 0
    assert ("a.md:13: warning: unknown LaTeX command \\R in $f: \\R^d \\to \\R$ (a macro of the paper's own? "
            "define it under math_macros in site.yml); shown as code") in result.err
    # ... and a note at the end says which, in how many papers, and where to define them.
    assert ("site.yml: note: 2 unknown LaTeX commands in 1 paper, shown as code; by papers: \\R (1), \\norm (1). "
            "A paper's own macros can be defined under math_macros here") in result.err
    assert '<code class="math-error">$\\norm{f}_2 \\le \\eps$</code>' in (root / "site" / "papers" / "macro-paper.html").read_text(encoding="utf-8")

    root = make_project(tmp_path / "macros", {"a.md": page})
    (root / "site.yml").write_text(MACRO_CONFIG, encoding="utf-8")
    result = cli(*build_args(root))
    assert result.code == 0 and "LaTeX" not in result.err and "note" not in result.err
    html = (root / "site" / "papers" / "macro-paper.html").read_text(encoding="utf-8")
    assert "math-error" not in html
    assert '<h1 id="title">Learning in <math display="inline"><mrow><msup><mi>ℝ</mi><mi>d</mi></msup></mrow></math></h1>' in html
    assert '<mo fence="true" form="prefix" stretchy="true">‖</mo><mi>f</mi>' in html and "<mi>ϵ</mi>" in html
    # BibTeX gets standard LaTeX; descriptions and search the formula's plain text.
    assert "title     = {Learning in {$\\mathbb{R}^d$}}," in html
    assert '<meta name="description" content="We learn f: ℝᵈ → ℝ with ‖ f ‖₂ ≤ ε from data.">' in html
    store = (root / "site" / "assets" / "search-store.js").read_text(encoding="utf-8")
    assert '"Learning in ℝᵈ"' in store and "We learn f: ℝᵈ → ℝ with ‖ f ‖₂ ≤ ε from data." in store

    # Changing a definition changes every page that uses it, in an edit build as in a clean one.
    (root / "site.yml").write_text(MACRO_CONFIG.replace("\\eps: \\epsilon", "\\eps: \\varepsilon"), encoding="utf-8")
    assert cli(*build_args(root)).code == 0
    edited = (root / "site" / "papers" / "macro-paper.html").read_text(encoding="utf-8")
    assert "<mi>ε</mi>" in edited and "<mi>ϵ</mi>" not in edited
    assert cli(*build_args(root), "--clean").code == 0
    assert (root / "site" / "papers" / "macro-paper.html").read_text(encoding="utf-8") == edited


def test_a_formula_whose_macro_lacks_its_argument_is_a_warning_at_its_line(tmp_path, cli):
    root = make_project(tmp_path, {"a.md": paper_text(body="Intro.\n\nThe bound $\\norm$ is loose.")})
    (root / "site.yml").write_text(MACRO_CONFIG, encoding="utf-8")
    result = cli(*build_args(root))
    assert result.code == 0
    assert "a.md:15: warning: math_macros: \\norm is missing an argument in $\\norm$" in result.err


def test_the_note_ranks_unknown_commands_by_papers_and_counts_the_rest():
    from papersite.enrich.texts import unknown_commands_note
    from papersite.errors import Problem

    def unknown(path: str, name: str, title: bool = False) -> Problem:
        return Problem(path, 3, f"{'title: ' if title else ''}unknown LaTeX command {name} in ${name}$ (...); shown as code")

    warnings = [unknown("a.md", "\\gap"), unknown("a.md", "\\gap"), unknown("b.md", "\\gap", title=True),
                *(unknown(f"{n}.md", f"\\c{letter}") for n, letter in enumerate("ABCDEF")),
                unknown("c.md", "\\action"), unknown("d.md", "\\action"), Problem("e.md", 2, "'authors' lists 'X' twice")]
    assert unknown_commands_note(warnings) == (
        "8 unknown LaTeX commands in 10 papers, shown as code; by papers: \\action (2), \\gap (2), \\cA (1), \\cB (1), "
        "\\cC (1) and 3 more. A paper's own macros can be defined under math_macros here")
    assert unknown_commands_note(warnings[:1]) == ("1 unknown LaTeX command in 1 paper, shown as code; by papers: \\gap (1). "
                                                   "A paper's own macros can be defined under math_macros here")
    assert unknown_commands_note(warnings[-1:]) is None


def test_a_hostile_definition_stays_inert(tmp_path, cli):
    """A replacement is content like any other: what it makes is escaped MathML, text and BibTeX."""
    root = make_project(tmp_path, {"a.md": paper_text(slug="inert", title="'Safe $\\evil$ title'",
                                                      body="Look: $\\evil + \\lnk$ and $\\bad$.")})
    (root / "site.yml").write_text(
        "title: T\ndescription: D\nmath_macros:\n  \\evil: '\\text{<script>alert(1)</script>}'\n"
        "  \\lnk: '\\href{javascript:alert(1)}{x}'\n  \\bad: '</math><img src=x onerror=alert(1)>'\n", encoding="utf-8")
    assert cli(*build_args(root)).code == 0
    html = (root / "site" / "papers" / "inert.html").read_text(encoding="utf-8")
    # Escaped wherever it lands: MathML, code, the description's text; never markup, never a link.
    assert "<script>alert" not in html and "<img" not in html and not re.search(r"(href|src)=\"?javascript:", html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<mi>i</mi><mi>m</mi><mi>g</mi>" in html


def test_a_build_lists_the_first_of_many_unknown_commands_and_counts_the_rest(tmp_path, cli):
    # An anthology gives thousands of these at every build, one a formula, which the note sums up:
    # the first LISTED_OF_A_KIND are listed, in line order, and the rest counted; other warnings all.
    pages = {f"p{n:02}.md": paper_text(id=f"m-{n}", slug=f"paper-{n:02}", title=f"Paper {n}", body=f"We bound $\\cA_{n}$ here.")
             for n in range(LISTED_OF_A_KIND + 5)}
    pages["twice.md"] = paper_text(id="m-twice", slug="twice", title="Twice", authors="[Ada Lovelace, Ada Lovelace]", body="Plain.")
    root = make_project(tmp_path, pages)
    expected = [f"p{n:02}.md:13: warning: unknown LaTeX command \\cA" for n in range(LISTED_OF_A_KIND)]
    for _ in range(2):   # a first build, then one that finds nothing changed (its warnings from the cache)
        result = cli(*build_args(root))
        assert result.code == 0
        unknown = [line.split("/papers/")[1] for line in result.err.splitlines() if "warning: unknown LaTeX command" in line]
        assert [line[:len(expected[0])] for line in unknown] == expected
        assert "/papers/twice.md:10: warning: 'authors' lists 'Ada Lovelace' twice" in result.err
        folded = "build: 5 more unknown LaTeX command warnings not listed (the note below sums them up; --all-warnings lists each)\n"
        assert folded in result.err and result.err.index(folded) < result.err.index("site.yml: note: 1 unknown LaTeX command in 25 papers")
        assert f"with {LISTED_OF_A_KIND + 6} warnings" in result.out
    result = cli(*build_args(root, "--all-warnings"))
    assert result.err.count("warning: unknown LaTeX command") == LISTED_OF_A_KIND + 5 and "not listed" not in result.err
