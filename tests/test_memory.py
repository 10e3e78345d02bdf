"""papersite/memory.py: freed heap memory goes back to the system."""

import sys

import pytest

from papersite import memory
from papersite.memory import malloc_trim, release_free_memory


def resident_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not sys.platform.startswith("linux") or malloc_trim() is None, reason="glibc's malloc_trim only")
def test_memory_a_stage_freed_is_returned_though_blocks_after_it_are_in_use():
    blocks = [bytes(1024) + bytes([i % 256]) for i in range(100_000)]   # ~100 MB from the C heap
    fence = bytes(1024) + b"fence"   # in use after them: the heap's top cannot simply shrink
    del blocks
    before = resident_mb()
    release_free_memory()
    assert resident_mb() < before - 50
    assert fence.endswith(b"fence")


def test_memory_is_trimmed_whole_where_the_c_library_can_and_left_alone_where_it_cannot(monkeypatch):
    calls = []
    monkeypatch.setattr(memory, "malloc_trim", lambda: calls.append)
    release_free_memory()
    assert calls == [0]   # no padding kept at the heap's top
    monkeypatch.setattr(memory, "malloc_trim", lambda: None)   # macOS, musl
    release_free_memory()
    assert calls == [0]
