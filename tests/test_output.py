"""Writing the site: a new tree beside the output, swapped in whole; refusal to wipe what is not ours."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

import pytest

from papersite import urls
from papersite.errors import SiteError
from papersite.output import Staging, check_output_target, temp_siblings, trash_siblings


def write_site(out: Path, files: dict[str, str]) -> None:
    with Staging(out) as staging:
        for name, text in files.items():
            staging.write(name, text)
        staging.commit()


def test_a_committed_tree_replaces_the_previous_output_whole(tmp_path):
    out = tmp_path / "site"
    write_site(out, {"a.html": "one", "sub/b.html": "two"})
    write_site(out, {"a.html": "three"})
    assert (out / "a.html").read_text() == "three"
    assert not (out / "sub").exists()
    assert (out / urls.MARKER).is_file()
    assert temp_siblings(out) == []


def test_a_failed_build_leaves_the_previous_output_and_no_temp(tmp_path):
    out = tmp_path / "site"
    write_site(out, {"a.html": "one"})
    with pytest.raises(RuntimeError), Staging(out) as staging:
        staging.write("a.html", "two")
        raise RuntimeError("a stage failed")
    assert (out / "a.html").read_text() == "one"
    assert temp_siblings(out) == []


def test_linked_files_are_the_previous_outputs_own_and_survive_the_swap(tmp_path):
    out = tmp_path / "site"
    write_site(out, {"kept.html": "kept", "gone.html": "gone"})
    inode = (out / "kept.html").stat().st_ino
    with Staging(out) as staging:
        assert staging.link("kept.html", str(out / "kept.html"))
        staging.write("new.html", "new")
        staging.commit()
    assert (out / "kept.html").read_text() == "kept" and (out / "kept.html").stat().st_ino == inode
    assert sorted(p.name for p in out.iterdir()) == sorted(["kept.html", "new.html", urls.MARKER])


def test_stale_temp_directories_are_removed(tmp_path):
    out = tmp_path / "site"
    stale = tmp_path / ".site.tmp-99999"
    stale.mkdir()
    (stale / "half.html").write_text("x")
    write_site(out, {"a.html": "one"})
    assert not stale.exists()


def test_the_previous_site_is_deleted_after_the_swap(tmp_path):
    out = tmp_path / "site"
    write_site(out, {f"p/{i}.html": "old" for i in range(500)})
    write_site(out, {"a.html": "new"})
    wait_for_removers(out)
    assert trash_siblings(out) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def wait_for_removers(out, seconds=30):
    """Previous sites are deleted in the background: wait (up to `seconds`) until none is left."""
    deadline = time.monotonic() + seconds
    while trash_siblings(out) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_previous_site_still_being_deleted_is_left_to_its_remover(tmp_path):
    """A build soon after another does not wait to delete the tree the first one's remover is deleting."""
    out = tmp_path / "site"
    write_site(out, {"a.html": "one"})
    trash = tmp_path / ".site.trash-1-abcd"
    (trash / "p").mkdir(parents=True)
    (trash / "p" / "old.html").write_text("old")
    remover = os.open(trash, os.O_RDONLY)
    fcntl.flock(remover, fcntl.LOCK_EX)
    try:
        write_site(out, {"a.html": "two"})
        assert (trash / "p" / "old.html").is_file()
    finally:
        os.close(remover)   # as when the remover is killed half-way
    write_site(out, {"a.html": "three"})   # hands the abandoned tree to a remover of its own
    wait_for_removers(out)
    assert not trash.exists()
    assert (out / "a.html").read_text() == "three"


@pytest.mark.parametrize("make", ["foreign", "content", "root", "slash"])
def test_refuses_targets_that_are_not_previous_output(tmp_path, make):
    content = tmp_path / "content"
    content.mkdir()
    (content / "x.md").write_text("keep me")
    target = {
        "foreign": tmp_path / "docs",
        "content": content,
        "root": tmp_path,
        "slash": Path("/"),
    }[make]
    if make == "foreign":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    with pytest.raises(SiteError, match="refusing"):
        check_output_target(target, [content, tmp_path])
    assert (content / "x.md").read_text() == "keep me"


def test_empty_directory_and_previous_output_are_accepted(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    check_output_target(empty, [])
    write_site(tmp_path / "site", {"a.html": "x"})
    check_output_target(tmp_path / "site", [])
