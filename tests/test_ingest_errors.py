"""`import` of a broken source: exit 1 and `path:line: message` per problem. A source with no good
record changes nothing; the good records of one with bad ones are imported."""

from __future__ import annotations

import pytest

from conftest import make_project, paper_text, snapshot


GOOD = '{"title": "Fine", "abstract": "We study reinforcement learning in small worlds.", "venue": "NeurIPS", "year": 2025}'

# name -> (file name, bytes, expected `line: message` parts after the source path)
CASES = {
    "malformed-json-line": ("papers.jsonl", f'{GOOD}\n{{"title": "B", "abstract": broken}}\n'.encode(),
                            [":2: not valid JSON: Expecting value (column"]),
    "truncated-json-line": ("papers.jsonl", f'{GOOD}\n\n{GOOD[:30]}\n'.encode(),
                            [":3: not valid JSON"]),
    "non-object-lines": ("papers.jsonl", f'{GOOD}\n[1, 2]\n"text"\n42\nnull\n'.encode(),
                         [":2: each line must be a JSON object", ":3: each line must be a JSON object",
                          ":4: each line must be a JSON object", ":5: each line must be a JSON object"]),
    "missing-title": ("papers.jsonl", b'{"abstract": "We study things.", "venue": "NeurIPS", "year": 2025}\n',
                      [":1: 'title' must be non-empty text"]),
    "missing-abstract": ("papers.jsonl", b'{"title": "A title", "venue": "NeurIPS", "year": 2025}\n',
                         [":1: 'abstract' must be non-empty text"]),
    "blank-title-and-abstract": ("papers.jsonl", b'{"title": " ", "abstract": "", "venue": "NeurIPS", "year": 2025}\n',
                                 [":1: 'title' must be non-empty text", ":1: 'abstract' must be non-empty text"]),
    "authors-not-a-list": ("papers.jsonl", b'{"title": "T", "abstract": "A b.", "authors": "Ada", "venue": "X", "year": 2025}\n',
                           [":1: 'authors' must be a list of text"]),
    "no-venue-or-year": ("papers.jsonl", b'{"title": "T", "abstract": "We study things."}\n',
                         [":1: no venue/year"]),
    "deeply-nested-json": ("papers.jsonl", b"[" * 100_000 + b"]" * 100_000 + b"\n",
                           [":1: not valid JSON for a record: nested too deeply"]),
    "empty-jsonl": ("papers.jsonl", b"", [":1: the source has no records"]),
    "blank-jsonl": ("papers.jsonl", b"\n  \n\n", [":1: the source has no records"]),
    "non-utf8-jsonl": ("papers.jsonl", f"{GOOD}\n".encode() + b'{"title": "Caf\xe9", "abstract": "x"}\n',
                       [":2: not valid UTF-8 (byte 0xe9)"]),
    "empty-text": ("abstracts.txt", b"", [":1: the source is empty"]),
    "whitespace-only-text": ("abstracts.txt", b"  \n\n\t\n", [":1: the source is empty"]),
    "heading-only-text": ("abstracts.txt", b"NeurIPS 2025 Papers\n\n\n", [":1: the source has a heading but no abstracts"]),
    "heading-without-year": ("abstracts.txt", b"Some papers\n\nWe study things.\n", [":1: the heading 'Some papers' must name the venue and year"]),
    "non-utf8-text": ("abstracts.txt", b"NeurIPS 2025\n\nWe study caf\xe9 society.\n", [":3: not valid UTF-8 (byte 0xe9)"]),
    "utf16-text": ("abstracts.txt", "NeurIPS 2025\n\nWe study things.\n".encode("utf-16"), [":1: not valid UTF-8"]),
}


# Sources whose GOOD line still imports beside the broken ones; every other case writes nothing.
PARTLY_GOOD = {"malformed-json-line", "truncated-json-line", "non-object-lines"}


@pytest.fixture
def content(tmp_path):
    """A content dir with one hand-edited page, which no failed import may touch."""
    root = make_project(tmp_path / "proj", {"kept.md": paper_text(id="hand-0001", slug="kept", title="Hand edited")})
    return root / "content"


@pytest.mark.parametrize("case", sorted(CASES))
def test_broken_source_names_path_and_line(case, content, tmp_path, cli):
    name, data, expected = CASES[case]
    source = tmp_path / name
    source.write_bytes(data)
    before = snapshot(content)
    result = cli("import", source, "--content", content)
    assert result.code == 1, result
    for part in expected:
        assert f"{source}{part}" in result.err, f"{case}: expected {source}{part!r} in:\n{result.err}"
    assert "Traceback" not in result.err
    after = snapshot(content)
    if case in PARTLY_GOOD:
        assert "the others were imported" in result.err and "import: 1 added" in result.out
        assert {k: v for k, v in after.items() if k in before} == before and len(after) == len(before) + 1
    else:
        assert "nothing was written" in result.err
        assert after == before


def test_every_bad_line_is_reported_and_the_good_lines_import(content, tmp_path, cli):
    source = tmp_path / "mixed.jsonl"
    lines = [GOOD, "{broken", GOOD.replace("Fine", "Also fine"), "[]", '{"title": "x"}']
    source.write_text("\n".join(lines) + "\n")
    result = cli("import", source, "--content", content, "--venue", "NeurIPS", "--year", "2025")
    assert result.code == 1
    problems = [line for line in result.err.splitlines() if line.startswith(str(source))]
    assert [p.split(":")[1] for p in problems] == ["2", "4", "5"]
    assert "import: 3 records failed (above); the others were imported" in result.err
    assert "import: 2 added, 0 skipped (already imported), 3 failed" in result.out
    titles = sorted(p.read_text().split("title: ")[1].split("\n")[0] for p in (content / "papers").glob("*.md"))
    assert titles == ["Also fine", "Fine", "Hand edited"]


def test_missing_source_and_missing_taxonomy(content, tmp_path, cli):
    result = cli("import", tmp_path / "nope.jsonl", "--content", content)
    assert result.code == 1 and f"{tmp_path / 'nope.jsonl'}: source file not found" in result.err
    (content / "tags.yml").unlink()
    source = tmp_path / "ok.jsonl"
    source.write_text(GOOD + "\n")
    before = snapshot(content)
    result = cli("import", source, "--content", content)
    assert result.code == 1 and "tags.yml: tag taxonomy not found" in result.err
    assert snapshot(content) == before


def test_bom_and_crlf_sources_import(content, tmp_path, cli):
    source = tmp_path / "ok.jsonl"
    source.write_bytes(b"\xef\xbb\xbf" + GOOD.encode() + b"\r\n")
    result = cli("import", source, "--content", content)
    assert result.code == 0, result.err
    text = tmp_path / "ok.txt"
    text.write_bytes(b"\xef\xbb\xbfICML 2024 Papers\r\n\r\nWe introduce CRLFNet, a network for line endings.\r\n")
    result = cli("import", text, "--content", content)
    assert result.code == 0, result.err
    assert any("CRLFNet" in p.read_text() for p in (content / "papers").glob("*.md"))
