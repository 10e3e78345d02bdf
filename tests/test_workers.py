"""Forked workers: results in input order, errors and crashes brought back, workers that die when told to."""

from __future__ import annotations

import os
import signal
import time

import pytest

from papersite import workers
from papersite.errors import Problem, SiteError

pytestmark = pytest.mark.skipif(not workers.can_fork(), reason="workers are forked only where fork is safe")


def sigterm_action(_item=None):
    return signal.getsignal(signal.SIGTERM)


@pytest.fixture
def raising_sigterm():
    """The dev server's handler: SIGTERM raises KeyboardInterrupt in the process that gets it."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    yield
    signal.signal(signal.SIGTERM, previous)


def test_workers_die_of_sigterm_whatever_the_parent_handles(raising_sigterm):
    # The build stops a worker with SIGTERM; a handler inherited from the dev server once left a
    # worker waiting on a lock, and the server waiting for it.
    assert workers.ordered_map(sigterm_action, list(range(8)), jobs=2, min_items=2) == [signal.SIG_DFL] * 8


def test_a_background_worker_dies_of_sigterm_whatever_the_parent_handles(raising_sigterm):
    assert workers.Background(sigterm_action, jobs=2).result() == signal.SIG_DFL


def test_results_come_back_in_input_order_from_other_processes():
    items = list(range(500))
    assert workers.ordered_map(lambda n: n * n, items, jobs=2) == [n * n for n in items]
    pids = set(workers.ordered_map(lambda n: os.getpid(), items, jobs=2))
    assert len(pids) == 2 and os.getpid() not in pids



def runs_of(positions: list[int]) -> int:
    """How many runs of consecutive numbers `positions` (ascending) makes."""
    return sum(1 for i, n in enumerate(positions) if i == 0 or positions[i - 1] != n - 1)


def test_each_worker_does_consecutive_items_and_takes_over_the_rest_of_a_slow_ones():
    """A worker copies the pages of the build's memory it touches: each does a run of consecutive
    items, and a worker done with its run takes chunks from the end of the other's, so one slow
    worker does not hold the batch up."""
    items = list(range(1000))

    def who(n: int) -> int:
        if n < 500:
            time.sleep(0.002)   # the first half is slow: its worker's run is taken over
        return os.getpid()

    pids = workers.ordered_map(who, items, jobs=2)
    done = {pid: [n for n, p in enumerate(pids) if p == pid] for pid in set(pids)}
    assert len(done) == 2
    slow, fast = sorted(done.values(), key=lambda positions: positions[0])
    # The fast worker's own run, and the end of the slow one's, which meets it.
    assert runs_of(slow) == 1 and runs_of(fast) == 1 and len(fast) > 500


def test_a_worker_that_has_done_its_share_is_replaced_and_its_successor_goes_on_with_its_run():
    """At anthology scale a worker is replaced as it goes, so that it never holds a copy of all
    the build's memory it touched: results stay in input order, each process does consecutive
    items, as many as its share rounded up to whole chunks, and no more than `jobs` work at once."""
    items = list(range(640))   # 32 chunks of 20

    before = children_of(os.getpid())   # (other tests' processes still ending)

    def who(n: int) -> tuple[int, int, int]:
        """The item, this worker, and how many children the build process has made that are alive now."""
        return n, os.getpid(), len(children_of(os.getppid()) - before)

    made = workers.ordered_map(who, items, jobs=2, items_per_worker=50)
    assert [n for n, _, _ in made] == items
    pids = [pid for _, pid, _ in made]
    done = {pid: [n for n, p in enumerate(pids) if p == pid] for pid in set(pids)}
    assert len(done) > 2 and os.getpid() not in done
    # (A second run: the end of the other place's, taken over once its own is done.)
    assert all(runs_of(positions) <= 2 and len(positions) <= 50 + 20 for positions in done.values())
    assert max(len(positions) for positions in done.values()) == 60
    assert max(alive for _, _, alive in made) <= 2
    # Below its share a worker lives the whole batch, as at a conference's size.
    assert len(set(workers.ordered_map(lambda n: os.getpid(), items, jobs=2))) == 2


def test_a_batch_alongside_a_background_job_takes_its_core_once_it_is_done():
    """The search and exports worker works on while the pages are rendered: meanwhile the build
    process renders them itself (no worker holds copies of the build's memory beside the job's),
    reads the job's result as soon as it is there (so the job's process and its copies are gone),
    then renders on every core."""
    job = workers.Background(lambda: (time.sleep(0.5), 42)[1], jobs=2)
    job_pid = job.child[0]
    build = os.getpid()
    before = children_of(build)

    def who(n: int) -> tuple[int, int, bool]:
        time.sleep(0.003)
        return os.getpid(), len(children_of(build) - before), os.path.exists(f"/proc/{job_pid}")

    made = workers.ordered_map(who, list(range(640)), jobs=2, alongside=job)
    while_job = [(pid, alive) for pid, alive, job_there in made if job_there]
    after_job = {pid for pid, _, job_there in made if not job_there}
    assert while_job and {pid for pid, _ in while_job} == {build} and {alive for _, alive in while_job} == {0}
    assert len(after_job) == 2 and build not in after_job
    assert job.child is None and job.result() == 42

    failed = workers.Background(lambda: failing(250), jobs=2)
    assert workers.ordered_map(lambda n: n, list(range(400)), jobs=2, alongside=failed) == list(range(400))
    with pytest.raises(SiteError):   # the job's failure is the build's when it asks for the result
        failed.result()


def children_of(parent: int) -> set[int]:
    """The live processes whose parent is `parent`, from /proc."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:   # ended meanwhile
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            found.add(int(pid))
    return found


