"""Freed memory handed back to the system, where the C library can (glibc's malloc_trim)."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import lru_cache


def release_free_memory() -> None:
    """Return the free pages of the process's heap to the system. The C library keeps what a
    stage freed for its own next allocations: NumPy's large temporaries, once the allocator's
    threshold for mapping them apart has risen past their size, and the heap's free stretches
    between blocks still in use. At 100,000 papers that was about 300 MB of the build process
    after the related papers and the map, and 300 MB of the search worker after the index, held
    to their end (bench/README.md). Elsewhere than glibc (macOS, musl) nothing is done."""
    trim = malloc_trim()
    if trim is not None:
        trim(0)


@lru_cache(maxsize=1)
def malloc_trim() -> Callable[[int], int] | None:
    """glibc's `int malloc_trim(size_t pad)`, or None where the C library has none."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim
