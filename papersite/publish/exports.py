"""The papers as data for other tools: papers.json (every field, one paper a line), papers.bib (every entry)
and, below `urls.EXPORTS_SPLIT_FROM` papers, each author's BibTeX file (from there on it is made in
the browser: static/reading-list.js)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from .. import urls
from ..digests import Fingerprints, digest, fingerprint, leaf
from ..enrich.authors import papers_by_year
from ..enrich.bibtex import bibtex_entry, bibtex_file
from ..enrich.listings import PaperPage, Site
from ..enrich.people import Person
from ..model import Paper, SiteConfig
from ..output import Deferred, Made, made_once

# urls.EXPORT_FORMAT, by version. /4: each paper has `author_slugs`, its authors' pages (authors/<slug>.html) beside `authors`, null for a
# name without a letter or digit. /3: each paper has `links` (pdf, doi, arxiv, openreview, url, as its front matter gives them; {} when
# none). /2: a paper's title and abstract are given once, as written (Markdown); /1 also gave them as plain text.
EXPORTS_INDEX_FORMAT = "papersite-exports/1"

# Each paper's BibTeX entry and papers.json line, by the digest of what they are made from. The
# line, which holds the abstract, is kept only while the exports are one file: split by
# proceedings, every line of a large collection was hundreds of megabytes in the cache and in the
# worker that loads it, and a proceedings' file is made again only when one of its papers changed
# (`export_files`), its lines encoded then.
RecordMemo = dict[bytes, tuple[str, bytes | None]]
# Files made only when what they are made from changed, by path: (the digest of that, the file's digest).
FileMemo = dict[str, Made]
# The authors' BibTeX files made before they are placed (`export_files`): ~2.5 MB at 100,000 papers.
FILES_AT_ONCE = 1000


@dataclass(frozen=True)
class Records:
    """Each paper's BibTeX entry, its papers.json line (None when the exports are split) and the
    digest of what they are made from, in site order, and the slugs of the papers whose entries the
    previous build did not make (new, or made from other inputs)."""

    entries: list[str]
    lines: list[bytes | None]
    inputs: list[bytes]
    changed: set[str]


def paper_records(site: Site, keys: Mapping[str, str], previous: RecordMemo | None = None) -> tuple[Records, RecordMemo]:
    """Each paper's BibTeX entry and papers.json line, and the memo for the next build: a paper
    whose inputs the `previous` build saw is not encoded again (an edit encodes the papers it changed)."""
    previous = previous or {}
    base_url, names, split = site.config.base_url, site.tag_names(), urls.exports_split(len(site.papers))
    fingerprints = Fingerprints()
    shared = fingerprints(names) + fingerprints(base_url)
    memo: RecordMemo = {}
    records = Records([], [], [], set())
    for page in site.papers:
        paper, key = page.paper, keys[page.paper.slug]
        if page.version:
            # The page's version digests its paper, texts and credits (listings.paper_page); the
            # key, the topics' names and the address are all the rest.
            inputs = digest(b"".join((page.version, shared, key.encode("utf-8", "surrogatepass"))))
        else:   # walked: the paper by its version, not pickled whole
            inputs = fingerprints.walked((paper, page.words, page.title_latex, key, base_url, *record_values(page, names)))
        record = previous.get(inputs)
        if record is None or (record[1] is None and not split):
            record = (bibtex_entry(paper, key, page.title_latex, base_url, record_values(page, names)[0]),
                      None if split else paper_line(page, key, names, base_url))
            records.changed.add(paper.slug)
        memo[inputs] = record
        records.entries.append(record[0])
        records.lines.append(record[1])
        records.inputs.append(inputs)
    return records, memo


def record_values(page: PaperPage, names: Mapping[str, str]) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    """What a paper's records show beyond the paper itself: its topics' names (BibTeX keywords) and
    its authors' page slugs. Made only for a paper whose records are made (or that has no version)."""
    return tuple(names.get(t, t) for t in page.paper.tags), tuple(credit.slug for credit in page.credits)