def test_runs_are_handed_out_front_first_then_taken_from_the_end_of_the_longest():
    runs = workers.Runs(10, 2)
    assert [runs.take(0), runs.take(1), runs.take(1), runs.take(1), runs.take(1), runs.take(1)] == [0, 5, 6, 7, 8, 9]
    assert [runs.take(1), runs.take(1), runs.take(0), runs.take(1), runs.take(0), runs.take(1)] == [4, 3, 1, 2, None, None]

def test_setup_runs_once_per_process_and_progress_hears_every_item():
    heard = []
    made = workers.ordered_map(lambda state, n: (state, n), list(range(300)), jobs=2, setup=os.getpid, on_progress=heard.append)
    assert [n for _, n in made] == list(range(300))
    assert len({state for state, _ in made}) == 2
    assert sum(heard) == 300
    assert workers.ordered_map(lambda state, n: state, [1, 2, 3], jobs=1, setup=os.getpid) == [os.getpid()] * 3


def failing(n: int) -> int:
    if n == 250:
        raise SiteError([Problem("content/papers/x.md", 3, "a bad page")])
    return n


def test_a_site_error_in_a_worker_keeps_its_problems():
    with pytest.raises(SiteError) as caught:
        workers.ordered_map(failing, list(range(400)), jobs=2)
    assert [str(p) for p in caught.value.problems] == ["content/papers/x.md:3: a bad page"]
    with pytest.raises(SiteError):
        workers.Background(lambda: failing(250), jobs=2).result()


def test_a_crash_in_a_worker_comes_back_with_its_traceback():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        workers.ordered_map(lambda n: 1 // (n - 321), list(range(400)), jobs=2)
    with pytest.raises(RuntimeError, match="a build worker died"):
        workers.Background(lambda: os._exit(3), jobs=2).result()


def test_a_cancelled_background_worker_is_gone():
    job = workers.Background(lambda: signal.pause(), jobs=2)
    pid = job.child[0]
    job.cancel()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


prepared = {}


def wait_for(flag):
    """A standby's preparation: wait (up to 10 s) for the test to create `flag`."""
    for _ in range(1000):
        if flag.exists():
            prepared["saw flag"] = True
            return
        time.sleep(0.01)
    prepared["saw flag"] = False


def test_a_standby_worker_prepares_first_and_takes_its_input_without_holding_the_build_up(tmp_path):
    flag = tmp_path / "flag"
    job = workers.Standby(lambda: wait_for(flag), lambda value: (prepared.get("saw flag"), len(value), os.getpid()), jobs=2)
    # Far more than a pipe holds, handed over while the worker is still preparing: start() must
    # return at once, or the flag would come too late.
    job.start(b"x" * 5_000_000)
    flag.touch()
    saw_flag, size, pid = job.result()
    assert (saw_flag, size) == (True, 5_000_000) and pid != os.getpid()
    assert job.child is None and job.feed is None
    assert "saw flag" not in prepared   # prepared in the worker, not here


def test_a_standby_worker_ends_once_its_result_is_sent_not_when_the_build_asks_for_it():
    # A result larger than a pipe holds: unread, its worker would wait (and hold its memory) until result().
    job = workers.Standby(lambda: None, lambda value: (b"r" * value, os.getpid()), jobs=2)
    pid = job.child[0]
    job.start(1_000_000)
    assert gone_within(pid, 10)
    data, worker = job.result()
    assert (len(data), worker) == (1_000_000, pid)


def test_a_started_standby_worker_is_gone_when_cancelled():
    job = workers.Standby(lambda: None, lambda value: time.sleep(value), jobs=2)
    pid = job.child[0]
    job.start(60)
    started = time.monotonic()
    job.cancel()
    assert time.monotonic() - started < 10
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert job.child is None and job.feed is None


def gone_within(pid: int, seconds: float) -> bool:
    """Whether the child `pid` ends (and is reaped) within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.01)
    return False


def test_a_standby_job_runs_at_result_with_one_job():
    job = workers.Standby(lambda: prepared.update(here=True), lambda value: (value, os.getpid()), jobs=1)
    job.start(7)
    assert job.result() == (7, os.getpid())
    assert "here" not in prepared   # nothing to prepare ahead in the build process


def test_a_standby_worker_never_started_is_gone_when_cancelled():
    with workers.Standby(lambda: None, lambda value: value, jobs=2) as job:
        pid = job.child[0]
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert job.feed is None


def test_a_standby_workers_failure_comes_back():
    job = workers.Standby(lambda: None, lambda value: failing(value), jobs=2)
    job.start(250)
    with pytest.raises(SiteError):
        job.result()
    crashing = workers.Standby(lambda: os._exit(3), lambda value: value, jobs=2)
    crashing.start(b"y" * 1_000_000)   # to a worker that is gone: the write fails quietly
    with pytest.raises(RuntimeError, match="a build worker died"):
        crashing.result()
