"""The front matter read without a YAML parser (papersite/inputs/plainyaml.py) reads as YAML does, or not at all."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.imported import front_matters

from papersite.errors import Report, SiteError
from papersite.inputs.papers import load_content, split_front_matter
from papersite.inputs.plainyaml import read_simple
from papersite.inputs.yamlsrc import FastLoader, SlowLoader, load_document, parse_yaml

REPO = Path(__file__).resolve().parent.parent


def yaml_value(text: str):
    """What both YAML loaders read from `text` (they agree: tests/test_scale.py)."""
    values = [load_document(loader, text)[1] for loader in (FastLoader, SlowLoader)]
    assert values[0] == values[1]
    return values[0]


def same(simple, value) -> bool:
    """Equal, with the same types and keys in the same order: 2015 is not "2015", a date not its text."""
    if isinstance(simple, dict):
        return (isinstance(value, dict) and list(simple) == list(value)
                and all(same(simple[key], value[key]) for key in simple))
    if isinstance(simple, list):
        return isinstance(value, list) and len(simple) == len(value) and all(map(same, simple, value))
    return type(simple) is type(value) and simple == value


def test_what_import_writes_is_read_without_yaml_as_yaml_reads_it():
    text = ("id: neurips2025-0008\nslug: aapt\ntitle: 'AAPT: Autoregressive adversarial post-training'\n"
            "title_source: derived\nvenue: NeurIPS\nyear: 2025\nadded: 2026-12-02\n"
            "tags: [video-generation, generative-models]\ncode: []\nauthors: [Shanchuan Lin, Ceyuan Yang]\n"
            "links: {}\naliases: []\nimport_digest: 152f6a8f314b9d2b5f164308212a6c17")
    simple = read_simple(text)
    assert simple == {"id": "neurips2025-0008", "slug": "aapt", "title": "AAPT: Autoregressive adversarial post-training",
                      "title_source": "derived", "venue": "NeurIPS", "year": 2025, "added": datetime.date(2026, 12, 2),
                      "tags": ["video-generation", "generative-models"], "code": [],
                      "authors": ["Shanchuan Lin", "Ceyuan Yang"], "links": {}, "aliases": [],
                      "import_digest": "152f6a8f314b9d2b5f164308212a6c17"}
    assert same(simple, yaml_value(text))


def test_plain_text_yaml_reads_as_text_is_text():
    # "2025-2-3" is no date to YAML (a date has two-digit months and days), nor is it here.
    for value in ["C# and \\alpha, [x] {y}", "O'Brien", "3D shapes", "1e5", "x - y ? z", "Ünïcödé — naïve", "a\u00a0", "2025-2-3"]:
        text = f"title: {value}"
        assert read_simple(text) == {"title": value}, value
        assert same(read_simple(text), yaml_value(text)), value


def test_quoted_text_keeps_its_spaces_and_doubled_quotes():
    text = "title: '  it''s: #1  '"
    assert read_simple(text) == {"title": "  it's: #1  "}
    assert same(read_simple(text), yaml_value(text))


def test_anything_else_is_left_to_yaml():
    left = [
        "", "title: x\n", "title: x\n\nslug: y", "# comment\ntitle: x", "title: x # comment", "title: x ",
        "title:  x", "title:", "Title: x", "on: x", "title: yes", "title: null", "title: ~", "title: 1.5",
        "year: 0x7e9", "year: 2_025", "year: +2025", "added: 2025-02-30",
        "added: 2025-02-03 10:00", "title: a: b", "title: -x", "title: *alias", "title: !!str x", "title: \"x\"",
        "title: 'unclosed", "title: 'it's'", "title: a\tb", "title: x\ry", "title: a\u2028b", "title: a\x85b",
        "tags: [a,b]", "tags: [a , b]", "tags: [ a]", "tags: [a, ]", "tags: ['a', b]", "tags: [a, [b]]",
        "tags: [a: b]", "tags: [yes]", "tags: [1]", "tags: [a, b", "links: {doi: x}", "tags:\n  - a",
        "title: x\ntitle: y", "title: <<", "title: =",
    ]
    for text in left:
        assert read_simple(text) is None, repr(text)


def test_every_shipped_page_and_fixture_reads_the_same_both_ways():
    read = 0
    for text in front_matters(REPO / "content" / "papers"):
        simple = read_simple(text)
        if simple is not None:
            read += 1
            assert same(simple, yaml_value(text)), text
    assert read >= len(list((REPO / "content" / "papers").glob("*.md")))   # every shipped page is read so


TOKENS = ["id", "title", "year", "added", "tags", ": ", "\n", " ", "x", "Yes", "null", "~", "2025", "2025-02-03",
          "2025-02-30", "0x1", "1.5", "1_0", "'", "''", "\"", "[", "]", "{", "}", ", ", ",", ":", "#", " #", "-", "?",
          "*", "&", "!", "|", ">", "%", "@", "`", "<<", "=", "\t", "\r", "\\", "\u00a0", "\u2028", "\x85", "\ufeff",
          "é", "—", "𝑥"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join))
def test_whatever_it_reads_yaml_reads_the_same(text):
    simple = read_simple(text)
    if simple is not None:
        assert same(simple, yaml_value(text)), repr(text)


def test_a_message_about_a_page_read_without_yaml_names_its_line(tmp_path):
    content = tmp_path / "content"
    (content / "papers").mkdir(parents=True)
    (content / "tags.yml").write_bytes((REPO / "content" / "tags.yml").read_bytes())
    (content / "papers" / "x.md").write_text(
        "---\nid: x1\nslug: x\ntitle: A title\nvenue: V\nyear: 2025\ntitle_source: guessed\ntags: [reinforcement-learning]\n---\nText.\n",
        encoding="utf-8")
    front = split_front_matter((content / "papers" / "x.md").read_text(encoding="utf-8"), "x.md")[0]
    assert read_simple(front) is not None
    assert parse_yaml(front, "x.md", first_line=2).parsed is None   # no YAML parse until a line is asked for
    report = Report()
    load_content(content, report)
    assert [(Path(p.path).name, p.line) for p in report.errors] == [("x.md", 7)]
    assert "'title_source' must be one of" in report.errors[0].message


def test_yaml_errors_keep_their_lines():
    with pytest.raises(SiteError) as raised:
        parse_yaml("title: x\ntitle: y", "p.md", first_line=2)
    assert [(p.line, p.message) for p in raised.value.problems] == [(3, "duplicate key 'title'")]
    assert isinstance(parse_yaml("tags:\n  - a", "p.md").node, yaml.MappingNode)