def export_files(site: Site, people: Sequence[Person], records: Records, keys: Mapping[str, str],
                 previous: FileMemo | None = None) -> Iterator[tuple[dict[str, bytes | Deferred], FileMemo]]:
    """papers.bib and papers.json, from each paper's entry and line (`paper_records`); from
    `urls.EXPORTS_SPLIT_FROM` papers on, the same files per proceedings, with an index. Before them,
    each author's BibTeX file, when the build writes them (`urls.author_bibtex_files`). In batches,
    each with its part of the memo for the next build, for the caller to place before the next is
    made: at 100,000 papers the exports and the authors' files held at once were 440 MB of the
    worker that makes them (bench/README.md).

    A proceedings' files are Deferred when the `previous` build made them from the same papers'
    records and the same site title and topics: an edit makes its paper's proceedings' files and
    encodes those papers' lines, not the 200 MB of every abstract at 100,000 papers."""
    previous = previous or {}
    entries = records.entries
    position = {page.paper.slug: i for i, page in enumerate(site.papers)}
    if urls.author_bibtex_files(len(site.papers)):
        yield from author_bibtex_files(site, people, records, position, previous)
    if not urls.exports_split(len(site.papers)):
        yield {urls.BIBTEX: bibtex_file(site.config.title, entries), urls.EXPORT_JSON: papers_json(site, site.papers, records.lines)}, {}
        return
    shared = fingerprint((site_info(site.config), [(listing.tag.slug, listing.tag.name, listing.tag.description)
                                                   for listing in site.tags]))
    parts = []
    for proceedings in site.proceedings:
        chosen = [position[page.paper.slug] for page in proceedings.papers]
        bib = urls.proceedings_export(proceedings.venue_slug, proceedings.year, "bib")
        data = urls.proceedings_export(proceedings.venue_slug, proceedings.year, "json")
        made_from = digest(shared + b"".join(records.inputs[i] for i in chosen))
        files: dict[str, bytes | Deferred] = {}
        memo: FileMemo = {}
        files[bib], memo[bib] = made_once(partial(bibtex_file, f"{site.config.title}, {proceedings.venue} {proceedings.year}",
                                                  [entries[i] for i in chosen]), made_from, previous.get(bib))
        files[data], memo[data] = made_once(partial(proceedings_json, site, proceedings.papers, keys), made_from, previous.get(data))
        parts.append({"venue": proceedings.venue, "year": proceedings.year, "papers": len(chosen), "bib": bib, "json": data})
        yield files, memo
    yield {urls.EXPORTS_INDEX: json_line({"format": EXPORTS_INDEX_FORMAT, "site": site_info(site.config),
                                          "proceedings": parts}) + b"\n"}, {}


def proceedings_json(site: Site, papers: Sequence[PaperPage], keys: Mapping[str, str]) -> bytes:
    """One proceedings' papers.json, its papers' lines encoded now (`RecordMemo`)."""
    names, base_url = site.tag_names(), site.config.base_url
    return papers_json(site, papers, [paper_line(page, keys[page.paper.slug], names, base_url) for page in papers])


def paper_line(page: PaperPage, key: str, names: Mapping[str, str], base_url: str | None) -> bytes:
    """A paper's papers.json line (`paper_json`), with its authors' page slugs."""
    return paper_json(page.paper, record_values(page, names)[1], page.words, key, base_url)


