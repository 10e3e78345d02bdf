"""Tests for papersite.text.mathtext: LaTeX math as readable Unicode text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from support.texts import latex_like

from papersite.text.mathtext import math_to_text


@pytest.mark.parametrize("latex, expected", [
    (r"O(\sqrt{K})", "O(√K)"),
    (r"\ell_p", "ℓₚ"),
    (r"\ell_1", "ℓ₁"),
    (r"\Omega(1/k)", "Ω(1/k)"),
    (r"\varphi", "φ"),
    (r"O(\log k / k)", "O(log k / k)"),
    (r"\mathbb{R}^d", "ℝᵈ"),
    (r"O(\sqrt{d/n})", "O(√(d/n))"),
    (r"\frac{a+b}{2}", "(a+b)/2"),
    (r"\Theta(\frac{S}{\log S})", "Θ(S/(log S))"),
    (r"\sum_{i=1}^n x_i^2", "Σᵢ₌₁ⁿ xᵢ²"),
    (r"k\log k", "k log k"),
    (r"\epsilon \leq 1/2, \delta\geq 0", "ε ≤ 1/2, δ ≥ 0"),
    (r"n \times d \cdot x \pm \infty", "n × d · x ± ∞"),
    (r"x \in \mathcal{X}, t \to \infty, a\approx b", "x ∈ X, t → ∞, a ≈ b"),
    (r"\mathbf{x}_0 \not\in S", "x₀ ∉ S"),
    (r"\tilde{O}(d)", "Õ(d)"),
    (r"\widetilde O(1/\epsilon^{1-\theta})", "Õ(1/ε¹⁻ᶿ)"),
    (r"\text{if } x = 0", "if x = 0"),
    (r"p_\text{eff}", "p_eff"),
    (r"\mathbb{R}^{n\times d}", "ℝ^(n× d)"),
    (r"\{0,1\}^n", "｛0,1｝ⁿ"),
    (r"\left( \frac{1}{\sqrt{T}} \right.", "( 1/√T"),
    (r"\|x\|_2^2", "‖x‖₂²"),
    (r"\costm < \costM", "costm < costM"),
    (r"x^*", "x*"),
    ("", ""),
])
def test_math_to_text(latex, expected):
    assert math_to_text(latex) == expected


@pytest.mark.parametrize("latex", ["\\", "{{{", "}}}", r"\frac{", r"\sqrt[", r"x^", r"\hat" * 500 + "x",
                                   "{" * 3000, r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}"])
def test_math_to_text_on_broken_input(latex):
    text = math_to_text(latex)
    assert "\\" not in text and "{" not in text and "}" not in text


@settings(max_examples=400, deadline=None)
@given(latex_like)
def test_math_to_text_has_no_backslash_or_braces(latex):
    text = math_to_text(latex)
    assert "\\" not in text and "{" not in text and "}" not in text
