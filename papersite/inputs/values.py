"""Checks and clean-ups shared by every input file: what a slug is, what pages show, how a wrong value reads."""

from __future__ import annotations

import re

from ..text.chars import INVISIBLE_RE, UNSHOWABLE_RE

# \Z, not $: "$" also matches before a final newline, and `slug: "x\n"` must not pass.
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")


def showable(text: str) -> str:
    """Text as pages show it: no control characters, no bidi overrides, no zero-width characters."""
    return UNSHOWABLE_RE.sub("", text)


def invisible_note(text: str) -> str:
    found = sorted({f"U+{ord(c):04X}" for c in INVISIBLE_RE.findall(text)})
    return f" (it holds invisible characters: {', '.join(found)})" if found else ""


def describe(value: object) -> str:
    kind = {str: "text", int: "a number", float: "a number", bool: "true/false", list: "a list",
            dict: "a mapping", type(None): "nothing"}.get(type(value), type(value).__name__)
    return f"{kind} {value!r}" if not isinstance(value, (list, dict)) else kind
