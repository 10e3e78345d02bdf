"""LaTeX math to MathML: what latex2mathml makes, kept to MathML, and what it cannot make said so."""

from __future__ import annotations

import pytest

from papersite.text.mathml import MathError, latex_to_mathml


def test_a_formula_becomes_mathml():
    assert latex_to_mathml(r"O(\sqrt{K})") == (
        '<math display="inline"><mrow><mi>O</mi><mo stretchy="false">(</mo><msqrt><mrow><mi>K</mi></mrow></msqrt>'
        '<mo stretchy="false">)</mo></mrow></math>')


@pytest.mark.parametrize("command", [r"\nicefrac", r"\sfrac"])
def test_the_slanted_fractions_of_nicefrac_and_xfrac_are_fractions(command):
    assert latex_to_mathml(command + "{1}{2}") == latex_to_mathml(r"\frac{1}{2}")
    assert "<mfrac>" in latex_to_mathml(command + "{1}{2}")


def test_an_unknown_command_is_an_error_not_text():
    with pytest.raises(MathError, match=r"unknown LaTeX command \\nicefracs in"):
        latex_to_mathml(r"\nicefracs{1}{2}")


def test_markup_passed_through_into_the_mathml_is_refused():
    """latex2mathml copies `\\text{...}` as it is: markup there breaks the MathML, which is then
    an error (the page shows the formula as code) and never HTML."""
    with pytest.raises(MathError, match="unexpected element <b>"):
        latex_to_mathml(r"\text{<b>bold</b>}")
