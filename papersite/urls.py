"""Every output path and URL pattern of the site, in one place.

Paths are relative to the site root, with "/" separators. Links between pages are
always relative (they work from file://, under any sub-path and at a domain root);
only canonical links, the sitemap and the feed are absolute, from `base_url`.
"""

from __future__ import annotations

import posixpath
from functools import lru_cache

HOME = "index.html"
TAG_INDEX = "tags/index.html"
# Author pages are authors/<slug>.html, the index's letters authors/letters/<letter>.html: a slug
# has no "/", so no author page can be a letter page, and none is `index` (inputs/names.py).
AUTHOR_INDEX = "authors/index.html"
# Names per page of a letter of the author index (about 80 bytes each): no letter page passes
# ~100 KB, whatever the collection's size.
AUTHORS_PER_PAGE = 1000
VENUE_INDEX = "venues/index.html"
SEARCH = "search.html"
NOT_FOUND = "404.html"
READING_LIST = "reading-list.html"
# The full topic map; the home page embeds it too while the collection is small (enrich/topicmap.py).
MAP = "map.html"
SITEMAP = "sitemap.xml"
# The sitemap protocol allows 50,000 URLs a file: a larger site's sitemap.xml is an index of parts.
SITEMAP_URLS_PER_FILE = 50_000
FEED = "feed.xml"
ROBOTS = "robots.txt"
NOJEKYLL = ".nojekyll"
BIBTEX = "papers.bib"
EXPORT_JSON = "papers.json"
# The `format` the JSON exports carry, which the downloads page names: a script checks it.
EXPORT_FORMAT = "papersite-papers/5"
# Every paper that gives the day it was added, newest day first: `added.html`, then `added/page-N.html`
# (only once papers have come on more than one day, as the home page's news).
ADDED = "added.html"
# The exports' own page: every BibTeX and JSON file, with what each holds.
DOWNLOADS = "downloads.html"
# From this many papers on, the exports come as a file per proceedings (exports/<venue>-<year>.bib and
# .json, listed in exports/index.json) instead of one file of the whole collection: a reference
# manager or a browser handles a conference's papers, not an anthology's hundreds of megabytes.
EXPORTS_SPLIT_FROM = 10_000
EXPORTS_INDEX = "exports/index.json"
ASSETS = "assets"
SEARCH_INDEX = "assets/search-index.js"
SEARCH_STORE = "assets/search-store.js"
# Every paper's BibTeX entry, which the reading list exports (enrich/bibtex.py): all in this file,
# or, for a larger site, this file names how many parts they are in (publish/search.py bibtex_scripts).
SEARCH_BIBTEX = "assets/search-bibtex.js"
LUNR_JS = "assets/vendor/lunr.js"
# Written into every output so a later build knows the directory is its own to replace.
MARKER = ".papersite-build"


def exports_split(papers: int) -> bool:
    """Whether a collection of this many papers has its exports per proceedings (EXPORTS_SPLIT_FROM)."""
    return papers >= EXPORTS_SPLIT_FROM


def author_bibtex_files(papers: int) -> bool:
    """Whether the build writes the BibTeX file of each author of several papers (`author_bibtex`):
    below EXPORTS_SPLIT_FROM papers. From there on their page makes it in the browser, from the
    reading list's entries (static/reading-list.js): at 100,000 papers the files were 79,398 and
    203 MB, a fifth of the site's files."""
    return not exports_split(papers)


def proceedings_export(venue_slug: str, year: int, kind: str) -> str:
    """One proceedings' exports (`kind`: "bib" or "json"), when a collection's exports are split."""
    return f"exports/{venue_slug}-{year}.{kind}"


def bibtex_part(number: int) -> str:
    """One part of the BibTeX entries the reading list exports (static/reading-list.js makes the same path)."""
    return f"assets/bibtex/{number}.js"


def sitemap_part(number: int) -> str:
    """One part of a sitemap too large for one file (numbered from 1), listed by sitemap.xml."""
    return f"sitemaps/sitemap-{number}.xml"


def paged(stem: str, page: int) -> str:
    """A paginated listing's page: `stem.html`, then `stem/page-N.html`."""
    return f"{stem}.html" if page == 1 else f"{stem}/page-{page}.html"


def paper_path(slug: str) -> str:
    return f"papers/{slug}.html"


def tag_path(slug: str, page: int = 1) -> str:
    return paged(f"tags/{slug}", page)


