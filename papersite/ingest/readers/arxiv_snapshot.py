"""arXiv's metadata snapshot (the bulk `arxiv-metadata-oai-snapshot.json`): JSON Lines, one paper a line.

Each line gives `id`, `title`, `abstract`, `authors` (one string) and `authors_parsed`
(`[family, given, suffix]` each, preferred), `categories` (space-separated, the primary first),
`versions` (the first one's `created` date gives the year; `update_date` if there is none), `doi`
and `journal-ref`. The links come from the id (the abstract page and the PDF) and the DOI. The
venue is "arXiv" unless --venue names another: `journal-ref` is free text ("Phys. Rev. D 76,
013009 (2007)"), no venue name.
"""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime

from ...enrich.venues import ARXIV_VENUE
from ...errors import Report
from ...inputs.links import ARXIV_ID_RE
from ..records import Defaults, RawRecord, arxiv_paragraphs, clean_abstract, clean_names, clean_text, collect_links, latex_text, year_in
from .jsonl import read_json_records

AUTHOR_SPLIT_RE = re.compile(r",\s*|\s+and\s+")


def read_arxiv_snapshot(text: str, shown: str, report: Report, defaults: Defaults = Defaults()) -> list[RawRecord]:
    return read_json_records(text, shown, report, defaults, snapshot_record)


def snapshot_record(data, shown: str, line: int, report: Report, defaults: Defaults, vocabulary: frozenset[str]) -> RawRecord | None:
    if not isinstance(data, dict):
        report.error(shown, line, "each line must be a JSON object, as in arXiv's metadata snapshot")
        return None
    problems = [f"'{key}' must be non-empty text" for key in ("id", "title", "abstract")
                if not isinstance(data.get(key), str) or not data[key].strip()]
    arxiv_id = data["id"].strip() if isinstance(data.get("id"), str) else ""
    if arxiv_id and not ARXIV_ID_RE.match(arxiv_id):
        problems.append(f"'id' {arxiv_id!r} is not an arXiv id")
    year = first_version_year(data) or defaults.year
    if year is None:
        problems.append("no year: 'versions' and 'update_date' give none (pass --year)")
    for problem in problems:
        report.error(shown, line, problem)
    if problems:
        return None
    doi = data.get("doi") if isinstance(data.get("doi"), str) else ""
    categories = data.get("categories") if isinstance(data.get("categories"), str) else ""
    return RawRecord(
        line=line,
        abstract=clean_abstract(arxiv_paragraphs(data["abstract"]), shown, line, report, vocabulary),
        title=clean_text(data["title"], shown, line, report),
        authors=clean_names(authors(data, shown, line, report), shown, line, report),
        keywords=tuple(categories.split()),
        venue=defaults.venue or ARXIV_VENUE,
        year=year,
        source_id=arxiv_id,
        links=collect_links([("arxiv", arxiv_id), ("pdf", f"https://arxiv.org/pdf/{arxiv_id}"), ("doi", doi)], shown, line, report),
    )


def first_version_year(data: dict) -> int | None:
    """The year of the first version ("Mon, 2 Apr 2007 19:18:42 GMT"), else of `update_date`."""
    versions = data.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict) and isinstance(versions[0].get("created"), str):
        try:
            return parsedate_to_datetime(versions[0]["created"]).year
        except (TypeError, ValueError):
            pass
    return year_in(data["update_date"]) if isinstance(data.get("update_date"), str) else None


def authors(data: dict, shown: str, line: int, report: Report) -> list[str]:
    """"Given Family Suffix" from `authors_parsed`, else the `authors` string split; names are LaTeX (`Bal\\'azs`)."""
    parsed = data.get("authors_parsed")
    if isinstance(parsed, list) and parsed and all(isinstance(p, list) and all(isinstance(s, str) for s in p) for p in parsed):
        names = [" ".join(part for part in (p[1:2] + p[:1] + p[2:3]) if part.strip()) for p in parsed]
    elif isinstance(data.get("authors"), str):
        names = AUTHOR_SPLIT_RE.split(data["authors"])
    else:
        names = []
    return [latex_text(name, shown, line, report) for name in names]
