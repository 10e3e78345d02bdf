"""`import`: a source's records into content/papers/<slug>.md pages, each paper once, no edit ever lost.

The reader (ingest/sources.py) gives records; a record it could not read is reported and the
others go on. Then every record is planned before anything is written: its id, whether it is a
paper already here (the same id, DOI, arXiv id, OpenReview id, or title and first author:
ingest/identity.py), and what to write. A paper already here is skipped; with --force its page is
replaced (keeping its id, slug and aliases: its URLs); with --update its source-owned fields (abstract, authors,
venue and year, links, and the code links found in the abstract) are refreshed if the page is
as the import left it (ingest/pagetext.py), and it is kept as it is if someone edited it.

Writing is all or nothing, and one import at a time: planning and writing hold a lock on the
content folder's papers/ (a second import waits), every page is written to a temporary file
first, and only once all of them are on disk are they moved into place, a new page by an
exclusive link that never replaces a page (written by hand meanwhile, say). A write that fails
(a full disk, a read-only folder) removes the temporary files and imports nothing.
"""

from __future__ import annotations

import datetime
import errno
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..digests import digest
from ..enrich.venues import ARXIV_VENUE
from ..errors import Problem, Report, SiteError
from ..inputs.files import paper_pages_dir
from ..inputs.taxonomy import load_taxonomy
from ..inputs.values import showable, year_problem
from ..locks import exclusive
from ..model import Taxonomy
from ..text.bounds import bounds_problem
from ..text.markdown import trim_url
from ..workers import resolve_jobs
from .identity import describe, identities, title_key
from .latex import latex_to_markdown
from .pagetext import ExistingPage, import_state, read_page, scan_pages, signed_page
from .records import Defaults, RawRecord
from .slugs import derive_slug, unique_slug
from .sources import read_source
from .tagging import assign_tags
from .titles import derive_title, method_name

URL_RE = re.compile(r"https?://[^\s<>\[\]{}\"'`]+")
CODE_HOSTS = (
    "github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "huggingface.co",
    "sourceforge.net", "anonymous.4open.science", "colab.research.google.com", "pypi.org",
)
ID_UNSAFE_RE = re.compile(r"[^A-Za-z0-9_-]+")
ID_VENUE_MAX = 24


@dataclass
class ImportSummary:
    """What an import did, page by page; `notes` say why a record was skipped or a page kept."""

    source_label: str = ""
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: int = 0
    notes: list[Problem] = field(default_factory=list)

    def line(self) -> str:
        parts = [f"{len(self.added)} added"]
        if self.replaced:
            parts.append(f"{len(self.replaced)} replaced (--force)")
        if self.updated or self.unchanged or self.kept:
            parts += [f"{len(self.updated)} updated", f"{len(self.unchanged)} unchanged",
                      f"{len(self.kept)} kept (edited since import)"]
        parts += [f"{len(self.skipped)} skipped (already imported)", f"{self.failed} failed"]
        return "import: " + ", ".join(parts)


@dataclass(frozen=True)
class PageWrite:
    """A page to write: a new one (never over an existing file) or a replacement of `path`."""

    path: Path
    text: str
    new: bool
    page_id: str


@dataclass(frozen=True)
class Converted:
    """A record's text in Markdown, with the title it will carry."""

    body: str
    title: str
    title_source: str
    method: str | None


