"""Which papers kept their order between two builds (enrich/moves.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from papersite.enrich.moves import longest_rising


def test_the_papers_that_kept_their_order_are_a_longest_rising_run():
    assert longest_rising([0, 1, 2, 3, 4]).tolist() == [True] * 5
    assert longest_rising([1, 2, 3, 0, 4]).tolist() == [True, True, True, False, True]   # one moved forward
    assert longest_rising([0, 4, 1, 2, 3]).tolist() == [True, False, True, True, True]   # one moved back
    assert longest_rising([]).tolist() == []


@given(st.lists(st.integers(0, 50), unique=True, max_size=40))
def test_the_run_rises_and_none_is_longer(values):
    kept = [value for value, keep in zip(values, longest_rising(values).tolist()) if keep]
    assert kept == sorted(kept)
    # The longest rising run's length, by the quadratic recurrence.
    longest = [1] * len(values)
    for i in range(len(values)):
        for j in range(i):
            if values[j] < values[i]:
                longest[i] = max(longest[i], longest[j] + 1)
    assert len(kept) == max(longest, default=0)
