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
      | !?\[(?P<label>(?:\\.|[^\\\]\n]|\n(?![ \t]*\n))*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)
      | (?P<citation>\[(?:[^\[\]]*?[\s;])?-?@[^\s\[\];,]+[^\[\]]*\])
      | <(?P<autolink>[A-Za-z][A-Za-z0-9+.-]*:[^<>\s]+)>
    """,
    re.VERBOSE | re.DOTALL)  # tried only where _INLINE_TRIGGER found a candidate
_MATH_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")  # private-use marks, stripped from input
_MAX_INLINE_DEPTH = 16
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_WORD = re.compile(r"\w")
# The longest delimiter tried of each kind: `***` is bold italic; a code fence of more backticks
# than 32 is taken as 32 of them.
_LONGEST = {"*": 3, "_": 3, "`": 32}
_EMPHASIZED = r"(?:\\.|[^\\\n]|\n(?![ \t]*\n))"   # any character or escape (a newline too), no blank line


def _delimited(char: str, length: int) -> re.Pattern:
    """Emphasis (`*x*`, `__x__`) or code (`` `x` ``) with a delimiter of exactly `length` characters,
    the inner text as group `inner`."""
    delimiter = re.escape(char) + "{%d}" % length
    if char == "`":
        return re.compile(f"{delimiter}(?P<inner>.+?){delimiter}", re.DOTALL)
    before, after = (r"(?<!\w)", r"(?!\w)") if char == "_" else ("", "")
    return re.compile(f"{before}{delimiter}(?=\\S)(?P<inner>{_EMPHASIZED}+?)(?<=\\S){delimiter}{after}", re.DOTALL)


_DELIMITED = {(char, length): _delimited(char, length) for char, longest in _LONGEST.items() for length in range(1, longest + 1)}


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
    delimiters = _Delimiters(text)
    while (trigger := _INLINE_TRIGGER.search(text, pos)) is not None:
        at = trigger.start()
        char = text[at]
        m = delimiters.match(at) if char in _LONGEST else _INLINE_MARKUP.match(text, at)
        if m is None:
            out.append(text[pos:at + 1])
            pos = _skip_run(text, at)
            out.append(text[at + 1:pos])
            continue
        out.append(text[pos:at])
        if char in _LONGEST:
            inner = m.group("inner")
            out.append(inner.strip() if char == "`" else _flatten_inline(inner, depth + 1))
        elif m.group("citation") is not None:
            out.append(out.pop().rstrip(" \t"))  # with the space before it
        else:
            out.append(_flatten_inline_match(m, depth))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


class _Delimiters:
    """Emphasis and code spans, with what is known to have no closer remembered, so that a run of
    openers costs linear time, not quadratic.

    A delimiter of each length is tried in turn, the longest first (`**x*` is `*` emphasis around
    `*x`). One that found no closer up to the end of its paragraph (emphasis) or of the text (code)
    means that no later opener of that character and length, before that end, has one either: its
    closer would have closed the first one. So it is not searched for again there. Only a search
    that ran is remembered (an opener followed by a space, or `_` inside a word, fails at once)."""

    def __init__(self, text: str):
        self.text = text
        self.dead: dict[tuple[str, int], int] = {}   # (character, length) -> where its search found no closer
        self.paragraph = (-1, -1)

    def match(self, at: int) -> re.Match | None:
        char = self.text[at]
        for length in range(min(_skip_run(self.text, at) - at, _LONGEST[char]), 0, -1):
            if at < self.dead.get((char, length), -1):
                continue
            m = _DELIMITED[char, length].match(self.text, at)
            if m is not None:
                return m
            if self.searched(at, char, length):
                self.dead[char, length] = len(self.text) if char == "`" else self.paragraph_end(at)
        return None

    def searched(self, at: int, char: str, length: int) -> bool:
        """Whether the opener's own conditions held, so its pattern failed for want of a closer."""
        text, after = self.text, at + length
        if char == "`":
            return True
        return after < len(text) and not text[after].isspace() and not (char == "_" and at and _WORD.match(text[at - 1]))

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
    if m.group("autolink") is not None:
        return m.group("autolink")
    if m.group("label") is not None:
        return _flatten_inline(m.group("label"), depth + 1)
    return ""
