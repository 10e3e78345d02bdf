"""What the dev server watches: snapshots of the input files, and a signal when they may have changed.

On Linux the signal is inotify (through libc: no dependency), so an edit wakes the watcher at
once and an idle server costs no CPU; polling a conference-sized content directory took a good share of a core to
poll five times a second. Elsewhere, or when inotify cannot be had (its watch limit reached),
the watcher polls. Either way the snapshot decides: the signal only says when to take one.
The snapshots' rate adapts to their cost (`wait_seconds`), so a large collection's watcher does
not keep a core busy stat'ing it. inotify also names the files written (`take_written`): the
server previews an edited page from that at once (preview.py), a second or two before a large
collection's snapshots have confirmed it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import struct
from pathlib import Path

# A snapshot every this many seconds when polling, and at the latest when inotify is quiet
# (a safety net: inotify does not see changes made through another mount of the same files).
POLL_SECONDS = 0.2
IDLE_SECONDS = 2.0
# The share of a core the snapshots may take, at most: a large collection's snapshot is slow
# (100,000 stats, about half a second), and every 2 s it kept an idle server at a fifth of a core.
POLL_SHARE = 0.2
IDLE_SHARE = 0.05

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_ISDIR = 0x400, 0x800, 0x40000000
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
WATCH_MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
              | IN_DELETE_SELF | IN_MOVE_SELF)
EVENT_HEADER = struct.Struct("iIII")   # struct inotify_event: wd, mask, cookie, len (then the name)


def ignored(name: str) -> bool:
    """Editor droppings (.swp, ~, #...#) and hidden files."""
    return name.startswith((".", "#")) or name.endswith(("~", ".swp", ".tmp"))


def snapshot(paths: list[Path]) -> dict[str, tuple[int, int]]:
    """(mtime, size) of every watched file."""
    found: dict[str, tuple[int, int]] = {}

    def add(path: str) -> None:
        try:
            st = os.stat(path)
        except OSError:
            try:   # a broken link is a change too: the build will name it
                st = os.lstat(path)
            except OSError:
                return
        found[path] = (st.st_mtime_ns, st.st_size)

    for root in paths:
        if root.is_file():
            add(str(root))
            continue
        for dirpath, filenames in walk(root):
            for name in filenames:
                if not ignored(name):
                    add(os.path.join(dirpath, name))
    return found


def wait_seconds(polling: bool, snapshot_seconds: float) -> float:
    """How long to wait for a signal before the next snapshot, given how long the last one took:
    POLL_SECONDS or IDLE_SECONDS, or longer if the snapshots would take more than their share."""
    least, share = (POLL_SECONDS, POLL_SHARE) if polling else (IDLE_SECONDS, IDLE_SHARE)
    return max(least, snapshot_seconds * (1 - share) / share)


def walk(root: Path):
    """(directory, its file names) under `root`, sorted, hidden directories left out."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        yield dirpath, sorted(filenames)


def changed_files(before: dict, after: dict) -> list[str]:
    return sorted(path for path in set(before) | set(after) if before.get(path) != after.get(path))


def watched_dirs(paths: list[Path]) -> list[str]:
    """Every directory to watch for `paths` (a file is watched through its directory)."""
    dirs = []
    for root in paths:
        if root.is_file() or not root.exists():
            dirs.append(str(root.parent))
            continue
        dirs.extend(dirpath for dirpath, _ in walk(root))
    return sorted(set(dirs))


class ChangeSignal:
    """`wait(timeout)` returns when a watched file may have changed, or after `timeout` seconds."""

    def __init__(self, paths: list[Path], names: bool = False):
        """`names`: keep the names of the files written, for `take_written` (else they are not kept)."""
        self.paths = paths
        self.names = names
        self.fd: int | None = None
        self.dirs: dict[int, str] = {}   # each inotify watch's directory
        self.written: list[str] = []     # files written (closed after writing, or moved in) since `take_written`
        self.wake_read, self.wake_write = os.pipe()   # `interrupt` ends a wait at once (the server stops)
        self.libc = load_inotify()
        if self.libc is not None:
            fd = self.libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd >= 0:
                self.fd = fd
                if not self.add_watches():
                    self.stop_inotify()

    @property
    def polling(self) -> bool:
        return self.fd is None

    def add_watches(self) -> bool:
        """Watch every directory now under the paths (again after one is made); False if any cannot be."""
        for path in watched_dirs(self.paths):
            wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), WATCH_MASK)
            if wd < 0:
                return False
            self.dirs[wd] = path
        return True

    def wait(self, timeout: float) -> bool:
        """True when woken by a change; False after `timeout` seconds (when polling, always) or `interrupt`."""
        watched = [self.wake_read] + ([self.fd] if self.fd is not None else [])
        ready, _, _ = select.select(watched, [], [], timeout)
        if self.wake_read in ready or self.fd not in ready:
            return False
        self.drain()
        return True

    def take_written(self) -> list[str]:
        """The files inotify saw written since the last call, each once, in name order (none when polling,
        or without `names`)."""
        written, self.written = sorted(set(self.written)), []
        return written

    def interrupt(self) -> None:
        os.write(self.wake_write, b"x")

    def drain(self) -> None:
        new_dir = False
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            offset = 0
            while offset + EVENT_HEADER.size <= len(data):
                wd, mask, _, length = EVENT_HEADER.unpack_from(data, offset)
                new_dir = new_dir or bool(mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO))
                if self.names and mask & (IN_CLOSE_WRITE | IN_MOVED_TO) and not mask & IN_ISDIR and wd in self.dirs:
                    name = os.fsdecode(data[offset + EVENT_HEADER.size:offset + EVENT_HEADER.size + length].rstrip(b"\0"))
                    if not ignored(name):
                        self.written.append(os.path.join(self.dirs[wd], name))
                offset += EVENT_HEADER.size + length
        if new_dir and not self.add_watches():
            self.stop_inotify()

    def stop_inotify(self) -> None:
        """Fall back to polling."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def close(self) -> None:
        self.stop_inotify()
        for fd in (self.wake_read, self.wake_write):
            os.close(fd)


def load_inotify():
    """libc with inotify's functions, or None (not Linux, or no libc to be found)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    except (OSError, AttributeError):
        return None
    return libc
