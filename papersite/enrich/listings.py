"""The site's listings, built once: every paper with its texts and neighbours, the papers of each tag, the tag chart."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ..model import Paper, SiteConfig, Tag, Taxonomy
from .texts import PaperText

WORDS_PER_MINUTE = 200


@dataclass(frozen=True)
class PaperPage:
    """A paper with what its page and the listings show."""

    paper: Paper
    title_html: str        # safe HTML: math in titles is MathML
    title_text: str        # plain text for <title>, meta tags and search
    title_latex: str       # for BibTeX
    abstract_html: str
    text: str              # the abstract as plain words, for search and descriptions
    summary: str           # about two lines of the abstract
    words: int
    reading_minutes: int
    prev_slug: str | None
    next_slug: str | None


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
class Site:
    """Everything the pages list, gathered before anything is rendered."""

    config: SiteConfig
    papers: tuple[PaperPage, ...]
    tags: tuple[TagListing, ...]          # taxonomy order, every tag (empty ones too)
    proceedings: tuple[Proceedings, ...] = ()   # newest first, then by venue

    def tag_names(self) -> dict[str, str]:
        return {listing.tag.slug: listing.tag.name for listing in self.tags}


@dataclass(frozen=True)
class TagBar:
    slug: str
    name: str
    count: int
    percent: float      # of the largest tag, for the bar width


def paper_pages(papers: Sequence[Paper], texts: Sequence[PaperText]) -> tuple[PaperPage, ...]:
    """Each paper with its texts and its neighbours in site order."""
    return tuple(paper_page(papers, i, text) for i, text in enumerate(texts))


def list_site(config: SiteConfig, taxonomy: Taxonomy, pages: Sequence[PaperPage]) -> Site:
    """The papers in site order, the papers of every tag, and of every proceedings."""
    by_tag: dict[str, list[PaperPage]] = {t.slug: [] for t in taxonomy.tags}
    by_venue: dict[tuple[str, int], list[PaperPage]] = {}
    for page in pages:
        for slug in page.paper.tags:
            by_tag[slug].append(page)
        by_venue.setdefault((page.paper.venue, page.paper.year), []).append(page)
    proceedings, taken = [], set()
    for (venue, year), found in sorted(by_venue.items(), key=lambda item: (-item[0][1], item[0][0].lower(), item[0][0])):
        slug, n = venue_slug(venue), 1
        while (slug, year) in taken:   # two spellings of a venue that fold to one slug ("ICML", "icml")
            n += 1
            slug = f"{venue_slug(venue)}-{n}"
        taken.add((slug, year))
        proceedings.append(Proceedings(venue, slug, year, tuple(found)))
    return Site(config, tuple(pages), tuple(TagListing(t, tuple(by_tag[t.slug])) for t in taxonomy.tags), tuple(proceedings))


def venue_slug(venue: str) -> str:
    """`NeurIPS` -> `neurips`, `ACL Findings` -> `acl-findings`: accents folded, anything else a hyphen."""
    folded = unicodedata.normalize("NFKD", venue).encode("ascii", "ignore").decode("ascii").lower()
    return "-".join(re.findall(r"[a-z0-9]+", folded)) or "venue"


def paper_page(papers: Sequence[Paper], i: int, text: PaperText) -> PaperPage:
    return PaperPage(
        paper=papers[i],
        title_html=text.title_html,
        title_text=text.title_text,
        title_latex=text.title_latex,
        abstract_html=text.abstract_html,
        text=text.text,
        summary=text.summary,
        words=text.words,
        reading_minutes=max(1, math.ceil(text.words / WORDS_PER_MINUTE)),
        prev_slug=papers[i - 1].slug if i > 0 else None,
        next_slug=papers[i + 1].slug if i + 1 < len(papers) else None,
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
