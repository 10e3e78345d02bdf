"""A paper's `links`: the five kinds, what each may hold, and the address each stands for.

`doi` and `arxiv` hold an identifier in its own syntax (`10.5555/12345678`, `2401.12345`) or an
http(s) URL; `pdf`, `openreview` and `url` hold an http(s) URL. The importer writes DOIs and arXiv
ids bare; the paper page, the citation tags, BibTeX and papers.json all take their addresses
and identifiers from here, so a link means the same thing everywhere.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urlsplit

from ..text.chars import URL_UNSAFE_RE

LINK_KINDS = ("pdf", "doi", "arxiv", "openreview", "url")
# A paper's links in LINK_KINDS order, as (kind, value) pairs: a tuple, so a Paper stays hashable.
Links = tuple[tuple[str, str], ...]

# "10." registrant "/" suffix: the DOI Handbook's syntax. The suffix may hold almost anything but
# white space; what a URL cannot carry plainly is refused with the unsafe characters below.
DOI_RE = re.compile(r"10\.\d{4,9}/\S+\Z")
# arXiv's identifiers: 2401.12345 (since 2015; four digits after the dot from 2007 to 2014) and the
# old archive/number form, hep-th/9901001 or math.GT/0309136, each optionally with a version.
ARXIV_ID_RE = re.compile(r"(?:\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\Z")
ARXIV_VERSION_RE = re.compile(r"v\d+\Z")
DOI_URL_RE = re.compile(r"https?://(?:dx\.)?doi\.org/(?P<id>10\..+)\Z", re.IGNORECASE)
ARXIV_URL_RE = re.compile(r"https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(?P<id>[^?#]+?)(?:\.pdf)?/?\Z",
                          re.IGNORECASE)
OPENREVIEW_URL_RE = re.compile(r"https?://(?:www\.)?openreview\.net/(?:forum|pdf)\?(?:[^#]*&)?id=(?P<id>[^&#]+)",
                               re.IGNORECASE)

LABELS = {"pdf": "PDF", "doi": "DOI", "arxiv": "arXiv", "openreview": "OpenReview", "url": "Web page"}
EXPECTED = {
    "doi": "a DOI like 10.5555/12345678 or an http(s) URL",
    "arxiv": "an arXiv id like 2401.12345 or an http(s) URL",
}


def is_web_url(value: str) -> bool:
    """A plain http(s) URL with a host: nothing a browser would repair unseen."""
    if not value or URL_UNSAFE_RE.search(value):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def link_problem(kind: str, value: str) -> str | None:
    """What is wrong with `value` as the `kind` link, or None when it is fine."""
    if is_web_url(value):
        return None
    if kind == "doi" and DOI_RE.match(value) and not URL_UNSAFE_RE.search(value):
        return None
    if kind == "arxiv" and ARXIV_ID_RE.match(value):
        return None
    return f"must be {EXPECTED.get(kind, 'an http(s) URL')}, got {value!r}"


def doi_of(value: str) -> str | None:
    """The bare DOI a `doi` link names (from a doi.org URL too), or None."""
    match = DOI_URL_RE.match(value)
    doi = unquote(match["id"]) if match else value
    return doi if DOI_RE.match(doi) and not URL_UNSAFE_RE.search(doi) else None


def arxiv_id_of(value: str) -> str | None:
    """The arXiv id, without its version, that an id or an arxiv.org URL names, or None."""
    match = ARXIV_URL_RE.match(value)
    arxiv_id = match["id"] if match else value
    return ARXIV_VERSION_RE.sub("", arxiv_id) if ARXIV_ID_RE.match(arxiv_id) else None


def openreview_id_of(value: str) -> str | None:
    """The note id of an openreview.net forum or pdf URL, or None."""
    match = OPENREVIEW_URL_RE.match(value)
    return unquote(match["id"]) if match else None


def link_href(kind: str, value: str) -> str:
    """The address a valid link points to: a DOI at doi.org, an arXiv id at its abstract page."""
    if kind == "doi" and not is_web_url(value):
        return "https://doi.org/" + quote(value, safe="/:;()")
    if kind == "arxiv" and not is_web_url(value):
        return "https://arxiv.org/abs/" + value
    return value


def link_text(kind: str, value: str) -> str:
    """How the paper page names a link: `DOI 10.5555/12345678`, `arXiv 2401.12345`, `PDF`, ..."""
    if kind == "doi" and (doi := doi_of(value)):
        return f"DOI {doi}"
    if kind == "arxiv" and (arxiv_id := arxiv_id_of(value)):
        return f"arXiv {arxiv_id}"
    return LABELS[kind]


def same_as(links: Links) -> list[str]:
    """The addresses that name the paper itself (schema.org `sameAs`): every link but the PDF, a file."""
    return [link_href(kind, value) for kind, value in links if kind != "pdf"]
