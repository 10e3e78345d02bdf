"""Who wrote what: each paper's authors as people, with content/authors.yml's merges and splits
applied, and each person's slug and old slugs.

A name (inputs/names.py says when two spellings are one) is one person, unless authors.yml lists
it under a person's `variants` (merged into them) or under a person with `papers` (on those
papers the name is that person). A person's slug is the one authors.yml gives, else their name's,
so it depends on nothing but the name and authors.yml: adding papers never moves a page. The
slugs a person's other names would have, and their `aliases`, forward to their page.
"""

from __future__ import annotations

import pickle
from bisect import insort
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from .. import workers
from ..digests import fingerprint, leaf
from ..errors import Report
from ..inputs.names import index_letter, index_name, name_key, name_slug, shown_name, sort_key
from ..model import Paper, PersonEntry


@dataclass(frozen=True)
class Credit:
    """One author of one paper, as the paper's page and the listings show them."""

    name: str            # the paper's own spelling, as pages show names
    slug: str | None     # the author's page; None for a "name" without a letter or digit


@dataclass(frozen=True)
class Person:
    slug: str
    name: str                      # as their page shows it
    entry: PersonEntry | None      # what authors.yml says about them
    papers: tuple[int, ...]        # their papers' positions in site order
    index_name: str = ""           # as the author index lists them, "Bengio, Yoshua"
    letter: str = ""               # the author index's page they are on (inputs/names.py index_letter)


@dataclass(frozen=True)
class Redirect:
    """An old address of an author page: a merged name's slug, or an alias."""

    old: str
    slug: str
    name: str


@dataclass(frozen=True)
class Authorship:
    credits: tuple[tuple[Credit, ...], ...]   # each paper's authors, in site order
    people: tuple[Person, ...]                # by family name (inputs/names.py sort_key)
    redirects: tuple[Redirect, ...]           # by old slug
    version: bytes = b""                      # the digest of what it was made from
    # Made from the Authorship of version `based_on` by identifying again only the people of these
    # slugs, the others' papers renumbered (`reidentified`); else None.
    touched: tuple[str, ...] | None = field(default=None, repr=False, compare=False)
    based_on: bytes = field(default=b"", repr=False, compare=False)
    # Taken from `credits` once, when the people are identified (unless given: `reidentified`), and
    # kept with them: an edit build needs both for every paper, and at 100,000 papers taking them
    # again was 0.8 s of each edit.
    bylines: tuple[bytes, ...] = field(default=None, repr=False, compare=False)            # each paper's byline_version
    paper_people: tuple[tuple[str, ...], ...] = field(default=None, repr=False, compare=False)   # each paper's paper_slugs

    def __post_init__(self) -> None:
        if self.bylines is None:
            object.__setattr__(self, "bylines", tuple(byline_version(credits) for credits in self.credits))
        if self.paper_people is None:
            object.__setattr__(self, "paper_people", tuple(paper_slugs(credits) for credits in self.credits))


def byline_version(credits: Sequence[Credit]) -> bytes:
    """The digest of a paper's authors as its page and the listings show them: names and pages.
    Made of plain tuples, which pickle in C (dataclasses pickle through Python: twice the cost)."""
    return leaf(tuple((credit.name, credit.slug) for credit in credits))


def paper_slugs(credits: Sequence[Credit]) -> tuple[str, ...]:
    """The slugs of a paper's people, each once."""
    return tuple(dict.fromkeys(credit.slug for credit in credits if credit.slug is not None))


# Each spelling of a name read before: (as shown, key, the key's slug, and the spelling's sort key,
# name in the index and index letter).
NameMemo = dict[str, tuple[str, str, str, tuple, str, str]]


