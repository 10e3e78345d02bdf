"""The files that make the site a citizen of the web: sitemap, Atom feed, robots.txt,
.nojekyll, and the papers as BibTeX and JSON.

Pure functions over the rendered site, returning {output path: text}. Deterministic:
sorted iteration and no clock. The feed's dates come from the papers (their year as
1 January), because a paper has no other date and a build timestamp would make two
builds of the same content differ.

Without `base_url` there are no absolute URLs, so the sitemap and feed are left out
(the build gives one note; see `BASE_URL_NOTE`); everything else is written always.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping

from . import citation, urls
from .bibtex import bibtex_file
from .cache import memoize
from .citation import tag_names
from .model import Paper

ATOM_NS = "http://www.w3.org/2005/Atom"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
# /2: a paper's title and abstract are given once, as written (Markdown); /1 also gave them as plain text.
EXPORT_FORMAT = "papersite-papers/2"
# A feed is polled often: it carries the newest papers, not the whole archive
# (papers.json and the sitemap carry everything).
FEED_LIMIT = 100
# The sitemap protocol allows 50,000 URLs per file.
SITEMAP_LIMIT = 50_000
BASE_URL_NOTE = ("base_url is not set, so sitemap.xml, feed.xml and canonical links are left out "
                 "(set base_url in the config or pass --base-url)")

_NOINDEX = re.compile(r"""<meta\s+name=["']robots["']\s+content=["'][^"']*noindex""", re.IGNORECASE)
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def export_files(site) -> dict[str, str | bytes]:
    """Everything beside the pages that reads only the papers' text (not their related papers
    or the rendered pages): made in a worker while the pages render."""
    files: dict[str, str | bytes] = {
        urls.NOJEKYLL: "",
        urls.ROBOTS: robots_txt(site.config.base_url),
        urls.BIBTEX: bibtex_file([p.paper for p in site.papers], site.config, tag_names(site), citation.keys(site)),
        urls.EXPORT_JSON: papers_json(site),
    }
    if site.config.base_url:
        files[urls.FEED] = atom_feed(site)
    return files


def sitemap_files(site, indexable: list[str]) -> dict[str, str]:
    """The sitemap of the `indexable` pages (see `indexable_pages`), when there is a base_url."""
    if not site.config.base_url:
        return {}
    return {urls.SITEMAP: sitemap_xml(site.config.base_url, indexable)}


def indexable_pages(pages: Mapping[str, bool]) -> list[str]:
    """Pages a search engine should list, from {HTML page: whether it is indexable}: the home page first."""
    return sorted((path for path, ok in pages.items() if ok and path != urls.NOT_FOUND), key=lambda p: (p != urls.HOME, p))


def is_indexable(html: str | bytes) -> bool:
    """False for a page whose head says noindex (alias redirects)."""
    head = html if isinstance(html, str) else html.decode("utf-8", "replace")
    head = head[: head.find("</head>")] if "</head>" in head else head
    return not _NOINDEX.search(head)


def robots_txt(base_url: str | None) -> str:
    lines = ["# Every page of this site may be indexed.", "User-agent: *", "Allow: /"]
    if base_url:
        lines.append(f"Sitemap: {urls.absolute_url(base_url, urls.SITEMAP)}")
    return "\n".join(lines) + "\n"


def xml_text(text: str) -> str:
    """Text XML 1.0 can carry: control characters and lone surrogates dropped."""
    return _XML_INVALID.sub("", text)


def serialise(root: ET.Element) -> str:
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def sitemap_xml(base_url: str, paths: list[str]) -> str:
    if len(paths) > SITEMAP_LIMIT:
        # A sitemap index would be needed; list the first SITEMAP_LIMIT (home and papers sort early).
        paths = paths[:SITEMAP_LIMIT]
    root = ET.Element("urlset", {"xmlns": SITEMAP_NS})
    for path in paths:
        ET.SubElement(ET.SubElement(root, "url"), "loc").text = xml_text(urls.absolute_url(base_url, path))
    return serialise(root)


def year_date(year: int) -> str:
    """An RFC 3339 date for a paper that only has a year: 1 January, midnight UTC."""
    return f"{max(1, min(year, 9999)):04d}-01-01T00:00:00Z"


def feed_papers(site) -> list:
    """The newest papers first: by year, then by position in the site (later added, later listed)."""
    order = {id(page): i for i, page in enumerate(site.papers)}
    return sorted(site.papers, key=lambda p: (-p.paper.year, -order[id(p)]))[:FEED_LIMIT]


