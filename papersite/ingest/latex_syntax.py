"""LaTeX text syntax the converter reads: the macros it knows, matched braces, TeX's blank skipping."""

from __future__ import annotations

import re

from ..text.mathtext import math_arity

EMPHASIS_MACROS = {"emph": "*", "textit": "*", "textsl": "*", "textbf": "**"}

PLAIN_MACROS = frozenset(
    "underline textrm textsc mbox hbox textnormal textup textsf textmd text uline "
    "textsuperscript textsubscript fbox".split())

CITE_MACROS = frozenset(
    "cite citep citet citealp citealt citeauthor citeyear parencite textcite "
    "autocite Cite".split())

SWITCHES = {
    "em": "*", "it": "*", "itshape": "*", "sl": "*", "slshape": "*",
    "bf": "**", "bfseries": "**", "tt": "`", "ttfamily": "`",
    **dict.fromkeys(
        "rm rmfamily sc scshape sf sffamily normalfont upshape mdseries tiny "
        "scriptsize footnotesize small normalsize large Large LARGE huge Huge".split(), ""),
}  # declarations that style the rest of their group; "" means no Markdown style

TEXT_SYMBOLS = {
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

TEXT_ESCAPES = {"%": "%", "&": "&", "#": "\\#", "_": "\\_", "$": "\\$", "{": "\\{", "}": "\\}"}

TEXT_CONTROL_SPACES = {" ": " ", "\n": " ", "\t": " ", ",": " ", ";": " ", ":": " ",
                       ">": " ", "\\": " ", "-": "", "/": "", "@": ""}

ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
    "H": "\u030b", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331",
}
SPACING_ACCENTS = {"~": "~", "^": "^"}  # `\~{}` is a plain tilde

COMMAND_HANDLERS = {
    "texttt": "parse_texttt", "url": "parse_url", "href": "parse_href",
    "footnote": "parse_footnote", "begin": "parse_begin", "end": "parse_end",
    "item": "parse_item", "nocite": "parse_nocite",
}

LIST_MARKERS = {"itemize": "- ", "enumerate": "1. ", "description": "- "}

_BRACE_TOKEN = re.compile(r"\\[\s\S]|[{}]")


def is_known_text_macro(name: str) -> bool:
    return (name in SWITCHES or name in EMPHASIS_MACROS or name in PLAIN_MACROS
            or name in CITE_MACROS or name in COMMAND_HANDLERS or name in TEXT_SYMBOLS
            or name in ACCENTS or math_arity(name) is not None)


def match_braces(text: str, math: dict[int, int]) -> tuple[dict[int, int], bool]:
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


def skip_blanks(text: str, pos: int, end: int) -> int:
    """Skip spaces and at most one newline, as TeX does before an argument."""
    while pos < end and text[pos] in " \t":
        pos += 1
    if pos < end and text[pos] == "\n":
        pos += 1
        while pos < end and text[pos] in " \t":
            pos += 1
    return pos
