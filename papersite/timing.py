"""Seconds per build stage, for the summary of `bench/build.py` (no effect on the output)."""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar

_current: ContextVar[dict[str, float] | None] = ContextVar("papersite_timings", default=None)


@contextmanager
def recording():
    """Collect the stages timed inside this block into the dict it yields."""
    timings: dict[str, float] = {}
    token = _current.set(timings)
    try:
        yield timings
    finally:
        _current.reset(token)


@contextmanager
def timed(name: str):
    started = time.perf_counter()
    try:
        yield
    finally:
        timings = _current.get()
        if timings is not None:
            timings[name] = timings.get(name, 0.0) + time.perf_counter() - started