def author_bibtex_files(site: Site, people: Sequence[Person], records: Records, position: Mapping[str, int],
                        previous: FileMemo) -> Iterator[tuple[dict[str, bytes | Deferred], FileMemo]]:
    """The papers of each author of several as BibTeX (authors/<slug>.bib), newest first as their page
    lists them: the entries papers.bib has. Most authors have one paper, whose page's Cite box is their
    BibTeX: a file each would be three files in four (templates/author.html). Made from the people
    (enrich/people.py), not their pages' data: the worker making the exports starts before those.

    A file is Deferred when the `previous` build made it from the same site title and name and the
    papers at the same places in the same site order (their slugs and years, which order the file),
    and none of those papers' entries changed: an edit makes the files of its paper's authors, not
    every author's (3,560 at 5,000 papers; 79,398 at 100,000, when the build still wrote them there).
    What a file is made from is kept as those values and compared as they are: ordering and
    digesting each author's papers took 1.5 s of every edit at 100,000 papers, in the worker an edit
    waits for. In batches of FILES_AT_ONCE files (`export_files`)."""
    files: dict[str, bytes | Deferred] = {}
    memo: FileMemo = {}
    title = site.config.title
    touched = {credit.slug for page in site.papers if page.paper.slug in records.changed for credit in page.credits}
    papers = [page.paper for page in site.papers]
    order = leaf(tuple((paper.slug, paper.year) for paper in papers))
    for person in people:
        if len(person.papers) < 2:
            continue
        path = urls.author_bibtex(person.slug)
        make = partial(author_bibtex_file, title, person, papers, records.entries, position)
        files[path], made = made_once(make, (title, person.name, order, person.papers), previous.get(path),
                                      person.slug not in touched)
        memo[path] = made
        if len(files) == FILES_AT_ONCE:
            yield files, memo
            files, memo = {}, {}
    if files:
        yield files, memo


def author_bibtex_file(site_title: str, person: Person, papers: Sequence, entries: Sequence[str],
                       position: Mapping[str, int]) -> bytes:
    found = [paper for _, some in papers_by_year(person, papers) for paper in some]
    return bibtex_file(f"{site_title}, by {person.name}", [entries[position[paper.slug]] for paper in found])


def papers_json(site: Site, papers: Sequence, lines: Sequence[bytes]) -> bytes:
    """The metadata of `papers` (PaperPages; `lines`: their papers.json lines), for scripts and other
    tools: one paper per line (a diff shows which papers changed, and the C JSON encoder writes
    compact lines much faster than indented ones). Stable key order, UTF-8. Joined as bytes: a str of
    every abstract would be 4 bytes a character."""
    counts: dict[str, int] = {}
    for page in papers:
        for slug in page.paper.tags:
            counts[slug] = counts.get(slug, 0) + 1
    tags = [{"slug": listing.tag.slug, "name": listing.tag.name, "description": listing.tag.description,
             "papers": counts.get(listing.tag.slug, 0)} for listing in site.tags]
    return b"\n".join([
        b"{",
        b' "format": ' + json_line(urls.EXPORT_FORMAT) + b",",
        b' "site": ' + json_line(site_info(site.config)) + b",",
        b' "tags": ' + json_array([json_line(tag) for tag in tags]) + b",",
        b' "papers": ' + json_array(list(lines)),
        b"}",
    ]) + b"\n"


def site_info(config: SiteConfig) -> dict:
    return {"title": config.title, "description": config.description, "base_url": config.base_url, "language": config.language}


def paper_json(paper: Paper, author_slugs: tuple[str | None, ...], words: int, bibtex_key: str, base_url: str | None) -> bytes:
    """One paper's line of papers.json.

    The title and abstract are the author's text, Markdown with `$math$`, and only that: the plain
    text the pages derive from it would repeat every abstract (and most titles) nearly word for word.
    `path` and `url` both stay: `url`, the absolute link a tool that cites the paper wants, is null
    without a base_url, and `path` is then the only address."""
    path = urls.paper_path(paper.slug)
    return json_line({
        "id": paper.id,
        "slug": paper.slug,
        "title_markdown": paper.title,
        "title_source": paper.title_source,
        "venue": paper.venue,
        "year": paper.year,
        "added": paper.added or None,
        "authors": list(paper.authors),
        "author_slugs": list(author_slugs),
        "tags": list(paper.tags),
        "code": list(paper.code),
        "aliases": list(paper.aliases),
        "links": dict(paper.links),
        "path": path,
        "url": urls.absolute_url(base_url, path) if base_url else None,
        "abstract_markdown": paper.body,
        "words": words,
        "bibtex_key": bibtex_key,
    })


def json_line(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8")


def json_array(items: list[bytes]) -> bytes:
    """A JSON array of encoded items, one per line."""
    if not items:
        return b"[]"
    return b"[\n  " + b",\n  ".join(items) + b"\n ]"