def atom_feed(site) -> str:
    config = site.config
    base = config.base_url
    names = tag_names(site)
    papers = feed_papers(site)
    root = ET.Element("feed", {"xmlns": ATOM_NS, "xml:lang": config.language})
    ET.SubElement(root, "title").text = xml_text(config.title)
    ET.SubElement(root, "subtitle").text = xml_text(config.description)
    ET.SubElement(root, "id").text = xml_text(base)
    ET.SubElement(root, "link", {"rel": "self", "type": "application/atom+xml", "href": xml_text(base + urls.FEED)})
    ET.SubElement(root, "link", {"rel": "alternate", "type": "text/html", "href": xml_text(base)})
    updated = max((p.paper.year for p in site.papers), default=1970)
    ET.SubElement(root, "updated").text = year_date(updated)
    ET.SubElement(ET.SubElement(root, "author"), "name").text = xml_text(config.title)
    ET.SubElement(root, "generator").text = "papersite"
    for page in papers:
        paper = page.paper
        link = urls.absolute_url(base, urls.paper_path(paper.slug))
        entry = ET.SubElement(root, "entry")
        ET.SubElement(entry, "title").text = xml_text(page.title_text)
        ET.SubElement(entry, "id").text = xml_text(link)
        ET.SubElement(entry, "link", {"rel": "alternate", "type": "text/html", "href": xml_text(link)})
        ET.SubElement(entry, "updated").text = year_date(paper.year)
        ET.SubElement(entry, "published").text = year_date(paper.year)
        for author in paper.authors:
            ET.SubElement(ET.SubElement(entry, "author"), "name").text = xml_text(author)
        for slug in paper.tags:
            ET.SubElement(entry, "category", {"term": slug, "label": xml_text(names.get(slug, slug))})
        ET.SubElement(entry, "summary", {"type": "text"}).text = xml_text(page.text)
    return serialise(root)


def papers_json(site) -> bytes:
    """Every paper's metadata, for scripts and other tools: one paper per line (a diff shows which
    papers changed, and the C JSON encoder writes compact lines ~10x faster than indented ones).
    Stable key order, UTF-8. Joined as bytes: a str of every abstract would be 4 bytes a character."""
    config = site.config
    keys = citation.keys(site)
    counts = {listing.tag.slug: len(listing.papers) for listing in site.tags}
    site_info = {"title": config.title, "description": config.description, "base_url": config.base_url,
                 "language": config.language}
    tags = [{"slug": listing.tag.slug, "name": listing.tag.name, "description": listing.tag.description,
             "papers": counts[listing.tag.slug]} for listing in site.tags]
    papers = [paper_json(page.paper, page.words, keys[page.paper.slug], config.base_url) for page in site.papers]
    return b"\n".join([
        b"{",
        b' "format": ' + json_line(EXPORT_FORMAT) + b",",
        b' "site": ' + json_line(site_info) + b",",
        b' "tags": ' + json_array([json_line(tag) for tag in tags]) + b",",
        b' "papers": ' + json_array(papers),
        b"}",
    ]) + b"\n"


@memoize("publish.paper_json")
def paper_json(paper: Paper, words: int, bibtex_key: str, base_url: str | None) -> bytes:
    """One paper's line of papers.json (kept in the build cache: an edit encodes the papers it changed).

    The title and abstract are the author's text, Markdown with `$math$`, and only that: the plain
    text the pages derive from it would repeat every abstract (and most titles) nearly word for word.
    `path` and `url` both stay: `url`, the absolute link a tool that cites the paper wants, is null
    without a base_url, and `path` is then the only address."""
    path = urls.paper_path(paper.slug)
    return json_line({
        "id": paper.id,
        "slug": paper.slug,
        "title_markdown": paper.title,
        "title_source": paper.title_source,
        "venue": paper.venue,
        "year": paper.year,
        "authors": list(paper.authors),
        "tags": list(paper.tags),
        "code": list(paper.code),
        "aliases": list(paper.aliases),
        "path": path,
        "url": urls.absolute_url(base_url, path) if base_url else None,
        "abstract_markdown": paper.body,
        "words": words,
        "bibtex_key": bibtex_key,
    })


def json_line(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8")


def json_array(items: list[bytes]) -> bytes:
    """A JSON array of encoded items, one per line."""
    if not items:
        return b"[]"
    return b"[\n  " + b",\n  ".join(items) + b"\n ]"
