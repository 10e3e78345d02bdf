"""The front matter `import` writes, read without a YAML parser: the value a YAML parser gives, or None.

A page's front matter is a dozen `key: value` lines (inputs/papers.py; ingest/pagetext.py writes
them). Parsing it with PyYAML was most of reading a page: libyaml calls back into Python's
resolver for every scalar and the value is built in Python, about 140 µs a page, 14 s of CPU at
100,000 papers (bench/README.md). `read_simple` reads the one-line forms and nothing else:

- a plain scalar that YAML reads as text, a decimal integer or a date (YYYY-MM-DD);
- a single-quoted scalar;
- `[]`, `{}`, and a flow list of plain text items, `[a, b, c]`.

It answers None for anything else (a comment, a blank line, a nested value, a double-quoted
scalar, a key given twice, a character YAML treats specially), and the caller parses the text
with YAML, which also gives every line number a message needs. What it does read, it reads as
YAML does: which plain scalars are text is PyYAML's own resolver's answer, and a test compares
both readings on every shipped page and every fixture (tests/test_plainyaml.py).
"""

from __future__ import annotations

import datetime
import re
from functools import lru_cache

import yaml

KEY_LINE_RE = re.compile(r"([a-z_]+): (.+)\Z")
DECIMAL_RE = re.compile(r"(?:0|[1-9][0-9]{0,29})\Z")   # yamlsrc.MAX_INT_DIGITS
DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
# What a plain scalar may hold here: YAML's printable characters but its line breaks (\x85,
# \u2028, \u2029) and the byte order mark; no indicator first, no colon anywhere (": " would start a
# mapping), and in a flow list none of ",[]{}". YAML's grammar allows more in places; a page that
# writes it so is simply left to YAML.
NOT_PRINTABLE = "\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufeff\\ufffe\\uffff"
FIRST = f"[^{NOT_PRINTABLE} \\-?:,\\[\\]{{}}#&*!|>'\"%@`]"
BLOCK_PLAIN_RE = re.compile(f"{FIRST}[^{NOT_PRINTABLE}:]*\\Z")
FLOW_PLAIN_RE = re.compile(f"{FIRST}[^{NOT_PRINTABLE}:,\\[\\]{{}}]*\\Z")
QUOTED_RE = re.compile(f"'((?:[^'{NOT_PRINTABLE}]|'')*)'\\Z")
STR_TAG = "tag:yaml.org,2002:str"
INT_TAG = "tag:yaml.org,2002:int"
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
RESOLVER = yaml.resolver.Resolver()   # only its resolve() is used, which reads the class's implicit resolvers


def read_simple(text: str) -> dict | None:
    """The mapping YAML reads from `text`, when every line of it is `key: value` in the forms above; else None."""
    found: dict = {}
    for line in text.split("\n"):
        match = KEY_LINE_RE.match(line)
        if match is None:
            return None
        key, raw = match.groups()
        if key in found or plain_tag(key) != STR_TAG:
            return None
        value = read_value(raw)
        if value is None:
            return None
        found[key] = value
    return found or None


def read_value(raw: str):
    """The value of a one-line scalar or flow collection as YAML reads it; None when it is not one of ours."""
    if raw == "[]":
        return []
    if raw == "{}":
        return {}
    if raw[0] == "[":
        if raw[-1] != "]":
            return None
        items = raw[1:-1].split(", ")
        if not all(FLOW_PLAIN_RE.match(item) and item[-1] != " " and " #" not in item and plain_tag(item) == STR_TAG
                   for item in items):
            return None
        return items
    if raw[0] == "'":
        match = QUOTED_RE.match(raw)
        return match.group(1).replace("''", "'") if match is not None else None
    if raw[-1] == " " or " #" in raw or BLOCK_PLAIN_RE.match(raw) is None:
        return None
    tag = plain_tag(raw)
    if tag == STR_TAG:
        return raw
    if tag == INT_TAG and DECIMAL_RE.match(raw):
        return int(raw)
    if tag == TIMESTAMP_TAG and (date := DATE_RE.match(raw)) is not None:
        try:
            return datetime.date(*map(int, date.groups()))
        except ValueError:   # no such day: YAML says so, with its line
            return None
    return None


@lru_cache(maxsize=1 << 16)
def plain_tag(value: str) -> str:
    """What YAML makes of `value` as a plain scalar: PyYAML's resolver, as its loaders use it.
    Remembered: every page asks it of the same dozen keys, and of the same topics, venues and
    many of the same names (read_simple: 38 µs a page, against 42 asking the resolver each time)."""
    return RESOLVER.resolve(yaml.ScalarNode, value, (True, False))
