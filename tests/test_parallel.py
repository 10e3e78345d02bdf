"""Forked workers: results in input order, and workers that die when they are told to."""

from __future__ import annotations

import signal

import pytest

from papersite import parallel

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="workers are forked only where fork is safe")


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


def test_pool_workers_die_of_sigterm_whatever_the_parent_handles(raising_sigterm):
    # Pool.terminate stops idle workers with SIGTERM; a handler inherited from the parent once
    # left one waiting on the task queue's lock, and the dev server waiting for it.
    used = parallel.used_pool
    actions = parallel.ordered_map(sigterm_action, list(range(8)), jobs=2, min_items=2)
    assert parallel.used_pool == used + 1
    assert actions == [signal.SIG_DFL] * 8


def test_a_background_worker_dies_of_sigterm_whatever_the_parent_handles(raising_sigterm):
    assert parallel.Background(sigterm_action, jobs=2).result() == signal.SIG_DFL


def test_results_come_back_in_input_order():
    items = list(range(500))
    assert parallel.ordered_map(lambda n: n * n, items, jobs=2) == [n * n for n in items]
