"""Our plain-text format: a heading line naming the venue and year, then one untitled abstract per paragraph."""

from __future__ import annotations

import re

from ...errors import Report, SiteError
from ..records import Defaults, RawRecord, clean_abstract, source_vocabulary

HEADING_RE = re.compile(r"^(?P<venue>.*?[A-Za-z].*?)\s+(?P<year>(?:19|20)\d\d)\b")


def read_plain(text: str, shown: str, report: Report, defaults: Defaults = Defaults()) -> list[RawRecord]:
    """Every paragraph after the heading is an abstract; the heading's venue and year are every record's.
    A heading that names neither takes `defaults` (`--venue` and `--year`), given both."""
    lines = text.split("\n")
    heading_at = next((i for i, line in enumerate(lines) if line.strip()), None)
    if heading_at is None:
        raise SiteError.at(shown, 1, "the source is empty: expected a heading line, then abstracts")
    heading = lines[heading_at].strip()
    match = HEADING_RE.match(heading)
    if match:
        venue, year = match["venue"].strip(), int(match["year"])
    elif defaults.venue and defaults.year is not None:
        venue, year = defaults.venue, defaults.year
    else:
        raise SiteError.at(shown, heading_at + 1, f"the heading {heading!r} must name the venue and year, like 'NeurIPS 2025 Papers' "
                                                  "(or pass --venue and --year)")
    vocabulary = source_vocabulary(text)
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
