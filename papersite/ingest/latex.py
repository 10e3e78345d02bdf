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
import unicodedata

from ..text.mathspans import PARAGRAPH_BREAK, find_math_spans, math_body
from ..text.mathtext import math_arity, math_to_text

_ALIGNED_ENVS = {"align", "align*"}


def _math_to_markdown(span: str) -> str:
    """`$..$` and `$$..$$` unchanged; the other spellings rewritten to dollars."""
    if span.startswith("$"):
        return span
    body = math_body(span)
    if span.startswith("\\("):
        body = _escape_bare_dollars(body.strip())
        return f"${body}$" if body else ""
    if span.startswith("\\begin"):
        env = span[len("\\begin{"):span.index("}")]
        if env in _ALIGNED_ENVS:
            body = "\\begin{aligned}" + body + "\\end{aligned}"
    body = _escape_bare_dollars(body)
    return f"$${body}$$" if body.strip() else ""


_BARE_DOLLAR = re.compile(r"(\\[\s\S])|\$")


def _escape_bare_dollars(latex: str) -> str:
    # A raw `$` inside \( \) would end the `$..$` we write early.
    return _BARE_DOLLAR.sub(lambda m: m.group(1) or "\\$", latex)



# ---------------------------------------------------------------- LaTeX text to Markdown

_EMPHASIS_MACROS = {"emph": "*", "textit": "*", "textsl": "*", "textbf": "**"}

_PLAIN_MACROS = frozenset(
    "underline textrm textsc mbox hbox textnormal textup textsf textmd text uline "
    "textsuperscript textsubscript fbox".split())

_CITE_MACROS = frozenset(
    "cite citep citet citealp citealt citeauthor citeyear parencite textcite "
    "autocite Cite".split())

_SWITCHES = {
    "em": "*", "it": "*", "itshape": "*", "sl": "*", "slshape": "*",
    "bf": "**", "bfseries": "**", "tt": "`", "ttfamily": "`",
    **dict.fromkeys(
        "rm rmfamily sc scshape sf sffamily normalfont upshape mdseries tiny "
        "scriptsize footnotesize small normalsize large Large LARGE huge Huge".split(), ""),
}  # declarations that style the rest of their group; "" means no Markdown style

_TEXT_SYMBOLS = {
    "ldots": "…", "dots": "…", "textellipsis": "…", "LaTeX": "LaTeX", "TeX": "TeX",
    "LaTeXe": "LaTeX2ε", "textmu": "µ", "texttimes": "×", "textendash": "–",
    "textemdash": "—", "textquoteleft": "‘", "textquoteright": "’",
    "textquotedblleft": "“", "textquotedblright": "”", "textregistered": "®",
    "texttrademark": "™", "textcopyright": "©", "copyright": "©", "textdegree": "°",
    "S": "§", "P": "¶", "dag": "†", "ddag": "‡", "textbullet": "•",
    "textasciitilde": "~", "textless": "<", "textgreater": ">", "textbar": "|",
    "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "o": "ø", "O": "Ø",
    "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ",
    "eg": "e.g.", "ie": "i.e.", "etal": "et al.", "wrt": "w.r.t.", "etc": "etc.",
    "vs": "vs.", "cf": "cf.", "newline": " ", "linebreak": " ", "quad": " ",
    "qquad": " ", "enspace": " ", "thinspace": " ", "par": "\n\n",
    **dict.fromkeys(
        "noindent medskip smallskip bigskip hfill centering clearpage newpage "
        "xspace protect relax ignorespaces".split(), ""),
}

_TEXT_ESCAPES = {"%": "%", "&": "&", "#": "\\#", "_": "\\_", "$": "\\$", "{": "\\{", "}": "\\}"}

_TEXT_CONTROL_SPACES = {" ": " ", "\n": " ", "\t": " ", ",": " ", ";": " ", ":": " ",
                        ">": " ", "\\": " ", "-": "", "/": "", "@": ""}

