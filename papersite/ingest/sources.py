"""Which reader reads a source: the one --format names, else the one its extension and content point to.

An extension that names one format decides (`.bib`, `.csv`, `.tsv`, `.xml`/`.atom`). JSON is
recognised by extension (`.json`, `.jsonl`, `.ndjson`) or by content (it starts with `{` or `[`),
and is never read as plain text: one JSON document is OpenReview notes; JSON Lines are
OpenReview notes, arXiv's metadata snapshot or papersite's own records, by what the first
record holds. Any other file is looked at: an XML feed, a BibTeX entry, a header row naming a
title and an abstract column, or else our plain text.

A source that is not UTF-8 is refused with the encoding it seems to be in, as charset-normalizer
guesses it, so the message says what to convert from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from charset_normalizer import from_bytes

from ..errors import Report, SiteError
from ..inputs.files import read_text
from .formats import FORMAT_LABELS
from .readers.arxiv import read_arxiv
from .readers.arxiv_snapshot import read_arxiv_snapshot
from .readers.bibtex import read_bibtex
from .readers.jsonl import read_jsonl
from .readers.openreview import read_openreview, read_openreview_lines
from .readers.plain import read_plain
from .readers.spreadsheet import known_columns, read_csv, read_tsv
from .records import Defaults, RawRecord

Reader = Callable[[str, str, Report, Defaults], list[RawRecord]]


@dataclass(frozen=True)
class Format:
    name: str          # what --format takes
    label: str         # what the import says it read
    read: Reader


READERS: dict[str, Reader] = {
    "text": read_plain, "jsonl": read_jsonl, "bibtex": read_bibtex, "csv": read_csv, "tsv": read_tsv,
    "openreview": read_openreview, "arxiv": read_arxiv, "arxiv-snapshot": read_arxiv_snapshot,
}
FORMATS = {name: Format(name, label, READERS[name]) for name, label in FORMAT_LABELS.items()}
# Notes one a line: what a JSON Lines file of OpenReview notes is read with.
OPENREVIEW_LINES = Format("openreview", "OpenReview API notes, one a line", read_openreview_lines)
EXTENSIONS = {".bib": "bibtex", ".bibtex": "bibtex", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv",
              ".xml": "arxiv", ".atom": "arxiv"}
JSON_EXTENSIONS = (".json", ".jsonl", ".ndjson")
LINES_EXTENSIONS = (".jsonl", ".ndjson")
BIBTEX_ENTRY_RE = re.compile(r"@[A-Za-z]+\s*[{(]")
SNAPSHOT_KEYS = ("authors_parsed", "versions", "update_date")


def read_source(path: Path, report: Report, defaults: Defaults, forced: str | None = None) -> tuple[Format, list[RawRecord]]:
    """The source's records, and the format they were read as. A source that cannot be read at all raises."""
    if not path.exists() and not path.is_symlink():
        raise SiteError.at(str(path), None, "source file not found")
    # A regular file of any size: arXiv's snapshot is gigabytes.
    text = read_text(path, guess_encoding, limit=None)
    source_format = FORMATS[forced] if forced else detect_format(path, text)
    return source_format, source_format.read(text, str(path), report, defaults)


def guess_encoding(data: bytes) -> str | None:
    best = from_bytes(data).best()
    return best.encoding.replace("_", "-") if best is not None else None


def detect_format(path: Path, text: str) -> Format:
    suffix = path.suffix.lower()
    if suffix in EXTENSIONS:
        return FORMATS[EXTENSIONS[suffix]]
    start = text.lstrip()
    if suffix in JSON_EXTENSIONS or start[:1] in ("{", "["):
        return json_format(text, suffix)
    if start.startswith("<"):
        return FORMATS["arxiv"]
    lines = [line for line in text.split("\n") if line.strip() and not line.lstrip().startswith("%")]
    if lines and BIBTEX_ENTRY_RE.match(lines[0].lstrip()):
        return FORMATS["bibtex"]
    for name, delimiter in (("tsv", "\t"), ("csv", ","), ("csv", ";")):
        if lines and {"title", "abstract"} <= set(known_columns(lines[0].split(delimiter))):
            return FORMATS[name]
    return FORMATS["text"]


def json_format(text: str, suffix: str) -> Format:
    """One JSON document is OpenReview notes; JSON Lines are told apart by their first record."""
    document, one_document = None, False
    if suffix not in LINES_EXTENSIONS:
        try:
            document, one_document = json.loads(text), True
        except json.JSONDecodeError as exc:
            # JSON Lines read as a first document with more after it. Any other error is in one
            # document, unless its first line is a JSON value by itself (a later line is broken).
            first_line = next((line for line in text.split("\n") if line.strip()), "")
            one_document = exc.msg != "Extra data" and bool(first_line) and parsed(first_line) is None
        except RecursionError:
            pass
    if one_document and not (isinstance(document, dict) and "notes" not in document and "content" not in document):
        return FORMATS["openreview"]   # a list, notes, or a broken document: the reader says where
    first = document if isinstance(document, dict) else first_record(text)
    if isinstance(first, dict) and isinstance(first.get("content"), dict):
        return OPENREVIEW_LINES
    if isinstance(first, dict) and any(key in first for key in SNAPSHOT_KEYS):
        return FORMATS["arxiv-snapshot"]
    return FORMATS["jsonl"]


def parsed(line: str):
    """The JSON value a line holds by itself, or None."""
    try:
        return json.loads(line) if line.strip() else None
    except (json.JSONDecodeError, RecursionError):
        return None


def first_record(text: str):
    """The first line that is a JSON object by itself, or None."""
    return next((value for value in map(parsed, text.split("\n")) if isinstance(value, dict)), None)
