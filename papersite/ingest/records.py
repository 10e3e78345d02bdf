"""What every reader hands the importer: one RawRecord per paper, its text cleaned the same way whatever the format.

A reader keeps the title and abstract as the source writes them, LaTeX and all (the importer
converts every format's LaTeX the same way), and gives authors as "Given Family", the venue and
year, the links, and the source's own id for the paper. The helpers here are what readers share:
cleaning text (control characters, PDF line-wrap hyphens), a venue and year from a track name
("NeurIPS 2025 oral"), and links from whatever DOIs, arXiv ids and URLs a source gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import Report
from ..inputs.links import LINK_KINDS, Links, arxiv_id_of, doi_of, is_web_url, link_problem, openreview_id_of
from ..inputs.values import date_value
from ..text.chars import UNPRINTABLE_RE
from .latex import latex_to_markdown
from .venues import short_venue

TRACK_RE = re.compile(r"^(?P<venue>[A-Za-z][\w-]*)\s+(?P<year>(?:19|20)\d\d)\b")
YEAR_RE = re.compile(r"\b(?:19|20)\d\d\b")
# A day, alone or before a time of day: "2023-05-12", "2023-05-12 10:31:05", "2023-05-12T10:31:05Z".
ADDED_RE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\Z")
# A word broken across lines by a PDF: "cap-\ntions", but also "geometry-\nunaware" (a real hyphen).
HYPHEN_WRAP_RE = re.compile(r"(?P<left>[^\W\d_]+)-[ \t]*\n[ \t]*(?P<right>[^\W\d_]+)")
WORD_TOKEN_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
DOI_PREFIX_RE = re.compile(r"^(?:doi:\s*)", re.IGNORECASE)
ARXIV_PREFIX_RE = re.compile(r"^(?:arxiv:\s*)", re.IGNORECASE)


@dataclass(frozen=True)
class Defaults:
    """`--venue` and `--year`: for records that name none (arXiv's venue is always the flag's, when given)."""

    venue: str | None = None
    year: int | None = None


@dataclass(frozen=True)
class RawRecord:
    """One paper as the source gives it, with the line it starts on."""

    line: int
    abstract: str
    title: str | None          # None: derive one from the abstract
    authors: tuple[str, ...]
    keywords: tuple[str, ...]
    venue: str
    year: int
    source_id: str | None      # the source's own id for the paper (an entry key, a note id, an arXiv id)
    links: Links = ()
    added: str | None = None   # the day the source says the paper joined it (YYYY-MM-DD): Zotero's "Date Added"


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


# arXiv keeps an abstract's line breaks only where the next line starts with white space: that is
# how its authors mark a paragraph (arXiv's help, "Abstract"); the other breaks are its wrapping.
ARXIV_PARAGRAPH_RE = re.compile(r"\n[ \t]+(?=\S)")


def arxiv_paragraphs(text: str) -> str:
    """An arXiv abstract with its paragraphs as blank lines: "...wrapped\nline.\n  Next." has two."""
    return ARXIV_PARAGRAPH_RE.sub("\n\n", text.strip())


def wrap_vocabulary(text: str) -> frozenset[str]:
    """Every word of a source, lower-cased: hyphenated compounds whole and in parts."""
    words: set[str] = set()
    for token in set(WORD_TOKEN_RE.findall(text.lower())):
        words.add(token)
        if "-" in token:
            words.update(token.split("-"))
    return frozenset(words)


def source_vocabulary(text: str) -> frozenset[str]:
    """`wrap_vocabulary` of a source, or nothing when it has no line-wrap hyphen to decide."""
    return wrap_vocabulary(text) if re.search(r"-[ \t]*\n", text) else frozenset()


def join_wrap(left: str, right: str, vocabulary: frozenset[str]) -> str:
    joined = (left + right).lower()
    if vocabulary:
        if joined in vocabulary:
            return left + right
        if f"{left}-{right}".lower() in vocabulary or (left.lower() in vocabulary and right.lower() in vocabulary):
            return f"{left}-{right}"
    # No evidence either way: a lower-case break is a wrap ("poste-\nrior"); "Pretty-\nCLEVR" is a compound.
    return left + right if left[-1].islower() and right[0].islower() else f"{left}-{right}"


def latex_text(value: str, shown: str, line: int, report: Report) -> str:
    """A short LaTeX text (a name, a venue) as the text it shows: `M{\\"u}ller` is Müller."""
    text, warnings = latex_to_markdown(" ".join(value.split()))
    for message in warnings:
        report.warn(shown, line, message)
    return text


def clean_names(names: Iterable[str], shown: str, line: int, report: Report) -> tuple[str, ...]:
    """Authors or keywords, each cleaned, the empty ones dropped."""
    return tuple(name for name in (clean_text(n, shown, line, report) for n in names) if name)


def venue_and_year(text: str) -> tuple[str, int | None]:
    """A venue as sources write it: "NeurIPS 2025 oral" is NeurIPS in 2025; "ICML" names no year."""
    track = TRACK_RE.match(text.strip())
    return (track["venue"], int(track["year"])) if track else (short_venue(text) if text.strip() else "", None)


def year_in(text: str) -> int | None:
    """The first four-digit year in a date or year field ("2017", "2017-12-04", "Spring 2020")."""
    found = YEAR_RE.search(text)
    return int(found.group()) if found else None


def own_year(value: object) -> tuple[int | None, str | None]:
    """A record's own year field: (its year, None); (None, None) when it has none, so `--year` may
    stand in; (None, why) when it has one that is no year ("20x2"), which no flag silently replaces."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None, None
    if isinstance(value, int) and not isinstance(value, bool):
        return value, None
    if isinstance(value, str) and (year := year_in(value)) is not None:
        return year, None
    shown = value.strip() if isinstance(value, str) else value
    return None, f"the year {shown!r} is not a year (write it as four digits, such as 2024)"


