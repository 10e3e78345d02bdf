"""Work on every core: forked workers that map over contiguous chunks, and one background job, results in input order.

Workers are forked, so they start with the build's data already in memory (nothing is pickled on
the way in) and only the results travel back, through a pipe. Results come back in input order
whatever the scheduling, so a parallel build writes the same bytes as a serial one.

`--jobs N` (or PAPERSITE_JOBS=N) sets the number of workers; 1 runs everything in the build
process. Small batches stay serial: forking costs more than it saves.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import select
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from functools import partial

from .errors import Problem, SiteError

# Below this many items a batch runs in the build process.
MIN_PARALLEL_ITEMS = 200
# Chunks per worker: enough that the last chunks, handed out as workers free up, even out uneven
# items, few enough to keep messages large.
CHUNKS_PER_WORKER = 16
# ... and so many times more alongside a background job (`ordered_map`): at 100,000 papers a render
# chunk is then under a second of this process's time, the most a core waits once the job is done.
CHUNKS_ALONGSIDE = 4
# Items a worker does before a fresh one takes its place. A forked worker keeps a private copy of
# every page of the build's memory it has touched (reading an object writes its reference count),
# and of those its own allocations landed in: at anthology scale a render worker that lived the
# whole batch held about a gigabyte so. One replaced as it goes holds what its last stretch touched
# (bench/README.md). Fewer items than this, as in a conference's build, keep their two workers.
ITEMS_PER_WORKER = 10_000
FRAME = 8   # bytes of a message's length prefix


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def parse_jobs(text: str) -> int:
    """A number of worker processes as written (--jobs, PAPERSITE_JOBS): 1 or more, else ValueError."""
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{text!r} is not a number of worker processes (1 or more)")
    return int(text)


def resolve_jobs(requested: int | None) -> int:
    """--jobs, else PAPERSITE_JOBS, else one per core (up to 8)."""
    if requested is None:
        env = os.environ.get("PAPERSITE_JOBS", "").strip()
        try:
            requested = parse_jobs(env) if env else None
        except ValueError as exc:
            raise SiteError.at("PAPERSITE_JOBS", None, str(exc)) from None
    if requested is None or requested <= 0:
        return default_jobs()
    return requested


def can_fork() -> bool:
    """Fork where it is safe and usual (Linux, the BSDs); on macOS system libraries may not
    survive a fork (Python itself no longer forks there by default), so builds stay serial."""
    return "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin"


def ordered_map(func: Callable, items: Sequence, jobs: int, setup: Callable | None = None,
                on_progress: Callable[[int], None] | None = None, min_items: int | None = None,
                items_per_worker: int = ITEMS_PER_WORKER, alongside: Background | None = None) -> list:
    """[func(item) for item in items] on `jobs` forked workers when the batch is large enough.

    With `setup`, each process calls it once and `func(its result, item)` runs instead: one
    Markdown converter per process, say. `on_progress(n)` hears of each n items done. A worker
    that has done `items_per_worker` items is replaced by a fresh fork, which goes on with its run.
    While `alongside`, a background job, is still working, it has a core of its own and this
    process does the batch itself, a chunk at a time, until the job is done; then the workers take
    the rest. A worker forked meanwhile would hold its own copies of the pages of the build's memory
    it touches beside the job's: at 100,000 papers a render worker's 0.6 GB beside the search
    worker was the whole build's peak (bench/README.md)."""
    if jobs <= 1 or len(items) < max(MIN_PARALLEL_ITEMS if min_items is None else min_items, 2) or not can_fork():
        call = item_call(func, setup)
        results = []
        for item in items:
            results.append(call(item))
            if on_progress is not None:
                on_progress(1)
        return results
    workers = min(jobs, len(items))
    job_pipe = alongside.pipe() if alongside is not None and workers > 1 else None
    # Alongside a job, smaller chunks: this process notices the job is done only between two of its own.
    count = min(len(items), workers * CHUNKS_PER_WORKER * (CHUNKS_ALONGSIDE if job_pipe is not None else 1))
    bounds = [(len(items) * i // count, len(items) * (i + 1) // count) for i in range(count)]
    runs = Runs(count, workers)
    chunks: dict[int, list] = {}
    doing: dict[int, int] = {}   # chunk number -> the place of the worker doing it
    done = [0] * workers         # items done by the worker in each place
    children: dict[int, tuple[int, int]] = {}   # place -> (pid, result pipe) of its worker
    listening: list[int] = []     # the result pipes not yet at their end
    # Each place's feed; None before its worker starts and once closed (a closed descriptor's number
    # may be another's by then).
    feeds: list[int | None] = [None] * workers

    def start(w: int) -> None:
        """A worker in place `w`: one for each place at first, then a fresh one for each replaced."""
        inbox, feed = os.pipe()
        # The child closes every feed it inherits (all open yet), its own and its siblings': a
        # worker's input ends (EOF) when the build process closes its one feed, or dies.
        children[w] = fork(partial(run_handed, func, setup, items, bounds, inbox, [f for f in feeds if f is not None] + [feed]))
        os.close(inbox)
        listening.append(children[w][1])
        feeds[w] = feed
        done[w] = 0
        hand(feeds, w, runs.take(w), doing)

    def replace(w: int) -> None:
        """The worker in place `w` is idle, its results all read: it goes, and its copies of the
        build's memory with it, before its successor is forked."""
        pid, fd = children.pop(w)
        close_feed(feeds, w)
        listening.remove(fd)
        stop(pid, fd)
        start(w)

    try:
        if job_pipe is not None:
            call = item_call(func, setup)
            while not has_message(job_pipe) and (number := runs.take(0)) is not None:
                chunks[number] = chunk_results(call, items, bounds[number])
                if on_progress is not None:
                    on_progress(len(chunks[number]))
            if runs.left():   # the job is done: its result read (its process and copies gone), every core the batch's
                alongside.collect()
        for w in range(workers):
            if runs.left():
                start(w)
        for status, value in read_messages(listening):
            if status != "ok":
                raise failure(status, value)
            number, results = value
            chunks[number] = results
            w = doing[number]
            done[w] += len(results)
            if done[w] >= items_per_worker and runs.left():
                replace(w)
            else:
                hand(feeds, w, runs.take(w), doing)
            if on_progress is not None:
                on_progress(len(results))
    finally:
        for w in range(len(feeds)):
            close_feed(feeds, w)
        for pid, fd in children.values():
            stop(pid, fd)
    if len(chunks) != count:
        raise RuntimeError("a build worker died without a result")
    return [result for number in range(count) for result in chunks[number]]


class Runs:
    """The chunks of a batch as one run of consecutive chunks per worker, each worker taking the next
    of its own run, then, once its run is done, the last of the longest run left. A forked worker
    copies each page of the build's memory it touches (reading an object writes its reference
    count), and consecutive items mostly share pages (a listing's papers, a paper's texts): taken
    in runs, an anthology's cold build held 240 MB less at its peak than taken in turns (bench/README.md),
    and the runs taken over keep both workers busy to the end."""

    def __init__(self, count: int, workers: int):
        self.runs = [[count * w // workers, count * (w + 1) // workers] for w in range(workers)]

    def left(self) -> bool:
        return any(start < end for start, end in self.runs)

    def take(self, worker: int) -> int | None:
        run = self.runs[worker]
        if run[0] == run[1]:
            run = max(self.runs, key=lambda r: r[1] - r[0])
            if run[0] == run[1]:
                return None
            run[1] -= 1
            return run[1]
        run[0] += 1
        return run[0] - 1


def hand(feeds: list[int | None], worker: int, number: int | None, doing: dict[int, int]) -> None:
    """Hand chunk `number` to `worker`, or tell it there is none left (its feed closed)."""
    if number is None:
        close_feed(feeds, worker)
        return
    doing[number] = worker
    try:
        os.write(feeds[worker], number.to_bytes(FRAME, "big"))   # FRAME bytes: within a pipe's buffer, never blocks
    except OSError:   # the worker is gone: its chunk's missing result says so
        pass


def close_feed(feeds: list[int | None], worker: int) -> None:
    if feeds[worker] is not None:
        os.close(feeds[worker])
        feeds[worker] = None


def run_handed(func: Callable, setup: Callable | None, items: Sequence, bounds: list, inbox: int, feeds: list[int],
               send: Callable) -> None:
    """The chunks the build process hands this worker, until it closes the feed."""
    for feed in feeds:
        os.close(feed)
    call = item_call(func, setup)
    with os.fdopen(inbox, "rb") as f:
        while len(head := f.read(FRAME)) == FRAME:
            number = int.from_bytes(head, "big")
            send(("ok", (number, chunk_results(call, items, bounds[number]))))


def item_call(func: Callable, setup: Callable | None) -> Callable:
    """`func`, or `func` bound to `setup()`'s result: what one process calls for each item."""
    return partial(func, setup()) if setup is not None else func


def chunk_results(call: Callable, items: Sequence, bounds: tuple[int, int]) -> list:
    start, end = bounds
    return [call(items[i]) for i in range(start, end)]


class Background:
    """`func()` computed in a forked process while the build goes on; `result()` waits for it.

    With one job (or no fork) it simply runs at `result()`. A SiteError keeps its problems; any
    other failure is raised again here with the worker's traceback.
    """

    outcome: tuple | None = None   # the worker's message, once read

    def __init__(self, func: Callable, jobs: int):
        self.func = func
        self.child = fork(lambda send: send(("ok", func()))) if jobs > 1 and can_fork() else None

    def pipe(self) -> int | None:
        """The pipe its result comes through, while the worker has one to send (else None)."""
        return self.child[1] if self.child is not None else None

    def collect(self) -> None:
        """Read the worker's result now, if it has not been: the worker ends, and its copies of the
        build's memory with it, before the build asks for the result (`result()` gives it then)."""
        if self.child is None:
            return
        pid, fd = self.child
        try:
            for message in read_messages([fd]):
                self.outcome = message
                break
        finally:
            self.child = None
            stop(pid, fd)
        if self.outcome is None:
            self.outcome = ("died", None)

    def result(self):
        if self.child is None and self.outcome is None:
            return self.func()
        self.collect()
        status, value = self.outcome
        if status == "ok":
            return value
        if status == "died":
            raise RuntimeError("a build worker died without a result")
        raise failure(status, value)

    def cancel(self) -> None:
        """Stop the worker if its result is no longer wanted (the build failed or was interrupted)."""
        if self.child is not None:
            stop(*self.child)
            self.child = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.cancel()


class Standby(Background):
    """A background job forked before its input exists: the worker runs `prepare()` at once, on a
    core the build leaves idle meanwhile (the t-SNE layout's libraries take most of a second to
    import), then `func(value)` with the value `start(value)` hands it; `result()` waits for that.
    The result is read as soon as it is sent, so the worker ends then, not when the build asks for
    it: at 100,000 papers the layout's worker otherwise held its 190 MB for ten seconds more, in
    the stretch of the build's peak memory (bench/README.md).

    With one job (or no fork) `func(value)` simply runs at `result()`."""

    def __init__(self, prepare: Callable[[], object], func: Callable, jobs: int):
        self.value = None
        self.func = lambda: func(self.value)
        self.child, self.feed, self.feeding, self.collecting = None, None, None, None
        if jobs > 1 and can_fork():
            inbox, self.feed = os.pipe()
            self.child = fork(partial(run_prepared, prepare, func, inbox, self.feed))
            os.close(inbox)

    def start(self, value) -> None:
        if self.child is None:
            self.value = value
            return
        # Written by a thread: the worker reads it only once prepared, and the build goes on meanwhile.
        self.feeding = threading.Thread(target=write_all, args=(self.feed, frame(value)), daemon=True)
        self.feeding.start()
        self.collecting = threading.Thread(target=self.collect, daemon=True)
        self.collecting.start()

    def cancel(self) -> None:
        child = self.child
        if self.collecting is not None and child is not None:
            # Ended if it is still at work: the thread reading its result then hears its pipe close,
            # and reaps it (Background.collect).
            end(child[0])
        self.join_collecting()
        super().cancel()   # first: a write still waiting for the worker fails once it is gone
        if self.feeding is not None:
            self.feeding.join()
            self.feeding = None
        if self.feed is not None:
            os.close(self.feed)
            self.feed = None

    def result(self):
        try:
            self.join_collecting()
            return super().result()
        finally:
            self.cancel()

    def join_collecting(self) -> None:
        """Wait for the thread reading the result, if one was started: it sets `outcome`."""
        if self.collecting is not None:
            self.collecting.join()
            self.collecting = None


def run_prepared(prepare: Callable[[], object], func: Callable, inbox: int, feed: int, send: Callable) -> None:
    os.close(feed)   # else the worker would wait for its input forever if the build died
    prepare()
    with os.fdopen(inbox, "rb") as f:
        head = f.read(FRAME)
        if len(head) < FRAME:
            return   # the build ended without starting the job
        value = pickle.loads(f.read(int.from_bytes(head, "big")))
    send(("ok", func(value)))


def frame(message) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(FRAME, "big") + data


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view):]
    except OSError:   # the worker is gone: cancelled, or crashed (its result says which)
        pass


def fork(job: Callable[[Callable], None]) -> tuple[int, int]:
    """(pid, read end of its pipe) of a child that runs `job(send)`, each message sent as a pickled frame."""
    read, write = os.pipe()
    # Objects alive now are never collected in the child: freezing them keeps the collector from
    # touching (and so copying) every page of the parent's memory.
    gc.freeze()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            os.close(read)
            start_worker()
            pipe = os.fdopen(write, "wb")

            def send(message) -> None:
                pipe.write(frame(message))
                pipe.flush()

            try:
                job(send)
            except SiteError as err:  # its problems travel back as plain data
                send(("error", list(err.problems)))
            except OSError as exc:   # what the file system refused, as the build process reports it (cli.py)
                send(("error", [Problem(exc.filename or "build", None, exc.strerror or str(exc))]))
            except BaseException:
                send(("crash", traceback.format_exc()))
            pipe.close()
        except BaseException:
            status = 1
        finally:
            os._exit(status)   # without running the parent's exit handlers
    gc.unfreeze()
    os.close(write)
    return pid, read


def start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # The parent stops a worker with SIGTERM: it must die of it, not run a handler it inherited
    # (the dev server's raises KeyboardInterrupt).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def read_messages(fds: list[int]):
    """Each message from these pipes as it arrives, until every writer has closed its end. `fds`
    is read anew after each message: the caller may add a pipe (a worker replaced) or take out
    one it has closed; one whose writer has closed its end is taken out here."""
    buffers: dict[int, bytearray] = {}
    while fds:
        # One pipe at a time: another found ready with it may be closed by the time it is read.
        ready, _, _ = select.select(fds, [], [])
        fd = ready[0]
        data = os.read(fd, 1 << 20)
        if not data:
            fds.remove(fd)
            buffers.pop(fd, None)
            continue
        buffer = buffers.setdefault(fd, bytearray())
        buffer += data
        while len(buffer) >= FRAME and len(buffer) >= FRAME + int.from_bytes(buffer[:FRAME], "big"):
            size = int.from_bytes(buffer[:FRAME], "big")
            message = pickle.loads(bytes(buffer[FRAME:FRAME + size]))
            del buffer[:FRAME + size]
            yield message


def has_message(fd: int) -> bool:
    """Whether the pipe has something to read (or its writer is gone), without waiting."""
    return bool(select.select([fd], [], [], 0)[0])


def failure(status: str, value) -> Exception:
    if status == "error":
        return SiteError(value)
    return RuntimeError(f"a build worker failed:\n{value}")


def end(pid: int) -> None:
    """Ask a child to end at once, if it is still there."""
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        pass


def stop(pid: int, fd: int) -> None:
    """End a child (at once if it is still working) and close its pipe."""
    end(pid)
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass
    try:
        os.close(fd)
    except OSError:
        pass
