"""Writing the site: a new tree beside the output, swapped in whole or put in place as a patch; refusal to wipe what is not ours."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from papersite import output, urls
from papersite.errors import SiteError
from papersite.output import (
    Staging,
    check_output_target,
    patch_siblings,
    temp_siblings,
    trash_siblings,
)


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


def test_a_patch_writes_what_changed_and_deletes_what_is_gone_in_place(tmp_path):
    out = tmp_path / "site"
    write_site(out, {"kept.html": "kept", "changed.html": "old", "gone/page-2.html": "gone"})
    inode = (out / "kept.html").stat().st_ino
    with Staging(out) as staging:
        staging.write("changed.html", "new")
        staging.write("added/new.html", "added")
        staging.commit(removed={"gone/page-2.html"})
    assert (out / "kept.html").stat().st_ino == inode   # never rewritten
    assert snapshot(out) == {"kept.html": "kept", "changed.html": "new", "added/new.html": "added",
                             urls.MARKER: output.MARKER_TEXT.decode()}
    assert not (out / "gone").exists()   # the folder it leaves empty goes too
    assert temp_siblings(out) == [] and patch_siblings(out) == []


def test_a_deleted_file_takes_the_folders_it_leaves_empty_without_listing_any(tmp_path, monkeypatch):
    """Each folder above is asked to go, and the first that is not empty stays with those above it.
    No folder is listed: a folder of a large site holds 100,000 pages, and removing a proceedings
    volume's thousands of pages listed it once for each."""
    out = tmp_path / "site"
    write_site(out, {"a/b/c/page.html": "x", "a/other.html": "y", "papers/kept.html": "k", "papers/gone.html": "g"})

    def listed(*args):
        raise AssertionError("a folder was listed")

    with monkeypatch.context() as patching:
        patching.setattr(os, "listdir", listed)
        patching.setattr(os, "scandir", listed)
        output.remove_file(out, "a/b/c/page.html")
        output.remove_file(out, "papers/gone.html")
    assert snapshot(out) == {"a/other.html": "y", "papers/kept.html": "k", urls.MARKER: output.MARKER_TEXT.decode()}
    assert not (out / "a" / "b").exists()


def snapshot(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*") if p.is_file()}


def committed_patch(out: Path, files: dict[str, str], removed: set[str], monkeypatch) -> Path:
    """A patch committed but not yet put in place, as a build killed right after its commit leaves it."""
    with Staging(out) as staging, monkeypatch.context() as patching:
        for name, text in files.items():
            staging.write(name, text)
        patching.setattr(output, "apply_patch", lambda patch, out: None)
        staging.commit(removed=removed)
    [patch] = patch_siblings(out)
    return patch


@pytest.mark.parametrize("done", ["nothing", "the deletions", "the deletions and a file"])
def test_a_patch_a_kill_cut_short_is_finished_by_the_next_build(tmp_path, monkeypatch, done):
    out = tmp_path / "site"
    write_site(out, {"a.html": "one", "b.html": "two", "old/x.html": "x"})
    patch = committed_patch(out, {"a.html": "ONE", "new/y.html": "y"}, {"old/x.html"}, monkeypatch)
    if done != "nothing":   # how far the killed build got putting it in place
        (patch / output.PATCH_REMOVALS).unlink()
        output.remove_file(out, "old/x.html")
    if done == "the deletions and a file":
        os.replace(patch / "a.html", out / "a.html")
    output.recover_output(out)
    assert snapshot(out) == {"a.html": "ONE", "b.html": "two", "new/y.html": "y", urls.MARKER: output.MARKER_TEXT.decode()}
    assert patch_siblings(out) == []


@pytest.mark.parametrize("removed", [set(), None], ids=["patch", "whole tree"])
def test_ctrl_c_while_the_site_is_put_in_place_waits_until_it_is(tmp_path, monkeypatch, removed):
    """A patch that changes every page takes a second or two: Ctrl-C meanwhile would leave the
    site half old and half new until the next build. It waits, then interrupts."""
    out = tmp_path / "site"
    write_site(out, {"a.html": "one", "b.html": "one"})
    apply_patch, swap_in = output.apply_patch, output.swap_in

    def interrupted(put_in_place):
        def at_once(tree, out):
            os.kill(os.getpid(), signal.SIGINT)   # Ctrl-C as the first file is put in place
            put_in_place(tree, out)
        return at_once

    monkeypatch.setattr(output, "apply_patch", interrupted(apply_patch))
    monkeypatch.setattr(output, "swap_in", interrupted(swap_in))
    # Python's own Ctrl-C, as a terminal starts the build (a test run in the background ignores it).
    found = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(output.InterruptedAfterCommit), Staging(out) as staging:
            staging.write("a.html", "two")
            staging.write("b.html", "two")
            staging.commit(removed=removed)
        # Ctrl-C is the user's again: the handler the build found is back.
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, found)
    assert snapshot(out) == {"a.html": "two", "b.html": "two", urls.MARKER: output.MARKER_TEXT.decode()}
    assert patch_siblings(out) == [] and temp_siblings(out) == []


