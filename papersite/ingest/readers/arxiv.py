"""arXiv API answers: an Atom feed, one `entry` a paper, read with the standard SAX parser through defusedxml.

Each entry gives its `title`, `summary`, `author/name`s, `published` (the year), the arXiv id (in
`id`, which also makes the pdf link: https, the latest version), `arxiv:doi` and `arxiv:primary_category` (kept as a keyword, for tagging).
The venue is "arXiv" unless --venue names another. SAX, not a tree, because its locator gives
each entry's line; defusedxml refuses entity expansion and external references.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from io import BytesIO
from xml.sax import InputSource, SAXParseException
from xml.sax.handler import ContentHandler, feature_namespaces

from defusedxml import DefusedXmlException
from defusedxml.sax import make_parser

from ...enrich.venues import ARXIV_VENUE
from ...errors import Report, SiteError
from ...inputs.links import arxiv_id_of
from ..records import Defaults, RawRecord, arxiv_paragraphs, clean_abstract, clean_names, clean_text, collect_links, source_vocabulary, year_in

ATOM = "http://www.w3.org/2005/Atom"
ARXIV = "http://arxiv.org/schemas/atom"
FEED, ENTRY = (ATOM, "feed"), (ATOM, "entry")
# The entry's children whose text is kept.
TEXT_FIELDS = {(ATOM, "id"): "id", (ATOM, "title"): "title", (ATOM, "summary"): "summary",
               (ATOM, "published"): "published", (ARXIV, "doi"): "doi"}


@dataclass
class AtomEntry:
    """What one `entry` holds, as the parser meets it."""

    line: int
    texts: dict[str, str] = field(default_factory=dict)
    authors: list[str] = field(default_factory=list)
    links: list[dict[str, str]] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)   # the primary category first


class FeedHandler(ContentHandler):
    """Collects the feed's entries; everything outside them, and unknown elements inside, is passed over."""

    def __init__(self) -> None:
        super().__init__()
        self.locator = None
        self.root: tuple[str | None, str] | None = None
        self.path: list[tuple[str | None, str]] = []
        self.entries: list[AtomEntry] = []
        self.entry: AtomEntry | None = None
        self.text: list[str] = []

    def setDocumentLocator(self, locator) -> None:
        self.locator = locator

    def startElementNS(self, name, qname, attrs) -> None:
        self.root = self.root or name
        self.path.append(name)
        self.text = []
        if name == ENTRY and self.path[:1] == [FEED] and len(self.path) == 2:
            self.entry = AtomEntry(self.locator.getLineNumber())
        elif self.entry is None:
            return
        elif name == (ATOM, "link"):
            self.entry.links.append({local: value for (_, local), value in attrs.items()})
        elif name == (ARXIV, "primary_category") and attrs.get((None, "term")):
            self.entry.categories.insert(0, attrs[(None, "term")])
        elif name == (ATOM, "category") and attrs.get((None, "term")):
            self.entry.categories.append(attrs[(None, "term")])

    def characters(self, content: str) -> None:
        self.text.append(content)

    def endElementNS(self, name, qname) -> None:
        text = "".join(self.text)
        self.text = []
        if self.entry is not None:
            if name == ENTRY and len(self.path) == 2:
                self.entries.append(self.entry)
                self.entry = None
            elif len(self.path) == 3 and name in TEXT_FIELDS:
                self.entry.texts[TEXT_FIELDS[name]] = text
            elif name == (ATOM, "name") and self.path[-2:-1] == [(ATOM, "author")]:
                self.entry.authors.append(text)
        self.path.pop()


def parse_feed(text: str, shown: str) -> FeedHandler:
    handler = FeedHandler()
    parser = make_parser()
    parser.setFeature(feature_namespaces, True)
    parser.setContentHandler(handler)
    source = InputSource(shown)
    source.setByteStream(BytesIO(text.encode("utf-8")))
    try:
        parser.parse(source)
    except SAXParseException as exc:
        raise SiteError.at(shown, exc.getLineNumber(), f"not well-formed XML: {exc.getMessage()}") from None
    except DefusedXmlException as exc:
        raise SiteError.at(shown, None, f"refused XML: {exc} (a feed needs no DTD or entities)") from None
    if handler.root != FEED:
        local = handler.root[1] if handler.root else "none"
        raise SiteError.at(shown, 1, f"not an Atom feed as the arXiv API gives it: the root element is <{local}>, not <feed>")
    return handler


def read_arxiv(text: str, shown: str, report: Report, defaults: Defaults = Defaults()) -> list[RawRecord]:
    feed = parse_feed(text, shown)
    vocabulary = source_vocabulary(text)
    records = []
    for entry in feed.entries:
        record = entry_record(entry, shown, report, defaults, vocabulary)
        if record is not None:
            records.append(record)
    if not records and not report.errors:
        raise SiteError.at(shown, 1, "the feed has no entries")
    return records


def entry_record(entry: AtomEntry, shown: str, report: Report, defaults: Defaults, vocabulary: frozenset[str]) -> RawRecord | None:
    line, texts = entry.line, entry.texts
    # The API answers a bad query with a feed whose one entry is the error.
    if "/api/errors" in texts.get("id", ""):
        report.error(shown, line, f"the arXiv API answered with an error: {' '.join(texts.get('summary', '').split())}")
        return None
    arxiv_id = arxiv_id_of(texts.get("id", "").strip())
    problems = [f"'{name}' is missing or empty" for name in ("title", "summary") if not texts.get(name, "").strip()]
    if arxiv_id is None:
        problems.append(f"'id' {texts.get('id', '')!r} is not an arXiv abstract address")
    year = year_in(texts.get("published", "")) or defaults.year
    if year is None:
        problems.append("'published' gives no year (pass --year)")
    for problem in problems:
        report.error(shown, line, f"entry: {problem}")
    if problems:
        return None
    # The paper's PDF as its abstract page links it: the latest version over https, as the snapshot
    # reader writes it (the feed gives http and the version it was fetched at).
    pdf = f"https://arxiv.org/pdf/{arxiv_id}"
    doi_link = next((link.get("href", "") for link in entry.links if link.get("title") == "doi"), "")
    return RawRecord(
        line=line,
        abstract=clean_abstract(arxiv_paragraphs(texts["summary"]), shown, line, report, vocabulary),
        title=clean_text(texts["title"], shown, line, report),
        authors=clean_names(entry.authors, shown, line, report),
        keywords=clean_names(entry.categories, shown, line, report),
        venue=defaults.venue or ARXIV_VENUE,
        year=year,
        source_id=arxiv_id,
        links=collect_links([("arxiv", arxiv_id), ("pdf", pdf), ("doi", texts.get("doi", "")), ("doi", doi_link)],
                            shown, line, report),
    )