def identify_authors(papers: Sequence[Paper], entries: Sequence[PersonEntry], report: Report,
                     previous: dict | None = None, jobs: int = 1, version: bytes | None = None) -> tuple[Authorship, dict]:
    """The people behind every paper's author names (`papers` in site order), and this stage's state
    for the next build (`previous`: the last build's). When no paper's id or authors and nothing of
    authors.yml changed (an edit to an abstract), the last build's people are this build's; when
    only a few papers were added, removed or given another author list, or the papers' order
    changed (a year changed), only the people named on those papers are identified again, and the
    others' papers renumbered (`reidentified`). A slug two people would share is an error,
    reported at the authors.yml line that can fix it. `version`: authors_version's, when the
    caller has taken it."""
    version = version or authors_version(papers, entries)
    if previous and previous.get("version") == version:
        return previous["authorship"], previous
    memo = pickle.loads(previous["names"]) if previous else None
    known = len(memo) if memo else 0
    entries_version = fingerprint(tuple(entries))
    changes = paper_changes(previous, papers, entries_version) if previous else None
    again = reidentified(previous["authorship"], memo, papers, entries, changes, report, version) if changes else None
    authorship, names = again or identify(papers, entries, report, memo, version, jobs)
    # The spellings read, and the papers' ids and author lists, are kept pickled: only a build whose
    # authors or papers changed reads them, and an anthology's 160,000 spellings are a third of a
    # second to unpickle with the cache on every edit (and to pickle again, unless none was added).
    spellings = previous["names"] if again and len(names) == known else pickle.dumps(names, protocol=5)
    return authorship, {"version": version, "authorship": authorship, "names": spellings,
                        "papers": paper_authors(papers), "entries": entries_version}


def paper_authors(papers: Sequence[Paper]) -> bytes:
    """The papers' ids and author lists, in site order, pickled."""
    return pickle.dumps((tuple(paper.id for paper in papers), tuple(paper.authors for paper in papers)), protocol=5)


# From this many papers added, removed or with another author list on, everyone is identified afresh (`identify`).
EDITED_MOST = 100


@dataclass(frozen=True)
class PaperChanges:
    """How this build's papers stand to the last build's, by id."""

    old_rows: tuple[int, ...]   # per paper, its place in the last build's site order; -1: added
    edited: tuple[int, ...]     # the papers added or with another author list, by place
    removed: tuple[int, ...]    # the last build's papers gone, by their place then


def paper_changes(previous: dict, papers: Sequence[Paper], entries_version: bytes) -> PaperChanges | None:
    """Which papers were added, removed, or given another author list since the `previous` build
    (the others may have moved: a year changed), when they are few and authors.yml is the same
    (`entries_version`: the digest of its entries)."""
    if "papers" not in previous or previous.get("entries") != entries_version:
        return None
    ids, authors = pickle.loads(previous["papers"])
    at = {paper_id: row for row, paper_id in enumerate(ids)}
    old_rows = tuple(at.get(paper.id, -1) for paper in papers)
    kept = set(old_rows) - {-1}
    if len(kept) != sum(row >= 0 for row in old_rows):   # an id given twice: `identify` reports it
        return None
    edited = tuple(i for i, (paper, old) in enumerate(zip(papers, old_rows)) if old < 0 or authors[old] != paper.authors)
    removed = tuple(row for row in range(len(ids)) if row not in kept)
    return PaperChanges(old_rows, edited, removed) if len(edited) + len(removed) < EDITED_MOST else None


