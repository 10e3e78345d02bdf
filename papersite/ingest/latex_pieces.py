"""The LaTeX converter's output: text and raw pieces, and the Markdown it writes for math, citations, URLs, code."""

from __future__ import annotations

import re
import unicodedata

from ..text.mathspans import PARAGRAPH_BREAK, math_body

TEXT, RAW = False, True  # raw pieces (math, code, URLs, citations) skip typography
Piece = tuple[bool, str]


def join_pieces(pieces: list[Piece]) -> str:
    return "".join(s for _, s in pieces)


def split_edge_space(pieces: list[Piece]) -> tuple[str, list[Piece], str]:
    """(leading whitespace, the rest without edge whitespace, trailing whitespace)."""
    core = [p for p in pieces if p[1]]
    lead = trail = ""
    while core and core[0][0] is TEXT and not core[0][1].strip():
        lead += core.pop(0)[1]
    while core and core[-1][0] is TEXT and not core[-1][1].strip():
        trail = core.pop()[1] + trail
    if core and core[0][0] is TEXT:
        text = core[0][1]
        stripped = text.lstrip()
        lead += text[:len(text) - len(stripped)]
        core[0] = (TEXT, stripped)
    if core and core[-1][0] is TEXT:
        text = core[-1][1]
        stripped = text.rstrip()
        trail = text[len(stripped):] + trail
        core[-1] = (TEXT, stripped)
    return lead, core, trail


def strip_pieces(pieces: list[Piece]) -> list[Piece]:
    return split_edge_space(pieces)[1]


def trim_trailing_space(out: list[Piece], chars: str = " \t\n") -> bool:
    """Drop trailing `chars` from the end of `out`; say whether any were dropped.

    A paragraph break is kept: removing it could let math pair across it.
    """
    dropped = ""
    while out and out[-1][0] is TEXT:
        text = out[-1][1]
        kept = text.rstrip(chars)
        dropped = text[len(kept):] + dropped
        if kept:
            out[-1] = (TEXT, kept)
            break
        out.pop()
    if PARAGRAPH_BREAK.search(dropped):
        out.append((TEXT, "\n\n"))
    return bool(dropped)


def end_paragraph(out: list[Piece]) -> None:
    trim_trailing_space(out)
    if out and not join_pieces(out[-1:]).endswith("\n"):
        out.append((TEXT, "\n\n"))


def replace_trailing_space(out: list[Piece], always: bool = False) -> None:
    """Replace a run of spaces or `~` before a citation/footnote by one space.

    With `always`, add the space even if there was none. A citation that starts
    the text or a line stays at the start.
    """
    trimmed = trim_trailing_space(out, " \t~")
    if (trimmed or always) and out and not join_pieces(out[-1:]).endswith("\n"):
        out.append((TEXT, " "))


_ALIGNED_ENVS = {"align", "align*"}


def convert_math_span(span: str) -> str:
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


def format_citation(keys: list[str], notes: list[str]) -> str:
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


def clean_url(raw: str) -> str:
    # Whitespace inside \url{} is line wrapping in the source, never part of the URL.
    return _URL_ESCAPE.sub(r"\1", "".join(raw.split()))


def add_accent(base: str, mark: str, spacing: str) -> str:
    if not base:
        return spacing
    first = "i" if base[0] == "ı" else base[0]  # \"{\i} is ï
    return unicodedata.normalize("NFC", first + mark) + base[1:]


def format_code_span(code: str) -> str:
    code = " ".join(code.split("\n"))
    if not code.strip():
        return code
    fence = "`" * (max(map(len, re.findall("`+", code)), default=0) + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{fence}{pad}{code}{pad}{fence}"
