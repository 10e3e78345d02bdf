"""Property tests: any input to a parser or converter gives a valid result or a SiteError, never
another exception (no traceback for a user's typo, however odd).

Inputs mix arbitrary text with the tokens each parser cares about, so hypothesis reaches the
interesting paths (front-matter fences, YAML anchors, LaTeX commands and braces, Markdown links).
Example counts stay moderate so the suite stays fast; `deadline=None` because the first call of
some converters warms caches.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, paper_text
from support.pagescan import FORBIDDEN_ELEMENTS, UNSAFE_SCHEME_RE, Tags
from papersite.inputs.config import load_config
from papersite.inputs.papers import load_paper, split_front_matter
from papersite.inputs.taxonomy import load_taxonomy
from papersite.inputs.values import SLUG_RE
from papersite.errors import Report, SiteError
from papersite.ingest.readers.jsonl import read_jsonl
from papersite.ingest.readers.plain import read_plain
from papersite.ingest.latex import latex_to_markdown
from papersite.text.mathtext import math_to_text
from papersite.text.plain import flatten_markdown
from papersite.text.markdown import MarkdownRenderer
from papersite.inputs.files import decode_text
from papersite.ingest.slugs import derive_slug, slugify
from papersite.ingest.titles import derive_title
from papersite.inputs.yamlsrc import parse_yaml

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

YAML_TOKENS = ["---", "\n", "id: ", "slug: ", "title: ", "year: ", "tags: ", "code: ", "authors: ", "aliases: ",
               "venue: ", "title_source: ", "[", "]", "{", "}", ", ", "- ", "  ", "\t", "'", '"', "&a ", "*a", "<<: ",
               "? ", ": ", "!!str ", "!!python/object:os.system ", "%YAML 1.1", "#", "|", ">", "2025", "1e9", "null",
               "true", "reinforcement-learning", "x", "\r\n", "\ufeff", "\x00", "\u202e", "~", "@", "`"]
LATEX_TOKENS = ["$", "$$", "\\", "{", "}", "\\frac", "\\text", "\\textbf", "\\emph", "\\cite", "\\href", "\\url",
                "\\begin{array}", "\\end{array}", "\\left(", "\\right)", "^", "_", "&", "%", "~", "\\\\", "\\'", '\\"',
                "``", "''", "--", "---", "\\ref", "\\label", "\\footnote", "\\mathbb", "\\sqrt", "\\sum", "\\alpha",
                "x", " ", "\n", "\n\n", "[", "]", "(", ")", "<script>", "\\unknowncmd", "\\verb|", "|", "\\item",
                "\\section", "\\$", "\\{", "\\}", "\\ ", "\\,", "\\textit{", "\\mathrm{", "\\operatorname{"]
MARKDOWN_TOKENS = ["*", "_", "**", "`", "``", "[", "]", "(", ")", "](", "![", "<", ">", "<script>", "</script>",
                   "<img src=x onerror=alert(1)>", "javascript:", "data:", "JaVaScRiPt:", "&#106;", "&lt;", "&amp;",
                   "http://", "https://", "mailto:", "\n", "\n\n", "    ", "> ", "- ", "1. ", "#", "---", "$", "$$",
                   "\\", "{", "}", "\\href{", "\\text{", "[@", ";", "\"", "'", "=", " ", "x", "<!--", "-->",
                   "<![CDATA[", "]]>", "<svg onload=alert(1)>", "<math>", "\x00", "\u202e", "\u200b", "[1]: ",
                   "<a href='javascript:alert(1)'>", "on", "error"]
SOURCE_TOKENS = ["NeurIPS 2025 Papers", "ICML 2024", "\n", "\n\n", " ", "We introduce ", "FooNet", ", a ", "method",
                 "{", "}", "[", "]", '"', ":", ",", '{"title": ', '"abstract": ', '"authors": ', '"venue": "X"',
                 '"year": 2025', "null", "1", "true", "\\", "$", "https://github.com/a/b", "\x00", "\ufeff", "\r\n"]


def mixed(tokens: list[str]) -> st.SearchStrategy[str]:
    """Arbitrary text, token soup, or both interleaved."""
    soup = st.lists(st.sampled_from(tokens), max_size=60).map("".join)
    return st.one_of(st.text(max_size=200), soup,
                     st.lists(st.one_of(st.sampled_from(tokens), st.text(max_size=8)), max_size=40).map("".join))


@pytest.fixture(scope="module")
def taxonomy():
    return load_taxonomy(REPO / "content" / "tags.yml")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# --- front matter and YAML -------------------------------------------------------------------

@FUZZ
@given(mixed(YAML_TOKENS))
def test_split_front_matter_returns_parts_or_site_error(text):
    try:
        front, body, line = split_front_matter(text, "x.md")
    except SiteError as err:
        assert all(p.path == "x.md" and p.line for p in err.problems)
        return
    assert isinstance(front, str) and isinstance(body, str) and line >= 3


FIELDS = ("id", "slug", "title", "title_source", "venue", "year", "tags", "code", "authors", "aliases", "body")


def one_field_changed() -> st.SearchStrategy[str]:
    """A valid page with one field's value (or the body) replaced by fuzz: validation, not parsing."""
    return st.tuples(st.sampled_from(FIELDS), mixed(YAML_TOKENS + MARKDOWN_TOKENS)).map(
        lambda change: paper_text(**{change[0]: change[1]}))