def reidentified(authorship: Authorship, names: NameMemo, papers: Sequence[Paper], entries: Sequence[PersonEntry],
                 changes: PaperChanges, report: Report, version: bytes) -> tuple[Authorship, NameMemo] | None:
    """`identify`'s result from the last build's (`authorship`) when few papers were added, removed
    or given another author list (`changes`): the people named on those papers before (their
    credits' slugs) or now are identified again, over their own papers; everyone else keeps their
    person, their papers renumbered to this build's order, and every other paper its credits. At
    100,000 papers, a pass over the people where identifying everyone reads 476,000 names. A
    spelling no paper gives any more stays in `names` until a build identifies everyone. None when
    two people would share a page: `identify` says which."""
    old_rows, edited = changes.old_rows, changes.edited
    identities = Identities.of(entries)
    slug_of = identities.slug
    for i in edited:
        for raw in papers[i].authors:
            if raw not in names:
                names[raw] = read_name(raw)

    def who_of(raw: str, paper: Paper) -> int | str | None:
        key = names[raw][1]
        return identities.who(key, paper.id) if key else None

    new_of = [-1] * len(authorship.credits)
    for row, old in enumerate(old_rows):
        if old >= 0:
            new_of[old] = row
    now = {i: [(raw, who_of(raw, papers[i])) for raw in papers[i].authors] for i in edited}
    touched = {credit.slug for row in (*(old_rows[i] for i in edited if old_rows[i] >= 0), *changes.removed)
               for credit in authorship.credits[row] if credit.slug is not None}
    touched |= {slug_of(who) for named in now.values() for _, who in named if who is not None}
    moved = old_rows != tuple(range(len(old_rows)))
    by_slug, people = {}, []
    for person in authorship.people:
        if person.slug in touched:
            by_slug[person.slug] = person
        elif moved:   # none of their papers was added, removed or edited: each is renumbered
            rows = tuple(sorted(new_of[old] for old in person.papers))
            people.append(person if rows == person.papers else replace(person, papers=rows))
        else:
            people.append(person)
    for slug in sorted(touched):
        old = by_slug.get(slug)
        rows = sorted({new_of[row] for row in (old.papers if old else ()) if new_of[row] >= 0 and new_of[row] not in now}
                      | {i for i, named in now.items() if any(who is not None and slug_of(who) == slug for _, who in named)})
        # Whose page it is: the spellings on their papers that lead to it.
        mine = [(raw, who) for i in rows for raw in papers[i].authors
                if (who := who_of(raw, papers[i])) is not None and slug_of(who) == slug]
        if not mine:
            continue
        if len({who for _, who in mine}) > 1:
            return None
        counts: dict[str, int] = {}
        for raw, _ in mine:
            counts[raw] = counts.get(raw, 0) + 1
        insort(people, identities.person(mine[0][1], tuple(rows), counts, names)[0], key=lambda person: (sort_key(person.name), person.slug))
    check_slugs(dict(enumerate(people)), papers, report)
    shared: dict[tuple[str, str | None], Credit] = {}
    credits, bylines, paper_people = [], [], []
    for i, old in enumerate(old_rows):
        if i in now:
            made = tuple(credit_of(shared, names[raw][0], slug_of(who) if who is not None else None) for raw, who in now[i])
            credits.append(made)
            bylines.append(byline_version(made))
            paper_people.append(paper_slugs(made))
        else:
            credits.append(authorship.credits[old])
            bylines.append(authorship.bylines[old])
            paper_people.append(authorship.paper_people[old])
    ordered = tuple(people)
    return Authorship(tuple(credits), ordered, redirects(ordered, report), version, touched=tuple(sorted(touched)),
                      based_on=authorship.version, bylines=tuple(bylines), paper_people=tuple(paper_people)), names


def authors_version(papers: Sequence[Paper], entries: Sequence[PersonEntry]) -> bytes:
    """What the people are made from, as its digest: at 100,000 papers the ids and author lists
    themselves were 100,000 tuples and 476,000 strings to unpickle with the cache at every edit."""
    return fingerprint((tuple((paper.id, paper.authors) for paper in papers), tuple(entries)))


# From this many papers on, a build that reads every author name afresh does it in a worker beside
# the abstracts' conversion: at 100,000 papers it was 7 s of the build process's time with the
# other core idle (bench/README.md). A build with the last build's names (a paper added or
# removed) converts an abstract or two: it identifies the people itself, 1.5 s sooner than a
# worker that sends 100,000 papers' people back.
APART_FROM = 5_000


@dataclass
class Identifying:
    """identify_authors' result, made at once (`done`) or by `worker` while the build goes on."""

    done: tuple[Authorship, dict] | None
    worker: workers.Background | None = None

    def result(self, report: Report) -> tuple[Authorship, dict]:
        """The people and the state; the worker's problems go into `report`."""
        if self.done is None:
            authorship, state, problems = self.worker.result()
            report.errors.extend(problems.errors)
            report.warnings.extend(problems.warnings)
            self.done = authorship, state
        return self.done

    def __enter__(self) -> "Identifying":
        return self

    def __exit__(self, *exc) -> None:
        if self.worker is not None:
            self.worker.cancel()


