"""What the author pages and the author index show: each person's papers by year, co-authors, venues
and topics, and the index's letters.

An author page's data holds that author's papers and names only (a paper as its title, venue, year
and topics; no abstract), so an edit to a paper changes the pages of its authors, and a new
paper those of its authors and their co-authors, and no other.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from .. import workers
from ..digests import fingerprint, leaf
from .people import Authorship, Credit, Person


@dataclass(frozen=True)
class AuthorPaper:
    """One paper as its authors' pages list it."""

    slug: str
    title_html: str
    venue: str
    venue_slug: str
    year: int
    tags: tuple[str, ...]


# A paper as author pages list it, as plain values: the fields of its AuthorPaper. An edit compares
# each paper's with the last build's, and makes AuthorPapers only for the pages it makes again (at
# 100,000 papers, making and comparing every paper's AuthorPaper took 0.5 s of an edit).
Line = tuple[str, str, str, str, int, tuple[str, ...]]


# One item of a count: a co-author (slug, name, shared papers), a venue (slug, name, papers) or a
# topic (tag slug, "", papers).
Tally = tuple[str, str, int]


@dataclass(frozen=True)
class AuthorPage:
    slug: str
    name: str
    count: int                                            # papers
    years: tuple[tuple[int, tuple[AuthorPaper, ...]], ...]  # newest first; in site order within a year
    # The co-authors (most shared papers first, then by name), venues and topics (most papers first),
    # as the JSON text of [coauthors, venues, topics], read when the page is rendered: as tuples,
    # an anthology's author pages were five million small objects to unpickle on every edit build,
    # most of the time it spent loading its cache, for the few pages an edit renders.
    tallies: str
    homepage: str | None = None
    orcid: str | None = None
    note: str | None = None
    # The digest of all of the above, taken when the page's data is made: its page's spec carries it
    # (render/plan.py plan_authors), so the pages an edit leaves alone are not digested again.
    version: bytes = b""

    def read_tallies(self) -> tuple[tuple[Tally, ...], tuple[Tally, ...], tuple[Tally, ...]]:
        """(co-authors, venues, topics), read from `tallies`: once a rendered page (templates/author.html)."""
        coauthors, venues, topics = (tuple(map(tuple, items)) for items in json.loads(self.tallies))
        return coauthors, venues, topics


def write_tallies(coauthors: list[Tally], venues: list[Tally], topics: list[Tally]) -> str:
    return json.dumps([coauthors, venues, topics], ensure_ascii=False, separators=(",", ":"))



@dataclass(frozen=True)
class IndexEntry:
    """An author as the index lists them."""

    slug: str
    name: str        # "Family, Given"
    count: int


@dataclass(frozen=True)
class IndexLetter:
    letter: str      # a-z, or inputs/names.py OTHER_LETTER
    entries: tuple[IndexEntry, ...]   # by family name
    version: bytes = b""              # the digest of the above, as AuthorPage.version


@dataclass(frozen=True)
class Authors:
    """Every author's page data, in index order, and the author index."""

    pages: tuple[AuthorPage, ...]
    index: tuple[IndexLetter, ...]     # a-z, then the rest


def author_pages(authorship: Authorship, lines: Sequence[Line], previous: dict | None = None,
                 jobs: int = 1) -> tuple[Authors, dict]:
    """Every person's page data and the author index (`lines`: every paper as author pages list it,
    in site order), and the state for the next build. With the same people as the last build
    (`previous`), only the pages of the authors of papers whose line changed are made again;
    otherwise every page's counts are made on `jobs` workers."""
    lines = tuple(lines)
    people = authorship.people
    # Co-authors with as many shared papers are listed as the index lists them.
    order = {person.slug: n for n, person in enumerate(people)}
    if previous and previous["version"] == authorship.version and len(previous["lines"]) == len(lines):
        changed = [i for i, (old, new) in enumerate(zip(previous["lines"], lines)) if old != new]
        if not changed:
            return previous["authors"], previous
        pages = list(previous["authors"].pages)
        remade = [people[order[slug]] for slug in {credit.slug for i in changed for credit in authorship.credits[i]
                                                    if credit.slug is not None}]
        slugs = {i: paper_slugs(authorship.credits[i]) for person in remade for i in person.papers}
        papers: Mapping[int, AuthorPaper] | Sequence[AuthorPaper] = {i: AuthorPaper(*lines[i]) for i in slugs}
        for person in remade:
            pages[order[person.slug]] = author_page(person, papers, *page_counts(person, slugs, papers, order, people))
        index = previous["authors"].index
    else:
        papers = tuple(AuthorPaper(*line) for line in lines)
        slugs = [paper_slugs(credits) for credits in authorship.credits]
        # Only the counts and the version come back from the workers: the pages list the build's
        # own AuthorPaper objects, each shared by the pages of its authors (pickled back, an
        # anthology's 360,000 paper lines would be copies).
        counts = workers.ordered_map(partial(page_counts, slugs=slugs, papers=papers, order=order, people=people), people, jobs)
        pages = [author_page(person, papers, *made) for person, made in zip(people, counts)]
        index = index_letters(people)
    authors = Authors(tuple(pages), index)
    return authors, {"version": authorship.version, "lines": lines, "authors": authors}