@FUZZ
@given(data=st.one_of(one_field_changed(), mixed(YAML_TOKENS).map(lambda t: f"---\n{t}\n---\nWe study reinforcement learning.\n"),
                      mixed(YAML_TOKENS)).map(lambda t: t.encode("utf-8", "surrogatepass")) | st.binary(max_size=300))
def test_load_paper_on_any_bytes_gives_a_paper_or_site_error(data, taxonomy, scratch):
    path = scratch / "page.md"
    path.write_bytes(data)
    report = Report()
    try:
        paper = load_paper(path, taxonomy, report)
    except SiteError as err:
        assert err.problems and all(p.path == str(path) for p in err.problems)
        return
    if paper is None:
        assert report.errors
    else:
        assert not report.errors
        assert SLUG_RE.match(paper.slug) and isinstance(paper.body, str) and paper.body.strip()
        assert all(tag in taxonomy.by_slug() for tag in paper.tags)


@FUZZ
@given(mixed(YAML_TOKENS))
def test_parse_yaml_gives_a_value_or_site_error(text):
    try:
        parse_yaml(text, "x.yml")
    except SiteError as err:
        assert all(p.path == "x.yml" and p.line for p in err.problems)


@FUZZ
@given(data=st.one_of(mixed(YAML_TOKENS), st.just("a: &a [*a]\nb: *a\n")).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_config_and_taxonomy_on_any_text_give_a_value_or_site_error(data, scratch):
    path = scratch / "x.yml"
    path.write_bytes(data)
    for load in (load_config, load_taxonomy):
        try:
            load(path)
        except SiteError:
            pass


@FUZZ
@given(st.binary(max_size=300))
def test_decode_text_gives_text_or_site_error(data):
    try:
        text = decode_text(data, "x")
    except SiteError as err:
        assert "not valid UTF-8" in str(err)
        return
    assert "\r" not in text


def test_yaml_alias_bomb_and_deep_nesting_are_quick_errors_or_values():
    """An alias bomb must not take exponential time; deep nesting must not raise RecursionError."""
    bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i, name in enumerate("bcdefghi"):
        bomb.append(f"{name}: &{name} [" + ",".join([f"*{'abcdefghi'[i]}"] * 9) + "]")
    parse_yaml("\n".join(bomb), "bomb.yml")
    parse_yaml("a: &a [*a]\n", "loop.yml")
    for deep in ("[" * 5000 + "]" * 5000, "a: " + "{b: " * 3000 + "1" + "}" * 3000):
        with pytest.raises(SiteError, match="nested too deeply"):
            parse_yaml(deep, "deep.yml")


# --- LaTeX ----------------------------------------------------------------------------------

@FUZZ
@given(mixed(LATEX_TOKENS))
def test_latex_to_markdown_always_gives_text_and_warnings(text):
    markdown, warnings = latex_to_markdown(text)
    assert isinstance(markdown, str)
    assert all(isinstance(w, str) for w in warnings)


@FUZZ
@given(mixed(LATEX_TOKENS))
def test_math_to_text_and_flatten_markdown_always_give_text(text):
    assert isinstance(math_to_text(text), str)
    flat = flatten_markdown(text)
    assert isinstance(flat, str)


# --- titles and slugs -----------------------------------------------------------------------

@FUZZ
@given(st.text(max_size=300), st.integers(min_value=-5, max_value=80))
def test_slugify_is_always_a_valid_slug(text, max_len):
    slug = slugify(text, max_len)
    assert SLUG_RE.match(slug), slug
    assert len(slug) <= max(max_len, 1)


@FUZZ
@given(mixed(LATEX_TOKENS + MARKDOWN_TOKENS), st.one_of(st.none(), st.text(max_size=40)))
def test_derive_title_and_slug_always_valid(text, method):
    title = derive_title(text)
    assert isinstance(title, str) and title.strip() and len(title) <= 120
    slug = derive_slug(title, method)
    assert SLUG_RE.match(slug), slug


# --- Markdown -------------------------------------------------------------------------------

RENDERER = MarkdownRenderer()


def unsafe_html(html: str) -> list[str]:
    parser = Tags()
    parser.feed(html)
    parser.close()
    found = []
    for tag, attrs, _ in parser.tags:
        if tag in FORBIDDEN_ELEMENTS or tag in ("script", "img", "iframe", "svg", "form", "input", "button", "link", "meta"):
            found.append(f"<{tag}>")
        for name, value in attrs.items():
            if name.startswith("on") or name in ("style", "srcdoc"):
                found.append(f"<{tag} {name}>")
            if name in ("href", "src", "action", "xlink:href") and UNSAFE_SCHEME_RE.match(re.sub(r"[\x00-\x20]", "", value or "")):
                found.append(f"<{tag} {name}={value!r}>")
            if name == "href" and tag != "a":
                found.append(f"<{tag} href>")
    return found


@FUZZ
@given(mixed(MARKDOWN_TOKENS))
def test_markdown_renderer_never_emits_anything_that_runs(text):
    html, warnings = RENDERER.render(text)
    assert isinstance(html, str) and all(isinstance(w, str) for w in warnings)
    assert unsafe_html(html) == [], html
    inline, _ = RENDERER.render_inline(text)
    assert unsafe_html(inline) == [], inline


# --- importer -------------------------------------------------------------------------------

@FUZZ
@given(mixed(SOURCE_TOKENS))
def test_read_plain_gives_records_or_site_error(text):
    report = Report()
    try:
        records = read_plain(text, "x.txt", report)
    except SiteError as err:
        assert all(p.path == "x.txt" and p.line for p in err.problems)
        return
    assert records and all(r.abstract.strip() for r in records)
    assert all(1 <= r.line <= text.count("\n") + 2 for r in records)


def json_lines() -> st.SearchStrategy[str]:
    scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
    value = st.recursive(scalar, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)
    record = st.fixed_dictionaries({}, optional={"title": value | st.text(max_size=30), "abstract": value | st.text(max_size=60),
                                                 "authors": value, "keywords": value, "venue": value, "year": value,
                                                 "track": value, "source_id": value})
    line = st.one_of(record.map(json.dumps), value.map(json.dumps), st.text(max_size=40))
    return st.lists(line, max_size=6).map("\n".join)


@FUZZ
@given(st.one_of(json_lines(), mixed(SOURCE_TOKENS)))
def test_read_jsonl_gives_records_or_errors_with_lines(text):
    report = Report()
    try:
        records = read_jsonl(text, "x.jsonl", report)
    except SiteError as err:
        assert all(p.path == "x.jsonl" and p.line for p in err.problems)
        return
    lines = text.split("\n")
    assert all(p.path == "x.jsonl" and 1 <= p.line <= len(lines) for p in report.errors + report.warnings)
    for record in records:
        assert record.title and record.abstract and record.venue and isinstance(record.year, int)