def start_identifying(papers: Sequence[Paper], entries: Sequence[PersonEntry], report: Report,
                      previous: dict | None = None, jobs: int = 1) -> Identifying:
    """identify_authors, in a worker (`Identifying.worker`) when it reads a large collection's
    names afresh (no `previous` state), else at once."""
    version = authors_version(papers, entries)
    if jobs <= 1 or len(papers) < APART_FROM or previous:
        return Identifying(identify_authors(papers, entries, report, previous, jobs, version))
    return Identifying(None, workers.Background(partial(identify_apart, papers, entries, previous, version), jobs))


def identify_apart(papers: Sequence[Paper], entries: Sequence[PersonEntry], previous: dict | None,
                   version: bytes) -> tuple[Authorship, dict, Report]:
    """identify_authors in a worker, its problems sent back with its result."""
    problems = Report()
    return (*identify_authors(papers, entries, problems, previous, 1, version), problems)


def identify(papers: Sequence[Paper], entries: Sequence[PersonEntry], report: Report,
             previous: NameMemo | None, version: bytes, jobs: int = 1) -> tuple[Authorship, NameMemo]:
    """`identify_authors` from scratch, but for the spellings the last build read (`previous`), and
    the new ones read on `jobs` workers (an anthology's first build reads 164,000: ~3 s)."""
    identities = Identities.of(entries)
    previous = previous or {}
    new = list(dict.fromkeys(raw for paper in papers for raw in paper.authors if raw not in previous))
    read_now = dict(zip(new, workers.ordered_map(read_name, new, jobs, min_items=MIN_PARALLEL_NAMES)))
    names: NameMemo = {}
    found: dict[int | str, list[int]] = {}       # a person -> their papers
    spellings: dict[str, dict[str, int]] = {}    # a key no entry has -> its spellings as papers give them, counted
    per_paper = []
    for i, paper in enumerate(papers):
        credits = []
        for raw in paper.authors:
            read = names.get(raw)
            if read is None:
                read = names[raw] = previous.get(raw) or read_now[raw]
            shown, key = read[0], read[1]
            if not key:
                credits.append((shown, None))
                continue
            who = identities.who(key, paper.id)
            listed = found.setdefault(who, [])
            if not listed or listed[-1] != i:    # a person named twice on one paper has it once
                listed.append(i)
            if type(who) is str:
                counts = spellings.setdefault(key, {})
                counts[raw] = counts.get(raw, 0) + 1
            credits.append((shown, who))
        per_paper.append(credits)
    people = {}
    order = {}
    for who, listed in found.items():
        people[who], order[who] = identities.person(who, tuple(listed), spellings.get(who, {}), names)
    check_slugs(people, papers, report)
    slug_of = {who: person.slug for who, person in people.items()}
    # One Credit for each spelling of each person, shared by all their papers: the cache stores
    # (and an edit unpickles) 164,000 of them at 100,000 papers, not 476,000.
    shared: dict[tuple[str, str | None], Credit] = {}
    credits = tuple(tuple(credit_of(shared, shown, slug_of[who] if who is not None else None) for shown, who in paper)
                    for paper in per_paper)
    ordered = tuple(people[who] for who in sorted(people, key=lambda who: (order[who], people[who].slug)))
    return Authorship(credits, ordered, redirects(ordered, report), version), names