def import_source(source: Path, content_dir: Path, report: Report, mode: str = "new",
                  defaults: Defaults = Defaults(), forced_format: str | None = None,
                  on_wait: Callable[[], None] | None = None) -> ImportSummary:
    """Read, plan, write. A source that cannot be read at all, or has not one good record, writes nothing
    and raises; otherwise the good records are written and the bad ones stay in `report`. Planning
    and writing wait for any other import into the same folder (`on_wait()` hears of it)."""
    taxonomy = load_taxonomy(content_dir / "tags.yml")
    day = import_day()
    source_format, records = read_source(source, report, defaults, forced_format)
    if not records:
        report.raise_errors()
    papers_dir = paper_pages_dir(content_dir)
    try:
        papers_dir.mkdir(parents=True, exist_ok=True)
        lock = exclusive(papers_dir, on_wait, directory=True)
    except OSError as exc:
        raise SiteError.at(str(papers_dir), None, f"cannot write pages here: {exc.strerror or exc}; nothing was imported") from None
    with lock:
        # Whoever wrote these is gone (the lock is ours): an import killed before it moved them into place.
        for leftover in papers_dir.glob(".*.md.tmp-*"):
            leftover.unlink(missing_ok=True)
        writes, summary = plan_import(records, papers_dir, taxonomy, mode, report, str(source), day)
        write_pages(writes, papers_dir, summary, report)
    summary.source_label = source_format.label
    # A record's problems share its line: each line with an error is one record not imported.
    summary.failed = len({(problem.path, problem.line) for problem in report.errors})
    return summary


def plan_import(records: list[RawRecord], papers_dir: Path, taxonomy: Taxonomy, mode: str,
                report: Report, shown: str, day: datetime.date) -> tuple[list[PageWrite], ImportSummary]:
    """Decide every page before writing any: new pages get fresh unique slugs and `day` as the day
    they were added, existing ones keep theirs."""
    pages = scan_pages(papers_dir, resolve_jobs(None))
    by_id = {page.id: page for page in pages}
    by_identity: dict[str, ExistingPage] = {}
    for page in pages:
        for identity in page.identities:
            by_identity.setdefault(identity, page)
    taken = {name for page in pages for name in page.names}
    summary = ImportSummary()
    writes: list[PageWrite] = []
    seen_ids: dict[str, int] = {}
    seen: dict[str, int] = {}           # identity -> line of the record that had it first
    claimed: dict[Path, int] = {}       # existing page -> line of the record it was matched to
    for ordinal, record in enumerate(records, start=1):
        if (problem := year_problem(record.year)) is not None:
            # The build would refuse the page: it is not written.
            report.error(shown, record.line, f"the year must be {problem}")
            continue
        title, title_warnings = latex_to_markdown(record.title) if record.title else (None, [])
        page_id = make_id(record, ordinal, title)
        if page_id in seen_ids:
            report.error(shown, record.line, f"duplicate record: id '{page_id}' appears twice in the source (first at line {seen_ids[page_id]})")
            continue
        seen_ids[page_id] = record.line
        keys = identities(record.links, title, record.authors)
        twin = next((key for key in keys if key in seen), None)
        if twin is not None:
            summary.skipped.append(page_id)
            summary.notes.append(Problem(shown, record.line, f"skipped: the same paper as line {seen[twin]} ({describe(twin)})"))
            continue
        seen.update((key, record.line) for key in keys if key not in seen)
        match = by_id.get(page_id)
        shared = None if match is not None else next((key for key in keys if key in by_identity), None)
        match = match or (by_identity[shared] if shared else None)
        if match is not None and match.path in claimed:
            # Two records that share nothing with each other, but each something with one page.
            summary.skipped.append(match.id)
            summary.notes.append(Problem(shown, record.line, f"skipped: the same paper as line {claimed[match.path]} ({match.path})"))
            continue
        if match is not None:
            claimed[match.path] = record.line
        if match is not None and mode == "new":
            summary.skipped.append(match.id)
            if shared:
                summary.notes.append(Problem(shown, record.line, f"skipped: already imported as {match.path} ({describe(shared)})"))
            continue
        # A page is read again where it may be rewritten, as it is now: an edit saved since the pages
        # were listed is not lost.
        front, current = read_page(match.path) if match is not None else ({}, "")
        state = import_state(current) if current else "unrecorded"
        if match is not None and mode == "update" and state != "unedited":
            why = "edited since it was imported" if state == "edited" else "it has no import digest (written by hand)"
            summary.kept.append(match.id)
            summary.notes.append(Problem(str(match.path), None, f"kept as it is: {why}"))
            continue
        text = convert_record(record, title, title_warnings, report, shown)
        if (problem := unbuildable(text)) is not None:
            report.error(shown, record.line, problem)
            continue
        if match is not None and mode == "update":
            page = refreshed_page(front, record, text)
            if page == current:
                summary.unchanged.append(match.id)
            else:
                summary.updated.append(match.id)
                writes.append(PageWrite(match.path, page, False, match.id))
        elif match is not None:
            summary.replaced.append(match.id)
            # Its URLs stay: the slug and the aliases that redirect old links to it.
            writes.append(PageWrite(match.path, make_page(record, text, match.id, match.slug, taxonomy, kept_day(front, record), match.aliases),
                                    False, match.id))
        else:
            slug = unique_slug(derive_slug(text.title, text.method), taken)
            taken.add(slug)
            summary.added.append(page_id)
            writes.append(PageWrite(papers_dir / f"{slug}.md", make_page(record, text, page_id, slug, taxonomy, source_day(record) or day),
                                    True, page_id))
    return writes, summary


