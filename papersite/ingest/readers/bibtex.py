"""BibTeX, as reference managers export it (Zotero, JabRef, the ACL Anthology, DBLP), read with bibtexparser 2.

bibtexparser splits the file into entries (with their lines), resolves `@string` macros used as a
whole value and removes the braces or quotes around values. Two things BibTeX does that it leaves
undone are done here on its output: values joined with `#` (`booktitle = conf # " 2024"`), and
`crossref`, by which an entry takes the fields it lacks from the entry it names (and, as
biblatex does, an @inproceedings takes the @proceedings' title as its booktitle).

Titles and abstracts are kept as LaTeX for the importer to convert like every source's; names
and the venue are converted here, where they are split and chosen.
"""

from __future__ import annotations

import re

import bibtexparser
from bibtexparser.exceptions import BlockAbortedException
from bibtexparser.middlewares.enclosing import REMOVED_ENCLOSING_KEY
from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts, split_multiple_persons_names
from bibtexparser.model import DuplicateBlockKeyBlock, Entry

from ...errors import Report, SiteError
from ...inputs.links import ARXIV_ID_RE
from ..records import (Defaults, RawRecord, clean_abstract, clean_names, clean_text, collect_links, latex_text, own_year,
                       source_vocabulary)
from ..venues import short_venue

VENUE_FIELDS = ("booktitle", "journal", "journaltitle", "series")
KEYWORD_SPLIT_RE = re.compile(r"[,;]")


def read_bibtex(text: str, shown: str, report: Report, defaults: Defaults = Defaults()) -> list[RawRecord]:
    library = bibtexparser.parse_string(text)
    for block in library.failed_blocks:
        report.error(shown, block.start_line + 1, failure_message(block, text))
    macros = resolved_macros(library)
    all_fields = [fields_of(entry, macros, shown, report) for entry in library.entries]
    by_key = {entry.key.lower(): fields for entry, fields in zip(library.entries, all_fields)}
    parents = {fields["crossref"].lower() for fields in all_fields if "crossref" in fields}
    vocabulary = source_vocabulary(text)
    records = []
    for entry, fields in zip(library.entries, all_fields):
        # An entry that others cross-reference is their proceedings or book, not a paper of its own.
        if entry.key.lower() in parents and "abstract" not in fields:
            continue
        if "crossref" in fields:
            fields = inherit(fields, by_key.get(fields["crossref"].lower()), shown, entry.start_line + 1, report)
        record = entry_record(entry, fields, shown, report, defaults, vocabulary)
        if record is not None:
            records.append(record)
    if not records and not report.errors:
        raise SiteError.at(shown, 1, "the source has no BibTeX entries (an entry starts like @inproceedings{key, ...)")
    return records


def failure_message(block, text: str) -> str:
    if isinstance(block, DuplicateBlockKeyBlock):
        return f"duplicate entry key '{block.key}': this entry is left out"
    error = block.error
    if isinstance(error, BlockAbortedException):
        end = text.count("\n", 0, error.end_index) + 1 if error.end_index is not None else None
        where = f" (reading stopped at line {end})" if end and end != block.start_line + 1 else ""
        reason = " ".join(error.abort_reason.split()).rstrip(".")
        return f"this BibTeX entry could not be read: {reason}{where}; it is left out"
    return f"this BibTeX entry could not be read: {error}; it is left out"


def resolved_macros(library) -> dict[str, str]:
    """Every @string's value, lower-cased name -> text, each resolved against those before it."""
    macros: dict[str, str] = {}
    for string in library.strings:
        macros[string.key.lower()] = concatenation(string.value, macros)
    return macros


def fields_of(entry: Entry, macros: dict[str, str], shown: str, report: Report) -> dict[str, str]:
    """Lower-cased field name -> value, macros and `#` joins resolved; a field given twice keeps its first value."""
    enclosing = entry.parser_metadata.get(REMOVED_ENCLOSING_KEY, {})
    fields: dict[str, str] = {}
    for field in entry.fields:
        name = field.key.lower()
        value = str(field.value)
        if enclosing.get(field.key) == "no-enclosing" and "#" in value:
            value = concatenation(value, macros)
        if name in fields:
            report.warn(shown, field.start_line + 1, f"field '{name}' is given twice; the first is used")
            continue
        fields[name] = value
    return fields


