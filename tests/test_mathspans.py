"""Tests for papersite.text.mathspans: where math is in Markdown or LaTeX text."""

from __future__ import annotations

from papersite.text.mathspans import find_math_spans


def test_math_with_nested_dollars_in_text_is_one_span():
    # ICML 2024, source_id NCT3w7VKjo
    text = r"named $\textit{$\underline{G}$raph $\underline{P}$U Learning}$ (GPL)"
    assert find_math_spans(text) == [(6, len(text) - 6)]


def test_math_does_not_cross_paragraphs():
    assert find_math_spans("a $x\n\ny$ b") == []


# --- linear time, same spans ------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from papersite.text import mathspans  # noqa: E402

MATH_TOKENS = ["$", "$$", "{", "}", "\\", "\\$", "\\{", "x", " ", "\n", "\n\n", "\\(", "\\)", "\\[", "\\]",
               "\\begin{equation}", "\\end{equation}", "a", "\\text{", "$x$", " $y"]


def spans_by_scanning(text: str) -> list[tuple[int, int]]:
    """The definition, as it was written first: from each opener, scan for its closer to the end
    of the paragraph. Quadratic on a paragraph of openers that never close, so only for small texts."""
    spans, limit, pos = [], -1, 0
    while (m := mathspans._MATH_OPENER.search(text, pos)) is not None:
        start = m.start()
        if start >= limit:
            limit = mathspans._find_paragraph_end(text, start)
        end = mathspans._find_math_end(text, m, limit)
        end = None if end == mathspans.NO_CLOSER else end
        if end is None:
            pos = start + 1 if m.group() == "$" else m.end()
        else:
            spans.append((start, end))
            pos = end
    return spans


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(MATH_TOKENS), max_size=30).map("".join))
def test_spans_are_the_ones_a_scan_from_each_opener_finds(text):
    """find_math_spans skips the scans it knows the answer of (openers with no closer, `$` inside
    braces that never close); the spans must be the same."""
    assert find_math_spans(text) == spans_by_scanning(text)


class Counting:
    """A pattern whose finditer counts the tokens it yields."""

    def __init__(self, pattern, counter: list[int]):
        self.pattern, self.counter = pattern, counter

    def finditer(self, *args):
        for m in self.pattern.finditer(*args):
            self.counter[0] += 1
            yield m


def test_a_paragraph_of_openers_that_never_close_takes_linear_time(monkeypatch):
    """Counted in tokens the closer searches read, not seconds: 8x the text, at most ~8x the work."""
    counter = [0]
    for name in ("_INLINE_CLOSER", "_DISPLAY_CLOSER", "_ESCAPE_PAIR"):
        monkeypatch.setattr(mathspans, name, Counting(getattr(mathspans, name), counter))
    monkeypatch.setattr(mathspans, "_ENV_CLOSERS", {env: Counting(p, counter) for env, p in mathspans._ENV_CLOSERS.items()})

    def tokens_read(text: str) -> int:
        counter[0] = 0
        find_math_spans(text)
        return counter[0]

    for unit in ("{\\[>&$", "${", "$\\{", "\\[x", "\\(", "$$x", "\\begin{equation}"):
        small, large = tokens_read(unit * 500), tokens_read(unit * 4000)
        assert large <= 9 * max(small, 500), (unit, small, large)
