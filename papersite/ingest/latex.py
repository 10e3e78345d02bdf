"""LaTeX text markup in abstracts to Markdown, for `import`.

`latex_to_markdown(text)` -> (markdown, warnings) turns LaTeX *text* markup outside math
(`\\emph`, `\\cite`, `\\url`, ``` ``quotes'' ```, `---`, `{\\bf x}`, accents, ...) into
Markdown. Pure, standard library only, and it never raises for any str input.

Contract with the Markdown renderer (text/markdown.py):

- Math is `$...$` and `$$...$$`, found by `text.mathspans.find_math_spans`. Math is left
  byte for byte, except that `\\(..\\)` becomes `$..$` and `\\[..\\]` /
  `\\begin{equation}..` become `$$..$$`. In what `latex_to_markdown` returns, a `$` that is
  not a math delimiter is always written `\\$`, so the renderer must treat `\\$` as a
  literal dollar (Python-Markdown does not escape `$` by default).
- LaTeX escapes of characters that are special in Markdown too (`\\_ \\# \\$ \\{ \\}`)
  are kept as they are: the same bytes are the same escape in Markdown, and a bare
  `_` could start emphasis. `\\%` and `\\&` become the bare character.
- Citations become Pandoc syntax `[@key]` / `[@a; @b]`.
"""

from __future__ import annotations

import bisect
import re

from ..text.macros import CONTROL_WORD_RE
from ..text.mathspans import find_math_spans
from ..text.mathtext import math_to_text
from .latex_pieces import (RAW, TEXT, Piece, add_accent, clean_url, convert_math_span, end_paragraph, format_citation,
                           format_code_span, join_pieces, replace_trailing_space, split_edge_space, strip_pieces,
                           trim_trailing_space)
from .latex_syntax import (ACCENTS, CITE_MACROS, COMMAND_HANDLERS, EMPHASIS_MACROS, LIST_MARKERS, MATH_MACRO_ARITY,
                           PLAIN_MACROS, SPACING_ACCENTS, SWITCHES, TEXT_CONTROL_SPACES, TEXT_ESCAPES, TEXT_SYMBOLS,
                           is_known_text_macro, match_braces, skip_blanks)
from .latex_typography import typeset_pieces

_CONTROL_SEQUENCE = re.compile(r"\\([A-Za-z]+|[\s\S]?)")
_TEXT_SPECIAL = re.compile(r"[\\{}$]")
_MAX_GROUP_DEPTH = 64  # deeper groups are copied as text instead of recursed into


def latex_to_markdown(text: str) -> tuple[str, list[str]]:
    """Convert LaTeX text markup outside math to Markdown; return it with warnings.

    Warnings say what could not be converted faithfully (unknown macros, math
    macros outside math, unbalanced braces); each distinct one is listed once.
    """
    converter = _TextConverter(text)
    pieces = converter.convert()
    return typeset_pieces(pieces), list(converter.warnings)


