"""Every output path and URL pattern of the site, in one place.

Paths are relative to the site root, with "/" separators. Links between pages are
always relative (they work from file://, under any sub-path and at a domain root);
only canonical links, the sitemap and the feed are absolute, from `base_url`.
"""

from __future__ import annotations

import posixpath

HOME = "index.html"
TAG_INDEX = "tags/index.html"
SEARCH = "search.html"
NOT_FOUND = "404.html"
READING_LIST = "reading-list.html"
SITEMAP = "sitemap.xml"
FEED = "feed.xml"
ROBOTS = "robots.txt"
NOJEKYLL = ".nojekyll"
BIBTEX = "papers.bib"
EXPORT_JSON = "papers.json"
ASSETS = "assets"
SEARCH_INDEX = "assets/search-index.js"
SEARCH_STORE = "assets/search-store.js"
LUNR_JS = "assets/vendor/lunr.js"
# Written into every output so a later build knows the directory is its own to replace.
MARKER = ".papersite-build"


def paper_path(slug: str) -> str:
    return f"papers/{slug}.html"


def tag_path(slug: str, page: int = 1) -> str:
    return f"tags/{slug}.html" if page == 1 else f"tags/{slug}/page-{page}.html"


def home_path(page: int = 1) -> str:
    return HOME if page == 1 else f"browse/page-{page}.html"


def asset_path(name: str) -> str:
    return f"{ASSETS}/{name}"


def relative_url(from_path: str, to_path: str) -> str:
    """The relative link from one output page to another (or to `to_path#anchor`)."""
    target, _, anchor = to_path.partition("#")
    start = posixpath.dirname(from_path) or "."
    rel = posixpath.relpath(target, start) if target else posixpath.basename(from_path)
    return f"{rel}#{anchor}" if anchor else rel


def root_prefix(from_path: str) -> str:
    """"" for pages at the root, "../" per directory level below it."""
    return "../" * from_path.count("/")


def absolute_url(base_url: str, path: str) -> str:
    """base_url ends with "/"; the home page is the bare base URL, as people share it."""
    return base_url if path == HOME else base_url + path
