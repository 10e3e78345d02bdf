"""The site's listings, built once: every paper with its texts, authors and neighbours, the papers of each tag,
of each venue and year, each author's page data, the tag chart."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..digests import digest
from ..model import Paper, SiteConfig, Tag, Taxonomy
from ..text.fold import ascii_words
from .authors import AuthorPage, IndexLetter, Line, author_pages
from .people import Authorship, Credit, Redirect, byline_version
from .texts import PaperText, abstract_markup

WORDS_PER_MINUTE = 200


@dataclass(frozen=True)
class PaperPage:
    """A paper with what its page and the listings show."""

    paper: Paper
    title_html: str        # safe HTML: math in titles is MathML
    title_text: str        # plain text for <title>, meta tags and search
    title_latex: str       # for BibTeX
    abstract_html: str | None   # None: the paper's Markdown as one paragraph (PaperText); see `abstract`
    text: str              # the abstract as plain words, for search and descriptions
    summary: str           # about two lines of the abstract
    words: int
    reading_minutes: int
    prev_slug: str | None
    next_slug: str | None
    credits: tuple[Credit, ...] = ()   # its authors, each with their page
    # The digest of everything above, from its Paper's and texts' versions (paper_page): an edit
    # leaves thousands of pages and listings whose keys need not digest their papers again.
    version: bytes = field(default=b"", compare=False, repr=False)

    @property
    def abstract(self) -> str:
        """The abstract as safe HTML, made here where it is the Markdown's text as one paragraph:
        only the page that shows it needs it, and the build keeps one copy of the abstract."""
        return abstract_markup(self.abstract_html, self.paper.body)


@dataclass(frozen=True)
class TagListing:
    tag: Tag
    papers: tuple[PaperPage, ...]


@dataclass(frozen=True)
class Proceedings:
    """The papers of one venue in one year."""

    venue: str
    venue_slug: str     # lower-case ASCII letters, digits and hyphens
    year: int
    papers: tuple[PaperPage, ...]


@dataclass(frozen=True)
class Venue:
    name: str
    slug: str
    proceedings: tuple[Proceedings, ...]   # newest first


@dataclass(frozen=True)
class Site:
    """Everything the pages list, gathered before anything is rendered."""

    config: SiteConfig
    papers: tuple[PaperPage, ...]
    tags: tuple[TagListing, ...]          # taxonomy order, every tag (empty ones too)
    proceedings: tuple[Proceedings, ...] = ()   # newest first, then by venue
    venues: tuple[Venue, ...] = ()        # by name
    authors: tuple[AuthorPage, ...] = ()  # by family name (the author index's order)
    author_index: tuple[IndexLetter, ...] = ()
    author_redirects: tuple[Redirect, ...] = ()

    def tag_names(self) -> dict[str, str]:
        return {listing.tag.slug: listing.tag.name for listing in self.tags}

    def venue_slugs(self) -> dict[str, str]:
        return {venue.name: venue.slug for venue in self.venues}


@dataclass(frozen=True)
class TagBar:
    slug: str
    name: str
    count: int
    percent: float      # of the largest tag, for the bar width


def paper_pages(papers: Sequence[Paper], texts: Sequence[PaperText], authorship: Authorship | None = None) -> tuple[PaperPage, ...]:
    """Each paper with its texts, its authors (from `authorship`, when known) and its neighbours in site order."""
    if authorship is None:
        return tuple(paper_page(papers, i, text, ()) for i, text in enumerate(texts))
    return tuple(paper_page(papers, i, text, credits, byline)
                 for i, (text, credits, byline) in enumerate(zip(texts, authorship.credits, authorship.bylines)))


def list_site(config: SiteConfig, taxonomy: Taxonomy, pages: Sequence[PaperPage]) -> Site:
    """The papers in site order, the papers of every tag, of every venue and of every proceedings."""
    by_tag: dict[str, list[PaperPage]] = {t.slug: [] for t in taxonomy.tags}
    by_venue: dict[str, dict[int, list[PaperPage]]] = {}
    for page in pages:
        for slug in page.paper.tags:
            by_tag[slug].append(page)
        by_venue.setdefault(page.paper.venue, {}).setdefault(page.paper.year, []).append(page)
    slugs = venue_slugs(by_venue)
    proceedings = sorted((Proceedings(venue, slugs[venue], year, tuple(found)) for venue, years in by_venue.items() for year, found in years.items()),
                         key=lambda p: (-p.year, p.venue.lower(), p.venue))
    venues = tuple(Venue(name, slugs[name], tuple(p for p in proceedings if p.venue == name)) for name in sorted(by_venue, key=lambda v: (v.lower(), v)))
    return Site(config, tuple(pages), tuple(TagListing(t, tuple(by_tag[t.slug])) for t in taxonomy.tags), tuple(proceedings), venues)


def with_authors(site: Site, authorship: Authorship, previous: dict | None = None) -> tuple[Site, dict]:
    """The site with its authors' page data and old author addresses, and the state for the next
    build (enrich/authors.py `author_pages`)."""
    slugs = site.venue_slugs()
    authors, state = author_pages(authorship, [paper_line(page, slugs) for page in site.papers], previous)
    return replace(site, authors=authors.pages, author_index=authors.index, author_redirects=authorship.redirects), state


def venue_slugs(venues) -> dict[str, str]:
    """Each venue's slug; two spellings that fold to one ("ICML", "icml") are told apart by -2, -3
    in code point order, and no venue is `index` (venues/index.html lists them all)."""
    slugs, taken = {}, {"index"}
    for venue in sorted(venues, key=lambda v: (v.lower(), v)):
        slug, n = venue_slug(venue), 1
        while slug in taken:
            n += 1
            slug = f"{venue_slug(venue)}-{n}"
        taken.add(slug)
        slugs[venue] = slug
    return slugs


def venue_slug(venue: str) -> str:
    """`NeurIPS` -> `neurips`, `ACL Findings` -> `acl-findings`: accents folded, anything else a hyphen."""
    return "-".join(ascii_words(venue)) or "venue"


def paper_line(page: PaperPage, venue_slugs: dict[str, str]) -> Line:
    """A paper as author pages list it: the fields of its AuthorPaper."""
    paper = page.paper
    return paper.slug, page.title_html, paper.venue, venue_slugs[paper.venue], paper.year, paper.tags


def paper_page(papers: Sequence[Paper], i: int, text: PaperText, credits: tuple[Credit, ...],
               byline: bytes | None = None) -> PaperPage:
    """The page data of papers[i], between its neighbours in site order."""
    return page_between(papers[i], text, credits, papers[i - 1].slug if i > 0 else None,
                        papers[i + 1].slug if i + 1 < len(papers) else None, byline)


def page_between(paper: Paper, text: PaperText, credits: tuple[Credit, ...], prev_slug: str | None,
                 next_slug: str | None, byline: bytes | None = None) -> PaperPage:
    """A paper's page data. Made from nothing but the Paper, its texts, its credits and its
    neighbours' slugs, which is what its version digests (`byline`: the credits' byline_version,
    when the caller has it)."""
    version = b""
    if paper.version and text.version:
        # A slug is a file's name: it holds no NUL, and is never empty (no neighbour).
        neighbours = f"{prev_slug or ''}\0{next_slug or ''}".encode()
        version = digest(b"".join((paper.version, text.version, byline_version(credits) if byline is None else byline, neighbours)))
    return PaperPage(
        paper=paper,
        title_html=text.title_html,
        title_text=text.title_text,
        title_latex=text.title_latex,
        abstract_html=text.abstract_html,
        text=text.plain_text(paper.body),
        summary=text.summary,
        words=text.words,
        reading_minutes=max(1, math.ceil(text.words / WORDS_PER_MINUTE)),
        prev_slug=prev_slug,
        next_slug=next_slug,
        credits=credits,
        version=version,
    )


def tag_bars(listings: Sequence[TagListing]) -> tuple[TagBar, ...]:
    """Papers per tag for the tag-index chart: non-empty tags, most papers first, then by name."""
    counted = [(listing.tag, len(listing.papers)) for listing in listings if listing.papers]
    if not counted:
        return ()
    largest = max(count for _, count in counted)
    return tuple(
        TagBar(tag.slug, tag.name, count, round(100.0 * count / largest, 2))
        for tag, count in sorted(counted, key=lambda tc: (-tc[1], tc[0].name.lower(), tc[0].slug))
    )
