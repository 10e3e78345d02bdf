"""Build progress on a terminal: one status line on stderr, rewritten in place.

Shown only when stderr is a terminal and not under CI (`CI` set) or `TERM=dumb`;
a pipe or a log file gets nothing from here, only the build's one summary line.
Stages report through `progress.tick()`, which is a no-op unless a Progress is active,
so rendering code needs no parameter for it.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from contextvars import ContextVar

REDRAW_SECONDS = 0.1
_current: ContextVar["Progress | None"] = ContextVar("papersite_progress", default=None)


def interactive(stream) -> bool:
    if os.environ.get("CI", "").lower() not in ("", "0", "false") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    def __init__(self, stream=None, enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = interactive(self.stream) if enabled is None else enabled
        self.name = ""
        self.count = 0
        self.total: int | None = None
        self.shown = False
        self.last_draw = 0.0

    def stage(self, name: str, total: int | None = None) -> None:
        self.name, self.count, self.total = name, 0, total
        self.draw(force=True)

    def tick(self, n: int = 1) -> None:
        self.count += n
        self.draw()

    def draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last_draw < REDRAW_SECONDS:
            return
        self.last_draw = now
        if self.total:
            detail = f" {self.count}/{self.total}"
        elif self.count:
            detail = f" {self.count}"
        else:
            detail = ""
        self.stream.write(f"\r\x1b[K{self.name}…{detail}")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        """Clear the status line, so the summary line that follows starts clean."""
        if self.enabled and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


@contextmanager
def active(progress: Progress | None):
    token = _current.set(progress)
    try:
        yield progress
    finally:
        _current.reset(token)
        if progress is not None:
            progress.finish()


def tick(n: int = 1) -> None:
    progress = _current.get()
    if progress is not None:
        progress.tick(n)


def stage(name: str, total: int | None = None) -> None:
    progress = _current.get()
    if progress is not None:
        progress.stage(name, total)