def added_day(value: object, shown: str, line: int, report: Report) -> str | None:
    """The day a record's "added" field gives (`2023-05-12`, or with a time as Zotero writes it,
    `2023-05-12 10:31:05`), or None; a value that is no day is left out with a warning, and the
    page gets the day of the import."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    found = ADDED_RE.match(value.strip()) if isinstance(value, str) else None
    if found is not None and (day := date_value(found[1])) is not None:
        return day
    report.warn(shown, line, f"the date added {value!r} is not a day (YYYY-MM-DD); the page gets the day of this import")
    return None


def collect_links(candidates: Iterable[tuple[str, str]], shown: str, line: int, report: Report) -> Links:
    """A record's links from what its source gives, as (kind, value) pairs, first of each kind kept.

    DOIs and arXiv ids are written bare (`10.5555/1`, `2401.12345`, without `doi:`, `arXiv:`, a
    resolver URL or a version), so the same paper gets the same links from every source. A plain
    `url` that is a doi.org, arXiv or OpenReview address counts as that kind. A value that is none
    of these is dropped with a warning: the paper still imports.
    """
    found: dict[str, str] = {}
    for kind, value in candidates:
        value = value.strip()
        if not value:
            continue
        kind, value = normalise_link(kind, value)
        problem = link_problem(kind, value)
        if problem is not None:
            report.warn(shown, line, f"left out the {kind} link: it {problem}")
        elif kind not in found:
            found[kind] = value
    return tuple((kind, found[kind]) for kind in LINK_KINDS if kind in found)


def normalise_link(kind: str, value: str) -> tuple[str, str]:
    if kind == "url":
        for other, finder in (("doi", doi_of), ("arxiv", arxiv_id_of), ("openreview", openreview_id_of)):
            if finder(value):
                kind = other
                break
    if kind == "doi":
        value = DOI_PREFIX_RE.sub("", value)
        return kind, doi_of(value) or value
    if kind == "arxiv":
        value = ARXIV_PREFIX_RE.sub("", value)
        return kind, arxiv_id_of(value) or value
    if kind == "openreview" and not is_web_url(value):
        return kind, f"https://openreview.net/forum?id={value}"
    return kind, value
