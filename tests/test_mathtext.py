"""Tests for papersite.text.mathtext: LaTeX math as the Unicode text a reader would type."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from support.texts import latex_like

from papersite.text.mathtext import math_to_text


@pytest.mark.parametrize("latex, expected", [
    # The titles issue 14 names: what a reader types, no macro names, no `_(`.
    (r"\bf{\Phi}_\textrm{Flow}", "ΦFlow"),
    (r"{\rm E}(3)", "E(3)"),
    (r"\ell_\infty", "ℓ∞"),
    (r"\mathcal{O}", "𝒪"),
    (r"\mathcal{O}(\sqrt{T})", "𝒪(√T)"),
    (r"\mathbb{R}^d", "ℝᵈ"),
    (r"^3", "³"),
    (r"\#", "#"),
    (r"\texttt{MoE-RBench}", "MoE-RBench"),
    (r"O(\sqrt{K})", "O(√K)"),
    (r"\ell_p", "ℓₚ"),
    (r"\ell_1", "ℓ₁"),
    (r"\ell_{2,1}", "ℓ2,1"),
    (r"\Omega(1/k)", "Ω(1/k)"),
    (r"\varphi", "φ"),
    (r"\epsilon, \phi", "ε, φ"),
    (r"O(\log k / k)", "O(log k / k)"),
    (r"O(\sqrt{d/n})", "O(√(d/n))"),
    (r"\frac{a+b}{2}", "(a+b)/2"),
    (r"\frac{1}{\sqrt{T}}", "1/√T"),
    (r"\Theta(\frac{S}{\log S})", "Θ(S/(log S))"),
    (r"T^\frac{\beta}{\beta+1}", "T^(β/(β+1))"),
    (r"\sqrt[3]{x}", "∛x"),
    (r"\binom{n}{k}", "C(n, k)"),
    (r"\sum_{i=1}^n x_i^2", "Σᵢ₌₁ⁿ xᵢ²"),
    (r"k\log k", "k log k"),
    (r"K^2 \log\log T", "K² log log T"),
    (r"\epsilon \leq 1/2, \delta\geq 0", "ε ≤ 1/2, δ ≥ 0"),
    (r"p\gg n", "p ≫ n"),
    (r"n \times d \cdot x \pm \infty", "n × d · x ± ∞"),
    (r"x \in \mathcal{X}, t \to \infty, a\approx b", "x ∈ 𝒳, t → ∞, a ≈ b"),
    (r"\mathbf{x}_0 \not\in S", "x₀ ∉ S"),
    (r"\mathbf{x}\in\mathbb{R}^{n\times d}", "x ∈ ℝ^(n×d)"),
    (r"\tilde{O}(d)", "Õ(d)"),
    (r"\widetilde O(1/\epsilon^{1-\theta})", "Õ(1/ε¹⁻ᶿ)"),
    (r"\text{if } x = 0", "if x = 0"),
    (r"p_\text{eff}", "peff"),
    (r"n^{1/2}", "n^(1/2)"),
    (r"\{0,1\}^n", "{0,1}ⁿ"),
    (r"\left( \frac{1}{\sqrt{T}} \right.", "( 1/√T"),
    (r"\|x\|_2^2", "‖x‖₂²"),
    (r"\operatorname*{argmax}_x f", "argmaxₓ f"),
    (r"\costm < \costM", "costm < costM"),
    (r"\O(n)", "O(n)"),
    (r"x^*", "x*"),
    (r"99.9%", "99.9%"),
    ("", ""),
])
def test_math_to_text(latex, expected):
    assert math_to_text(latex) == expected


@pytest.mark.parametrize("latex", ["\\", "{{{", "}}}", r"\frac{", r"\sqrt[", r"x^", r"\hat" * 500 + "x", "x^" * 1500,
                                   "{" * 3000, "a_{" * 1000, r"\sqrt" * 3000, r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
                                   r"\input{/etc/passwd}", "x" * 5000])
def test_math_to_text_on_broken_input(latex):
    text = math_to_text(latex)
    assert "\\" not in text and "{" not in text and "}" not in text and "passwd" not in text[:6]


@settings(max_examples=400, deadline=None)
@given(latex_like)
def test_math_to_text_has_no_backslash_and_braces_only_where_the_formula_escapes_them(latex):
    text = math_to_text(latex)
    assert "\\" not in text
    if "{" in text or "}" in text:
        assert re.search(r"\\[{}]|\\[lr]brace", latex)
