"""Our JSON Lines format: one object a line with our field names (title, abstract, authors, keywords, venue, year, links, source_id)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from ...errors import Report, SiteError
from ...inputs.links import LINK_KINDS
from ..records import Defaults, RawRecord, added_day, clean_abstract, clean_names, clean_text, collect_links, own_year, venue_and_year, wrap_vocabulary
from ..venues import short_venue


def json_lines(text: str, shown: str, report: Report):
    """(line number, decoded value) for every non-blank line; a line that is not JSON is reported and left out."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            report.error(shown, number, f"not valid JSON: {exc.msg} (column {exc.colno})")
        except RecursionError:
            report.error(shown, number, "not valid JSON for a record: nested too deeply")


def json_lines_vocabulary(text: str) -> frozenset[str]:
    # The raw lines are JSON: an escaped "\n" must not glue "\ntions" into a word.
    return wrap_vocabulary(text.replace("\\n", " ")) if re.search(r"-[ \t]*\\n", text) else frozenset()


def read_jsonl(text: str, shown: str, report: Report, defaults: Defaults = Defaults()) -> list[RawRecord]:
    return read_json_records(text, shown, report, defaults, validate_json_record)


def read_json_records(text: str, shown: str, report: Report, defaults: Defaults, make_record: Callable) -> list[RawRecord]:
    """The record of each line, `make_record(data, shown, line, report, defaults, vocabulary)`, or
    None for a line whose problems it reported. A source without a record is an error."""
    vocabulary = json_lines_vocabulary(text)
    records = []
    for number, data in json_lines(text, shown, report):
        record = make_record(data, shown, number, report, defaults, vocabulary)
        if record is not None:
            records.append(record)
    if not records and not report.errors:
        raise SiteError.at(shown, 1, "the source has no records")
    return records


def validate_json_record(data, shown: str, number: int, report: Report, defaults: Defaults,
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
    links = data.get("links", {})
    if not isinstance(links, dict) or not all(k in LINK_KINDS and isinstance(v, str) for k, v in links.items()):
        report.error(shown, number, f"'links' must be an object of text, with keys among {', '.join(LINK_KINDS)}")
        ok = False
    venue, year, problem = record_venue_year(data, defaults)
    if problem is not None:
        report.error(shown, number, problem)
        ok = False
    elif not venue or year is None:
        absent = " and ".join(f"'{key}'" for key, value in (("venue", venue), ("year", year)) if not value)
        report.error(shown, number, f"no venue/year: the record has no {absent} (pass --venue and --year)")
        ok = False
    source_id = data.get("source_id")
    if not ok:
        return None
    return RawRecord(
        line=number,
        abstract=clean_abstract(data["abstract"], shown, number, report, vocabulary),
        title=clean_text(data["title"], shown, number, report),
        # Names carry control characters too (one ml-abstracts.jsonl author has a DEL): dropped, with a warning.
        authors=clean_names(data.get("authors", []), shown, number, report),
        keywords=clean_names(data.get("keywords", []), shown, number, report),
        venue=venue,
        year=year,
        source_id=str(source_id) if source_id not in (None, "") else None,
        links=collect_links(links.items(), shown, number, report),
        added=added_day(data.get("added"), shown, number, report),
    )


def record_venue_year(data: dict, defaults: Defaults) -> tuple[str | None, int | None, str | None]:
    """The record's own venue/year first, then an OpenReview-style track ("NeurIPS 2025 oral"), then
    the flags; and what is wrong with a year the record gives that is no year."""
    venue = short_venue(data["venue"]) if isinstance(data.get("venue"), str) and data["venue"].strip() else None
    year, problem = own_year(data.get("year"))
    if problem is not None:
        return venue, None, problem
    if isinstance(data.get("track"), str):
        track_venue, track_year = venue_and_year(data["track"])
        if track_year is not None:
            venue, year = venue or track_venue, year or track_year
    return venue or defaults.venue, year or defaults.year, None
