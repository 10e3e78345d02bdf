"""LaTeX math to MathML at build time, with the converter's output treated as untrusted.

latex2mathml passes some input straight through (`\\text{<b>}` unescaped, `\\href{...}`
as an href attribute, unknown commands as text), so its output is parsed and
re-serialised keeping only MathML elements and presentational attributes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from html import escape

from latex2mathml.converter import convert

from ..errors import UNKNOWN_COMMAND
from .macros import CONTROL_WORD, CONTROL_WORD_RE

MATHML_ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msqrt mroot mfrac msub msup msubsup munder mover "
    "munderover mtable mtr mtd mstyle mpadded mphantom menclose merror semantics annotation "
    "mmultiscripts mprescripts none mlabeledtr maligngroup malignmark".split()
)
MATHML_ATTRIBUTES = frozenset(
    "display mathvariant stretchy fence separator lspace rspace accent accentunder movablelimits "
    "largeop symmetric minsize maxsize linethickness columnalign rowalign columnspacing rowspacing "
    "columnlines rowlines frame width height depth notation form scriptlevel displaystyle "
    "mathsize mathcolor mathbackground".split()
)
# The command an unknown-command warning names (the build's note counts them, enrich/texts.py).
UNKNOWN_WARNING_RE = re.compile(rf"{UNKNOWN_COMMAND} ({CONTROL_WORD}) ")
# Fractions latex2mathml does not know, written as the one it does: `\nicefrac{1}{2}` (the nicefrac
# and xfrac packages' slanted ½, in the real corpus) is still one half, upright.
FRACTION_ALIASES_RE = re.compile(r"\\(?:nicefrac|sfrac)(?![A-Za-z])")


class MathError(ValueError):
    """LaTeX math that cannot be shown as MathML; the caller warns and shows it as code."""


@lru_cache(maxsize=8192)
def latex_to_mathml(latex: str, display: bool = False) -> str:
    """Safe MathML for one formula (cached: formulas like $n$ repeat across thousands of papers)."""
    if not latex.strip():
        raise MathError("empty formula")
    try:
        raw = convert(FRACTION_ALIASES_RE.sub(r"\\frac", latex), display="block" if display else "inline")
        root = ET.fromstring(raw)
    except Exception as exc:  # latex2mathml raises many private exception types
        raise MathError(f"cannot convert ${latex}$ to MathML ({type(exc).__name__})") from None
    unknown = find_unknown_command(root)
    if unknown:
        # Most are a paper's own macros, which the site can define (site.yml math_macros, text/macros.py).
        raise MathError(f"{UNKNOWN_COMMAND} {unknown} in ${latex}$ (a macro of the paper's own? "
                        "define it under math_macros in site.yml)")
    return serialise(root)


def unknown_command_in(message: str) -> str | None:
    """The command a warning of `latex_to_mathml`'s names when it is an unknown one."""
    found = UNKNOWN_WARNING_RE.match(message)
    return found[1] if found else None


def find_unknown_command(root: ET.Element) -> str | None:
    """latex2mathml emits an unknown `\\foo` as literal text instead of failing."""
    for element in root.iter():
        match = CONTROL_WORD_RE.search(element.text or "")
        if match:
            return match.group(0)
    return None


def serialise(element: ET.Element) -> str:
    name = element.tag.rpartition("}")[2]
    if name not in MATHML_ELEMENTS:
        raise MathError(f"unexpected element <{name}> in converted math")
    attrs = "".join(
        f' {key}="{escape(value)}"'
        for key, value in sorted(element.attrib.items())
        if key in MATHML_ATTRIBUTES
    )
    inner = escape(element.text or "", quote=False) + "".join(
        serialise(child) + escape(child.tail or "", quote=False) for child in element
    )
    return f"<{name}{attrs}>{inner}</{name}>"
