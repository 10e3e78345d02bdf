"""The import digest: a page as import wrote it is told apart from one anybody changed, by a byte."""

from __future__ import annotations

import re

import pytest
import yaml

from papersite.ingest import pagetext
from papersite.ingest.pagetext import import_state, read_page, scan_pages, signed_page

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
    front, text = read_page(found[0].path)
    assert front == yaml.safe_load(by_hand) and import_state(text) == "unrecorded"
    front, text = read_page(found[1].path)
    assert front == yaml.safe_load(text.split("---\n")[1]) and import_state(text) == "unedited" and found[1].id == "icml2024-a"
    assert found[1].identities and found[1].names == ("graph-transformers", FRONT["slug"], *FRONT.get("aliases", ()))


def test_pages_read_on_workers_are_those_read_in_one_process(tmp_path, monkeypatch):
    # A large site's pages are read on workers (at 100,000 pages the reading was most of an import).
    papers = tmp_path / "papers"
    papers.mkdir()
    for n in range(12):
        front = {**FRONT, "id": f"icml2024-{n}", "slug": f"paper-{n}", "title": f"Paper {n} on graphs"}
        (papers / f"paper-{n}.md").write_text(signed_page(front, f"Abstract {n}."), encoding="utf-8")
    (papers / "broken.md").write_text("---\nid: [unclosed\n---\nBody.\n", encoding="utf-8")
    alone = scan_pages(papers, jobs=1)
    monkeypatch.setattr(pagetext, "PARALLEL_PAGES", 2)
    assert scan_pages(papers, jobs=2) == alone
    assert [page.id for page in alone] == ["file:broken.md", *(f"icml2024-{n}" for n in (0, 1, 10, 11, *range(2, 10)))]
