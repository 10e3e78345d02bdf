"""Whatever happens while it writes, an import adds every page it reports, or none, and never overwrites one.

Issue 17's classes for `import`: two imports into one content folder at once (they take turns,
so each sees the other's pages: nothing is overwritten or counted twice); a write that fails after
any number of bytes (a full disk, a read-only folder), injected into the one function every page
goes through (nothing is imported, no page is changed, no temporary file is left); and records
the build would refuse (a year out of range) are reported at their line, not written.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, build_args, make_project
from papersite.ingest import importer

TIMEOUT = 180


def source(path: Path, count: int, author: str) -> Path:
    """`count` papers with titles of their own; `author` makes two sources' papers different papers with the same titles."""
    lines = [json.dumps({"title": f"A study of case {i} in reinforcement learning", "authors": [author],
                         "abstract": f"We study case {i} of reinforcement learning and report regret bounds.",
                         "venue": "NeurIPS", "year": 2025, "source_id": f"{author.split()[-1].lower()}-{i}"})
             for i in range(count)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def pages(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "content" / "papers").iterdir())}


def start(root: Path, src: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "build.py", "import", str(src), "--content", str(root / "content"), *extra],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_line(process: subprocess.Popen, text: str) -> str:
    seen = []
    for line in process.stderr:
        seen.append(line)
        if text in line:
            return "".join(seen)
    raise AssertionError(f"never printed {text!r}: {''.join(seen)}")


