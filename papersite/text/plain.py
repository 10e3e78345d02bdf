"""Markdown (with $math$) as one line of plain text, for summaries, search and BibTeX."""

from __future__ import annotations

import re

from .mathspans import hide_math_spans, math_body
from .mathtext import math_to_text

_BLOCK_MARKUP = re.compile(
    r"^[ \t]*(?:(?:[-*_][ \t]*){3,}$|#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+)", re.MULTILINE)
_INLINE_TRIGGER = re.compile(r"[\\`!\[<*_]")  # a lone charset: re scans for it fast
_INLINE_MARKUP = re.compile(
    r"""\\(?P<escaped>[!-/:-@\[-`{-~])
      | (?P<fence>`{1,32})(?P<code>.+?)(?P=fence)
      | !?\[(?P<label>(?:\\.|[^\\\]])*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)
      | (?P<citation>\[(?:[^\[\]]*?[\s;])?-?@[^\s\[\];,]+[^\[\]]*\])
      | <(?P<autolink>[A-Za-z][A-Za-z0-9+.-]*:[^<>\s]+)>
      | (?P<stars>\*{1,3})(?=\S)(?P<starred>(?:\\.|[^\\\n]|\n(?![ \t]*\n))+?)(?<=\S)(?P=stars)
      | (?<!\w)(?P<unders>_{1,3})(?=\S)(?P<underscored>(?:\\.|[^\\\n]|\n(?![ \t]*\n))+?)(?<=\S)(?P=unders)(?!\w)
    """,
    re.VERBOSE | re.DOTALL)  # tried only where _INLINE_TRIGGER found a candidate
_MATH_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")  # private-use marks, stripped from input
_MAX_INLINE_DEPTH = 16
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_WORD = re.compile(r"\w")
# Openers that look for their closer up to the end of the paragraph (emphasis) or of the text (code).
_SCANNING = "*_`"


def flatten_markdown(markdown: str) -> str:
    """Markdown as one line of plain text, for summaries and the search index.

    Markup goes, links keep their text, citations are dropped, math becomes
    math_to_text, escapes lose their backslash, whitespace is collapsed.
    """
    text = markdown
    if "\n" in text or text[:1] in "#>-*+_":
        text = _BLOCK_MARKUP.sub("", text)
    maths: list[str] = []
    if "$" in text or "\\" in text:
        text, maths = _hide_math(text.replace("\ue000", "").replace("\ue001", ""))
    text = _flatten_inline(text, 0)
    if maths:
        text = _MATH_PLACEHOLDER.sub(lambda m: maths[int(m.group(1))], text)
    return " ".join(text.split())



def _hide_math(text: str) -> tuple[str, list[str]]:
    """Swap math spans for placeholders so emphasis can span them: `*the $x$ norm*`."""
    hidden, spans = hide_math_spans(text, "\ue000", "\ue001")
    return hidden, [math_to_text(math_body(span)) for span in spans]


def _flatten_inline(text: str, depth: int) -> str:
    # A hand-rolled re.sub: an alternation tried at every position is an order of magnitude slower
    # than searching for the trigger characters first (bench/README.md, "Measured choices").
    if depth > _MAX_INLINE_DEPTH:
        return text
    out: list[str] = []
    pos = 0
    unclosed = _Unclosed(text)
    while (trigger := _INLINE_TRIGGER.search(text, pos)) is not None:
        at = trigger.start()
        m = None if unclosed.known(at) else _INLINE_MARKUP.match(text, at)
        if m is None:
            unclosed.add(at)
            out.append(text[pos:at + 1])
            pos = _skip_run(text, at)
            out.append(text[at + 1:pos])
            continue
        out.append(text[pos:at])
        if m.group("citation") is not None:
            out.append(out.pop().rstrip(" \t"))  # with the space before it
        else:
            out.append(_flatten_inline_match(m, depth))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


class _Unclosed:
    """Openers known to have no closer, so that a run of them costs linear time, not quadratic.

    An emphasis opener (`*`, `_`) that found no closer up to the end of its paragraph, or a code
    opener (a run of backticks) none up to the end of the text, means that no later opener of the
    same kind and a run no longer, before that end, has one either: its closer would have closed
    the first one. Only openers whose own conditions hold (a non-space after, for `_` no word
    character before) are remembered, so the first failed for want of a closer."""

    def __init__(self, text: str):
        self.text = text
        self.ends: dict[str, tuple[int, int]] = {}   # opener -> (where its search ended, longest run)
        self.paragraph = (-1, -1)

    def run(self, at: int) -> int:
        return min(_skip_run(self.text, at) - at, 3 if self.text[at] != "`" else 32)

    def known(self, at: int) -> bool:
        char = self.text[at]
        found = self.ends.get(char)
        return found is not None and at < found[0] and self.run(at) <= found[1]

    def add(self, at: int) -> None:
        text, char = self.text, self.text[at]
        if char not in _SCANNING:
            return
        after = _skip_run(text, at)
        if char != "`" and (after >= len(text) or text[after].isspace() or (char == "_" and at and _WORD.match(text[at - 1]))):
            return
        end = len(text) if char == "`" else self.paragraph_end(at)
        found = self.ends.get(char)
        longest = found[1] if found is not None and at < found[0] else 0
        self.ends[char] = (end, max(longest, self.run(at)))

    def paragraph_end(self, at: int) -> int:
        start, end = self.paragraph
        if not start <= at < end:
            blank = _BLANK_LINE.search(self.text, at)
            self.paragraph = (at, blank.start() if blank else len(self.text))
        return self.paragraph[1]


def _skip_run(text: str, at: int) -> int:
    """Position after the run of `text[at]` if it is a backtick, star or underscore."""
    char = text[at]
    end = at + 1
    if char in "`*_":
        while end < len(text) and text[end] == char:
            end += 1
    return end


def _flatten_inline_match(m: re.Match, depth: int) -> str:
    if m.group("escaped") is not None:
        return m.group("escaped")
    if m.group("code") is not None:
        return m.group("code").strip()
    if m.group("autolink") is not None:
        return m.group("autolink")
    for group in ("label", "starred", "underscored"):
        if m.group(group) is not None:
            return _flatten_inline(m.group(group), depth + 1)
    return ""