def unbuildable(text: Converted) -> str | None:
    """Why the build would refuse the page this text makes (inputs/papers.py), or None."""
    if not showable(text.body).strip():
        return "the abstract holds only control or invisible characters"
    if not showable(text.title).strip():
        return "the title holds only control or invisible characters"
    for what, value in (("title", text.title), ("abstract", text.body)):
        if (beyond := bounds_problem(value)) is not None:
            return f"the {what} {beyond[1]}"
    return None


def make_id(record: RawRecord, ordinal: int, title: str | None) -> str:
    """`<venue><year>-<the source's id>`; without one, from the title and first author, else the source order."""
    # A venue spelled out in full ("Proceedings of the 41st International Conference on ...") is cut short.
    prefix = ID_UNSAFE_RE.sub("", record.venue).lower()[:ID_VENUE_MAX] + str(record.year)
    suffix = ID_UNSAFE_RE.sub("-", record.source_id).strip("-") if record.source_id else ""
    key = title_key(title, record.authors)
    if not suffix and key:
        # Not the position: another file of the same venue and year has its own first record.
        suffix = "t" + digest(key.encode()).hex()[:10]
    return f"{prefix}-{suffix or f'{ordinal:04d}'}"


def convert_record(record: RawRecord, title: str | None, title_warnings: list[str], report: Report, shown: str) -> Converted:
    body, warnings = latex_to_markdown(record.abstract)
    for message in warnings:
        report.warn(shown, record.line, message)
    if title is None:
        return Converted(body, derive_title(body), "derived", method_name(body))
    for message in title_warnings:
        report.warn(shown, record.line, f"title: {message}")
    return Converted(body, title, "given", None)


