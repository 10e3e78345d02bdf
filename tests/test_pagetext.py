"""The import digest: a page as import wrote it is told apart from one anybody changed, by a byte."""

from __future__ import annotations

import re

import pytest
import yaml

from papersite.ingest.pagetext import import_state, scan_pages, signed_page

FRONT = {"id": "icml2024-a", "slug": "graph-transformers", "title": "Graph Transformers", "title_source": "given",
         "venue": "ICML", "year": 2024, "tags": ["graph-learning"], "code": [], "authors": ["Ada Lovelace"],
         "links": {"doi": "10.5555/gt.1"}, "aliases": []}


def test_the_digest_is_the_last_front_matter_line_and_matches_the_page():
    text = signed_page(FRONT, "We study graph transformers.")
    lines = text.split("\n")
    assert lines[lines.index("---", 1) - 1].startswith("import_digest: ")
    assert import_state(text) == "unedited"
    assert signed_page(FRONT, "We study graph transformers.") == text   # the same page, the same bytes


@pytest.mark.parametrize("edit", [
    lambda t: t.replace("We study", "We now study"),
    lambda t: t.replace("[graph-learning]", "[graph-learning, robustness]"),
    lambda t: t.replace("title: Graph Transformers", "title: Graph transformers"),
    lambda t: t + "\n",
    lambda t: re.sub(r"import_digest: [0-9a-f]{32}", "import_digest: " + "f" * 32, t),
])
def test_any_change_is_an_edit(edit):
    assert import_state(edit(signed_page(FRONT, "We study graph transformers."))) == "edited"


def test_a_page_without_the_digest_is_unrecorded():
    text = signed_page(FRONT, "Body.")
    unsigned = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("import_digest:"))
    assert import_state(unsigned) == "unrecorded"
    # In the abstract, the line records nothing.
    assert import_state(unsigned + "import_digest: " + "0" * 32 + "\n---\n") == "edited"


def test_the_pages_an_import_finds_are_those_the_build_reads_each_as_yaml_reads_it(tmp_path):
    """The import's own one-line forms are read without a YAML parser (inputs/plainyaml.py), any
    other front matter with one, to the same values; a hidden file (an editor's, a page set aside)
    is no page, as the build has it."""
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "graph-transformers.md").write_text(signed_page(FRONT, "We study graph transformers."), encoding="utf-8")
    by_hand = "id: by-hand\ntitle: >\n  A folded\n  title\nauthors:\n  - Ada Lovelace  # first\n"
    (papers / "by-hand.md").write_text(f"---\n{by_hand}---\nBody.\n", encoding="utf-8")
    (papers / ".draft.md").write_text(signed_page({**FRONT, "id": "draft"}, "A draft."), encoding="utf-8")
    found = scan_pages(papers)
    assert [page.path.name for page in found] == ["by-hand.md", "graph-transformers.md"]
    assert found[0].front == yaml.safe_load(by_hand) and found[0].state == "unrecorded"
    signed = found[1].text.split("---\n")[1]
    assert found[1].front == yaml.safe_load(signed) and found[1].state == "unedited" and found[1].id == "icml2024-a"