def tag_feed_path(slug: str) -> str:
    """A topic's Atom feed, beside its page."""
    return f"tags/{slug}.xml"


def author_path(slug: str) -> str:
    return f"authors/{slug}.html"


def author_bibtex(slug: str) -> str:
    """The BibTeX entries of an author's papers, linked from their page (an author of one paper links
    that paper's Cite box instead: `paper_cite`)."""
    return f"authors/{slug}.bib"


def paper_cite(slug: str) -> str:
    """A paper page's Cite box, its BibTeX entry."""
    return f"papers/{slug}.html#cite"


def author_letter_path(letter: str, page: int = 1) -> str:
    return paged(f"authors/letters/{letter}", page)


def venue_path(slug: str) -> str:
    return f"venues/{slug}.html"


def proceedings_path(venue_slug: str, year: int, page: int = 1) -> str:
    """A venue's papers of one year, as a table of contents."""
    return paged(f"venues/{venue_slug}/{year}", page)


def map_topic_path(key: str, page: int = 1) -> str:
    """A topic's own map (a MapGroup key), for collections too large for one linked map (enrich/topicmap.py)."""
    return paged(f"map/{key}", page)


def added_path(page: int = 1) -> str:
    return paged("added", page)


def home_path(page: int = 1) -> str:
    return HOME if page == 1 else f"browse/page-{page}.html"


def asset_path(name: str) -> str:
    return f"{ASSETS}/{name}"


def relative_url(from_path: str, to_path: str) -> str:
    """The relative link from one output page to another (or to `to_path#anchor`)."""
    return link_from(posixpath.dirname(from_path) or ".", from_path, to_path)


def link_from(start: str, from_path: str, to_path: str) -> str:
    """`relative_url` from the page `from_path`, whose directory is `start`. A file's name is joined
    to the link between the two directories, made once for each pair: a site links hundreds of
    thousands of pages, in a few dozen directories (bench/README.md). A name that is also one of
    `start`'s directories could shorten the link, and takes the general route."""
    target, _, anchor = to_path.partition("#")
    if not target:
        rel = posixpath.basename(from_path)
    else:
        directory, _, name = target.rpartition("/")
        if name not in ("", ".", "..") and f"/{name}/" not in f"/{start}/":
            up = _relpath(directory or ".", start)
            rel = name if up == "." else f"{up}/{name}"
        else:
            rel = _relpath(target, start)
    return f"{rel}#{anchor}" if anchor else rel


class Links:
    """`relative_url` for one build's pages, each directory's links made once: a page's ~80 links
    (sidebar, listings) are the same strings as its neighbours'."""

    def __init__(self) -> None:
        self.by_directory: dict[str, dict[str, str]] = {}

    def from_page(self, from_path: str):
        """`relative_url` bound to the page at `from_path`."""
        start = posixpath.dirname(from_path) or "."
        cache = self.by_directory.setdefault(start, {})

        def url(to_path: str) -> str:
            found = cache.get(to_path)
            if found is None:
                found = link_from(start, from_path, to_path)
                if to_path.partition("#")[0]:  # "" and "#anchor" point into the page itself, so depend on its name
                    cache[to_path] = found
            return found

        return url

    def from_directory(self, directory: str):
        """`relative_url` from any page of `directory` ("" for the root): a link to the page itself
        is "" (or "#anchor"), the same for every page there."""
        return self.from_page(posixpath.join(directory, ""))


@lru_cache(maxsize=1 << 16)
def _relpath(target: str, start: str) -> str:
    """posixpath.relpath for site paths, without its two os.getcwd() calls per link (a page
    has dozens of links, a conference's site hundreds of thousands). Paths with "..", or absolute ones, take
    the general route."""
    if target.startswith("/") or start.startswith("/") or ".." in target or ".." in start:
        return posixpath.relpath(target, start)
    to = [part for part in target.split("/") if part and part != "."]
    here = [part for part in start.split("/") if part and part != "."]
    common = 0
    while common < len(to) and common < len(here) and to[common] == here[common]:
        common += 1
    return "/".join([".."] * (len(here) - common) + to[common:]) or "."


def root_prefix(from_path: str) -> str:
    """"" for pages at the root, "../" per directory level below it."""
    return "../" * from_path.count("/")


def absolute_url(base_url: str, path: str) -> str:
    """base_url ends with "/"; the home page is the bare base URL, as people share it."""
    return base_url if path == HOME else base_url + path
