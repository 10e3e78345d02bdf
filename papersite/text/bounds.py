"""What a Markdown text may hand the parsers, checked before any of them sees it: how long a
paragraph is and how deeply it nests.

Python-Markdown rebuilds a paragraph's text at every inline match (so a paragraph of 30,000
escapes takes quadratic time), looks for the bracket that closes each `[` and `(` (so does a
paragraph of open brackets), and nests lists, quotes and emphasis (`***...a...***`) by recursion
(so a deep enough one raises RecursionError), as the MathML converter does `\\frac{\\frac{...}}`.
No abstract comes near these bounds: a text beyond one is refused with the line where it went
beyond, and any text within them costs the parsers time linear in its length, whatever it holds
(tests/test_robust_content.py).
"""

from __future__ import annotations

import re

from .mathspans import find_math_spans

MAX_DEPTH = 32
# Characters in one paragraph: five long abstracts. Python-Markdown's worst case is quadratic in a
# paragraph (a paragraph of escapes); within this it takes a fifth of a second.
MAX_PARAGRAPH = 10_000
# Columns of indentation a list MAX_DEPTH levels deep needs at two columns a level.
MAX_INDENT = 2 * MAX_DEPTH
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# Lines that may nest too deeply, found by one search of the whole text (most texts have none):
# more than MAX_DEPTH quote markers, or enough leading white space to be more than MAX_INDENT columns.
_DEEP_LINE = re.compile(r"^(?:[ \t]*>){%d}|^[ \t]{%d}" % (MAX_DEPTH + 1, MAX_INDENT // 4 + 1), re.MULTILINE)
_QUOTE_MARKERS = re.compile(r"[ \t]*(?:>[ \t]*)+")
_BRACKETS = re.compile(r"\\[\s\S]|[\[\](){}]")
# Emphasis markers in one run: `***` is bold italic; hundreds nest emphasis hundreds deep.
MAX_RUN = 3 * MAX_DEPTH
_RUN = re.compile(r"\*{%d,}|_{%d,}" % (MAX_RUN + 1, MAX_RUN + 1))
_LONG_STARS, _LONG_UNDERSCORES = "*" * (MAX_RUN + 1), "_" * (MAX_RUN + 1)
_OPENERS = {"[": "]", "(": ")", "{": "}"}
_NAMES = {"[": "square brackets", "(": "parentheses", "{": "braces"}


def bounds_problem(text: str) -> tuple[int, str] | None:
    """(0-based line, what it "has" or how it "nests too deeply") of the first place `text` goes
    beyond a bound, or None."""
    found = [problem for problem in (_paragraph_problem(text), _line_problem(text), _bracket_problem(text), _run_problem(text))
             if problem is not None]
    return min(found) if found else None


def _paragraph_problem(text: str) -> tuple[int, str] | None:
    if len(text) <= MAX_PARAGRAPH:
        return None
    start = 0
    for blank in [*_BLANK_LINE.finditer(text), None]:
        end = blank.start() if blank else len(text)
        while end > start and text[end - 1].isspace():
            end -= 1
        if end - start > MAX_PARAGRAPH:
            return (text.count("\n", 0, start), f"has a paragraph of {end - start:,} characters "
                                                f"(at most {MAX_PARAGRAPH:,}: split it with a blank line)")
        start = blank.end() if blank else start
    return None


def _run_problem(text: str) -> tuple[int, str] | None:
    if _LONG_STARS not in text and _LONG_UNDERSCORES not in text:
        return None   # a substring search is many times faster than the regex, and finds most texts clean
    run = _RUN.search(text)
    if run is None:
        return None
    return text.count("\n", 0, run.start()), f"nests too deeply: a run of {len(run.group())} '{run.group()[0]}' (emphasis nests at most {MAX_RUN} deep)"


def _line_problem(text: str) -> tuple[int, str] | None:
    """Quotes (`> > >`) and list indentation, on the lines that may go too deep."""
    for candidate in _DEEP_LINE.finditer(text):
        start = candidate.start()
        line = text[start:text.find("\n", start) if "\n" in text[start:] else len(text)]
        number = text.count("\n", 0, start)
        quotes = _QUOTE_MARKERS.match(line)
        depth = quotes.group().count(">") if quotes else 0
        if depth > MAX_DEPTH:
            return number, f"nests too deeply: quotes nested {depth} deep (at most {MAX_DEPTH})"
        indent = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))
        if indent > MAX_INDENT:
            return number, f"nests too deeply: a line indented {indent} columns (lists nest at most {MAX_DEPTH} deep: {MAX_INDENT} columns)"
    return None


def _bracket_problem(text: str) -> tuple[int, str] | None:
    """Open brackets, parentheses and braces, paragraph by paragraph (the parsers never look past a
    blank line for a closer). Brackets and parentheses in `$` math are its own business (`$[0, 1)$`);
    braces count everywhere, math's too, for the MathML converter."""
    if all(text.count(opener) <= MAX_DEPTH for opener in _OPENERS):
        return None   # too few to nest too deeply: most texts end here
    # Only $-math: in Markdown `\\(` and `\\[` are escaped brackets, and what follows them is text.
    math = [span for span in find_math_spans(text) if text[span[0]] == "$"]
    math_at = 0
    depth = {opener: 0 for opener in _OPENERS}
    closers = {closer: opener for opener, closer in _OPENERS.items()}
    paragraph_end = -1
    for m in _BRACKETS.finditer(text):
        at = m.start()
        if at > paragraph_end:
            depth = dict.fromkeys(_OPENERS, 0)
            next_break = _BLANK_LINE.search(text, at)
            paragraph_end = next_break.start() if next_break else len(text)
        char = m.group()
        if len(char) > 1:   # an escape
            continue
        while math_at < len(math) and math[math_at][1] <= at:
            math_at += 1
        in_math = math_at < len(math) and math[math_at][0] <= at
        opener = char if char in _OPENERS else closers[char]
        if in_math and opener != "{":
            continue
        if char == opener:
            depth[opener] += 1
            if depth[opener] > MAX_DEPTH:
                return text.count("\n", 0, at), f"nests too deeply: {_NAMES[opener]} nested (or left open) more than {MAX_DEPTH} deep in one paragraph"
        elif depth[opener] > 0:
            depth[opener] -= 1
    return None
