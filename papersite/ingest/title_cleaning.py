"""An abstract's Markdown as plain one-line prose, math kept, and split into sentences."""

from __future__ import annotations

import re

from ..text.chars import CONTROLS_RE, TITLE_INVISIBLE_RE
from ..text.macros import CONTROL_WORD
from ..text.mathspans import find_math_spans

# Raw LaTeX as some sources have it, in case the importer's converter has not run.
LATEX_CITE_RE = re.compile(r"~?\\(?:cite[pt]?|ref|eqref|footnote|label)\*?(?:\[[^\]]*\])?\{[^{}]*\}")
LATEX_WRAP_RE = re.compile(
    r"\\(?:textbf|textit|emph|texttt|textsc|textrm|textsf|underline|mbox|text|url|mathrm|mathbf|mathsf)\{([^{}]*)\}"
)
LATEX_ESCAPE_RE = re.compile(r"\\([%&_#$])")
LATEX_QUOTES_RE = re.compile(r"``(.{0,300}?)(?:''|\")")
LATEX_COMMAND_RE = re.compile(rf"{CONTROL_WORD}\*?")
# Markdown as the importer writes it. Every span is bounded so that unclosed markers
# cannot make matching quadratic.
# A match starts where a run of white space does ((?<!\s)): tried inside the run, \s* would read
# the rest of it again at every position (quadratic on a page of tabs).
MD_CITE_RE = re.compile(r"(?<!\s)\s*\[@[^\]\[]{0,300}\]")
MD_LINK_RE = re.compile(r"\[([^\]\[]{0,300})\]\([^()]{0,500}\)")
MD_AUTOLINK_RE = re.compile(r"<https?://[^<>\s]{0,500}>")
MD_EMPHASIS_RE = re.compile(r"(\*{1,3}|(?<![\w\\])_{1,3})(?=\S)(.{1,300}?)(?<=\S)\1(?!\w)")
MD_STRAY_STARS_RE = re.compile(r"\*+")
URL_RE = re.compile(r"(?:https?://|www\.)\S+", re.I)
# PDF line wraps that split a word: "cap-\ntions", "de- scent" (but not "first- and second-order").
SOFT_WRAP_RE = re.compile(r"(?<=[a-z])-(?:\n| (?!(?:and|or|to|as)\b))(?=[a-z])")
WHITESPACE_RE = re.compile(r"\s+")

# Abbreviations whose final period does not end a sentence.
ABBREVIATIONS = frozenset(
    "e.g. i.e. et al. vs. cf. etc. w.r.t. fig. figs. eq. eqs. sec. approx. resp. no. st. dr. mr. ms.".split()
)

# A sentence ends at . ! ? before a capital, unless the period closes an
# abbreviation; ICML 2024 abstracts also run sentences together ("scenarios.Inspired").
SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[\"“(\[]?[A-Z0-9$\\])|(?<=[a-z]{3}[.!?])(?=[A-Z][a-z])")


def clean_text(text: str) -> str:
    """Plain one-line prose: markup, citations, URLs and invisible characters removed, math kept."""
    text = TITLE_INVISIBLE_RE.sub("", text)
    text = CONTROLS_RE.sub(" ", text)
    text = SOFT_WRAP_RE.sub("", text)
    # Math is kept verbatim (the site renders it); only the prose around it is cleaned.
    parts = split_math_spans(text)
    cleaned = [part if index % 2 else clean_prose(part) for index, part in enumerate(parts)]
    return WHITESPACE_RE.sub(" ", "".join(cleaned)).strip()


def split_math_spans(text: str) -> list[str]:
    """Prose and math in turn, always starting and ending with prose: the math spans are at odd indices."""
    parts: list[str] = []
    pos = 0
    for start, end in find_math_spans(text):
        parts += [text[pos:start], text[start:end]]
        pos = end
    parts.append(text[pos:])
    return parts


def clean_prose(text: str) -> str:
    """Prose outside formulas: LaTeX and Markdown markup unwrapped, citations and links dropped."""
    text = LATEX_CITE_RE.sub("", text)
    # Nested wrappers (\textbf{\textit{X}}) need one pass per level.
    for _ in range(4):
        text = LATEX_WRAP_RE.sub(r"\1", text)
    text = LATEX_ESCAPE_RE.sub(r"\1", text)
    text = LATEX_QUOTES_RE.sub(r"“\1”", text)
    text = LATEX_COMMAND_RE.sub(lambda m: "×" if m.group() == "\\times" else "", text)
    text = MD_CITE_RE.sub("", text)
    text = MD_AUTOLINK_RE.sub("", text)
    text = MD_LINK_RE.sub(r"\1", text)
    text = URL_RE.sub("", text)
    for _ in range(3):
        text = MD_EMPHASIS_RE.sub(r"\2", text)
    text = MD_STRAY_STARS_RE.sub("", text)
    return text.replace("~", " ")


def split_sentences(text: str) -> list[str]:
    """Sentences of cleaned text; the period of an abbreviation such as "e.g." does not split."""
    sentences: list[str] = []
    start = 0
    for match in SENTENCE_END_RE.finditer(text):
        space = text.rfind(" ", start, match.start())
        last_word = text[max(space + 1, start):match.start()]
        if last_word.lower() in ABBREVIATIONS:
            continue
        sentences.append(text[start:match.start()].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [s for s in sentences if s]