def concatenation(value: str, macros: dict[str, str]) -> str:
    """`a # "b" # {c}`: each part a macro, a quoted or braced text or a number, joined."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, char in enumerate(value):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            quoted = not quoted
        elif char == "#" and depth == 0 and not quoted:
            parts.append(value[start:i].strip())
            start = i + 1
    parts.append(value[start:].strip())
    return "".join(part[1:-1] if part[:1] + part[-1:] in ("{}", '""') else macros.get(part.lower(), part) for part in parts)


def inherit(fields: dict[str, str], parent: dict[str, str] | None, shown: str, line: int, report: Report) -> dict[str, str]:
    if parent is None:
        report.warn(shown, line, f"crossref '{fields['crossref']}' names no entry in this file")
        return fields
    inherited = {name: value for name, value in parent.items() if name not in ("title", "crossref", "abstract")}
    if "title" in parent:
        inherited.setdefault("booktitle", parent["title"])
    return {**inherited, **fields}


def entry_record(entry: Entry, fields: dict[str, str], shown: str, report: Report, defaults: Defaults,
                 vocabulary: frozenset[str]) -> RawRecord | None:
    line = entry.start_line + 1
    missing = [name for name in ("title", "abstract") if not fields.get(name, "").strip()]
    for name in missing:
        # DBLP's and Google Scholar's exports never carry one: saying so saves a search.
        hint = " (DBLP and Google Scholar exports carry no abstracts: import the paper from arXiv, OpenReview or the ACL Anthology)" \
            if name == "abstract" else ""
        report.error(shown, line, f"@{entry.entry_type}{{{entry.key}}} has no '{name}' field: it is left out{hint}")
    venue = next((short_venue(latex_text(fields[name], shown, line, report))
                  for name in VENUE_FIELDS if fields.get(name, "").strip()), None)
    year, problem = own_year(fields.get("year") or fields.get("date"))
    venue, year = venue or defaults.venue, year or defaults.year
    absent = [what for what, value in (("venue (booktitle, journal, journaltitle or series)", venue), ("year", year)) if not value]
    if problem is not None:
        report.error(shown, line, f"@{entry.entry_type}{{{entry.key}}}: {problem}")
    elif absent:
        report.error(shown, line, f"@{entry.entry_type}{{{entry.key}}} names no {' and no '.join(absent)} (pass --venue and --year)")
    if missing or problem is not None or absent:
        return None
    return RawRecord(
        line=line,
        abstract=clean_abstract(fields["abstract"], shown, line, report, vocabulary),
        title=clean_text(fields["title"], shown, line, report),
        authors=clean_names((latex_text(name, shown, line, report) for name in names(fields.get("author", ""), shown, line, report)),
                            shown, line, report),
        keywords=clean_names((latex_text(k, shown, line, report) for k in KEYWORD_SPLIT_RE.split(fields.get("keywords", ""))),
                             shown, line, report),
        venue=venue,
        year=year,
        source_id=entry.key or None,
        links=collect_links(link_fields(fields), shown, line, report),
    )


def names(field: str, shown: str, line: int, report: Report) -> list[str]:
    """`Family, Given and Given Family and {Braced Name}` as "Given Family" each, still in LaTeX."""
    found = []
    for name in split_multiple_persons_names(field):
        try:
            found.append(parse_single_name_into_parts(name).merge_first_name_first)
        except InvalidNameError as exc:
            report.warn(shown, line, f"author {name!r} kept as written: {exc.reason}")
            found.append(name)
    return found


def link_fields(fields: dict[str, str]) -> list[tuple[str, str]]:
    """doi, url and the arXiv eprint (`archivePrefix`, or biblatex's `eprinttype`, names the archive)."""
    found = [("doi", fields.get("doi", "")), ("url", fields.get("url", ""))]
    eprint = fields.get("eprint", "").strip()
    archive = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip().lower()
    if eprint and (archive == "arxiv" or (not archive and ARXIV_ID_RE.match(eprint))):
        found.append(("arxiv", eprint))
    return found
