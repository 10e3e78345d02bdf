"""Checks and clean-ups shared by every input file: what a slug is, what pages show, how a wrong value reads."""

from __future__ import annotations

import datetime
import re

from ..text.chars import INVISIBLE_RE, UNSHOWABLE_RE

# \Z, not $: "$" also matches before a final newline, and `slug: "x\n"` must not pass.
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
# A slug is a file name (`papers/<slug>.html`, and `.<slug>.md.tmp-<pid>` while import writes it):
# file systems take 255 bytes, so a longer slug is an error at its line, not a failed write.
MAX_SLUG_LENGTH = 200
# The years a paper may carry: what `build` accepts, and so what `import` writes.
FIRST_YEAR, LAST_YEAR = 1900, 2100


def slug_problem(slug: str) -> str | None:
    """What is wrong with a slug (for "must be ..." messages), or None."""
    if not SLUG_RE.match(slug):
        return f"lower-case letters, digits and single hyphens (no '/', '..' or spaces), got {slug!r}{invisible_note(slug)}"
    if len(slug) > MAX_SLUG_LENGTH:
        return f"at most {MAX_SLUG_LENGTH} characters (it names a file), got {len(slug)}"
    return None


def year_problem(year: object) -> str | None:
    if isinstance(year, int) and not isinstance(year, bool) and FIRST_YEAR <= year <= LAST_YEAR:
        return None
    return f"a four-digit year from {FIRST_YEAR} to {LAST_YEAR}, got {describe(year)}"


def date_value(value: object) -> str | None:
    """A day as front matter gives it (`added: 2026-12-05`, which YAML reads as a date, or the same
    quoted) in ISO form; None for anything else, a time of day included."""
    if isinstance(value, datetime.datetime):
        return None
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return datetime.date.fromisoformat(value).isoformat()
        except ValueError:
            return None
    return None


def showable(text: str) -> str:
    """Text as pages show it: without the characters pages never show (text/chars.py, UNSHOWABLE_RE)."""
    return UNSHOWABLE_RE.sub("", text)


def invisible_note(text: str) -> str:
    found = sorted({f"U+{ord(c):04X}" for c in INVISIBLE_RE.findall(text)})
    return f" (it holds invisible characters: {', '.join(found)})" if found else ""


def text_list_problem(key: str, value: object) -> str | None:
    """Why `value` is not a list of text items (the message names the first item that is not), or None."""
    if not isinstance(value, list):
        return f"'{key}' must be a list of text items, like [a, b], got {describe(value)}"
    wrong = next(((n, v) for n, v in enumerate(value, 1) if not isinstance(v, str)), None)
    return None if wrong is None else f"'{key}' must be a list of text items, like [a, b]; item {wrong[0]} is {describe(wrong[1])}"


def describe(value: object) -> str:
    if isinstance(value, datetime.date):   # what YAML makes of 2025-01-31 (and of 2025-01-31 10:00)
        return f"a date and time {value}" if isinstance(value, datetime.datetime) else f"a date {value}"
    kind = {str: "text", int: "a number", float: "a number", bool: "true/false", list: "a list",
            dict: "a mapping", type(None): "nothing"}.get(type(value), type(value).__name__)
    return f"{kind} {value!r}" if not isinstance(value, (list, dict)) else kind
