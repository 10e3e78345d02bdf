"""Per-page work on every core: forked workers, contiguous chunks, results in input order.

Workers are forked, so they start with the build's data already in memory (nothing is
pickled on the way in) and only the results travel back. Results come back in input
order whatever the scheduling, so a parallel build writes the same bytes as a serial one.

`--jobs N` (or PAPERSITE_JOBS=N) sets the number of workers; 1 runs everything in the
build process. Small batches stay serial: forking costs more than it saves.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import sys
from typing import Callable, Sequence

from . import progress
from .errors import SiteError

# Below this many items a batch runs in the build process.
MIN_PARALLEL_ITEMS = 200
# Chunks per worker: enough to balance uneven pages, few enough to keep messages large.
CHUNKS_PER_WORKER = 6

_task: tuple[Callable, Sequence] | None = None
used_pool = 0  # how many batches went to a pool (tests check that the parallel path ran)


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def resolve_jobs(requested: int | None) -> int:
    """--jobs, else PAPERSITE_JOBS, else one per core (up to 8)."""
    if requested is None:
        env = os.environ.get("PAPERSITE_JOBS", "").strip()
        requested = int(env) if env.isdigit() else None
    if requested is None or requested <= 0:
        return default_jobs()
    return requested


def can_fork() -> bool:
    """Fork where it is safe and usual (Linux, the BSDs); on macOS system libraries may not
    survive a fork (Python itself no longer forks there by default), so builds stay serial."""
    return "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin"


def ordered_map(func: Callable, items: Sequence, jobs: int, min_items: int | None = None) -> list:
    """[func(item) for item in items], on `jobs` forked workers when the batch is large enough."""
    threshold = MIN_PARALLEL_ITEMS if min_items is None else min_items
    if jobs <= 1 or len(items) < max(threshold, 2) or not can_fork():
        results = []
        for item in items:
            results.append(func(item))
            progress.tick()
        return results
    global _task, used_pool
    workers = min(jobs, len(items))
    count = min(len(items), workers * CHUNKS_PER_WORKER)
    bounds = [(len(items) * i // count, len(items) * (i + 1) // count) for i in range(count)]
    _task = (func, items)
    # Objects alive now are never collected in the workers: freezing them keeps the
    # collector from touching (and so copying) every page of the parent's memory.
    gc.freeze()
    results: list = []
    try:
        with multiprocessing.get_context("fork").Pool(workers, initializer=_start_worker) as pool:
            for status, value in pool.imap(_run_chunk, bounds):
                if status == "error":
                    raise SiteError(value)
                results.extend(value)
                progress.tick(len(value))
        used_pool += 1
    finally:
        _task = None
        gc.unfreeze()
    return results


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # Pool.terminate and Background.cancel stop a worker with SIGTERM: it must die of it, not run
    # a handler it inherited (the dev server's raises KeyboardInterrupt, which left a pool worker
    # waiting on the task queue's lock while the server waited for it to exit).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    progress._current.set(None)                   # the parent draws progress as chunks return


def _run_chunk(bounds: tuple[int, int]):
    func, items = _task  # type: ignore[misc]
    start, end = bounds
    try:
        return "ok", [func(items[i]) for i in range(start, end)]
    except SiteError as err:  # its problems travel back as plain data (the exception would not unpickle)
        return "error", list(err.problems)


class Background:
    """`func()` computed in a forked process while the build goes on; `result()` waits for it.

    With one job (or no fork) it simply runs at `result()`. The value comes back pickled
    through a pipe; a SiteError keeps its problems; any other failure is re-raised here
    with the worker's traceback.
    """

    def __init__(self, func: Callable, jobs: int):
        self.func, self.pid, self.fd = func, None, None
        if jobs <= 1 or not can_fork():
            return
        read, write = os.pipe()
        gc.freeze()
        pid = os.fork()
        if pid == 0:  # the worker: compute, send, leave without running the parent's exit handlers
            status = 0
            try:
                os.close(read)
                _start_worker()
                try:
                    outcome = ("ok", func())
                except SiteError as err:
                    outcome = ("error", list(err.problems))
                except BaseException:
                    import traceback

                    outcome = ("crash", traceback.format_exc())
                data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(data)
            except BaseException:
                status = 1
            finally:
                os._exit(status)
        gc.unfreeze()
        os.close(write)
        self.pid, self.fd = pid, read

    def result(self):
        if self.pid is None:
            return self.func()
        try:
            with os.fdopen(self.fd, "rb") as pipe:
                data = pipe.read()
        finally:
            self.fd = None
            os.waitpid(self.pid, 0)
            self.pid = None
        if not data:
            raise RuntimeError("a build worker died without a result")
        status, value = pickle.loads(data)
        if status == "error":
            raise SiteError(value)
        if status == "crash":
            raise RuntimeError(f"a build worker failed:\n{value}")
        return value

    def cancel(self) -> None:
        """Stop the worker if its result is no longer wanted (the build failed or was interrupted)."""
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGTERM)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = None
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
