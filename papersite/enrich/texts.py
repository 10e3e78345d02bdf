"""Each paper's texts as pages show them: Markdown and math to HTML, plain text, summary, BibTeX title.

Pure over its input: the same title and abstract give the same texts. The previous build's
texts are given again for a paper whose title and abstract are unchanged (`TextMemo`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from html import escape
from typing import Callable

from .. import workers
from ..digests import digest, fingerprint, text_digest
from ..errors import UNKNOWN_COMMAND, Problem, Report
from ..model import Paper
from ..text.macros import Macros, MacroTable, expand_in_math, macro_table
from ..text.markdown import MarkdownRenderer, one_line
from ..text.mathml import unknown_command_in
from ..text.plain import flatten_markdown
from .bibtex import markdown_to_latex

SUMMARY_CHARS = 240


@dataclass(frozen=True)
class PaperText:
    title_html: str        # safe HTML: math in titles is MathML
    title_text: str        # plain text for <title>, meta tags and search
    title_latex: str       # LaTeX for BibTeX, capitals protected
    # The abstract's two longest forms, each None where the Paper's Markdown gives it as it is
    # (most abstracts have no markup): an anthology's build keeps the abstract once, not three
    # times (bench/README.md). `abstract` and `plain_text` give them either way.
    abstract_html: str | None   # None: one paragraph of the Markdown's text (`paragraph_html`)
    text: str | None            # the abstract as plain words, for search and descriptions; None: the Markdown
    summary: str           # about two lines of the abstract
    words: int
    # The digest of the title and abstract they were made from (the memo's key), as Paper.version.
    version: bytes = field(default=b"", compare=False, repr=False)

    def abstract(self, body: str) -> str:
        """The abstract as safe HTML; `body`: the Markdown these texts were made from (Paper.body)."""
        return abstract_markup(self.abstract_html, body)

    def plain_text(self, body: str) -> str:
        """The abstract as plain words; `body`: the Markdown these texts were made from (Paper.body)."""
        return body if self.text is None else self.text


def paragraph_html(body: str) -> str:
    """What Markdown makes of an abstract with no markup: its text, escaped, as one paragraph."""
    return f"<p>{escape(body, quote=False)}</p>"


def abstract_markup(abstract_html: str | None, body: str) -> str:
    """The abstract as safe HTML, from an `abstract_html` that may be None (PaperText) and the
    Markdown it was made from."""
    return paragraph_html(body) if abstract_html is None else abstract_html


TITLE_PREFIX = "title: "   # before the warnings of a paper's title

# A paper's texts and its (title, body) warnings, by the digest of its title and abstract.
Converted = tuple[PaperText, tuple[str, ...], tuple[str, ...]]
TextMemo = dict[bytes, Converted]


def render_texts(papers: list[Paper], report: Report, jobs: int = 1, previous: TextMemo | None = None,
                 on_progress: Callable[[int], None] | None = None, macros: Macros = ()) -> tuple[list[PaperText], TextMemo]:
    """Every paper's texts, in order, and the memo for the next build: papers whose title and
    abstract the `previous` build converted (with the same `macros`, the site's own) are taken
    from it, the rest are converted on `jobs` workers. Warnings are reported in paper order either way."""
    previous = previous or {}
    keys = [paper.text_version or text_digest(paper.title, paper.body) for paper in papers]
    if macros:   # a text is named by what it was made from: its title and abstract, and the macros
        salt = fingerprint(macros)
        keys = [digest(key + salt) for key in keys]
    todo = [i for i, key in enumerate(keys) if key not in previous]
    convert = partial(convert_text, macros=macro_table(macros)) if macros else convert_text
    fresh = dict(zip(todo, workers.ordered_map(convert, [papers[i] for i in todo], jobs,
                                               setup=MarkdownRenderer, on_progress=on_progress)))
    memo: TextMemo = {}
    texts = []
    for i, (paper, key) in enumerate(zip(papers, keys)):
        if i in fresh:
            text, title_warnings, body_warnings = fresh[i]
            converted = (replace(text, version=key), title_warnings, body_warnings)
        else:
            converted = previous[key]
        memo[key] = converted
        text, title_warnings, body_warnings = converted
        for message in title_warnings:
            report.warn(paper.path, None, TITLE_PREFIX + message, warning_kind(message))
        for message in body_warnings:
            report.warn(paper.path, locate_in_body(paper, message), message, warning_kind(message))
        texts.append(text)
    return texts, memo


def warning_kind(message: str) -> str:
    """A formula's warning's kind (Problem.kind): that of an unknown command, or none."""
    return UNKNOWN_COMMAND if unknown_command_in(message) else ""


# How many of the unknown commands the build's note names, most frequent first.
NOTED_COMMANDS = 5


def unknown_commands_note(warnings: Sequence[Problem]) -> str | None:
    """One line for the end of a build whose formulas use commands nobody defined: which, in how
    many papers, and where to define them. An imported corpus can give hundreds of warnings, one
    per formula, in which a paper's own macros are the common case (text/macros.py)."""
    papers: dict[str, set[str]] = {}
    for problem in warnings:
        # A title's warnings are prefixed (render_texts).
        command = unknown_command_in(problem.message.removeprefix(TITLE_PREFIX))
        if command:
            papers.setdefault(command, set()).add(problem.path)
    if not papers:
        return None
    ranked = sorted(papers.items(), key=lambda item: (-len(item[1]), item[0]))
    shown = ", ".join(f"{name} ({len(paths)})" for name, paths in ranked[:NOTED_COMMANDS])
    more = f" and {len(ranked) - NOTED_COMMANDS} more" if len(ranked) > NOTED_COMMANDS else ""
    commands, count = len(papers), len(set().union(*papers.values()))
    return (f"{commands} unknown LaTeX command{'' if commands == 1 else 's'} in {count} paper{'' if count == 1 else 's'}, "
            f"shown as code; by papers: {shown}{more}. A paper's own macros can be defined under math_macros here")


def convert_text(renderer: MarkdownRenderer, paper: Paper, macros: MacroTable | None = None) -> Converted:
    """One paper's texts and its (title, body) warnings; with the site's `macros`, its formulas are
    expanded first, so its HTML, plain text and BibTeX title all read standard LaTeX."""
    title, title_problems = expand_in_math(paper.title, macros) if macros else (paper.title, [])
    body, body_problems = expand_in_math(paper.body, macros) if macros else (paper.body, [])
    title_html, title_warnings = renderer.render_inline(title)
    abstract_html, warnings = renderer.render(body)
    plain = flatten_markdown(body)
    # None where the texts are the page's Markdown as written (PaperText): compared with that, not the expanded one.
    text = PaperText(title_html, flatten_markdown(one_line(title)), markdown_to_latex(one_line(title), protect_case=True),
                     None if abstract_html == paragraph_html(paper.body) else abstract_html,
                     None if plain == paper.body else plain, summarise(plain), len(plain.split()))
    return text, (*title_problems, *title_warnings), (*body_problems, *warnings)


def locate_in_body(paper: Paper, message: str) -> int:
    """Best-effort line of a math warning: the formula is quoted between $ in the message."""
    start, end = message.find("$"), message.rfind("$")
    formula = message[start:end + 1] if 0 <= start < end else ""
    offset = paper.body.find(formula) if formula else -1
    return paper.body_line + (paper.body[:offset].count("\n") if offset >= 0 else 0)


def summarise(text: str, limit: int = SUMMARY_CHARS) -> str:
    """The first sentences up to about two lines, cut on a word, never inside a word."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit].rstrip(" ,;:–—-") + "…"
