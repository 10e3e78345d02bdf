"""Tests for papersite.text.mathspans: where math is in Markdown or LaTeX text."""

from __future__ import annotations

from papersite.text.mathspans import find_math_spans


def test_math_with_nested_dollars_in_text_is_one_span():
    # ICML 2024, source_id NCT3w7VKjo
    text = r"named $\textit{$\underline{G}$raph $\underline{P}$U Learning}$ (GPL)"
    assert find_math_spans(text) == [(6, len(text) - 6)]


def test_math_does_not_cross_paragraphs():
    assert find_math_spans("a $x\n\ny$ b") == []
