"""CSV and TSV, as spreadsheets and conference management systems export them, read with the standard csv module.

The first row names the columns. Names are matched whatever their case, spacing or punctuation,
with the synonyms such exports use ("Paper Title", "Abstract Note", "Author Names", "Conference",
"Publication Year", ...). Authors are split on `;` or ` and `; a name written "Family, Given" is
turned round. A row that is not right is reported at its line and the others are read; a row whose
status says it was rejected or withdrawn is left out with a warning.
"""

from __future__ import annotations

import csv
import io
import re

from ...errors import Report, SiteError
from ...inputs.names import family_first
from ..records import Defaults, RawRecord, added_day, clean_abstract, clean_names, clean_text, collect_links, own_year, source_vocabulary, venue_and_year

# Each field and the column names that give it, normalised by `column_key`. The first column found wins.
COLUMNS = {
    "title": ("title", "paper title", "article title", "document title"),
    "abstract": ("abstract", "paper abstract", "abstract note", "abstract text", "summary"),
    "authors": ("authors", "author", "author names", "author list", "authors names", "creators"),
    "keywords": ("keywords", "keyword", "author keywords", "tags", "manual tags", "subject areas", "topics"),
    "venue": ("venue", "conference", "conference name", "journal", "booktitle", "proceedings title",
              "publication title", "track"),
    "year": ("year", "publication year", "pub year", "date"),
    "url": ("url", "link", "paper url", "web page", "forum", "openreview"),
    "pdf": ("pdf", "pdf url", "pdf link"),
    "doi": ("doi",),
    "arxiv": ("arxiv", "arxiv id", "eprint"),
    "id": ("id", "paper id", "submission id", "paper number", "number", "key", "#"),
    "status": ("status", "decision", "paper status", "acceptance status"),
    "added": ("added", "date added"),
}
LINK_FIELDS = ("pdf", "doi", "arxiv", "url")
AUTHOR_SPLIT_RE = re.compile(r"\s*;\s*|\s+and\s+")
# A conference system's author list: "Ada Lovelace (University of London)*; Alan Turing (Princeton
# and IAS)": an affiliation in brackets after a name, a star on the contact author. Neither is part
# of the name (a bracket inside one, "Wei (David) Zhang", is).
AFFILIATION_RE = re.compile(r"\s*\([^()]*\)(?=\s*\**\s*(?:[;,]|$|\s+and\s))")
CONTACT_MARK_RE = re.compile(r"\s*\*+")
# A status or decision that says the row is no paper of the venue: CMT's "Reject", "Desk Reject", "Withdrawn".
NOT_ACCEPTED_RE = re.compile(r"^\s*(?:(?:desk[ _-]?)?reject(?:ed)?|withdrawn)\b", re.IGNORECASE)
KEYWORD_SPLIT_RE = re.compile(r"[;,]")
DELIMITERS = {"csv": (",", ";"), "tsv": ("\t",)}


def column_key(name: str) -> str:
    """"Paper_Title", " paper-title " and "PAPER TITLE" are one column name."""
    key = " ".join(re.sub(r"[_\-.]+", " ", name).lower().split())
    return key or name.strip()


def read_csv(text: str, shown: str, report: Report, defaults: Defaults = Defaults()) -> list[RawRecord]:
    return read_table(text, shown, report, defaults, "csv")


def read_tsv(text: str, shown: str, report: Report, defaults: Defaults = Defaults()) -> list[RawRecord]:
    return read_table(text, shown, report, defaults, "tsv")