@dataclass(frozen=True)
class Identities:
    """authors.yml as identification reads it. A person is their entry's position in authors.yml,
    or their name's key when no entry has it: an entry's `variants` merge keys on every paper, an
    entry with `papers` claims its keys on those papers only."""

    entries: Sequence[PersonEntry]
    merged: dict[str, int]
    claimed: dict[tuple[str, str], int]

    @classmethod
    def of(cls, entries: Sequence[PersonEntry]) -> "Identities":
        return cls(entries, {key: n for n, entry in enumerate(entries) if not entry.papers for key in entry.keys},
                   {(key, paper_id): n for n, entry in enumerate(entries) for key in entry.keys for paper_id in entry.papers})

    def who(self, key: str, paper_id: str) -> int | str:
        return self.claimed.get((key, paper_id), self.merged.get(key, key))

    def slug(self, who: int | str) -> str:
        if type(who) is int:
            entry = self.entries[who]
            return entry.slug or name_slug(entry.keys[0])
        return name_slug(who)

    def person(self, who: int | str, papers: tuple[int, ...], spellings: dict[str, int], names: NameMemo) -> tuple[Person, tuple]:
        """The person `who` on `papers` (by place), and their name's sort key (inputs/names.py
        sort_key: a spelling's was read with it); `spellings`: of a name's key, as its papers give
        it, counted (its page shows the usual one)."""
        if type(who) is int:
            entry = self.entries[who]
            return Person(self.slug(who), entry.name, entry, papers, index_name(entry.name), index_letter(entry.name)), sort_key(entry.name)
        shown, _, slug, sort_order, listed_as, letter = names[usual_spelling(spellings, names)]
        return Person(slug, shown, None, papers, listed_as, letter), sort_order


def credit_of(shared: dict[tuple[str, str | None], Credit], shown: str, slug: str | None) -> Credit:
    credit = shared.get((shown, slug))
    if credit is None:
        credit = shared[shown, slug] = Credit(shown, slug)
    return credit


# Fewer new spellings than this are read in the build process: forking and sending them back costs more.
MIN_PARALLEL_NAMES = 5_000


def read_name(raw: str) -> tuple[str, str, str, tuple, str, str]:
    shown = shown_name(raw)
    key = name_key(raw)
    return shown, key, name_slug(key), sort_key(shown), index_name(shown), index_letter(shown)


def usual_spelling(counted: dict[str, int], names: NameMemo) -> str:
    """The spelling most papers give; between as many, one cased like a name ("Qiang Liu", not
    "qiang liu" or "QIANG LIU"), then the first in code point order, so the choice is the same every build."""
    if len(counted) == 1:
        return next(iter(counted))
    return min(counted, key=lambda raw: (-counted[raw], -name_like(names[raw][0]), names[raw][0], raw))


def name_like(shown: str) -> int:
    """How many words of the name are capitalised as names are: "Xingjian Shi" 2, "Xingjian SHI" 1."""
    return sum(1 for word in shown.split() if word[:1].isupper() and not word[1:].isupper())


def check_slugs(people: dict[int | str, Person], papers: Sequence[Paper], report: Report) -> None:
    """Two people never share a page. Only a slug authors.yml gives can take another's (or two
    names' digests agree, which six hex digits make a one-in-millions chance): the error says
    where to give one a slug of its own."""
    owners: dict[str, Person] = {}
    for person in sorted(people.values(), key=lambda p: p.entry is not None):
        other = owners.setdefault(person.slug, person)
        if other is person:
            continue
        entry = person.entry
        if entry is not None:
            report.error(entry.path, entry.line_of("slug") if entry.slug else entry.line,
                         f"the author page authors/{person.slug}.html is already {other.name}'s: give {person.name} another 'slug'")
        else:
            report.error(papers[person.papers[0]].path, 2, f"{other.name} and {person.name} would share the author page "
                                                           f"authors/{person.slug}.html: give one of them a 'slug' in authors.yml")


def redirects(people: Sequence[Person], report: Report) -> tuple[Redirect, ...]:
    """The old slugs of each person of authors.yml: its `aliases`, and the slugs its names would
    have on their own (a merged variant's page, the page of the name before a rename). A slug that
    is someone's page stays theirs; one two people would forward is left out, being neither's."""
    live = {person.slug for person in people}
    wanted: dict[str, list[Person]] = {}
    for person in people:
        entry = person.entry
        if entry is None:
            continue
        for alias in entry.aliases:
            if alias in live:
                report.error(entry.path, entry.line_of("aliases"), f"the alias '{alias}' is the slug of an author page (authors/{alias}.html)")
        for old in dict.fromkeys((*entry.aliases, *(name_slug(key) for key in entry.keys))):
            if old != person.slug and old not in live:
                wanted.setdefault(old, []).append(person)
    return tuple(Redirect(old, owners[0].slug, owners[0].name) for old, owners in sorted(wanted.items()) if len(owners) == 1)
