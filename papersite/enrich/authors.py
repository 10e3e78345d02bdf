"""What the author pages and the author index show: each person's papers by year, co-authors, venues
and topics, and the index's letters.

An author page's data holds that author's papers and names only (a paper as its title, venue, year
and topics; no abstract), so an edit to a paper changes the pages of its authors, and a new
paper those of its authors and their co-authors, and no other.

A page's lists are made when it is rendered, from tables every page shares (`AuthorTables`): the
build keeps each person and the version of their page, not the lists. Made with the pages' data,
an anthology's 164,000 pages held 2.2 million co-authors' counts (131 MB of text at 100,000
papers), which the build process held through the render and the cache loaded back on every
edit, for the few pages an edit renders.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..digests import leaf
from .moves import old_places
from .people import Authorship, Person


@dataclass(frozen=True)
class AuthorPaper:
    """One paper as its authors' pages list it."""

    slug: str
    title_html: str
    venue: str
    venue_slug: str
    year: int
    tags: tuple[str, ...]


# A paper as author pages list it, as plain values: the fields of its AuthorPaper.
Line = tuple[str, str, str, str, int, tuple[str, ...]]


# One item of a count: a co-author (slug, name, shared papers), a venue (slug, name, papers) or a
# topic (tag slug, "", papers).
Tally = tuple[str, str, int]


@dataclass(frozen=True)
class AuthorTables:
    """What every author page is made from, one per build: each paper as the pages list it and the
    slugs of its people, and the people in index order."""

    lines: tuple[Line, ...]                   # every paper, in site order
    slugs: tuple[tuple[str, ...], ...]        # each paper's people, each once (Authorship.paper_people)
    people: tuple[Person, ...]                # by family name (the index's order)
    order: dict[str, int]                     # a slug's position in `people`


@dataclass(frozen=True)
class AuthorPage:
    """One author's page: the person, and the tables their papers and counts are read from."""

    person: Person
    tables: AuthorTables = field(repr=False, compare=False)
    # The digest of all the page shows (`page_version`), taken when the page's data is made: its
    # page's spec carries it (render/plan.py plan_authors), so the pages an edit leaves alone are
    # not digested again.
    version: bytes = b""

    @property
    def slug(self) -> str:
        return self.person.slug

    @property
    def name(self) -> str:
        return self.person.name

    @property
    def count(self) -> int:
        """Their papers."""
        return len(self.person.papers)

    @property
    def homepage(self) -> str | None:
        return about(self.person)[0]

    @property
    def orcid(self) -> str | None:
        return about(self.person)[1]

    @property
    def note(self) -> str | None:
        return about(self.person)[2]

    @property
    def years(self) -> tuple[tuple[int, tuple[AuthorPaper, ...]], ...]:
        """Their papers by year, newest first, in site order within a year."""
        lines = self.tables.lines
        return papers_by_year(self.person, {i: AuthorPaper(*lines[i]) for i in self.person.papers})

    def read_tallies(self) -> tuple[tuple[Tally, ...], tuple[Tally, ...], tuple[Tally, ...]]:
        """(co-authors, venues, topics): the co-authors most shared papers first, then in index order;
        the venues and topics most papers first."""
        return page_tallies(self.person, self.tables)


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


def author_pages(authorship: Authorship, lines: Sequence[Line], previous: dict | None = None) -> tuple[Authors, dict]:
    """Every person's page data and the author index (`lines`: every paper as author pages list it,
    in site order), and the state for the next build. With the same people as the last build
    (`previous`), only the versions of the pages of the authors of papers whose line changed are
    taken again; otherwise every page's."""
    lines = tuple(lines)
    people = authorship.people
    # Co-authors with as many shared papers are listed as the index lists them.
    order = {person.slug: n for n, person in enumerate(people)}
    tables = AuthorTables(lines, authorship.paper_people, people, order)
    changed = changed_lines(previous, authorship, lines)
    if changed is None:
        entries = [paper_entry(i, tables) for i in range(len(lines))]
        versions = tuple(page_version(person, entries) for person in people)
        state = {"version": authorship.version, "lines": lines, "versions": versions, "slugs": tuple(person.slug for person in people),
                 "index": index_letters(people)}
    elif not changed and previous["version"] == authorship.version:
        state = previous
    else:
        kept = dict(zip(previous["slugs"], previous["versions"]))
        versions = [kept.get(person.slug, b"") for person in people]
        touched = [order[slug] for slug in {slug for i in changed for slug in tables.slugs[i]}]
        entries = {i: paper_entry(i, tables) for i in {i for n in touched for i in people[n].papers}}
        for n in touched:
            versions[n] = page_version(people[n], entries)
        # The index changes with the people (their names and counts), not with their papers' order or lines.
        same_people = previous["version"] == authorship.version or not authorship.touched
        index = previous["index"] if same_people else index_letters(people)
        state = {**previous, "version": authorship.version, "lines": lines, "versions": tuple(versions),
                 "slugs": tuple(person.slug for person in people), "index": index}
    pages = tuple(AuthorPage(person, tables, version) for person, version in zip(people, state["versions"]))
    return Authors(pages, state["index"]), state


