"""The import digest: a page as import wrote it is told apart from one anybody changed, by a byte."""

from __future__ import annotations

import re

import pytest

from papersite.ingest.pagetext import import_state, signed_page

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
