"""The dev server's change signal: inotify on Linux, polling elsewhere (papersite/watch.py)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from papersite.dev import watch
from papersite.dev.watch import ChangeSignal, changed_files, snapshot

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


@pytest.fixture
def tree(tmp_path) -> list[Path]:
    (tmp_path / "content" / "papers").mkdir(parents=True)
    (tmp_path / "content" / "papers" / "a.md").write_text("first", encoding="utf-8")
    (tmp_path / "site.yml").write_text("title: T\n", encoding="utf-8")
    return [tmp_path / "content", tmp_path / "site.yml"]


def later(action, delay: float = 0.3) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(delay), action()))
    thread.start()
    return thread


@linux_only
def test_an_edit_wakes_the_watcher_at_once_and_quiet_does_not(tree):
    changes = ChangeSignal(tree)
    try:
        assert not changes.polling
        assert changes.wait(0.3) is False   # nothing changed
        before = snapshot(tree)
        writer = later(lambda: (tree[0] / "papers" / "a.md").write_text("edited", encoding="utf-8"))
        started = time.monotonic()
        assert changes.wait(10) is True
        assert time.monotonic() - started < 2
        writer.join()
        assert changed_files(before, snapshot(tree)) == [str(tree[0] / "papers" / "a.md")]
    finally:
        changes.close()


@linux_only
def test_inotify_names_the_files_written_each_once(tree):
    """What the server previews from before any snapshot (dev/preview.py): files written and closed,
    or moved into place (an editor's atomic save), by their full path; not a directory made, nor an
    editor's swap file; nothing when polling."""
    changes = ChangeSignal(tree, names=True)
    papers = tree[0] / "papers"
    try:
        assert changes.take_written() == []
        for text in ("one", "two"):
            (papers / "a.md").write_text(text, encoding="utf-8")
        (papers / ".a.md.swp").write_text("x", encoding="utf-8")
        (papers / "more").mkdir()
        (tree[0] / "saved.tmp").write_text("b", encoding="utf-8")
        (tree[0] / "saved.tmp").rename(papers / "b.md")
        tree[1].write_text("title: Edited\n", encoding="utf-8")
        assert changes.wait(5) is True
        time.sleep(0.2)
        changes.wait(0.1)
        assert changes.take_written() == sorted([str(papers / "a.md"), str(papers / "b.md"), str(tree[1])])
        assert changes.take_written() == []
    finally:
        changes.close()


@linux_only
def test_a_new_directory_is_watched_too(tree):
    changes = ChangeSignal(tree)
    try:
        (tree[0] / "papers" / "more").mkdir()
        assert changes.wait(5) is True
        later(lambda: (tree[0] / "papers" / "more" / "b.md").write_text("new", encoding="utf-8")).join()
        assert changes.wait(5) is True
    finally:
        changes.close()


@linux_only
def test_the_config_file_is_watched_through_its_directory(tree):
    changes = ChangeSignal(tree)
    try:
        later(lambda: tree[1].write_text("title: Edited\n", encoding="utf-8"))
        assert changes.wait(10) is True
    finally:
        changes.close()


def test_interrupt_ends_a_wait_at_once(tree):
    changes = ChangeSignal(tree)
    try:
        later(changes.interrupt, 0.2)
        started = time.monotonic()
        assert changes.wait(30) is False
        assert time.monotonic() - started < 5
    finally:
        changes.close()


def test_without_inotify_the_watcher_polls(tree, monkeypatch):
    monkeypatch.setattr(watch, "load_inotify", lambda: None)
    changes = ChangeSignal(tree, names=True)
    try:
        assert changes.polling
        (tree[0] / "papers" / "a.md").write_text("edited", encoding="utf-8")
        assert changes.wait(0.1) is False   # no signal: the snapshot, taken every POLL_SECONDS, decides
        assert changes.take_written() == []
    finally:
        changes.close()


def test_editor_droppings_are_not_watched(tree):
    (tree[0] / "papers" / ".a.md.swp").write_text("x", encoding="utf-8")
    (tree[0] / "papers" / "a.md~").write_text("x", encoding="utf-8")
    assert sorted(snapshot(tree)) == sorted([str(tree[0] / "papers" / "a.md"), str(tree[1])])


@pytest.mark.parametrize("polling", [True, False])
def test_the_snapshots_take_at_most_their_share_of_a_core(polling):
    """A conference's snapshot takes milliseconds: the watcher looks as often as ever. 100,000
    papers' takes about half a second: the watcher waits longer, so the snapshots of an idle
    server keep at most POLL_SHARE of a core busy when polling, IDLE_SHARE under inotify."""
    least, share = (watch.POLL_SECONDS, watch.POLL_SHARE) if polling else (watch.IDLE_SECONDS, watch.IDLE_SHARE)
    assert watch.wait_seconds(polling, 0.0) == watch.wait_seconds(polling, 0.01) == least
    for cost in (0.05, 0.5, 2.0):
        wait = watch.wait_seconds(polling, cost)
        assert wait >= least and cost / (cost + wait) <= share + 1e-9
    assert watch.wait_seconds(False, 0.55) > 10   # at 100,000 papers: not every 2 s
