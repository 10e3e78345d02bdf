"""Typography for converted text: LaTeX quotes, dashes and ties, outside code, URLs and math."""

from __future__ import annotations

import re

from .latex_pieces import Piece

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


def typeset_pieces(pieces: list[Piece]) -> str:
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