_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
    "H": "\u030b", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331",
}
_SPACING_ACCENTS = {"~": "~", "^": "^"}  # `\~{}` is a plain tilde

_COMMAND_HANDLERS = {
    "texttt": "parse_texttt", "url": "parse_url", "href": "parse_href",
    "footnote": "parse_footnote", "begin": "parse_begin", "end": "parse_end",
    "item": "parse_item", "nocite": "parse_nocite",
}

_LIST_MARKERS = {"itemize": "- ", "enumerate": "1. ", "description": "- "}

_CONTROL_SEQUENCE = re.compile(r"\\([A-Za-z]+|[\s\S]?)")
_TEXT_SPECIAL = re.compile(r"[\\{}$]")
_BRACE_TOKEN = re.compile(r"\\[\s\S]|[{}]")
_MAX_GROUP_DEPTH = 64  # deeper groups are copied as text instead of recursed into

_TEXT, _RAW = False, True  # raw pieces (math, code, URLs, citations) skip typography
_Piece = tuple[bool, str]


def latex_to_markdown(text: str) -> tuple[str, list[str]]:
    """Convert LaTeX text markup outside math to Markdown; return it with warnings.

    Warnings say what could not be converted faithfully (unknown macros, math
    macros outside math, unbalanced braces); each distinct one is listed once.
    """
    converter = _TextConverter(text)
    pieces = converter.convert()
    return _typeset(pieces), list(converter.warnings)


