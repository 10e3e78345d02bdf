"""`import`: raw abstracts (plain text or JSON Lines) into content/papers/<slug>.md pages.

Runs once per source. It derives what the source lacks (title, slug, tags, code links),
converts LaTeX text markup to Markdown, and never overwrites an existing page unless
forced. Every record is checked before anything is written: a bad source changes nothing.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import Report, SiteError
from ..inputs.files import read_text
from ..inputs.papers import split_front_matter
from ..inputs.taxonomy import load_taxonomy
from ..inputs.values import SLUG_RE
from ..model import Taxonomy
from ..text.chars import UNPRINTABLE_RE
from ..text.markdown import trim_url
from .latex import latex_to_markdown
from .slugs import derive_slug, unique_slug
from .tagging import assign_tags
from .titles import derive_title, method_name

HEADING_RE = re.compile(r"^(?P<venue>.*?[A-Za-z].*?)\s+(?P<year>(?:19|20)\d\d)\b")
TRACK_RE = re.compile(r"^(?P<venue>[A-Za-z][\w-]*)\s+(?P<year>(?:19|20)\d\d)\b")
# A word broken across lines by a PDF: "cap-\ntions", but also "geometry-\nunaware" (a real hyphen).
HYPHEN_WRAP_RE = re.compile(r"(?P<left>[^\W\d_]+)-[ \t]*\n[ \t]*(?P<right>[^\W\d_]+)")
WORD_TOKEN_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
URL_RE = re.compile(r"https?://[^\s<>\[\]{}\"'`]+")
CODE_HOSTS = (
    "github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "huggingface.co",
    "sourceforge.net", "anonymous.4open.science", "colab.research.google.com", "pypi.org",
)
ID_UNSAFE_RE = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True)
class RawRecord:
    """One abstract as the source gives it, with where it came from."""

    line: int
    abstract: str
    title: str | None
    authors: tuple[str, ...]
    keywords: tuple[str, ...]
    venue: str
    year: int
    source_id: str | None


@dataclass(frozen=True)
class ImportedPage:
    id: str
    slug: str
    text: str             # the whole file: front matter and body


@dataclass
class ImportSummary:
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def line(self, failed: int = 0) -> str:
        parts = [f"{len(self.added)} added"]
        if self.replaced:
            parts.append(f"{len(self.replaced)} replaced (--force)")
        parts += [f"{len(self.skipped)} skipped (already imported)", f"{failed} failed"]
        return "import: " + ", ".join(parts)


def read_source(path: Path, report: Report, venue: str | None = None, year: int | None = None) -> list[RawRecord]:
    if not path.is_file():
        raise SiteError.at(str(path), None, "source file not found")
    text = read_text(path)
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return parse_jsonl(text, str(path), report, venue, year)
    return parse_text(text, str(path), report)


def parse_text(text: str, shown: str, report: Report) -> list[RawRecord]:
    """The plain format: a heading line naming venue and year, then one abstract per paragraph."""
    lines = text.split("\n")
    heading_at = next((i for i, line in enumerate(lines) if line.strip()), None)
    if heading_at is None:
        raise SiteError.at(shown, 1, "the source is empty: expected a heading line, then abstracts")
    heading = lines[heading_at].strip()
    match = HEADING_RE.match(heading)
    if not match:
        raise SiteError.at(shown, heading_at + 1, f"the heading {heading!r} must name the venue and year, like 'NeurIPS 2025 Papers'")
    venue, year = match["venue"].strip(), int(match["year"])
    vocabulary = wrap_vocabulary(text) if re.search(r"-[ \t]*\n", text) else frozenset()
    records, start, paragraph = [], None, []
    for number, line in enumerate(lines[heading_at + 1:] + [""], start=heading_at + 2):
        if line.strip():
            start = start or number
            paragraph.append(line.strip())
        elif paragraph:
            abstract = clean_abstract("\n".join(paragraph), shown, start, report, vocabulary)
            records.append(RawRecord(start, abstract, None, (), (), venue, year, None))
            start, paragraph = None, []
    if not records:
        raise SiteError.at(shown, heading_at + 1, "the source has a heading but no abstracts")
    return records


def parse_jsonl(text: str, shown: str, report: Report, venue: str | None, year: int | None) -> list[RawRecord]:
    records = []
    # The raw lines are JSON: an escaped "\n" must not glue "\ntions" into a word.
    vocabulary = wrap_vocabulary(text.replace("\\n", " ")) if re.search(r"-[ \t]*\\n", text) else frozenset()
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            report.error(shown, number, f"not valid JSON: {exc.msg} (column {exc.colno})")
            continue
        except RecursionError:
            report.error(shown, number, "not valid JSON for a record: nested too deeply")
            continue
        record = validate_json_record(data, shown, number, report, venue, year, vocabulary)
        if record is not None:
            records.append(record)
    if not records and not report.errors:
        raise SiteError.at(shown, 1, "the source has no records")
    return records


def validate_json_record(data, shown: str, number: int, report: Report, venue: str | None, year: int | None,
                         vocabulary: frozenset[str] = frozenset()) -> RawRecord | None:
    if not isinstance(data, dict):
        report.error(shown, number, "each line must be a JSON object with 'title' and 'abstract'")
        return None
    ok = True
    for key in ("title", "abstract"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            report.error(shown, number, f"'{key}' must be non-empty text")
            ok = False
    for key in ("authors", "keywords"):
        if not isinstance(data.get(key, []), list) or not all(isinstance(v, str) for v in data.get(key, [])):
            report.error(shown, number, f"'{key}' must be a list of text")
            ok = False
    rec_venue, rec_year = record_venue_year(data, venue, year)
    if not rec_venue or rec_year is None:
        report.error(shown, number, "no venue/year: the record has no 'venue' and 'year' (pass --venue and --year)")
        ok = False
    source_id = data.get("source_id")
    if not ok:
        return None
    return RawRecord(
        line=number,
        abstract=clean_abstract(data["abstract"], shown, number, report, vocabulary),
        title=clean_text(data["title"], shown, number, report),
        # Names carry control characters too (one ml-abstracts.jsonl author has a DEL): dropped, with a warning.
        authors=tuple(a for a in (clean_text(a, shown, number, report) for a in data.get("authors", [])) if a),
        keywords=tuple(k for k in (clean_text(k, shown, number, report) for k in data.get("keywords", [])) if k),
        venue=rec_venue,
        year=rec_year,
        source_id=str(source_id) if source_id not in (None, "") else None,
    )


def record_venue_year(data: dict, venue: str | None, year: int | None) -> tuple[str | None, int | None]:
    """The record's own venue/year first, then an OpenReview-style track ("NeurIPS 2025 oral"), then the flags."""
    rec_venue = data.get("venue") if isinstance(data.get("venue"), str) else None
    rec_year = data.get("year") if isinstance(data.get("year"), int) and not isinstance(data.get("year"), bool) else None
    track = TRACK_RE.match(data["track"]) if isinstance(data.get("track"), str) else None
    if track:
        rec_venue = rec_venue or track["venue"]
        rec_year = rec_year or int(track["year"])
    return rec_venue or venue, rec_year or year