def held_lock(root: Path) -> int:
    """Take the lock an import takes (its papers/ folder), so imports started now truly overlap."""
    fd = os.open(root / "content" / "papers", os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


@pytest.mark.parametrize("same_source", [True, False])
def test_two_imports_at_once_take_turns_and_lose_no_page(tmp_path, same_source):
    """The same source twice: one adds every paper, the other skips them all. Two sources with
    the same titles by other authors: every paper gets a page of its own (the second a `-2` slug)."""
    count = 300
    root = make_project(tmp_path / "proj")
    first = source(tmp_path / "a.jsonl", count, "Ada Lovelace")
    second = first if same_source else source(tmp_path / "b.jsonl", count, "Alan Turing")
    lock = held_lock(root)
    imports = [start(root, first), start(root, second)]
    try:
        said = [wait_for_line(process, "is running; waiting for it to finish") for process in imports]
    finally:
        os.close(lock)
    outputs = [process.communicate(timeout=TIMEOUT) for process in imports]
    for process, text, (out, err) in zip(imports, said, outputs):
        assert process.returncode == 0, text + err
    summaries = sorted(next(line for line in out.splitlines() if line.startswith("import: ") and "added" in line)
                       for out, _ in outputs)
    written = pages(root)
    if same_source:
        assert summaries == [f"import: 0 added, {count} skipped (already imported), 0 failed",
                             f"import: {count} added, 0 skipped (already imported), 0 failed"]
        assert len(written) == count
    else:
        assert summaries == [f"import: {count} added, 0 skipped (already imported), 0 failed"] * 2
        assert len(written) == 2 * count
        authors = [text.decode().count("Ada Lovelace") for text in written.values()]
        assert sorted(authors) == [0] * count + [1] * count
    assert not [name for name in written if name.startswith(".")]
    build = subprocess.run([sys.executable, "build.py", *build_args(root)], cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT)
    assert build.returncode == 0, build.stderr


class FailingDisk:
    """Writes up to `budget` bytes, then raises OSError(`code`)."""

    def __init__(self, budget: int, code: int):
        self.budget, self.code, self.written = budget, code, 0

    def __call__(self, path: Path, data: bytes) -> None:
        room = max(self.budget - self.written, 0)
        self.written += min(len(data), room)
        Path(path).write_bytes(data[:room])
        if room < len(data):
            raise OSError(self.code, os.strerror(self.code), str(path))


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(fraction=st.floats(min_value=0, max_value=1.05), mode=st.sampled_from(["new", "--force"]),
       code=st.sampled_from([errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS, errno.EIO]))
def test_a_write_failing_after_any_number_of_bytes_imports_all_or_nothing(tmp_path_factory, monkeypatch, cli, fraction, mode, code):
    base = tmp_path_factory.mktemp("disk")
    root = make_project(base / "proj")
    src = source(base / "papers.jsonl", 40, "Ada Lovelace")
    if mode == "--force":   # pages already there, each to be replaced
        assert cli("import", src, "--content", root / "content").code == 0
    before = pages(root)
    size = 40 * 900
    with monkeypatch.context() as patch:
        patch.setattr(importer, "write_file", FailingDisk(int(size * fraction), code))
        result = cli("import", src, "--content", root / "content", *([mode] if mode != "new" else []))
    assert "Traceback" not in result.err
    after = pages(root)
    assert not [name for name in after if name.startswith(".")]
    if result.code == 0:
        assert len(after) == 40
        return
    assert result.code == 1
    assert f"{root / 'content' / 'papers'}: cannot write the pages: {os.strerror(code)}; nothing was imported, no page was changed" in result.err
    assert after == before


def test_a_page_that_appears_while_importing_is_left_alone(tmp_path, cli, monkeypatch):
    """Written by hand (or by a tool that takes no lock) between planning and writing: not overwritten."""
    root = make_project(tmp_path / "proj")
    src = source(tmp_path / "papers.jsonl", 3, "Ada Lovelace")
    plan = importer.plan_import

    def plan_then_someone_writes(records, papers_dir, *args):
        writes, summary = plan(records, papers_dir, *args)
        writes[1].path.write_text("mine")
        return writes, summary

    monkeypatch.setattr(importer, "plan_import", plan_then_someone_writes)
    result = cli("import", src, "--content", root / "content")
    assert result.code == 1
    assert "this file appeared while importing: left as it is, the record not imported" in result.err
    assert "import: 2 added" in result.out
    written = pages(root)
    assert len(written) == 3 and b"mine" in written.values()


def test_years_the_build_refuses_are_errors_at_their_line_and_not_written(tmp_path, cli):
    root = make_project(tmp_path / "proj")
    src = tmp_path / "papers.jsonl"
    records = [{"title": f"Paper {year}", "abstract": f"We study case {year} of bandit regret.", "venue": "ICML", "year": year}
               for year in (99999, -5, 2024)]
    src.write_text("\n".join(json.dumps(record) for record in records) + "\n", encoding="utf-8")
    result = cli("import", src, "--content", root / "content")
    assert result.code == 1
    assert f"{src}:1: the year must be a four-digit year from 1900 to 2100, got a number 99999" in result.err
    assert f"{src}:2: the year must be a four-digit year from 1900 to 2100, got a number -5" in result.err
    assert "import: 1 added" in result.out
    assert cli(*build_args(root)).code == 0


def test_texts_the_build_would_refuse_are_errors_at_their_line_and_not_written(tmp_path, cli):
    root = make_project(tmp_path / "proj")
    src = tmp_path / "papers.jsonl"
    abstracts = ["[" * 40 + " open brackets", "\\frac{" * 40 + "x", "\u200b\u200d\u202e", "We study bandit regret."]
    src.write_text("\n".join(json.dumps({"title": f"Paper {i}", "abstract": text, "venue": "ICML", "year": 2024})
                             for i, text in enumerate(abstracts)) + "\n", encoding="utf-8")
    result = cli("import", src, "--content", root / "content")
    assert result.code == 1 and "Traceback" not in result.err
    assert f"{src}:1: the abstract nests too deeply: square brackets" in result.err
    assert f"{src}:2: " in result.err
    assert f"{src}:3: " in result.err
    assert "import: 1 added" in result.out
    assert cli(*build_args(root)).code == 0
