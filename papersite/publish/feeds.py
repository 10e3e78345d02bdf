"""The files that make the site a citizen of the web: sitemap, Atom feed, robots.txt and .nojekyll.

Pure functions, returning {output path: text}. Deterministic: sorted iteration and no clock.
The feed's dates come from the papers: the day each joined the site (`added`, which `import`
writes), else its year as 1 January. A build timestamp would make two builds of the same content
differ.

Without `base_url` there are no absolute URLs, so the sitemap and feed are left out (the build
gives one note; see `BASE_URL_NOTE`); robots.txt and .nojekyll are written always.
"""

from __future__ import annotations

import heapq
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from functools import partial
from html import escape

from .. import urls
from ..digests import digest, fingerprint, text_digest
from ..enrich.listings import Site
from ..model import Paper, SiteConfig
from ..output import Deferred, Made, MadeTogether, file_digest, made_once
from ..render.specs import Spec
from ..text.chars import XML_INVALID_RE

ATOM_NS = "http://www.w3.org/2005/Atom"
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
# A feed is polled often: it carries the newest papers, not the whole archive
# (papers.json and the sitemap carry everything).
FEED_LIMIT = 100
BASE_URL_NOTE = ("base_url is not set, so sitemap.xml, feed.xml and canonical links are left out "
                 "(set base_url in the config or pass --base-url)")


# The feeds a build made, for the next: each feed's path -> what it was made from and its digest.
FeedMemo = dict[str, Made]


def feed_files(site: Site, previous: FeedMemo | None = None) -> tuple[dict[str, str | Deferred], FeedMemo]:
    """robots.txt, .nojekyll and, with a base_url, the Atom feeds: the site's, and one per topic
    that has papers (`tags/<slug>.xml`: new papers on reinforcement learning, as arXiv has a feed
    per category); and their memo. A feed whose papers and words are the `previous` build's is
    Deferred: an edit writes the few feeds its paper is in, not fifty (a third of a 5,000-paper
    edit's time when each was made again, bench/README.md)."""
    config = site.config
    files: dict[str, str | Deferred] = {urls.NOJEKYLL: "", urls.ROBOTS: robots_txt(config.base_url)}
    memo: FeedMemo = {}
    if not config.base_url:
        return files, memo
    previous = previous or {}
    names = site.tag_names()
    shared = fingerprint((config.base_url, config.language, config.title, sorted(names.items())))
    feeds = [(urls.FEED, site.papers, config.title, config.description, urls.HOME)]
    feeds += [(urls.tag_feed_path(listing.tag.slug), listing.papers, f"{config.title}: {listing.tag.name}",
               listing.tag.description, urls.tag_path(listing.tag.slug)) for listing in site.tags if listing.papers]
    for path, listed, title, subtitle, page_path in feeds:
        papers = feed_papers(listed)
        versions = [page.version for page in papers]
        # A paper's page data's version covers all an entry shows of it (PaperPage.version).
        made_from = digest(shared + text_digest(title, subtitle, page_path) + b"".join(versions)) if all(versions) else None
        files[path], made = made_once(partial(atom_feed, config, names, papers, title, subtitle, path, page_path),
                                      made_from, previous.get(path))
        if made is not None:
            memo[path] = made
    return files, memo


# The sitemaps a build made, for the next: (the digest of what they list, each file's digest).
SitemapMemo = tuple[bytes, dict[str, bytes]]


def sitemap_files(config: SiteConfig, plan: Sequence[Spec], previous: SitemapMemo | None = None
                  ) -> tuple[dict[str, str | Deferred], SitemapMemo | None]:
    """The sitemaps (`sitemaps`) when there is a base_url, and their memo for the next build. When
    the `previous` build made them of the same address and pages, they are Deferred: an edit, which
    adds no page, does not write out 274,000 addresses again (at 100,000 papers)."""
    if not config.base_url:
        return {}, None
    indexable = [spec.path for spec in plan if spec.indexable]
    made_from = text_digest(config.base_url, *indexable)
    make = partial(sitemaps, config.base_url, indexable)
    if previous is not None and previous[0] == made_from:
        together = MadeTogether(lambda _: make(), previous[1])   # every file at once, for the first an output lacks
        return {name: Deferred(known, partial(together, name)) for name, known in previous[1].items()}, previous
    files = make()
    return files, (made_from, {name: file_digest(text) for name, text in files.items()})