def read_table(text: str, shown: str, report: Report, defaults: Defaults, kind: str) -> list[RawRecord]:
    lines = text.split("\n")
    header_at = next((i for i, line in enumerate(lines) if line.strip()), None)
    if header_at is None:
        raise SiteError.at(shown, 1, "the source is empty: expected a header row naming the columns, then one row a paper")
    # A spreadsheet saved as CSV in a locale with a decimal comma separates with ";": the header
    # tells which, by the separator that splits it into the most known column names.
    delimiter = max(DELIMITERS[kind], key=lambda d: (len(known_columns(lines[header_at].split(d))), lines[header_at].count(d)))
    rows = csv.reader(io.StringIO("\n".join(lines[header_at:])), delimiter=delimiter, strict=True)
    try:
        header = next(rows)
    except csv.Error as exc:
        raise SiteError.at(shown, header_at + 1, f"the header row could not be read: {exc}") from None
    columns = known_columns(header)
    missing = [field for field in ("title", "abstract") if field not in columns]
    if missing:
        found = ", ".join(repr(name) for name in header) or "none"
        raise SiteError.at(shown, header_at + 1, f"the header names no {' and no '.join(missing)} column "
                           f"(headers found: {found}; a title column is one of {', '.join(COLUMNS['title'])}, "
                           f"an abstract column one of {', '.join(COLUMNS['abstract'])})")
    vocabulary = source_vocabulary(text)
    records, left_out = [], 0
    end = header_at + 1
    while True:
        start = end + 1
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as exc:
            report.error(shown, start, f"this row could not be read: {exc} (a quote inside a field must be doubled)")
            end = header_at + rows.line_num
            continue
        end = header_at + rows.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header) and any(cell.strip() for cell in row[len(header):]):
            report.error(shown, start, f"the row has {len(row)} fields, the header {len(header)} (a {delimiter!r} inside a field must be quoted)")
            continue
        cells = {field: row[i] for field, i in columns.items() if i < len(row)}
        if NOT_ACCEPTED_RE.match(cells.get("status", "")):
            # A conference system exports every submission: a rejected one is no paper of the venue.
            report.warn(shown, start, f"the row's status is {cells['status'].strip()!r}: not imported")
            left_out += 1
            continue
        record = row_record(cells, shown, start, report, defaults, vocabulary)
        if record is not None:
            records.append(record)
    if not records and not report.errors and not left_out:
        raise SiteError.at(shown, header_at + 1, "the source has a header but no rows")
    return records


def known_columns(header: list[str]) -> dict[str, int]:
    """field -> index of the first column that gives it."""
    found: dict[str, int] = {}
    for index, name in enumerate(header):
        key = column_key(name)
        for field, names in COLUMNS.items():
            if key in names and field not in found:
                found[field] = index
    return found


def row_record(cells: dict[str, str], shown: str, line: int, report: Report, defaults: Defaults,
               vocabulary: frozenset[str]) -> RawRecord | None:
    cells = {field: value.strip() for field, value in cells.items()}
    missing = [field for field in ("title", "abstract") if not cells.get(field)]
    for field in missing:
        report.error(shown, line, f"the row has no {field}")
    venue, year = venue_and_year(cells.get("venue", ""))
    given, problem = own_year(cells.get("year"))
    venue, year = venue or defaults.venue, given or year or defaults.year
    if problem is not None:
        report.error(shown, line, problem)
    elif not venue or year is None:
        absent = " and ".join(what for what, value in (("venue", venue), ("year", year)) if not value)
        report.error(shown, line, f"no venue/year: the row has no {absent} column filled in (pass --venue and --year)")
    if missing or problem is not None or not venue or year is None:
        return None
    return RawRecord(
        line=line,
        abstract=clean_abstract(cells["abstract"], shown, line, report, vocabulary),
        title=clean_text(cells["title"], shown, line, report),
        authors=clean_names(split_authors(cells.get("authors", "")), shown, line, report),
        keywords=clean_names(KEYWORD_SPLIT_RE.split(cells.get("keywords", "")), shown, line, report),
        venue=venue,
        year=year,
        source_id=cells.get("id") or None,
        links=collect_links(((field, cells.get(field, "")) for field in LINK_FIELDS), shown, line, report),
        added=added_day(cells.get("added"), shown, line, report),
    )


def split_authors(cell: str) -> list[str]:
    """A cell's authors, given names first: separated by ";" or "and" ("Lovelace, Ada; Babbage,
    Charles"), or by commas where no part is a name written family first ("Tim Dettmers, Artidoro
    Pagnoni", as a spreadsheet lists them; "Lovelace, Ada" alone is one name); without the
    affiliations and contact stars of a conference system's list."""
    names = []
    cell = CONTACT_MARK_RE.sub("", AFFILIATION_RE.sub("", cell))
    for part in AUTHOR_SPLIT_RE.split(cell):
        if "," in part and not family_first(part):
            names += [name.strip() for name in part.split(",")]
        else:
            names.append(given_first(part))
    return names


def given_first(name: str) -> str:
    """"Lovelace, Ada" is Ada Lovelace; a name without one comma stays as it is."""
    family, comma, given = name.partition(",")
    return f"{given.strip()} {family.strip()}" if comma and "," not in given and given.strip() else name
