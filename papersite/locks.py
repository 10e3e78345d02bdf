"""One writer at a time: an exclusive lock (flock) that a second build into one --out, or a second
import into one content folder, waits for.

The kernel drops a flock when its holder exits, however it exits (a kill included), so a lock is
never left stale and the lock file needs no cleaning up. Waiting, not refusing: two builds started
together (a save in `serve` and a build by hand, say) both finish, one after the other.
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
    flags = os.O_RDONLY | os.O_CLOEXEC if directory else os.O_RDWR | os.O_CREAT | os.O_CLOEXEC
    fd = os.open(path, flags, 0o644)
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