def paper_slugs(credits: Sequence[Credit]) -> tuple[str, ...]:
    """The slugs of a paper's people, each once."""
    return tuple(dict.fromkeys(credit.slug for credit in credits if credit.slug is not None))


def author_page(person: Person, papers: Mapping[int, AuthorPaper] | Sequence[AuthorPaper], tallies: str,
                version: bytes) -> AuthorPage:
    homepage, orcid, note = about(person)
    return AuthorPage(slug=person.slug, name=person.name, count=len(person.papers), years=papers_by_year(person, papers),
                      tallies=tallies, homepage=homepage, orcid=orcid, note=note, version=version)


def papers_by_year(person: Person,
                   papers: Mapping[int, AuthorPaper] | Sequence[AuthorPaper]) -> tuple[tuple[int, tuple[AuthorPaper, ...]], ...]:
    """A person's papers as their page lists them: by year, newest first, in site order within a
    year. `papers`: every paper by its place in site order (at least the person's), as anything
    with a `year` (their BibTeX file, publish/exports.py, lists Papers in the same order)."""
    years: dict[int, list[AuthorPaper]] = {}
    for i in person.papers:
        years.setdefault(papers[i].year, []).append(papers[i])
    return tuple((year, tuple(years[year])) for year in sorted(years, reverse=True))


def about(person: Person) -> tuple[str | None, str | None, str | None]:
    """The homepage, ORCID iD and note authors.yml gives the person."""
    entry = person.entry
    return (entry.homepage, entry.orcid, entry.note) if entry else (None, None, None)


def page_counts(person: Person, slugs: Mapping[int, tuple[str, ...]] | Sequence[tuple[str, ...]],
                papers: Mapping[int, AuthorPaper] | Sequence[AuthorPaper], order: dict[str, int],
                people: Sequence[Person]) -> tuple[str, bytes]:
    """A person's co-authors, venues and topics as the JSON text of AuthorPage.tallies, and the
    version of the page they are on. `slugs`: the slugs of each paper's people (`paper_slugs`);
    `order`: each slug's position in `people`, the index's order."""
    shared: Counter[str] = Counter()
    venues: dict[tuple[str, str], int] = {}
    topics: dict[str, int] = {}
    for i in person.papers:
        paper = papers[i]
        venues[paper.venue_slug, paper.venue] = venues.get((paper.venue_slug, paper.venue), 0) + 1
        for tag in paper.tags:
            topics[tag] = topics.get(tag, 0) + 1
        shared.update(slugs[i])
    del shared[person.slug]
    # Sorted as plain tuples (most shared first, then index order), not by a key function: an
    # anthology's 164,000 pages list 2.2 million co-authors.
    coauthors = sorted([(-n, order[slug], slug) for slug, n in shared.items()])
    tallies = write_tallies(
        [(slug, people[n].name, -minus) for minus, n, slug in coauthors],
        [(slug, name, n) for (slug, name), n in sorted(venues.items(), key=lambda item: (-item[1], item[0][1].lower(), item[0][0]))],
        [(tag, "", n) for tag, n in sorted(topics.items(), key=lambda item: (-item[1], item[0]))])
    # The version of all the page shows, as plain tuples: one pickling in C, where walking the page's
    # dataclasses value by value took longer than making the page. Its papers by year follow from
    # its papers in site order, which is what it digests.
    lines = tuple(astuple_paper(papers[i]) for i in person.papers)
    return tallies, leaf((person.slug, person.name, lines, tallies, *about(person)))


def astuple_paper(paper: AuthorPaper) -> tuple:
    return (paper.slug, paper.title_html, paper.venue, paper.venue_slug, paper.year, paper.tags)


def index_letters(people: Sequence[Person]) -> tuple[IndexLetter, ...]:
    """The author index, letter by letter (a-z, then the rest), each by family name (`people` are in index order)."""
    letters: dict[str, list[IndexEntry]] = {}
    for person in people:
        letters.setdefault(person.letter, []).append(IndexEntry(person.slug, person.index_name, len(person.papers)))
    return tuple(IndexLetter(letter, tuple(letters[letter]), fingerprint((letter, tuple(letters[letter]))))
                 for letter in sorted(letters, key=lambda letter: (len(letter) > 1, letter)))
