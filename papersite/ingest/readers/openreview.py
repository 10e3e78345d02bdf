"""OpenReview API notes, as the API returns them: a list of notes, `{"notes": [...]}`, or one note a line.

Both API versions are read: v2 wraps each content field as `{"value": ...}` (`content.title.value`),
v1 gives it bare (`content.title`). The venue and year come from `content.venue` ("NeurIPS 2025
oral", "Submitted to ICLR 2024") or else `content.venueid` ("ICLR.cc/2024/Conference") or the
invitation (an old v1 note's only trace of them), else the year the note was published (`pdate`:
TMLR's notes name no year); the
forum becomes the `openreview` link and `content.pdf` (a path on openreview.net) the `pdf` link.
A withdrawn or desk-rejected submission (so its venue or venue id says) is left out, with a warning.

The standard json module decodes the file; to report a bad note at its line, the top-level list
is stepped through with the decoder's own `raw_decode`, which says where each note ends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from urllib.parse import urljoin

from ...errors import Report, SiteError
from ..records import Defaults, RawRecord, clean_abstract, clean_names, clean_text, collect_links, venue_and_year
from .jsonl import json_lines, json_lines_vocabulary

OPENREVIEW = "https://openreview.net/"
WHITESPACE_RE = re.compile(r"[ \t\n\r]*")
# The venue id's segment before the year names the venue: ICLR.cc/2024/..., robot-learning.org/CoRL/2024/...
VENUE_NAME = r"(?P<venue>[A-Za-z][\w-]*)(?:\.[a-z]+)*"
VENUEID_RE = re.compile(rf"(?:^|/){VENUE_NAME}/(?P<year>(?:19|20)\d\d)(?:/|$)")
# A venue id that is a name alone: TMLR's "TMLR".
VENUEID_NAME_RE = re.compile(VENUE_NAME)
VENUE_IN_TEXT_RE = re.compile(r"\b(?P<venue>[A-Z][\w-]*)\s+(?P<year>(?:19|20)\d\d)\b")
# A submission its authors withdrew, or the venue desk-rejected, was never one of its papers; one
# rejected after review ("Submitted to ICLR 2024", public with its reviews) is imported, as it was submitted.
NOT_ACCEPTED_RE = re.compile(r"withdrawn|desk[ _-]?rejected", re.IGNORECASE)


def read_openreview(text: str, shown: str, report: Report, defaults: Defaults = Defaults()) -> list[RawRecord]:
    """A JSON document of notes, or notes one a line."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":   # a first document, then more: JSON Lines
            return read_openreview_lines(text, shown, report, defaults)
        raise SiteError.at(shown, exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise SiteError.at(shown, 1, "not valid JSON for OpenReview notes: nested too deeply") from None
    return note_records(located_notes(text, document, shown), shown, report, defaults, json_lines_vocabulary(text))


def read_openreview_lines(text: str, shown: str, report: Report, defaults: Defaults = Defaults()) -> list[RawRecord]:
    """One note a line (JSON Lines)."""
    return note_records(json_lines(text, shown, report), shown, report, defaults, json_lines_vocabulary(text))


def note_records(notes, shown: str, report: Report, defaults: Defaults, vocabulary: frozenset[str]) -> list[RawRecord]:
    records, seen = [], 0
    for line, note in notes:
        seen += 1
        record = note_record(note, shown, line, report, defaults, vocabulary)
        if record is not None:
            records.append(record)
    if not seen:
        raise SiteError.at(shown, 1, "the source has no notes")
    return records


def located_notes(text: str, document, shown: str) -> list[tuple[int, object]]:
    """(line, note) for each note of a list, of `{"notes": [...]}`, or of one note on its own."""
    start = WHITESPACE_RE.match(text).end()
    if isinstance(document, list):
        return list_items(text, start)
    if isinstance(document, dict) and isinstance(document.get("notes"), list):
        return list_items(text, member_start(text, start, "notes"))
    if isinstance(document, dict) and "content" in document:
        return [(text.count("\n", 0, start) + 1, document)]
    raise SiteError.at(shown, text.count("\n", 0, start) + 1,
                       "expected OpenReview notes: a list of notes, or an object with a 'notes' list, as the API returns them")


def list_items(text: str, start: int) -> list[tuple[int, object]]:
    """(line, value) of each item of the JSON list at `start` (the file is known to be valid JSON)."""
    decoder = json.JSONDecoder()
    items = []
    pos = WHITESPACE_RE.match(text, start + 1).end()
    while text[pos] != "]":
        value, end = decoder.raw_decode(text, pos)
        items.append((text.count("\n", 0, pos) + 1, value))
        pos = WHITESPACE_RE.match(text, end).end()
        if text[pos] == ",":
            pos = WHITESPACE_RE.match(text, pos + 1).end()
    return items


def member_start(text: str, start: int, name: str) -> int:
    """Where the value of the top-level object's member `name` starts (the last one, as json.loads keeps)."""
    decoder = json.JSONDecoder()
    found = None
    pos = WHITESPACE_RE.match(text, start + 1).end()
    while text[pos] != "}":
        key, end = decoder.raw_decode(text, pos)
        pos = WHITESPACE_RE.match(text, WHITESPACE_RE.match(text, end).end() + 1).end()   # past the ':'
        if key == name:
            found = pos
        _, end = decoder.raw_decode(text, pos)
        pos = WHITESPACE_RE.match(text, end).end()
        if text[pos] == ",":
            pos = WHITESPACE_RE.match(text, pos + 1).end()
    return found


def content_value(content: dict, key: str):
    """`content.key.value` (API v2) or `content.key` (v1)."""
    value = content.get(key)
    return value.get("value") if isinstance(value, dict) else value


def note_record(note, shown: str, line: int, report: Report, defaults: Defaults, vocabulary: frozenset[str]) -> RawRecord | None:
    if not isinstance(note, dict) or not isinstance(note.get("content"), dict):
        report.error(shown, line, "each note must be an object with a 'content' object, as the OpenReview API gives it")
        return None
    content = note["content"]
    fields = {key: content_value(content, key) for key in ("title", "abstract", "authors", "keywords", "venue", "venueid", "pdf")}
    ok = True
    for key in ("title", "abstract"):
        if not isinstance(fields[key], str) or not fields[key].strip():
            report.error(shown, line, f"note {note.get('id', '')!r}: 'content.{key}' must be non-empty text")
            ok = False
    for key in ("authors", "keywords"):
        if fields[key] is not None and not (isinstance(fields[key], list) and all(isinstance(v, str) for v in fields[key])):
            report.error(shown, line, f"note {note.get('id', '')!r}: 'content.{key}' must be a list of text")
            ok = False
    if (state := not_accepted(fields["venue"], fields["venueid"])) is not None:
        # What /notes returns for a conference holds its withdrawn and rejected submissions too:
        # "ICLR 2024 Conference Withdrawn Submission" is no paper of ICLR 2024.
        report.warn(shown, line, f"note {note.get('id', '')!r}: {state} submission "
                                 f"({fields['venue'] or fields['venueid']}), not imported")
        return None
    venue, year = note_venue(fields["venue"], fields["venueid"], invitations_of(note), note.get("pdate"))
    venue, year = venue or defaults.venue, year or defaults.year
    if not venue or year is None:
        report.error(shown, line, f"note {note.get('id', '')!r}: no venue/year in 'content.venue' or 'content.venueid' (pass --venue and --year)")
        ok = False
    if not ok:
        return None
    forum = note.get("forum") or note.get("id")
    forum = forum if isinstance(forum, str) and forum.strip() else None
    pdf = fields["pdf"] if isinstance(fields["pdf"], str) else ""
    return RawRecord(
        line=line,
        abstract=clean_abstract(fields["abstract"], shown, line, report, vocabulary),
        title=clean_text(fields["title"], shown, line, report),
        authors=clean_names(fields["authors"] or [], shown, line, report),
        keywords=clean_names(fields["keywords"] or [], shown, line, report),
        venue=venue,
        year=year,
        source_id=forum,
        links=collect_links([("openreview", forum or ""), ("pdf", urljoin(OPENREVIEW, pdf) if pdf.startswith("/") else pdf)],
                            shown, line, report),
    )


def not_accepted(venue, venueid) -> str | None:
    """"withdrawn" or "desk rejected" when the venue or its id says the note is, else None."""
    for value in (venueid, venue):
        if isinstance(value, str) and (found := NOT_ACCEPTED_RE.search(value)):
            return " ".join(found.group().lower().replace("_", " ").split())
    return None


def note_venue(venue, venueid, invitations: Sequence[str] = (), published: object = None) -> tuple[str | None, int | None]:
    """The venue's short name and year, from the venue text, else the venue id or an invitation (an
    old v1 note has only that: `ICLR.cc/2018/Conference/-/Blind_Submission`), else a name and year
    inside the text, else the year the note was published (`pdate`, in milliseconds: a journal's
    notes, TMLR's, name no year) with the venue id's name."""
    text = venue.strip() if isinstance(venue, str) else ""
    name, year = venue_and_year(text)
    if year is not None:
        return name, year
    for where in (venueid, *invitations):
        found = VENUEID_RE.search(where) if isinstance(where, str) else None
        if found:
            return found["venue"], int(found["year"])
    found = VENUE_IN_TEXT_RE.search(text)
    if found:
        return found["venue"], int(found["year"])
    own = VENUEID_NAME_RE.fullmatch(venueid) if isinstance(venueid, str) else None
    return (own["venue"] if own else name) or None, published_year(published)


def published_year(milliseconds: object) -> int | None:
    """The year of an OpenReview date (milliseconds since 1970, UTC), or None."""
    if isinstance(milliseconds, bool) or not isinstance(milliseconds, int | float) or milliseconds <= 0:
        return None
    return datetime.fromtimestamp(milliseconds / 1000, tz=UTC).year


def invitations_of(note: dict) -> list[str]:
    """The note's invitations: v2's `invitations`, v1's `invitation`."""
    found = note.get("invitations") if isinstance(note.get("invitations"), list) else [note.get("invitation")]
    return [i for i in found if isinstance(i, str)]