class _TextConverter:
    """Walks the text once; math spans are opaque, braces pre-matched."""

    def __init__(self, text: str):
        self.text = text
        self.math = {start: end for start, end in find_math_spans(text)}
        self.math_starts = sorted(self.math)
        self.closing, self.stray_braces = _match_braces(text, self.math)
        self.warnings: dict[str, None] = {}
        self.plain = False  # inside code: escapes give the bare char, no emphasis
        self.lists: list[str] = []

    def convert(self) -> list[_Piece]:
        if self.stray_braces:
            self.warn("unbalanced brace in LaTeX text; kept it as is")
        return self.parse(0, len(self.text), 0)

    def warn(self, message: str) -> None:
        self.warnings[message] = None

    def parse(self, start: int, end: int, depth: int) -> list[_Piece]:
        out: list[_Piece] = []
        pos = start
        while pos < end:
            m = _TEXT_SPECIAL.search(self.text, pos, end)
            if m is None:
                out.append((_TEXT, self.text[pos:end]))
                break
            if m.start() > pos:
                out.append((_TEXT, self.text[pos:m.start()]))
            pos = self.parse_special(m.start(), end, depth, out)
        return out

    def parse_special(self, pos: int, end: int, depth: int, out: list[_Piece]) -> int:
        """Convert what starts at `pos`; return the position after it."""
        if pos in self.math:
            span_end = self.math[pos]
            out.append((_RAW, _math_to_markdown(self.text[pos:span_end])))
            return span_end
        char = self.text[pos]
        if char == "$":
            out.append((_TEXT, "$" if self.plain else "\\$"))  # not math: a literal dollar
            return pos + 1
        if char == "{":
            return self.parse_group(pos, end, depth, out)
        if char == "}":
            out.append((_TEXT, "}"))  # unmatched, already warned about
            return pos + 1
        return self.parse_command(pos, end, depth, out)

    def parse_group(self, pos: int, end: int, depth: int, out: list[_Piece]) -> int:
        close = self.closing.get(pos)
        if close is None or close >= end:
            out.append((_TEXT, "{"))
            return pos + 1
        if depth >= _MAX_GROUP_DEPTH:
            inner = [(_TEXT, self.text[pos + 1:close])]
        else:
            inner = self.parse(pos + 1 + self.skip_declaration(pos + 1, close), close, depth + 1)
        if pos and self.text[pos - 1] in "^_" and len(_join(inner)) > 1:
            inner = [(_TEXT, "("), *inner, (_TEXT, ")")]  # math without dollars: e^{-t} -> e^(-t)
        out.extend(inner)
        return close + 1

    def skip_declaration(self, pos: int, close: int) -> int:
        """Length of an unknown `\\name ` opening a group, like `{\\rc text}`."""
        m = _CONTROL_SEQUENCE.match(self.text, pos, close)
        if m is None or not m.group(1).isalpha() or m.end() >= close:
            return 0
        name = m.group(1)
        if not self.text[m.end()].isspace() or _is_known_text_macro(name):
            return 0
        self.warn(f"unknown LaTeX declaration \\{name} outside math; dropped it")
        return _skip_blanks(self.text, m.end(), close) - pos

    def parse_command(self, pos: int, end: int, depth: int, out: list[_Piece]) -> int:
        m = _CONTROL_SEQUENCE.match(self.text, pos, end)
        name, after = m.group(1), m.end()
        if not name:
            out.append((_TEXT, "\\"))  # a lone backslash at the end
            return after
        if not name.isalpha():
            return self.parse_control_symbol(name, after, end, depth, out)
        if name in _SWITCHES:
            return self.parse_switch(name, after, end, depth, out)
        handler = self.handler_for(name)
        if handler is not None:
            return handler(name, after, end, depth, out)
        if name in _TEXT_SYMBOLS:
            out.append((_TEXT, _TEXT_SYMBOLS[name]))
            return after
        if name in _ACCENTS:
            return self.parse_accent(name, after, end, depth, out)
        if math_arity(name) is not None:
            return self.parse_math_macro(name, pos, after, end, out)
        return self.parse_unknown(name, after, end, depth, out)

    def handler_for(self, name: str):
        if name in _EMPHASIS_MACROS:
            return self.parse_emphasis
        if name in _PLAIN_MACROS:
            return self.parse_plain_macro
        if name in _CITE_MACROS:
            return self.parse_cite
        method = _COMMAND_HANDLERS.get(name)
        return getattr(self, method) if method else None

    # -- argument reading

    def read_arg(self, pos: int, end: int, allow_math: bool = True) -> tuple[int, int, int] | None:
        """(content start, content end, position after) of the argument at `pos`.

        TeX-like: spaces (and one newline) are skipped; the argument is a
        `{group}`, a math span, a control sequence or a single character.
        """
        q = _skip_blanks(self.text, pos, end)
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

    def parse_arg(self, arg: tuple[int, int, int], depth: int) -> list[_Piece]:
        return self.parse(arg[0], arg[1], depth + 1)

    # -- handlers: each returns the position after what it consumed

    def parse_emphasis(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        out.extend(self.wrap(self.parse_arg(arg, depth), _EMPHASIS_MACROS[name]))
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
        start = _skip_blanks(self.text, after, end)
        marker = _SWITCHES[name]
        if marker == "`":
            self.emit_code(start, end, depth, out)
        else:
            out.extend(self.wrap(self.parse(start, end, depth), marker))
        return end

    def parse_cite(self, name, after, end, depth, out):
        notes = []
        pos = after
        while len(notes) < 2 and (note := self.read_optional(pos, end)) is not None:
            notes.append(" ".join(_typeset(self.parse_arg(note, depth)).split()))
            pos = note[2]
        arg = self.read_group(pos, end)
        if arg is None:
            return after
        raw_keys = self.text[arg[0]:arg[1]]
        if "$" in raw_keys or self.has_math(arg[0], arg[1]):  # not keys: keep the math
            out.extend(self.parse_arg(arg, depth))
            return arg[2]
        keys = ["".join(k.split()) for k in raw_keys.split(",")]
        citation = _format_citation([k for k in keys if k], notes)
        if citation and not self.plain:
            _replace_trailing_space(out)
            out.append((_RAW, citation))
        return arg[2]

    def parse_nocite(self, name, after, end, depth, out):
        arg = self.read_group(after, end)
        return arg[2] if arg else after

    def parse_url(self, name, after, end, depth, out):
        arg = self.read_group(_skip_blanks(self.text, after, end), end)
        if arg is None:
            return after
        self.emit_url(arg, depth, out)
        return arg[2]

    def parse_href(self, name, after, end, depth, out):
        target = self.read_group(_skip_blanks(self.text, after, end), end)
        if target is None:
            return after
        label = self.read_group(_skip_blanks(self.text, target[2], end), end)
        link_text = self.parse_arg(label, depth) if label else []
        if not _join(link_text).strip() or self.plain:
            self.emit_url(target, depth, out)
        elif "$" in self.text[target[0]:target[1]] or self.has_math(target[0], target[1]):
            out.extend(link_text)  # math in a URL is broken input: keep the words
        else:
            url = _clean_url(self.text[target[0]:target[1]])
            url = url.replace("(", "%28").replace(")", "%29")
            out.extend([(_TEXT, "["), *link_text, (_TEXT, "]("), (_RAW, url), (_TEXT, ")")])
        return label[2] if label else target[2]

    def emit_url(self, arg: tuple[int, int, int], depth: int, out: list[_Piece]) -> None:
        raw = self.text[arg[0]:arg[1]]
        if "$" in raw or self.has_math(arg[0], arg[1]):  # a bare `$` would pair as math
            out.extend(self.parse_arg(arg, depth))
        else:
            out.append((_RAW, _clean_url(raw)))

    def emit_code(self, start: int, end: int, depth: int, out: list[_Piece]) -> None:
        code = _join(self.parse_plain(start, end, depth))
        if "$" in code:  # a code span cannot escape `$`; better plain text than bad math
            out.extend(self.parse(start, end, depth))
        else:
            out.append((_RAW, _code_span(code)))

    def parse_footnote(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        inner = _strip_pieces(self.parse_arg(arg, depth))
        if inner:
            _replace_trailing_space(out, always=True)
            out.extend([(_TEXT, "("), *inner, (_TEXT, ")")])
        return arg[2]

    def parse_begin(self, name, after, end, depth, out):
        arg = self.read_group(after, end)
        if arg is None:
            return after
        env = self.text[arg[0]:arg[1]].strip()
        if env in _LIST_MARKERS:
            self.lists.append(env)
            _end_paragraph(out)
        else:
            self.warn(f"unknown LaTeX environment {env}; dropped \\begin and \\end")
        return _skip_blanks(self.text, arg[2], end)

    def parse_end(self, name, after, end, depth, out):
        arg = self.read_group(after, end)
        if arg is None:
            return after
        env = self.text[arg[0]:arg[1]].strip()
        if env in _LIST_MARKERS:
            if self.lists:
                self.lists.pop()
            _end_paragraph(out)
            return _skip_blanks(self.text, arg[2], end)
        return arg[2]

    def parse_item(self, name, after, end, depth, out):
        marker = _LIST_MARKERS[self.lists[-1]] if self.lists else "- "
        _trim_trailing_space(out)
        if not _join(out[-1:]).endswith("\n"):  # a list needs a blank line before it
            marker = ("\n" if self.lists else "\n\n") + marker
        out.append((_TEXT, marker))
        label = self.read_optional(_skip_blanks(self.text, after, end), end)
        if label is not None:
            out.extend(self.wrap(self.parse_arg(label, depth), "**"))
            out.append((_TEXT, " "))
            after = label[2]
        return _skip_blanks(self.text, after, end)

    def parse_accent(self, name, after, end, depth, out):
        if name.isalpha():
            arg = self.read_arg(after, end, allow_math=False)
        else:
            arg = self.read_accent_base(after, end)
        if arg is None:
            out.append((_TEXT, _SPACING_ACCENTS.get(name, "")))
            return after
        base = self.parse_arg(arg, depth)
        if any(is_raw for is_raw, _ in base):
            out.extend(base)  # never put an accent on math
        else:
            out.append((_TEXT, _accent_text(_join(base), _ACCENTS[name], _SPACING_ACCENTS.get(name, ""))))
        return arg[2]

    def read_accent_base(self, pos: int, end: int) -> tuple[int, int, int] | None:
        # `\"o` takes the very next character; `\"{o}` a group.
        if pos < end and self.text[pos] == "{":
            return self.read_group(pos, end)
        if pos < end and self.text[pos] not in "}\\ \n\t$":
            return pos, pos + 1, pos + 1
        return None

    def parse_control_symbol(self, char, after, end, depth, out):
        if char in _TEXT_ESCAPES:
            out.append((_TEXT, char if self.plain else _TEXT_ESCAPES[char]))
            return after
        if char in _ACCENTS:
            return self.parse_accent(char, after, end, depth, out)
        if char in _TEXT_CONTROL_SPACES:
            out.append((_TEXT, _TEXT_CONTROL_SPACES[char]))
            return after
        out.append((_TEXT, "\\" + char))  # `\*`, `\[`, ...: already a Markdown escape
        return after

    def parse_math_macro(self, name, pos, after, end, out):
        stop = after
        for _ in range(math_arity(name)):
            arg = self.read_arg(stop, end, allow_math=False)
            if arg is None:
                break
            stop = arg[2]
        if self.has_math(after, stop):
            stop = after  # `\sqrt{$x$}`: flatten the macro only, keep the math
        text = math_to_text(self.text[pos:stop]).replace("$", "\\$")  # `\bar\$` -> `$̄`
        if len(text) > 1 and text.isalpha() and _join(out[-1:])[-1:].isalnum():
            text = " " + text  # d\log n -> d log n
        out.append((_TEXT, text))
        self.warn(f"LaTeX math macro \\{name} outside math; wrote it as plain text")
        return stop

    def parse_unknown(self, name, after, end, depth, out):
        args = []
        pos = after
        while (group := self.read_group(pos, end)) is not None:
            args.append(self.parse_arg(group, depth))
            pos = group[2]
        if any(_join(arg).strip() for arg in args):
            for i, arg in enumerate(args):
                out.extend([(_TEXT, " ")] * (i > 0) + arg)
            self.warn(f"unknown LaTeX macro \\{name} outside math; kept its text")
        else:
            out.append((_TEXT, name))  # `\xgboost{}` names a thing: keep the name
            self.warn(f"unknown LaTeX macro \\{name} outside math; kept its name")
        return pos

    # -- building blocks

    def wrap(self, inner: list[_Piece], marker: str) -> list[_Piece]:
        """`marker` around `inner`, with its edge whitespace moved outside."""
        if self.plain or not marker:
            return inner
        lead, core, trail = _split_edge_space(inner)
        if not core:
            return [(_TEXT, lead + trail)] if lead + trail else []
        return [(_TEXT, lead + marker), *core, (_TEXT, marker + trail)]

    def parse_plain(self, start: int, end: int, depth: int) -> list[_Piece]:
        """Parse for a code span: escapes give the bare char, no emphasis markers."""
        saved, self.plain = self.plain, True
        try:
            return self.parse(start, end, depth)
        finally:
            self.plain = saved


def _is_known_text_macro(name: str) -> bool:
    return (name in _SWITCHES or name in _EMPHASIS_MACROS or name in _PLAIN_MACROS
            or name in _CITE_MACROS or name in _COMMAND_HANDLERS or name in _TEXT_SYMBOLS
            or name in _ACCENTS or math_arity(name) is not None)




def _match_braces(text: str, math: dict[int, int]) -> tuple[dict[int, int], bool]:
    """Map each `{` outside math to its `}`; also say whether any brace is unmatched."""
    closing: dict[int, int] = {}
    stack: list[int] = []
    stray = False
    pos = 0
    for span_start, span_end in [*sorted(math.items()), (len(text), len(text))]:
        for m in _BRACE_TOKEN.finditer(text, pos, span_start):
            if m.group() == "{":
                stack.append(m.start())
            elif m.group() == "}":
                if stack:
                    closing[stack.pop()] = m.start()
                else:
                    stray = True
        pos = span_end
    return closing, stray or bool(stack)


def _skip_blanks(text: str, pos: int, end: int) -> int:
    """Skip spaces and at most one newline, as TeX does before an argument."""
    while pos < end and text[pos] in " \t":
        pos += 1
    if pos < end and text[pos] == "\n":
        pos += 1
        while pos < end and text[pos] in " \t":
            pos += 1
    return pos


def _join(pieces: list[_Piece]) -> str:
    return "".join(s for _, s in pieces)


def _split_edge_space(pieces: list[_Piece]) -> tuple[str, list[_Piece], str]:
    """(leading whitespace, the rest without edge whitespace, trailing whitespace)."""
    core = [p for p in pieces if p[1]]
    lead = trail = ""
    while core and core[0][0] is _TEXT and not core[0][1].strip():
        lead += core.pop(0)[1]
    while core and core[-1][0] is _TEXT and not core[-1][1].strip():
        trail = core.pop()[1] + trail
    if core and core[0][0] is _TEXT:
        text = core[0][1]
        stripped = text.lstrip()
        lead += text[:len(text) - len(stripped)]
        core[0] = (_TEXT, stripped)
    if core and core[-1][0] is _TEXT:
        text = core[-1][1]
        stripped = text.rstrip()
        trail = text[len(stripped):] + trail
        core[-1] = (_TEXT, stripped)
    return lead, core, trail


def _strip_pieces(pieces: list[_Piece]) -> list[_Piece]:
    return _split_edge_space(pieces)[1]


def _trim_trailing_space(out: list[_Piece], chars: str = " \t\n") -> bool:
    """Drop trailing `chars` from the end of `out`; say whether any were dropped.

    A paragraph break is kept: removing it could let math pair across it.
    """
    dropped = ""
    while out and out[-1][0] is _TEXT:
        text = out[-1][1]
        kept = text.rstrip(chars)
        dropped = text[len(kept):] + dropped
        if kept:
            out[-1] = (_TEXT, kept)
            break
        out.pop()
    if PARAGRAPH_BREAK.search(dropped):
        out.append((_TEXT, "\n\n"))
    return bool(dropped)


def _end_paragraph(out: list[_Piece]) -> None:
    _trim_trailing_space(out)
    if out and not _join(out[-1:]).endswith("\n"):
        out.append((_TEXT, "\n\n"))


def _replace_trailing_space(out: list[_Piece], always: bool = False) -> None:
    """Replace a run of spaces or `~` before a citation/footnote by one space.

    With `always`, add the space even if there was none. A citation that starts
    the text or a line stays at the start.
    """
    trimmed = _trim_trailing_space(out, " \t~")
    if (trimmed or always) and out and not _join(out[-1:]).endswith("\n"):
        out.append((_TEXT, " "))


def _format_citation(keys: list[str], notes: list[str]) -> str:
    """Pandoc citation: `[@a; @b]`, with natbib's [prenote][postnote] if given."""
    if not keys:
        return ""
    prenote, postnote = (notes + ["", ""])[:2] if len(notes) == 2 else ("", (notes or [""])[0])
    body = "; ".join("@" + k for k in keys)
    if prenote:
        body = f"{prenote} {body}"
    if postnote:
        body = f"{body}, {postnote}"
    return f"[{body}]"


_URL_ESCAPE = re.compile(r"\\([%_#&~])")


def _clean_url(raw: str) -> str:
    # Whitespace inside \url{} is line wrapping in the source, never part of the URL.
    return _URL_ESCAPE.sub(r"\1", "".join(raw.split()))


def _accent_text(base: str, mark: str, spacing: str) -> str:
    if not base:
        return spacing
    first = "i" if base[0] == "ı" else base[0]  # \"{\i} is ï
    return unicodedata.normalize("NFC", first + mark) + base[1:]


def _code_span(code: str) -> str:
    code = " ".join(code.split("\n"))
    if not code.strip():
        return code
    fence = "`" * (max(map(len, re.findall("`+", code)), default=0) + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{fence}{pad}{code}{pad}{fence}"


# ---------------------------------------------------------------- typography

_QUOTE_DOUBLE_PAIR = re.compile(r"``([^`\"\n]*)\"")  # ``text" closes with a straight quote
_QUOTE_SINGLE_PAIR = re.compile(r"(?<![`\w])`(?!`)((?:[^`'\n]|'(?=\w))+?)''?(?![\w'])")
_QUOTE_CLOSING = re.compile(r"''")
_DASH = re.compile(r"(?<![-<!|:])(---|--)(?![->|:])")  # not <!--, -->, ---- or |---|
_TIE = re.compile(r"(?<=\S)~")
_PROTECTED = re.compile(
    r"(`+)[^`]*?\1"                                  # Markdown code span
    r"|(?:https?://|ftp://|www\.)\S+"                # bare URL
    r"|<[A-Za-z][A-Za-z0-9+.-]*:[^<>\s]*>"           # autolink
    r"|^[ \t]*-{3,}[ \t]*$",                         # a Markdown rule line
    re.MULTILINE)


def _typeset(pieces: list[_Piece]) -> str:
    """Join pieces, applying quotes, dashes and ties to the runs of text pieces."""
    out: list[str] = []
    run: list[str] = []
    after_raw = False
    for is_raw, text in pieces:
        if is_raw:
            _append_keeping_math(out, _typeset_run("".join(run), after_raw))
            _append_keeping_math(out, text)
            run = []
            after_raw = True
        else:
            run.append(text)
    _append_keeping_math(out, _typeset_run("".join(run), after_raw))
    return "".join(out)


_SPACED_CLOSER = re.compile(r"\s\$\Z")
_OPENER_LIKE_START = re.compile(r"[\w\\{]")


def _append_keeping_math(out: list[str], text: str) -> None:
    # `$a $` closed only because no word followed it; if conversion put one
    # right after it (`{$a $}b` -> `$a $b`), keep them apart or pairing changes.
    if text and out and _OPENER_LIKE_START.match(text) and _SPACED_CLOSER.search(out[-1]):
        out.append(" ")
    out.append(text)


def _typeset_run(text: str, after_raw: bool) -> str:
    if not text:
        return text
    if after_raw and text.startswith("~"):
        text = " " + text[1:]  # `$x$~is`: a tie after math
    if "`" in text or "'" in text:
        text = _convert_quotes(text)
    if "-" not in text and "~" not in text:
        return text
    out: list[str] = []
    pos = 0
    for m in _PROTECTED.finditer(text):
        out.append(_convert_dashes_and_ties(text[pos:m.start()]))
        out.append(m.group())
        pos = m.end()
    out.append(_convert_dashes_and_ties(text[pos:]))
    return "".join(out)


def _convert_quotes(text: str) -> str:
    text = _QUOTE_DOUBLE_PAIR.sub(r"“\1”", text).replace("``", "“")
    text = _QUOTE_SINGLE_PAIR.sub(r"‘\1’", text)
    return _QUOTE_CLOSING.sub(_choose_double_quote, text)


def _choose_double_quote(m: re.Match) -> str:
    # '' usually closes ``...''; after a space and before a word it opens ''word''.
    text, at = m.string, m.start()
    before = text[at - 1] if at else " "
    after = text[m.end()] if m.end() < len(text) else " "
    return "“" if (before.isspace() or before in "([") and not after.isspace() else "”"


def _convert_dashes_and_ties(text: str) -> str:
    text = _DASH.sub(lambda m: "—" if len(m.group()) == 3 else "–", text)
    return _TIE.sub(" ", text)

