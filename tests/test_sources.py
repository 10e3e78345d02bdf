"""Which reader a source gets (extension, content, --format), and what a broken source of each format reports.

Each folder of fixtures/sources/broken holds one broken source and expected.txt: the lines the
import must print (path:line messages, relative to the folder, and its summary line).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import make_project, paper_text
from papersite.ingest.sources import detect_format
from support.imported import SOURCES, pages_by_title

BROKEN = SOURCES / "broken"
CASES = sorted(p.name for p in BROKEN.iterdir() if (p / "expected.txt").is_file())
JSONL_RECORD = {"title": "Graph Transformers", "abstract": "We study graph transformers on molecules.", "venue": "ICML", "year": 2024}


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name, text, expected", [
    ("library.bib", "anything", "bibtex"),
    ("papers.csv", "anything", "csv"),
    ("papers.tsv", "anything", "tsv"),
    ("query.xml", "anything", "arxiv"),
    ("notes.json", '{"notes": []}', "openreview"),
    ("notes.json", '[{"id": "a", "content": {}}]', "openreview"),
    ("notes.jsonl", '{"id": "a", "content": {"title": {"value": "T"}}}\n{"id": "b", "content": {}}\n', "openreview"),
    ("arxiv-metadata-oai-snapshot.json", '{"id": "0704.0001", "versions": []}\n{"id": "0704.0002", "versions": []}\n', "arxiv-snapshot"),
    ("papers.json", json.dumps(JSONL_RECORD) + "\n" + json.dumps(JSONL_RECORD) + "\n", "jsonl"),
    ("papers.json", "", "jsonl"),
    ("papers.jsonl", json.dumps(JSONL_RECORD) + "\n", "jsonl"),
    ("export.txt", "% exported\n@article{a, title = {T}}\n", "bibtex"),
    ("export.txt", '<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom"/>\n', "arxiv"),
    ("export.txt", "Paper Title,Abstract,Authors\nT,A,B\n", "csv"),
    ("export", "Title\tAbstract\nT\tA\n", "tsv"),
    ("export.txt", '[{"id": "a", "content": {}}]', "openreview"),
    ("abstracts.txt", "NeurIPS 2025 Papers\n\nWe study things, and more things.\n", "text"),
])
def test_format_from_extension_then_content(name, text, expected):
    assert detect_format(Path(name), text).name == expected


def test_a_json_file_of_json_lines_imports_its_records_not_one_page_of_text(project, cli, tmp_path):
    """The issue's first report: a .json of JSON Lines was read as plain text, one garbage page."""
    source = tmp_path / "papers.json"
    source.write_text("\n".join(json.dumps({**JSONL_RECORD, "title": f"Paper {n}"}) for n in range(3)) + "\n")
    result = cli("import", source, "--content", project / "content")
    assert result.code == 0, result.err
    assert "as JSON Lines of papersite records" in result.out and "import: 3 added" in result.out
    assert sorted(pages_by_title(project / "content")) == ["Paper 0", "Paper 1", "Paper 2"]


def test_format_flag_reads_a_file_as_the_format_it_names(project, cli, tmp_path):
    source = tmp_path / "export.txt"
    source.write_text((SOURCES / "easychair.tsv").read_text())
    result = cli("import", source, "--content", project / "content", "--format", "tsv")
    assert result.code == 0 and "as TSV (tab-separated)" in result.out and "import: 2 added" in result.out
    wrong = tmp_path / "notes.csv"
    wrong.write_text((SOURCES / "openreview-v2.json").read_text())
    result = cli("import", wrong, "--content", project / "content", "--format", "openreview", "--force")
    assert "import: 1 added, 1 replaced (--force)" in result.out   # the TSV had one of its two papers
    result = cli("import", SOURCES / "library.bib", "--content", project / "content", "--format", "arxiv")
    assert result.code == 1 and "not well-formed XML" in result.err and "nothing was written" in result.err


@pytest.mark.parametrize("case", CASES)
def test_broken_source_reports_path_and_line(case, tmp_path, cli):
    root = make_project(tmp_path / "proj", {"kept.md": paper_text(id="hand-0001", slug="kept", title="Hand edited")})
    content = root / "content"
    [source] = [p for p in (BROKEN / case).iterdir() if p.name != "expected.txt"]
    before = snapshot(content)
    result = cli("import", source, "--content", content)
    assert result.code == 1, result
    assert "Traceback" not in result.err
    for expected in (BROKEN / case / "expected.txt").read_text(encoding="utf-8").splitlines():
        wanted = expected if expected.startswith("import:") else f"{BROKEN / case}/{expected}"
        assert wanted in result.out + result.err, f"{case}: expected {wanted!r} in:\n{result.out}{result.err}"
    after = snapshot(content)
    assert after["papers/kept.md"] == before["papers/kept.md"]
    if "nothing was written" in result.err:
        assert after == before
    else:
        assert "the others were imported" in result.err and len(after) > len(before)
