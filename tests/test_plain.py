"""Tests for papersite.text.plain: Markdown with math as plain one-line text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from support.texts import latex_like

from papersite.ingest.latex import latex_to_markdown
from papersite.text.plain import flatten_markdown


def test_flatten_real_abstract_excerpt():
    markdown, warnings = latex_to_markdown(
        r"Our approach is based on the concept of \emph{approximate sufficient statistics}, "
        r"which we extend beyond its original definition in~\cite{oko2025statistical} for "
        r"contrastive language-image pretraining (CLIP) using KL-divergence. We generalize it "
        r"to equivalent forms and general $f$-divergences")
    assert warnings == []
    assert flatten_markdown(markdown) == (
        "Our approach is based on the concept of approximate sufficient statistics, which we extend "
        "beyond its original definition in for contrastive language-image pretraining (CLIP) using "
        "KL-divergence. We generalize it to equivalent forms and general f-divergences")


@pytest.mark.parametrize("markdown, expected", [
    ("**bold** and *em* and ***both*** and __u__ and _v_", "bold and em and both and u and v"),
    ("snake_case_name and 2 * 3 * 4", "snake_case_name and 2 * 3 * 4"),
    ("see [the docs](https://x.org/a_(b)) now", "see the docs now"),
    ("![a figure](f.png) caption", "a figure caption"),
    ("autolink <https://x.org/a> and bare https://y.org/b.", "autolink https://x.org/a and bare https://y.org/b."),
    ("in [@a; @b] for [see @k, p. 3], and.", "in for, and."),
    ("statistics [@k].", "statistics."),
    ("mail [me@x.org] stays", "mail [me@x.org] stays"),
    ("`code span` and ``a`b``", "code span and a`b"),
    (r"escaped \$5 and \_ and \*not em\*", "escaped $5 and _ and *not em*"),
    ("*the $\\ell_1$ norm* of $O(\\sqrt{K})$", "the ℓ₁ norm of O(√K)"),
    ("EMC$^2$ and $k$-means and top-$k$", "EMC² and k-means and top-k"),
    ("para one\n\n- item one\n- item two\n\n# Heading\n> quoted", "para one item one item two Heading quoted"),
    ("  lots   of\tspace\n", "lots of space"),
    ("a $x\n\ny$ b", "a $x y$ b"),
])
def test_flatten_markdown(markdown, expected):
    assert flatten_markdown(markdown) == expected


@settings(max_examples=400, deadline=None)
@given(latex_like)
def test_flatten_markdown_never_raises(text):
    for markdown in (text, latex_to_markdown(text)[0]):
        flat = flatten_markdown(markdown)
        assert flat == " ".join(flat.split())