def clean_text(text: str, shown: str, line: int, report: Report) -> str:
    if UNPRINTABLE_RE.search(text):
        found = sorted({f"U+{ord(c):04X}" for c in UNPRINTABLE_RE.findall(text)})
        report.warn(shown, line, f"dropped control characters {', '.join(found)}")
        text = UNPRINTABLE_RE.sub("", text)
    return " ".join(text.split())


def clean_abstract(text: str, shown: str, line: int, report: Report, vocabulary: frozenset[str] = frozenset()) -> str:
    """Join PDF line-wrap hyphens and hard line breaks; keep blank-line paragraph breaks.

    `vocabulary` (the source's words, `wrap_vocabulary`) decides each wrap: "cap-\ntions" becomes
    "captions" because the source uses that word elsewhere; "geometry-\nunaware" stays hyphenated
    because both halves are words and the joined one is not.
    """
    # A carriage return is a line break written the Windows or old-Mac way, not a stray control character.
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = HYPHEN_WRAP_RE.sub(lambda m: join_wrap(m["left"], m["right"], vocabulary), text)
    paragraphs = re.split(r"\n\s*\n", text)
    return "\n\n".join(p for p in (clean_text(p, shown, line, report) for p in paragraphs) if p)


def wrap_vocabulary(text: str) -> frozenset[str]:
    """Every word of a source, lower-cased: hyphenated compounds whole and in parts."""
    words: set[str] = set()
    for token in set(WORD_TOKEN_RE.findall(text.lower())):
        words.add(token)
        if "-" in token:
            words.update(token.split("-"))
    return frozenset(words)


def join_wrap(left: str, right: str, vocabulary: frozenset[str]) -> str:
    joined = (left + right).lower()
    if vocabulary:
        if joined in vocabulary:
            return left + right
        if f"{left}-{right}".lower() in vocabulary or (left.lower() in vocabulary and right.lower() in vocabulary):
            return f"{left}-{right}"
    # No evidence either way: a lower-case break is a wrap ("poste-\nrior"); "Pretty-\nCLEVR" is a compound.
    return left + right if left[-1].islower() and right[0].islower() else f"{left}-{right}"


def find_code_links(markdown: str) -> tuple[str, ...]:
    links = []
    for match in URL_RE.finditer(markdown):
        url = trim_url(match.group(0).rstrip(">"))
        host = url.split("/")[2].lower().removeprefix("www.") if url.count("/") >= 2 else ""
        if any(host == h or host.endswith("." + h) for h in CODE_HOSTS) and url not in links:
            links.append(url)
    return tuple(links)


