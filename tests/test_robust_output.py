"""Whatever the file system does, a build leaves the previous site or the new one, whole, and says why.

Issue 17's classes for the output: `--out` placed at, inside or above every input folder; a
symlinked `--out`; `--out` below a file; two builds into one `--out` at once (they take turns, the
second says it waits); a previous site deleted in the background while the next build runs; and a
write that fails after any number of bytes (a full disk, a read-only or failing folder), injected
into the one function every output byte goes through.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO, build_args, make_project, paper_text
from papersite import output

TIMEOUT = 120


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def leftovers(out: Path) -> list[str]:
    """Half-written trees beside `out` (a previous site still being deleted is not one)."""
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.tmp-") or p.name.startswith(f".{out.name}.old-"))


def edition(root: Path, number: int, count: int = 3) -> None:
    papers = root / "content" / "papers"
    for page in papers.glob("*.md"):
        page.unlink()
    for i in range(count):
        (papers / f"p{i}.md").write_text(paper_text(id=f"p-{i}", slug=f"paper-{i}", title=f"'Paper {i}, edition {number}'"),
                                         encoding="utf-8")


@pytest.fixture(scope="module")
def references(tmp_path_factory) -> dict[int, dict[str, bytes]]:
    """The site of each edition, built clean in a folder of its own."""
    sites = {}
    for number in (1, 2, 3):
        root = make_project(tmp_path_factory.mktemp(f"reference{number}") / "proj")
        edition(root, number)
        run = subprocess.run([sys.executable, "build.py", *build_args(root)], cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT)
        assert run.returncode == 0, run.stderr
        sites[number] = snapshot(root / "site")
    return sites


# --- where --out may be --------------------------------------------------------------------

def own_inputs(root: Path) -> dict[str, Path]:
    shutil.copytree(REPO / "templates", root / "templates")
    shutil.copytree(REPO / "static", root / "static")
    return {"content": root / "content", "papers": root / "content" / "papers", "templates": root / "templates",
            "static": root / "static", "lunr.js": REPO / "node_modules" / "lunr"}


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("relation", ["at", "inside", "above"])
@pytest.mark.parametrize("folder", ["content", "papers", "templates", "static", "lunr.js"])
def test_out_at_inside_or_above_an_input_folder_is_refused_and_touches_nothing(tmp_path, cli, folder, relation):
    root = make_project(tmp_path / "proj", {"a.md": paper_text()})
    target = own_inputs(root)[folder]
    out = {"at": target, "inside": target / "site", "above": target.parent}[relation]
    before = listing(target.parent)
    result = cli(*build_args(root)[:-2], "--out", out, "--templates", root / "templates", "--static", root / "static")
    assert result.code == 1 and "Traceback" not in result.err
    assert f"{out}: refusing to write the site" in result.err
    assert listing(target.parent) == before


@pytest.mark.parametrize("where", ["site", "../elsewhere/site", "content-site"])
def test_out_beside_the_inputs_is_accepted(tmp_path, cli, where):
    root = make_project(tmp_path / "proj", {"a.md": paper_text()})
    own_inputs(root)
    result = cli(*build_args(root)[:-2], "--out", root / where, "--templates", root / "templates", "--static", root / "static")
    assert result.code == 0, result.err
    assert (root / where / "papers" / "a-paper.html").is_file()


def test_out_below_a_file_is_a_message(tmp_path, cli):
    root = make_project(tmp_path / "proj", {"a.md": paper_text()})
    (root / "notes").write_text("mine")
    result = cli(*build_args(root)[:-2], "--out", root / "notes" / "site")
    assert result.code == 1 and "Traceback" not in result.err
    assert f"cannot write the site below {root / 'notes'}: it is a file, not a directory" in result.err
    assert (root / "notes").read_text() == "mine"


def test_a_symlinked_out_stays_a_link_to_the_site(tmp_path, cli, references):
    root = make_project(tmp_path / "proj")
    (root / "www").mkdir()
    (root / "site").symlink_to("www")
    for number in (1, 2):
        edition(root, number)
        result = cli(*build_args(root))
        assert result.code == 0, result.err
        assert (root / "site").is_symlink() and os.readlink(root / "site") == "www"
        assert snapshot(root / "www") == references[number]
    assert leftovers(root / "www") == []


# --- builds at once -------------------------------------------------------------------------

def start(root: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "build.py", *build_args(root)], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for_line(process: subprocess.Popen, text: str) -> str:
    """Read stderr until a line holds `text` (bounded by the process ending)."""
    seen = []
    for line in process.stderr:
        seen.append(line)
        if text in line:
            return "".join(seen)
    raise AssertionError(f"never printed {text!r}: {''.join(seen)}")


def test_two_builds_into_one_out_take_turns_and_both_succeed(tmp_path, references):
    """Both start while a third holds the lock (so they truly overlap): each says it waits, then
    both finish, and the site is the clean build's, with no tree of either left beside it."""
    root = make_project(tmp_path / "proj")
    edition(root, 1)
    lock = os.open(tmp_path / "proj" / ".site.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(lock, fcntl.LOCK_EX)
    builds = [start(root), start(root)]
    try:
        said = [wait_for_line(build, "is running; waiting for it to finish") for build in builds]
    finally:
        os.close(lock)
    results = [build.communicate(timeout=TIMEOUT) for build in builds]
    for build, text, (_, err) in zip(builds, said, results):
        assert build.returncode == 0, text + err
        assert "Traceback" not in text + err
    assert snapshot(root / "site") == references[1]
    assert leftovers(root / "site") == []


def test_a_previous_site_deleted_in_the_background_never_touches_the_next_build(tmp_path, references):
    """Builds back to back: each one's previous site is still being deleted as the next starts."""
    root = make_project(tmp_path / "proj")
    for number in (1, 2, 3, 1, 2):
        edition(root, number)
        run = subprocess.run([sys.executable, "build.py", *build_args(root)], cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT)
        assert run.returncode == 0, run.stderr
        assert snapshot(root / "site") == references[number]
        assert leftovers(root / "site") == []


# --- writes that fail -----------------------------------------------------------------------

class FailingDisk:
    """Writes up to `budget` bytes, then raises OSError(`code`) as a full or failing disk would."""

    def __init__(self, budget: int, code: int):
        self.budget, self.code, self.lock = budget, code, threading.Lock()
        self.written = 0

    def __call__(self, path: str, data: bytes) -> None:
        with self.lock:
            room = self.budget - self.written
            self.written += min(len(data), max(room, 0))
        with open(path, "wb") as f:
            f.write(data[:max(room, 0)])
        if room < len(data):
            raise OSError(self.code, os.strerror(self.code), path)


ERRNOS = [errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS, errno.EIO]


@pytest.fixture(scope="module")
def site_bytes(references) -> int:
    return sum(len(data) for data in references[2].values())


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(fraction=st.floats(min_value=0, max_value=1.05), code=st.sampled_from(ERRNOS))
def test_a_write_failing_after_any_number_of_bytes_leaves_the_previous_site(
        tmp_path_factory, monkeypatch, cli, references, site_bytes, fraction, code):
    root = make_project(tmp_path_factory.mktemp("disk") / "proj")
    edition(root, 1)
    assert cli(*build_args(root, "--jobs", "1")).code == 0
    edition(root, 2)
    disk = FailingDisk(int(site_bytes * fraction), code)
    with monkeypatch.context() as patch:
        patch.setattr(output, "write_file", disk)
        result = cli(*build_args(root, "--jobs", "1"))
    assert "Traceback" not in result.err
    if result.code == 0:
        assert snapshot(root / "site") == references[2]
    else:
        assert result.code == 1
        assert f"{root / 'site'}: cannot write the site: {os.strerror(code)}" in result.err
        assert "the previous site is as it was" in result.err
        assert snapshot(root / "site") == references[1]
    assert leftovers(root / "site") == []
    assert cli(*build_args(root, "--jobs", "1")).code == 0      # and the next build, with room, succeeds
    assert snapshot(root / "site") == references[2]
