"""What a build tells the person running it while it runs: progress on a terminal, and seconds per stage.

Progress is shown only when stderr is a terminal and not under CI (`CI` set) or `TERM=dumb`;
a pipe or a log file gets nothing from here, only the build's one summary line.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager

REDRAW_SECONDS = 0.1


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


class StageClock:
    """Seconds per stage of one build (`with clock("render"): ...`), for bench/build.py."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started
