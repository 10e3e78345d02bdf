"""Stage 3: everything a page shows that is derived from the papers (HTML, summaries, neighbours).

Pure over its inputs: the same papers give the same PaperPages.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import parallel
from .cache import BuildCache, digest
from .errors import Report
from .timing import timed
from .latex import flatten_markdown
from .markup import MarkdownRenderer, one_line
from .model import Paper
from .similarity import related_papers

SUMMARY_CHARS = 240
WORDS_PER_MINUTE = 200


@dataclass(frozen=True)
class RelatedLink:
    slug: str
    title_html: str
    shared_terms: tuple[str, ...]


@dataclass(frozen=True)
class RelatedList:
    """The papers one paper's page lists as related, best first. Kept apart from PaperPage, which
    every listing shows: an edit re-ranks hundreds of papers' neighbours, and the pages listing
    those papers do not show their neighbours."""

    links: tuple[RelatedLink, ...] = ()
    # A digest of the linked papers' sources and the terms shown (cache.Fingerprinter's shortcut).
    source_key: bytes = field(default=b"", compare=False, repr=False)


@dataclass(frozen=True)
class PaperPage:
    """A paper with what its page and the listings show."""

    paper: Paper
    title_html: str        # safe HTML: math in titles is MathML
    title_text: str        # plain text for <title>, meta tags and search
    abstract_html: str
    text: str              # the abstract as plain words, for search and descriptions
    summary: str           # about two lines of the abstract
    words: int
    reading_minutes: int
    prev_slug: str | None
    next_slug: str | None
    # Everything else is made from the paper and its neighbours' slugs: a digest of those, when
    # the paper's is known, fingerprints the page (see model.Paper.source_key).
    source_key: bytes = field(default=b"", compare=False, repr=False)


@dataclass(frozen=True)
class RenderedText:
    title_html: str
    title_text: str
    abstract_html: str
    text: str
    summary: str
    words: int


def read_papers(papers: list[Paper], report: Report, cache: BuildCache | None = None, jobs: int = 1) -> list[PaperPage]:
    """Every paper's page data (its related papers are `relate_papers`'): all that search and the
    exports read. `cache` keeps each paper's rendered text for the next build; `jobs` workers
    render the rest."""
    with timed("markdown and math"):
        rendered = render_texts(papers, report, cache, jobs)
    pages = []
    for i, (paper, text) in enumerate(zip(papers, rendered)):
        prev_slug = papers[i - 1].slug if i > 0 else None
        next_slug = papers[i + 1].slug if i + 1 < len(papers) else None
        neighbours = f"{prev_slug}\0{next_slug}".encode("utf-8", "surrogatepass")
        pages.append(PaperPage(
            paper=paper,
            title_html=text.title_html,
            title_text=text.title_text,
            abstract_html=text.abstract_html,
            text=text.text,
            summary=text.summary,
            words=text.words,
            reading_minutes=max(1, math.ceil(text.words / WORDS_PER_MINUTE)),
            prev_slug=prev_slug,
            next_slug=next_slug,
            source_key=digest(b"paper page\0" + paper.source_key + neighbours) if paper.source_key else b"",
        ))
    return pages


def relate_papers(pages: list[PaperPage]) -> tuple[RelatedList, ...]:
    """Each page's related papers, in page order."""
    with timed("related papers"):
        related = related_papers([f"{p.title_text}. {p.text}" for p in pages])
    lists = []
    for found in related:
        linked = [pages[r.index] for r in found]
        links = tuple(RelatedLink(other.paper.slug, other.title_html, r.shared_terms) for other, r in zip(linked, found))
        key = b""
        if all(other.paper.source_key for other in linked):
            # A linked paper's source stands for its slug and title (as fingerprinting the links
            # would, at a tenth of the cost); terms are letters only, so spaces separate them.
            key = digest(b"\0".join([b"related", *(other.paper.source_key + " ".join(r.shared_terms).encode()
                                                    for other, r in zip(linked, found))]))
        lists.append(RelatedList(links, key))
    return tuple(lists)


def render_texts(papers: list[Paper], report: Report, cache: BuildCache | None, jobs: int) -> list[RenderedText]:
    """Markdown and math of every paper: from the cache when its title and body are unchanged,
    else on `jobs` workers. Warnings are reported in paper order either way."""
    results: list = [None] * len(papers)
    keys: list = [None] * len(papers)
    todo = []
    for i, paper in enumerate(papers):
        if cache is not None:
            keys[i] = digest(f"{paper.title}\0{paper.body}".encode("utf-8", "surrogatepass"))
            results[i] = cache.get("texts", keys[i])
        if results[i] is None:
            todo.append(i)
    fresh = parallel.ordered_map(convert_text, [papers[i] for i in todo], jobs)
    for i, value in zip(todo, fresh):
        results[i] = value
        if cache is not None:
            cache.put("texts", keys[i], value)
    texts = []
    for paper, (text, title_warnings, body_warnings) in zip(papers, results):
        for message in title_warnings:
            report.warn(paper.path, None, f"title: {message}")
        for message in body_warnings:
            report.warn(paper.path, locate_in_body(paper, message), message)
        texts.append(text)
    return texts


_renderer: MarkdownRenderer | None = None


def convert_text(paper: Paper) -> tuple[RenderedText, tuple[str, ...], tuple[str, ...]]:
    """One paper's text and its (title, body) warnings; one Markdown instance per process."""
    global _renderer
    if _renderer is None:
        _renderer = MarkdownRenderer()
    title_html, title_warnings = _renderer.render_inline(paper.title)
    abstract_html, warnings = _renderer.render(paper.body)
    plain = flatten_markdown(paper.body)
    text = RenderedText(title_html, flatten_markdown(one_line(paper.title)), abstract_html, plain, summarise(plain),
                        len(plain.split()))
    return text, tuple(title_warnings), tuple(warnings)


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
