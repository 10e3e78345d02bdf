"""A published file whose digest is known before its bytes are made."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Deferred:
    """A file the previous build made from the same inputs: its digest is that build's, and `make()`
    makes its bytes, for an output that lacks the file (the build links it from the last output
    otherwise). An edit makes the few files it changed, not every one (stages.publish_side_files)."""

    digest: bytes
    make: Callable[[], str | bytes]   # a text is written as UTF-8