class _TextConverter:
    """Walks the text once; math spans are opaque, braces pre-matched."""

    def __init__(self, text: str):
        self.text = text
        self.math = {start: end for start, end in find_math_spans(text)}
        self.math_starts = sorted(self.math)
        self.closing, self.stray_braces = match_braces(text, self.math)
        self.warnings: dict[str, None] = {}
        self.plain = False  # inside code: escapes give the bare char, no emphasis
        self.lists: list[str] = []

    def convert(self) -> list[Piece]:
        if self.stray_braces:
            self.warn("unbalanced brace in LaTeX text; kept it as is")
        return self.parse(0, len(self.text), 0)

    def warn(self, message: str) -> None:
        self.warnings[message] = None

    def parse(self, start: int, end: int, depth: int) -> list[Piece]:
        out: list[Piece] = []
        pos = start
        while pos < end:
            m = _TEXT_SPECIAL.search(self.text, pos, end)
            if m is None:
                out.append((TEXT, self.text[pos:end]))
                break
            if m.start() > pos:
                out.append((TEXT, self.text[pos:m.start()]))
            pos = self.parse_special(m.start(), end, depth, out)
        return out

    def parse_special(self, pos: int, end: int, depth: int, out: list[Piece]) -> int:
        """Convert what starts at `pos`; return the position after it."""
        if pos in self.math:
            span_end = self.math[pos]
            out.append((RAW, convert_math_span(self.text[pos:span_end])))
            return span_end
        char = self.text[pos]
        if char == "$":
            out.append((TEXT, "$" if self.plain else "\\$"))  # not math: a literal dollar
            return pos + 1
        if char == "{":
            return self.parse_group(pos, end, depth, out)
        if char == "}":
            out.append((TEXT, "}"))  # unmatched, already warned about
            return pos + 1
        return self.parse_command(pos, end, depth, out)

    def parse_group(self, pos: int, end: int, depth: int, out: list[Piece]) -> int:
        close = self.closing.get(pos)
        if close is None or close >= end:
            out.append((TEXT, "{"))
            return pos + 1
        if depth >= _MAX_GROUP_DEPTH:
            inner = [(TEXT, self.text[pos + 1:close])]
        else:
            inner = self.parse(pos + 1 + self.skip_declaration(pos + 1, close), close, depth + 1)
        if pos and self.text[pos - 1] in "^_" and len(join_pieces(inner)) > 1:
            inner = [(TEXT, "("), *inner, (TEXT, ")")]  # math without dollars: e^{-t} -> e^(-t)
        out.extend(inner)
        return close + 1

    def skip_declaration(self, pos: int, close: int) -> int:
        """Length of an unknown `\\name ` opening a group, like `{\\rc text}`."""
        m = _CONTROL_SEQUENCE.match(self.text, pos, close)
        if m is None or not m.group(1).isalpha() or m.end() >= close:
            return 0
        name = m.group(1)
        if not self.text[m.end()].isspace() or is_known_text_macro(name):
            return 0
        self.warn(f"unknown LaTeX declaration \\{name} outside math; dropped it")
        return skip_blanks(self.text, m.end(), close) - pos

    def parse_command(self, pos: int, end: int, depth: int, out: list[Piece]) -> int:
        m = _CONTROL_SEQUENCE.match(self.text, pos, end)
        name, after = m.group(1), m.end()
        if not name:
            out.append((TEXT, "\\"))  # a lone backslash at the end
            return after
        if not name.isalpha():
            return self.parse_control_symbol(name, after, end, depth, out)
        if name in SWITCHES:
            return self.parse_switch(name, after, end, depth, out)
        handler = self.handler_for(name)
        if handler is not None:
            return handler(name, after, end, depth, out)
        if name in TEXT_SYMBOLS:
            out.append((TEXT, TEXT_SYMBOLS[name]))
            return after
        if name in ACCENTS:
            return self.parse_accent(name, after, end, depth, out)
        if name in MATH_MACRO_ARITY:
            return self.parse_math_macro(name, pos, after, end, out)
        return self.parse_unknown(name, after, end, depth, out)

    def handler_for(self, name: str):
        if name in EMPHASIS_MACROS:
            return self.parse_emphasis
        if name in PLAIN_MACROS:
            return self.parse_plain_macro
        if name in CITE_MACROS:
            return self.parse_cite
        method = COMMAND_HANDLERS.get(name)
        return getattr(self, method) if method else None

    # -- argument reading

    def read_arg(self, pos: int, end: int, allow_math: bool = True) -> tuple[int, int, int] | None:
        """(content start, content end, position after) of the argument at `pos`.

        TeX-like: spaces (and one newline) are skipped; the argument is a
        `{group}`, a math span, a control sequence or a single character.
        """
        q = skip_blanks(self.text, pos, end)
        if q >= end or self.text[q] == "}":
            return None
        if q in self.math:
            return (q, self.math[q], self.math[q]) if allow_math else None
        if self.text[q] == "{":
            close = self.closing.get(q)
            return (q + 1, close, close + 1) if close is not None and close < end else None
        if self.text[q] == "\\":
            m = _CONTROL_SEQUENCE.match(self.text, q, end)
            return q, m.end(), m.end()
        return q, q + 1, q + 1

    def read_group(self, pos: int, end: int) -> tuple[int, int, int] | None:
        """Like read_arg, but only a `{group}` right at `pos`."""
        close = self.closing.get(pos)
        if pos < end and close is not None and close < end:
            return pos + 1, close, close + 1
        return None

    def read_optional(self, pos: int, end: int) -> tuple[int, int, int] | None:
        """Like read_arg, for an optional `[...]` argument right at `pos`."""
        if pos >= end or self.text[pos] != "[":
            return None
        close = self.text.find("]", pos, end)
        if close < 0 or self.crosses_math(pos, close):
            return None
        return pos + 1, close, close + 1

    def crosses_math(self, start: int, stop: int) -> bool:
        """Whether a math span begins in [start, stop) and ends after `stop`."""
        i = bisect.bisect_left(self.math_starts, start)
        while i < len(self.math_starts) and self.math_starts[i] < stop:
            if self.math[self.math_starts[i]] > stop:
                return True
            i += 1
        return False

    def has_math(self, start: int, stop: int) -> bool:
        """Whether a math span begins in [start, stop)."""
        i = bisect.bisect_left(self.math_starts, start)
        return i < len(self.math_starts) and self.math_starts[i] < stop

    def parse_arg(self, arg: tuple[int, int, int], depth: int) -> list[Piece]:
        return self.parse(arg[0], arg[1], depth + 1)

    # -- handlers: each returns the position after what it consumed

    def parse_emphasis(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        out.extend(self.wrap(self.parse_arg(arg, depth), EMPHASIS_MACROS[name]))
        return arg[2]

    def parse_plain_macro(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        out.extend(self.parse_arg(arg, depth))
        return arg[2]

    def parse_texttt(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        self.emit_code(arg[0], arg[1], depth + 1, out)
        return arg[2]

    def parse_switch(self, name, after, end, depth, out):
        if depth == 0:
            self.warn(f"LaTeX \\{name} outside a group; ignored it")
            return after
        start = skip_blanks(self.text, after, end)
        marker = SWITCHES[name]
        if marker == "`":
            self.emit_code(start, end, depth, out)
        else:
            out.extend(self.wrap(self.parse(start, end, depth), marker))
        return end

    def parse_cite(self, name, after, end, depth, out):
        notes = []
        pos = after
        while len(notes) < 2 and (note := self.read_optional(pos, end)) is not None:
            notes.append(" ".join(typeset_pieces(self.parse_arg(note, depth)).split()))
            pos = note[2]
        arg = self.read_group(pos, end)
        if arg is None:
            return after
        raw_keys = self.text[arg[0]:arg[1]]
        if "$" in raw_keys or self.has_math(arg[0], arg[1]):  # not keys: keep the math
            out.extend(self.parse_arg(arg, depth))
            return arg[2]
        keys = ["".join(k.split()) for k in raw_keys.split(",")]
        citation = format_citation([k for k in keys if k], notes)
        if citation and not self.plain:
            replace_trailing_space(out)
            out.append((RAW, citation))
        return arg[2]

    def parse_nocite(self, name, after, end, depth, out):
        arg = self.read_group(after, end)
        return arg[2] if arg else after

    def parse_url(self, name, after, end, depth, out):
        arg = self.read_group(skip_blanks(self.text, after, end), end)
        if arg is None:
            return after
        self.emit_url(arg, depth, out)
        return arg[2]

    def parse_href(self, name, after, end, depth, out):
        target = self.read_group(skip_blanks(self.text, after, end), end)
        if target is None:
            return after
        label = self.read_group(skip_blanks(self.text, target[2], end), end)
        link_text = self.parse_arg(label, depth) if label else []
        if not join_pieces(link_text).strip() or self.plain:
            self.emit_url(target, depth, out)
        elif "$" in self.text[target[0]:target[1]] or self.has_math(target[0], target[1]):
            out.extend(link_text)  # math in a URL is broken input: keep the words
        else:
            url = clean_url(self.text[target[0]:target[1]])
            url = url.replace("(", "%28").replace(")", "%29")
            out.extend([(TEXT, "["), *link_text, (TEXT, "]("), (RAW, url), (TEXT, ")")])
        return label[2] if label else target[2]

    def emit_url(self, arg: tuple[int, int, int], depth: int, out: list[Piece]) -> None:
        raw = self.text[arg[0]:arg[1]]
        if "$" in raw or self.has_math(arg[0], arg[1]):  # a bare `$` would pair as math
            out.extend(self.parse_arg(arg, depth))
        else:
            out.append((RAW, clean_url(raw)))

    def emit_code(self, start: int, end: int, depth: int, out: list[Piece]) -> None:
        code = join_pieces(self.parse_plain(start, end, depth))
        if "$" in code:  # a code span cannot escape `$`; better plain text than bad math
            out.extend(self.parse(start, end, depth))
        else:
            out.append((RAW, format_code_span(code)))

    def parse_footnote(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        inner = strip_pieces(self.parse_arg(arg, depth))
        if inner:
            replace_trailing_space(out, always=True)
            out.extend([(TEXT, "("), *inner, (TEXT, ")")])
        return arg[2]

    def parse_begin(self, name, after, end, depth, out):
        arg = self.read_group(after, end)
        if arg is None:
            return after
        env = self.text[arg[0]:arg[1]].strip()
        if env in LIST_MARKERS:
            self.lists.append(env)
            end_paragraph(out)
        else:
            self.warn(f"unknown LaTeX environment {env}; dropped \\begin and \\end")
        return skip_blanks(self.text, arg[2], end)

    def parse_end(self, name, after, end, depth, out):
        arg = self.read_group(after, end)
        if arg is None:
            return after
        env = self.text[arg[0]:arg[1]].strip()
        if env in LIST_MARKERS:
            if self.lists:
                self.lists.pop()
            end_paragraph(out)
            return skip_blanks(self.text, arg[2], end)
        return arg[2]

    def parse_item(self, name, after, end, depth, out):
        marker = LIST_MARKERS[self.lists[-1]] if self.lists else "- "
        trim_trailing_space(out)
        if not join_pieces(out[-1:]).endswith("\n"):  # a list needs a blank line before it
            marker = ("\n" if self.lists else "\n\n") + marker
        out.append((TEXT, marker))
        label = self.read_optional(skip_blanks(self.text, after, end), end)
        if label is not None:
            out.extend(self.wrap(self.parse_arg(label, depth), "**"))
            out.append((TEXT, " "))
            after = label[2]
        return skip_blanks(self.text, after, end)

    def parse_accent(self, name, after, end, depth, out):
        if name.isalpha():
            arg = self.read_arg(after, end, allow_math=False)
        else:
            arg = self.read_accent_base(after, end)
        if arg is None:
            out.append((TEXT, SPACING_ACCENTS.get(name, "")))
            return after
        base = self.parse_arg(arg, depth)
        if any(is_raw for is_raw, _ in base):
            out.extend(base)  # never put an accent on math
        else:
            out.append((TEXT, add_accent(join_pieces(base), ACCENTS[name], SPACING_ACCENTS.get(name, ""))))
        return arg[2]

    def read_accent_base(self, pos: int, end: int) -> tuple[int, int, int] | None:
        # `\"o` takes the very next character; `\"{o}` a group; `\"\i` (the ACL Anthology's and DBLP's
        # `Lo{\"\i}c`) the control word, a dotless i the accent goes on.
        if pos < end and self.text[pos] == "{":
            return self.read_group(pos, end)
        if (word := CONTROL_WORD_RE.match(self.text, pos, end)) is not None:
            return pos, word.end(), word.end()
        if pos < end and self.text[pos] not in "}\\ \n\t$":
            return pos, pos + 1, pos + 1
        return None

    def parse_control_symbol(self, char, after, end, depth, out):
        if char in TEXT_ESCAPES:
            out.append((TEXT, char if self.plain else TEXT_ESCAPES[char]))
            return after
        if char in ACCENTS:
            return self.parse_accent(char, after, end, depth, out)
        if char in TEXT_CONTROL_SPACES:
            out.append((TEXT, TEXT_CONTROL_SPACES[char]))
            return after
        out.append((TEXT, "\\" + char))  # `\*`, `\[`, ...: already a Markdown escape
        return after

    def parse_math_macro(self, name, pos, after, end, out):
        stop = after
        for _ in range(MATH_MACRO_ARITY[name]):
            arg = self.read_arg(stop, end, allow_math=False)
            if arg is None:
                break
            stop = arg[2]
        if self.has_math(after, stop):
            stop = after  # `\sqrt{$x$}`: flatten the macro only, keep the math
        text = math_to_text(self.text[pos:stop]).replace("$", "\\$")  # `\bar\$` -> `$̄`
        if len(text) > 1 and text.isalpha() and join_pieces(out[-1:])[-1:].isalnum():
            text = " " + text  # d\log n -> d log n
        out.append((TEXT, text))
        self.warn(f"LaTeX math macro \\{name} outside math; wrote it as plain text")
        return stop

    def parse_unknown(self, name, after, end, depth, out):
        args = []
        pos = after
        while (group := self.read_group(pos, end)) is not None:
            args.append(self.parse_arg(group, depth))
            pos = group[2]
        if any(join_pieces(arg).strip() for arg in args):
            for i, arg in enumerate(args):
                out.extend([(TEXT, " ")] * (i > 0) + arg)
            self.warn(f"unknown LaTeX macro \\{name} outside math; kept its text")
        else:
            out.append((TEXT, name))  # `\xgboost{}` names a thing: keep the name
            self.warn(f"unknown LaTeX macro \\{name} outside math; kept its name")
        return pos

    # -- building blocks

    def wrap(self, inner: list[Piece], marker: str) -> list[Piece]:
        """`marker` around `inner`, with its edge whitespace moved outside."""
        if self.plain or not marker:
            return inner
        lead, core, trail = split_edge_space(inner)
        if not core:
            return [(TEXT, lead + trail)] if lead + trail else []
        return [(TEXT, lead + marker), *core, (TEXT, marker + trail)]

    def parse_plain(self, start: int, end: int, depth: int) -> list[Piece]:
        """Parse for a code span: escapes give the bare char, no emphasis markers."""
        saved, self.plain = self.plain, True
        try:
            return self.parse(start, end, depth)
        finally:
            self.plain = saved