def test_a_patch_for_a_site_deleted_since_is_dropped(tmp_path, monkeypatch):
    out = tmp_path / "site"
    write_site(out, {"a.html": "one"})
    committed_patch(out, {"a.html": "two"}, set(), monkeypatch)
    shutil.rmtree(out)
    output.recover_output(out)
    assert not out.exists() and patch_siblings(out) == []


def test_a_patch_deletes_links_and_empty_folders_without_following_a_link(tmp_path):
    """What was put in the site by hand goes as a clean build would leave it; a link to a folder
    elsewhere is deleted as a link, and nothing in that folder is touched."""
    out, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    write_site(out, {"a.html": "one"})
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("mine")
    (out / "data").symlink_to(elsewhere)
    (out / "empty" / "deeper").mkdir(parents=True)
    with Staging(out) as staging:
        staging.write("a.html", "two")
        staging.commit(removed={"data", "empty/deeper/"})
    assert sorted(p.name for p in out.iterdir()) == sorted(["a.html", urls.MARKER])
    assert (elsewhere / "mine.txt").read_text() == "mine"


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


def test_a_mount_point_is_refused_with_a_folder_inside_it_offered(tmp_path, monkeypatch):
    """The new site is made beside --out and renamed in, which cannot cross file systems: a mount
    point as --out (a Docker volume, a tmpfs) would fail halfway through the first patch."""
    mounted = tmp_path / "volume"
    mounted.mkdir()
    is_mount = os.path.ismount
    monkeypatch.setattr(os.path, "ismount", lambda path: Path(path) == mounted or is_mount(path))
    with pytest.raises(SiteError, match=f"--out is a mount point .* choose a folder inside it, such as {mounted / 'site'}"):
        check_output_target(mounted, [])
    check_output_target(mounted / "site", [])


def test_empty_directory_and_previous_output_are_accepted(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    check_output_target(empty, [])
    write_site(tmp_path / "site", {"a.html": "x"})
    check_output_target(tmp_path / "site", [])


def test_a_patch_for_a_site_deleted_while_the_build_ran_writes_nothing_and_says_so(tmp_path):
    """The patch holds only what changed: put in the deleted site's place, it would be a site of a
    few pages."""
    out = tmp_path / "site"
    write_site(out, {"a.html": "one", "b.html": "two"})
    with pytest.raises(SiteError, match="the site was deleted while this build ran; nothing was written"), \
            Staging(out) as staging:
        staging.write("a.html", "ONE")
        shutil.rmtree(out)
        staging.commit(removed=set())
    assert not out.exists() and temp_siblings(out) == [] and patch_siblings(out) == []


def test_an_empty_folder_to_delete_that_was_filled_since_stays(tmp_path):
    out = tmp_path / "site"
    write_site(out, {"a.html": "one"})
    (out / "was-empty").mkdir()
    (out / "was-empty" / "new.txt").write_text("put there since")
    output.remove_file(out, "was-empty/")
    assert (out / "was-empty" / "new.txt").read_text() == "put there since"