def changed_lines(previous: dict | None, authorship: Authorship, lines: tuple[Line, ...]) -> list[int] | None:
    """The papers (by place in site order) whose authors' pages may differ from the `previous`
    build's: those whose line changed; when the people were made from the last build's
    (people.reidentified), also the papers of the people identified again (their co-authors' pages
    name them), the papers added, and those that moved among the others (a year changed), which
    their authors' pages list elsewhere. None: every page's version is taken again."""
    if not previous or "slugs" not in previous:
        return None
    old_lines = previous["lines"]
    if previous["version"] == authorship.version and len(old_lines) == len(lines):
        return [i for i, (old, new) in enumerate(zip(old_lines, lines)) if old != new]
    if authorship.touched is None or previous["version"] != authorship.based_on:
        return None
    touched = set(authorship.touched)
    changed = {i for person in authorship.people if person.slug in touched for i in person.papers}
    # A line starts with its paper's slug.
    places = old_places([line[0] for line in old_lines], [line[0] for line in lines]).tolist()
    return sorted(changed | {i for i, (line, old) in enumerate(zip(lines, places)) if old < 0 or old_lines[old] != line})


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


def paper_entry(i: int, tables: AuthorTables) -> bytes:
    """The digest of paper i as every one of its authors' pages shows it: its line, and its people's
    slugs and names, which the co-authors and their counts follow from (their order too: the index
    orders people by name, then slug). Taken once a paper, not once an author and paper: an
    anthology's 576,000 credits made into tuples of names and pickled, an author at a time, were
    6.6 s of a build whose people changed (a paper added, at 100,000 papers)."""
    people, order = tables.people, tables.order
    return leaf((tables.lines[i], tuple((slug, people[order[slug]].name) for slug in tables.slugs[i])))


def page_version(person: Person, entries: Sequence[bytes] | Mapping[int, bytes]) -> bytes:
    """The digest of all a person's page shows: the person, and each of their papers' `entries`
    (`paper_entry`, by place in site order). The topics' names are the chrome's, which every
    page's key digests."""
    return leaf((person.slug, person.name, *about(person), tuple(entries[i] for i in person.papers)))


def page_tallies(person: Person, tables: AuthorTables) -> tuple[tuple[Tally, ...], tuple[Tally, ...], tuple[Tally, ...]]:
    """A person's co-authors (most shared papers first, then in index order), venues and topics
    (most papers first)."""
    shared: Counter[str] = Counter()
    venues: dict[tuple[str, str], int] = {}
    topics: dict[str, int] = {}
    for i in person.papers:
        _, _, venue, venue_slug, _, tags = tables.lines[i]
        venues[venue_slug, venue] = venues.get((venue_slug, venue), 0) + 1
        for tag in tags:
            topics[tag] = topics.get(tag, 0) + 1
        shared.update(tables.slugs[i])
    del shared[person.slug]
    people, order = tables.people, tables.order
    # Sorted as plain tuples (most shared first, then index order), not by a key function: an
    # anthology's 164,000 pages list 2.2 million co-authors.
    coauthors = sorted([(-n, order[slug], slug) for slug, n in shared.items()])
    return (tuple((slug, people[n].name, -minus) for minus, n, slug in coauthors),
            tuple((slug, name, n) for (slug, name), n in sorted(venues.items(), key=lambda item: (-item[1], item[0][1].lower(), item[0][0]))),
            tuple((tag, "", n) for tag, n in sorted(topics.items(), key=lambda item: (-item[1], item[0]))))


def index_letters(people: Sequence[Person]) -> tuple[IndexLetter, ...]:
    """The author index, letter by letter (a-z, then the rest), each by family name (`people` are in index order)."""
    letters: dict[str, list[IndexEntry]] = {}
    for person in people:
        letters.setdefault(person.letter, []).append(IndexEntry(person.slug, person.index_name, len(person.papers)))
    return tuple(IndexLetter(letter, tuple(letters[letter]), letter_version(letter, letters[letter]))
                 for letter in sorted(letters, key=lambda letter: (len(letter) > 1, letter)))


def letter_version(letter: str, entries: Sequence[IndexEntry]) -> bytes:
    """The digest of a letter's entries as plain tuples, pickled in C (tests/test_digests.py checks
    no field is missed): fingerprinted an IndexEntry at a time, the index of 14,150 authors took
    48 ms to make, 33 ms so."""
    return leaf((letter, tuple((entry.slug, entry.name, entry.count) for entry in entries)))