def import_day() -> datetime.date:
    """The day new pages were added: today, or the day of SOURCE_DATE_EPOCH (UTC) when it is set,
    as reproducible builds set it."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not epoch:
        return datetime.date.today()
    try:
        return datetime.datetime.fromtimestamp(int(epoch), datetime.UTC).date()
    except (ValueError, OverflowError, OSError):
        raise SiteError.at("SOURCE_DATE_EPOCH", None, f"must be a whole number of seconds since 1970-01-01 UTC, got {epoch!r}") from None


def source_day(record: RawRecord) -> datetime.date | None:
    """The day the source says the paper was added (Zotero's "Date Added"), which a new page keeps."""
    return datetime.date.fromisoformat(record.added) if record.added else None


def kept_day(front: dict, record: RawRecord) -> object:
    """The day a page already here was added: its own, else the source's (None: neither says)."""
    return front.get("added") or source_day(record)


def make_page(record: RawRecord, text: Converted, page_id: str, slug: str, taxonomy: Taxonomy, added: object,
              aliases: tuple[str, ...] = ()) -> str:
    """The page's text; `added` (its day, as YAML writes a date) is left out when None: a page
    replaced with --force keeps what it had."""
    return signed_page({
        "id": page_id,
        "slug": slug,
        "title": text.title,
        "title_source": text.title_source,
        "venue": record.venue,
        "year": record.year,
        **({"added": added} if added is not None else {}),
        # A derived title repeats the abstract's words; weighting them again as a title would skew tags.
        "tags": list(assign_tags(text.title if text.title_source == "given" else "", text.body, record.keywords, taxonomy)),
        "code": list(find_code_links(text.body)),
        "authors": list(record.authors),
        "links": dict(record.links),
        "aliases": list(aliases),
    }, text.body)


def refreshed_page(front: dict, record: RawRecord, text: Converted) -> str:
    """An unedited page with the source's abstract, authors, venue, year and links; its id, slug, title,
    tags and the day it was added stay (a page without one takes the source's).

    What the page has from another source is not lost: its links of kinds the source does not give
    stay (an OpenReview forum refreshed from arXiv), and a preprint's venue never replaces the
    venue the paper was published in (the ICLR paper refreshed from arXiv stays ICLR, of its year).
    """
    preprint = record.venue == ARXIV_VENUE and front.get("venue") != ARXIV_VENUE
    venue, year = (front["venue"], front["year"]) if preprint else (record.venue, record.year)
    links = {**(front.get("links") or {}), **dict(record.links)}
    added = kept_day(front, record)
    return signed_page({**front, **({"added": added} if added else {}), "venue": venue, "year": year, "authors": list(record.authors),
                        "links": links, "code": list(find_code_links(text.body))}, text.body)


def find_code_links(markdown: str) -> tuple[str, ...]:
    links = []
    for match in URL_RE.finditer(markdown):
        url = trim_url(match.group(0).rstrip(">"))
        host = url.split("/")[2].lower().removeprefix("www.") if url.count("/") >= 2 else ""
        if any(host == h or host.endswith("." + h) for h in CODE_HOSTS) and url not in links:
            links.append(url)
    return tuple(links)


def write_file(path: Path, data: bytes) -> None:
    """Every page an import writes goes through here (tests inject a full disk into it)."""
    with open(path, "wb") as f:
        f.write(data)


def write_pages(writes: list[PageWrite], papers_dir: Path, summary: ImportSummary, report: Report) -> None:
    """Every page to a temporary file, then each into place. A write that fails imports nothing; a
    new page whose file appeared meanwhile is left alone and reported, not counted as added."""
    temps: list[Path] = []
    try:
        for page in writes:
            temps.append(page.path.with_name(f".{page.path.name}.tmp-{os.getpid()}"))
            write_file(temps[-1], page.text.encode("utf-8"))
    except OSError as exc:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
        raise SiteError.at(str(papers_dir), None,
                           f"cannot write the pages: {exc.strerror or exc}; nothing was imported, no page was changed") from None
    placed = 0
    try:
        for page, tmp in zip(writes, temps):
            if not page.new:
                os.replace(tmp, page.path)
            elif not place_new(tmp, page.path):
                summary.added.remove(page.page_id)
                report.error(str(page.path), None, "this file appeared while importing: left as it is, the record not imported")
            placed += 1
    except OSError as exc:
        for tmp in temps[placed:]:
            tmp.unlink(missing_ok=True)
        raise SiteError.at(str(papers_dir), None, f"cannot move the pages into place: {exc.strerror or exc}; "
                                                  f"{placed} of {len(writes)} were written, in the order of the source") from None


def place_new(tmp: Path, target: Path) -> bool:
    """Move `tmp` to `target` unless a file is there; False (and `tmp` removed) if one is."""
    try:
        os.link(tmp, target)   # fails if `target` exists: never over a page
    except FileExistsError:
        tmp.unlink()
        return False
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
            raise
        # No hard links on this file system: claim the name with an exclusive create, then fill it at once.
        try:
            os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            tmp.unlink()
            return False
        os.replace(tmp, target)
        return True
    tmp.unlink()
    return True
