"""Where math is in Markdown or LaTeX text: the one definition of a math span, used by every stage."""

from __future__ import annotations

import re

PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
_MATH_ENVS = ("equation", "equation*", "displaymath", "align", "align*")
_MATH_OPENER = re.compile(
    r"\\begin\{(%s)\}|\\[\s\S]|\$\$|\$" % "|".join(map(re.escape, _MATH_ENVS)))
_ENV_CLOSERS = {env: re.compile(r"\\end\{%s\}|\\[\s\S]" % re.escape(env)) for env in _MATH_ENVS}
_INLINE_CLOSER = re.compile(r"\\[\s\S]|[{}$]")
_DISPLAY_CLOSER = re.compile(r"\\[\s\S]|\$\$")
_ESCAPE_PAIR = re.compile(r"\\[\s\S]")
_CLOSER_LOOKS_LIKE_OPENER = re.compile(r"\s\$[\w\\{]")
NO_CLOSER = -1


def find_math_spans(text: str) -> list[tuple[int, int]]:
    """Return (start, end) of every math span in `text`, delimiters included.

    Math is `$..$`, `$$..$$`, `\\(..\\)`, `\\[..\\]` and `\\begin{equation}` (also
    `equation*`, `displaymath`, `align`, `align*`). A span never crosses a blank
    line. Backslash escapes (`\\$`, `\\\\`) are skipped. An inline `$` closes at the
    next `$` outside braces (`$\\text{$x$ y}$` is one span), and a candidate closer
    that looks like the next opener (space before it, a word character after it,
    as in `$O(n) regret, where $D$`) makes the first `$` literal. An unmatched
    delimiter is literal text.
    """
    if "$" not in text and "\\" not in text:
        return []
    spans: list[tuple[int, int]] = []
    limit = -1
    pos = 0
    # Openers whose closer is known to be missing up to `limit`: a search that found none from one
    # opener finds none from a later one either, so a paragraph of `\[` is linear, not quadratic.
    unclosed: set[str] = set()
    dollars: _Dollars | None = None
    while (m := _MATH_OPENER.search(text, pos)) is not None:
        start = m.start()
        if start >= limit:
            limit = _find_paragraph_end(text, start)
            unclosed.clear()
            dollars = None
        kind = m.group(1) or m.group()
        if kind == "$":
            dollars = dollars or _Dollars(text, start, limit)
            end = dollars.end(text, start, limit)
        else:
            end = None if kind in unclosed else _find_math_end(text, m, limit)
        if end == NO_CLOSER:
            unclosed.add(kind)
            end = None
        if end is None:
            pos = start + 1 if m.group() == "$" else m.end()
        else:
            spans.append((start, end))
            pos = end
    return spans


class _Dollars:
    """The `$` of a paragraph, from its first opener on, each with its brace depth, and for each the
    next `$` no deeper: the closer an inline opener would find by scanning (`_find_inline_end`),
    found for all of them by one pass with a stack. A scan from each opener to the paragraph's end
    made a paragraph of `${` quadratic."""

    def __init__(self, text: str, start: int, limit: int):
        self.positions: list[int] = []
        depths: list[int] = []
        depth = 0
        for m in _INLINE_CLOSER.finditer(text, start, limit):
            token = m.group()
            if token == "{":
                depth += 1
            elif token == "}":
                depth -= 1
            elif token == "$":
                self.positions.append(m.start())
                depths.append(depth)
        self.index = {position: i for i, position in enumerate(self.positions)}
        self.closer: list[int | None] = [None] * len(self.positions)
        stack: list[int] = []
        for i in range(len(self.positions) - 1, -1, -1):
            while stack and depths[stack[-1]] > depths[i]:
                stack.pop()
            self.closer[i] = stack[-1] if stack else None
            stack.append(i)

    def end(self, text: str, at: int, limit: int) -> int | None:
        """What `_find_inline_end` gives for the opener at `at` (and it, for one this pass did not see)."""
        i = self.index.get(at)
        if i is None:
            return _find_inline_end(text, at + 1, limit)
        j = self.closer[i]
        if j is None and i + 1 < len(self.positions):
            j = i + 1   # braces that never balance: the first `$` inside them closes
        return _accept_inline_closer(text, at + 1, self.positions[j]) if j is not None else None


def _find_paragraph_end(text: str, pos: int) -> int:
    m = PARAGRAPH_BREAK.search(text, pos)
    return m.start() if m else len(text)


def _find_math_end(text: str, opener: re.Match, limit: int) -> int | None:
    token = opener.group()
    if opener.group(1):
        env = opener.group(1)
        return _find_token_end(text, opener.end(), limit, _ENV_CLOSERS[env], "\\end{%s}" % env)
    if token == "$":
        return _find_inline_end(text, opener.end(), limit)
    if token == "$$":
        return _find_token_end(text, opener.end(), limit, _DISPLAY_CLOSER, "$$")
    if token == "\\(":
        return _find_token_end(text, opener.end(), limit, _ESCAPE_PAIR, "\\)")
    if token == "\\[":
        return _find_token_end(text, opener.end(), limit, _ESCAPE_PAIR, "\\]")
    return None


def _find_token_end(text: str, pos: int, limit: int, pattern: re.Pattern, closer: str) -> int | None:
    """The end of the closer, None for empty math, NO_CLOSER when there is none before `limit`."""
    for m in pattern.finditer(text, pos, limit):
        if m.group() == closer:
            return m.end() if m.start() > pos else None  # empty math is not math
    return NO_CLOSER


def _find_inline_end(text: str, pos: int, limit: int) -> int | None:
    depth = 0
    nested = None  # first `$` inside braces: the closer if braces never balance
    for m in _INLINE_CLOSER.finditer(text, pos, limit):
        token = m.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif token == "$":
            if depth <= 0:
                return _accept_inline_closer(text, pos, m.start())
            nested = m.start() if nested is None else nested
    return _accept_inline_closer(text, pos, nested) if nested is not None else None


def _accept_inline_closer(text: str, content_start: int, at: int) -> int | None:
    if at == content_start or _CLOSER_LOOKS_LIKE_OPENER.match(text, at - 1):
        return None
    return at + 1


def math_body(span: str) -> str:
    """The LaTeX inside a math span, without its delimiters."""
    return math_parts(span)[1]


def math_parts(span: str) -> tuple[str, str, str]:
    """A math span as (opening delimiter, the LaTeX inside, closing delimiter)."""
    if span.startswith("$$"):
        opened, closed = 2, len(span) - 2
    elif span.startswith("$"):
        opened, closed = 1, len(span) - 1
    elif span.startswith("\\begin"):
        opened, closed = span.index("}") + 1, span.rindex("\\end")
    else:   # \( \) or \[ \]
        opened, closed = 2, len(span) - 2
    return span[:opened], span[opened:closed], span[closed:]



def hide_math_spans(text: str, opener: str, closer: str) -> tuple[str, list[str]]:
    """Swap each math span for `opener + index + closer`; return the text and the spans, in order."""
    out: list[str] = []
    spans: list[str] = []
    pos = 0
    for start, end in find_math_spans(text):
        out.append(text[pos:start])
        out.append(f"{opener}{len(spans)}{closer}")
        spans.append(text[start:end])
        pos = end
    out.append(text[pos:])
    return "".join(out), spans
