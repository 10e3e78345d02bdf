"""One writer at a time: an exclusive lock (flock) that a second build into one --out, or a second
import into one content folder, waits for.

The kernel drops a flock when its holder exits, however it exits (a kill included), so a lock is
never left stale and the lock file needs no cleaning up. Waiting, not refusing: two builds started
together (a save in `serve` and a build by hand, say) both finish, one after the other. A previous
site being deleted in the background is locked the same way, by its remover, and a build leaves
a tree it finds locked alone (output.py).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def exclusive(path: Path, on_wait: Callable[[], None] | None = None, directory: bool = False) -> Iterator[None]:
    """Hold the lock of `path` (a lock file, created if missing; with `directory`, the directory
    itself) while the block runs; `on_wait()` is called once if another process holds it."""
    fd = open_lock(path, directory)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def held(path: Path, directory: bool = False, wait: bool = True) -> int | None:
    """The lock of `path`, taken, as an open descriptor: it is held until every copy of the
    descriptor is closed, those of processes forked meanwhile too (a lock handed on). Without
    `wait`, None when another process holds it."""
    fd = open_lock(path, directory)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def open_lock(path: Path, directory: bool) -> int:
    """A descriptor to lock: the lock file `path` (created if missing), or with `directory` the directory itself."""
    flags = os.O_RDONLY | os.O_CLOEXEC if directory else os.O_RDWR | os.O_CREAT | os.O_CLOEXEC
    return os.open(path, flags, 0o644)
