"""What a page is made from: its spec (path, kind, template, title, description, crumbs, context,
indexable, version), of one of three kinds. Paper and author pages, a large site's nearly every
page, have specs that make most of these fields when read (`MadeWhenRead`); every other page a
`PageSpec`. render/plan.py plans them, render/jinja.py renders them, incremental/reuse.py keys them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .. import urls
from ..enrich.authors import AuthorPage
from ..enrich.listings import PaperPage
from ..enrich.related import RelatedList
from .pagination import Crumbs

# The first crumbs of many pages, one tuple each: an anthology's 270,000 page specs each made them
# anew (a paper page's venue and year, an author page's index; about 60 MB at 100,000 papers).
HOME_CRUMB = ("Home", urls.HOME)
AUTHORS_CRUMBS: Crumbs = (HOME_CRUMB, ("Authors", urls.AUTHOR_INDEX))


@dataclass(frozen=True)
class PageSpec:
    path: str
    kind: str              # home, paper, tag, tags, search, map, reading-list, 404, redirect
    template: str
    title: str             # plain text for <title> and previews
    description: str
    breadcrumbs: Crumbs = ()
    context: Mapping[str, object] = field(default_factory=dict)   # what the template shows besides the chrome
    indexable: bool = True  # listed in the sitemap
    # The digest of what the spec was made from, where it is made from data that carries versions
    # (a paper's, an author's or a listing's page): the page's key takes it in place of a fingerprint
    # of every field (incremental/reuse.py page_key). An edit at 100,000 papers spent 4.6 s
    # fingerprinting 274,067 specs to find the seven it changed. Empty: fingerprinted.
    version: bytes = b""


class MadeWhenRead:
    """A page's spec that holds a few fields and makes its title, description, crumbs and context
    when they are read: what a PageSpec gives, read the same way. A site's plan holds one for each
    paper and each author (274,000 at 100,000 papers), of which an edit renders a few and keys the
    rest by their version; made whole, with a dict and texts of its own, each took about 5 µs
    (bench/README.md)."""

    __slots__ = ()
    indexable = True
    above: Crumbs    # the crumbs to the page's parent
    title: str

    @property
    def breadcrumbs(self) -> Crumbs:
        return self.above + ((self.title, None),)


@dataclass(frozen=True, slots=True)
class PaperSpec(MadeWhenRead):
    path: str
    item: PaperPage
    related: RelatedList
    bibtex_key: str
    venue_slug: str
    above: Crumbs            # to its proceedings
    bibtex_file: EntryFile   # the export its entry is in
    version: bytes = b""     # as PageSpec.version

    kind = "paper"
    template = "paper.html"

    @property
    def title(self) -> str:
        return self.item.title_text

    @property
    def description(self) -> str:
        return self.item.summary

    @property
    def context(self) -> Mapping[str, object]:
        return {"item": self.item, "related": self.related, "bibtex_key": self.bibtex_key, "venue_slug": self.venue_slug,
                "bibtex_file": self.bibtex_file}


@dataclass(frozen=True, slots=True)
class AuthorSpec(MadeWhenRead):
    path: str
    author: AuthorPage
    site_title: str
    version: bytes = b""     # as PageSpec.version

    kind = "author"
    template = "author.html"
    above = AUTHORS_CRUMBS

    @property
    def title(self) -> str:
        return self.author.name

    @property
    def description(self) -> str:
        count = self.author.count
        return f"{count} paper{'' if count == 1 else 's'} by {self.author.name} in {self.site_title}."

    @property
    def context(self) -> Mapping[str, object]:
        return {"author": self.author}


# What a page is made from: each kind has the fields of PageSpec.
Spec = PageSpec | PaperSpec | AuthorSpec


@dataclass(frozen=True)
class EntryFile:
    """The export a paper's BibTeX entry is in, as the paper's page links it: without its number of
    papers, which a paper added to it changes, and with it every page of the papers in it."""

    label: str
    bibtex: str


@dataclass(frozen=True)
class Download:
    """One set of exports: every paper, or one proceedings' papers when the exports are split."""

    label: str
    papers: int
    bibtex: str
    json: str