def make_id(record: RawRecord, ordinal: int) -> str:
    prefix = ID_UNSAFE_RE.sub("", f"{record.venue}{record.year}").lower()
    suffix = ID_UNSAFE_RE.sub("-", record.source_id).strip("-") if record.source_id else f"{ordinal:04d}"
    return f"{prefix}-{suffix}"


def scan_existing(papers_dir: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """Existing pages: id -> file, and every slug or alias -> its id. Human edits are read, never changed."""
    by_id: dict[str, Path] = {}
    names: dict[str, str] = {}
    for path in sorted(papers_dir.glob("*.md")) if papers_dir.is_dir() else []:
        try:
            front, _, _ = split_front_matter(read_text(path), str(path))
            data = yaml.load(front, Loader=yaml.CSafeLoader) or {}
        except (SiteError, yaml.YAMLError):
            data = {}
        page_id = str(data.get("id") or f"file:{path.name}") if isinstance(data, dict) else f"file:{path.name}"
        by_id[page_id] = path
        names[path.stem] = page_id
        if isinstance(data, dict):
            for name in [data.get("slug"), *(data.get("aliases") or [])]:
                if isinstance(name, str):
                    names[name] = page_id
    return by_id, names


def existing_slug(path: Path) -> str | None:
    try:
        front, _, _ = split_front_matter(read_text(path), str(path))
        slug = (yaml.load(front, Loader=yaml.CSafeLoader) or {}).get("slug")
    except (SiteError, yaml.YAMLError, AttributeError):
        return None
    return slug if isinstance(slug, str) and SLUG_RE.match(slug) else None


@dataclass(frozen=True)
class Converted:
    """A record's text in Markdown, with the title it will carry."""

    body: str
    title: str
    title_source: str
    method: str | None


def convert_record(record: RawRecord, report: Report, shown: str) -> Converted:
    body, warnings = latex_to_markdown(record.abstract)
    for message in warnings:
        report.warn(shown, record.line, message)
    if not record.title:
        return Converted(body, derive_title(body), "derived", method_name(body))
    title, title_warnings = latex_to_markdown(record.title)
    for message in title_warnings:
        report.warn(shown, record.line, f"title: {message}")
    return Converted(body, title, "given", None)


def make_page(record: RawRecord, text: Converted, page_id: str, slug: str, taxonomy: Taxonomy) -> ImportedPage:
    front = {
        "id": page_id,
        "slug": slug,
        "title": text.title,
        "title_source": text.title_source,
        "venue": record.venue,
        "year": record.year,
        # A derived title repeats the abstract's words; weighting them again as a title would skew tags.
        "tags": list(assign_tags(text.title if text.title_source == "given" else "", text.body, record.keywords, taxonomy)),
        "code": list(find_code_links(text.body)),
        "authors": list(record.authors),
        "aliases": [],
    }
    dumped = yaml.dump(front, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True,
                       default_flow_style=None, width=100000)
    return ImportedPage(page_id, slug, f"---\n{dumped}---\n{text.body}\n")


def plan_import(records: list[RawRecord], papers_dir: Path, taxonomy: Taxonomy, force: bool,
                report: Report, shown: str) -> tuple[list[tuple[Path, ImportedPage]], ImportSummary]:
    """Decide every page before writing any: new pages get fresh unique slugs, existing ones keep theirs."""
    by_id, names = scan_existing(papers_dir)
    taken = set(names)
    summary = ImportSummary()
    writes = []
    seen_ids: set[str] = set()
    for ordinal, record in enumerate(records, start=1):
        page_id = make_id(record, ordinal)
        if page_id in seen_ids:
            report.error(shown, record.line, f"duplicate record: id '{page_id}' appears twice in the source")
            continue
        seen_ids.add(page_id)
        existing = by_id.get(page_id)
        if existing is not None and not force:
            summary.skipped.append(page_id)
            continue
        text = convert_record(record, report, shown)
        if existing is not None:
            slug = existing_slug(existing) or existing.stem
            target = existing
            summary.replaced.append(page_id)
        else:
            slug = unique_slug(derive_slug(text.title, text.method), taken)
            target = papers_dir / f"{slug}.md"
            summary.added.append(page_id)
        taken.add(slug)
        writes.append((target, make_page(record, text, page_id, slug, taxonomy)))
    return writes, summary


def write_pages(writes: list[tuple[Path, ImportedPage]]) -> None:
    for target, page in writes:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        tmp.write_text(page.text, encoding="utf-8")
        tmp.replace(target)


def import_source(source: Path, content_dir: Path, force: bool, report: Report,
                  venue: str | None = None, year: int | None = None) -> ImportSummary:
    taxonomy = load_taxonomy(content_dir / "tags.yml")
    records = read_source(source, report, venue, year)
    report.raise_errors()
    writes, summary = plan_import(records, content_dir / "papers", taxonomy, force, report, str(source))
    report.raise_errors()
    write_pages(writes)
    return summary