def sitemaps(base: str, paths: Sequence[str]) -> dict[str, str]:
    """The sitemap of `paths` (the plan's indexable pages), the home page first: one file, or above
    SITEMAP_URLS_PER_FILE pages an index (sitemap.xml, which robots.txt names) of parts."""
    indexable = sorted(paths, key=lambda p: (p != urls.HOME, p))
    size = urls.SITEMAP_URLS_PER_FILE
    if len(indexable) <= size:
        return {urls.SITEMAP: sitemap_xml(base, indexable)}
    parts = {urls.sitemap_part(n + 1): sitemap_xml(base, indexable[start:start + size])
             for n, start in enumerate(range(0, len(indexable), size))}
    return {urls.SITEMAP: sitemap_index_xml(base, list(parts)), **parts}


def robots_txt(base_url: str | None) -> str:
    lines = ["# Every page of this site may be indexed.", "User-agent: *", "Allow: /"]
    if base_url:
        lines.append(f"Sitemap: {urls.absolute_url(base_url, urls.SITEMAP)}")
    return "\n".join(lines) + "\n"


def xml_text(text: str) -> str:
    """Text XML 1.0 can carry: control characters and lone surrogates dropped."""
    return XML_INVALID_RE.sub("", text)


def serialise(root: ET.Element) -> str:
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def sitemap_xml(base_url: str, paths: list[str]) -> str:
    return xml_list("urlset", "url", base_url, paths)


def sitemap_index_xml(base_url: str, parts: list[str]) -> str:
    return xml_list("sitemapindex", "sitemap", base_url, parts)


def xml_list(root: str, item: str, base_url: str, paths: list[str]) -> str:
    """A sitemap's locations, as ElementTree would indent them, written as text: at 100,000 papers a
    sitemap has hundreds of thousands of elements, which ElementTree takes seconds to build and write."""
    lines = [f'<?xml version="1.0" encoding="utf-8"?>\n<{root} xmlns="{SITEMAP_NS}">']
    for path in paths:
        lines.append(f" <{item}>\n  <loc>{escape(xml_text(urls.absolute_url(base_url, path)), quote=False)}</loc>\n </{item}>")
    lines.append(f"</{root}>\n")
    return "\n".join(lines)


def year_date(year: int) -> str:
    """An RFC 3339 date for a paper that only has a year: 1 January, midnight UTC."""
    return f"{max(1, min(year, 9999)):04d}-01-01T00:00:00Z"


def entry_date(paper: Paper) -> str:
    """When a paper came to the feed: the day it was added, midnight UTC, else its year's first day."""
    return f"{paper.added}T00:00:00Z" if paper.added else year_date(paper.year)


def feed_papers(papers: Sequence) -> list:
    """The newest first: by the day added (a 2017 paper added today is news; with only years, the
    year), then by position in the listing (later added, later listed)."""
    return [page for _, _, page in heapq.nlargest(FEED_LIMIT, ((entry_date(page.paper), i, page) for i, page in enumerate(papers)),
                                                   key=lambda entry: entry[:2])]


def atom_feed(config: SiteConfig, names: Mapping[str, str], papers: Sequence, title: str, subtitle: str,
              self_path: str, page_path: str) -> str:
    """The Atom feed of `papers` (feed_papers' choice), whose page is `page_path` (its id) and which lives at `self_path`."""
    base = config.base_url
    page_url = urls.absolute_url(base, page_path)
    root = ET.Element("feed", {"xmlns": ATOM_NS, "xml:lang": config.language})
    ET.SubElement(root, "title").text = xml_text(title)
    ET.SubElement(root, "subtitle").text = xml_text(subtitle)
    ET.SubElement(root, "id").text = xml_text(page_url)
    ET.SubElement(root, "link", {"rel": "self", "type": "application/atom+xml", "href": xml_text(base + self_path)})
    ET.SubElement(root, "link", {"rel": "alternate", "type": "text/html", "href": xml_text(page_url)})
    ET.SubElement(root, "updated").text = entry_date(papers[0].paper) if papers else year_date(1970)
    ET.SubElement(ET.SubElement(root, "author"), "name").text = xml_text(config.title)
    ET.SubElement(root, "generator").text = "papersite"
    for page in papers:
        paper = page.paper
        link = urls.absolute_url(base, urls.paper_path(paper.slug))
        entry = ET.SubElement(root, "entry")
        ET.SubElement(entry, "title").text = xml_text(page.title_text)
        ET.SubElement(entry, "id").text = xml_text(link)
        ET.SubElement(entry, "link", {"rel": "alternate", "type": "text/html", "href": xml_text(link)})
        ET.SubElement(entry, "updated").text = entry_date(paper)
        ET.SubElement(entry, "published").text = entry_date(paper)
        for author in paper.authors:
            ET.SubElement(ET.SubElement(entry, "author"), "name").text = xml_text(author)
        for slug in paper.tags:
            ET.SubElement(entry, "category", {"term": slug, "label": xml_text(names.get(slug, slug))})
        ET.SubElement(entry, "summary", {"type": "text"}).text = xml_text(page.text)
    return serialise(root)
