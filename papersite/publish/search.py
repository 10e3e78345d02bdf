"""The search files: the Lunr index, the result store and the BibTeX entries, as self-registering scripts.

A `fetch` of JSON fails under file://, so each file assigns a global instead, and the browser
loads it with a <script> element the first time it is needed: static/search.js loads the index
and the store when the search box is first used, static/reading-list.js the BibTeX entries when
a list is exported (so the export gives the build's own entries, the ones papers.bib holds).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .. import urls
from ..enrich.listings import Site
from .lunr_index import build_index
from .search_codec import encode_index

STORE_FORMAT = 1
INDEX_GLOBAL = "PAPERSITE_INDEX"
STORE_GLOBAL = "PAPERSITE_STORE"
BIBTEX_GLOBAL = "PAPERSITE_BIBTEX"


def build_search_files(site: Site, entries: Sequence[str],
                       previous: dict[bytes, tuple] | None = None) -> tuple[dict[str, str], dict[bytes, tuple]]:
    """The files (`entries`: each paper's BibTeX entry, in site order), and each paper's term
    counts for the next build (`previous`: the last build's)."""
    index = build_index(search_documents(site), previous)
    files = {
        urls.SEARCH_INDEX: js_global(INDEX_GLOBAL, encode_index(index)),
        urls.SEARCH_STORE: js_global(STORE_GLOBAL, build_store(site)),
        urls.SEARCH_BIBTEX: js_global(BIBTEX_GLOBAL, {page.paper.slug: entry for page, entry in zip(site.papers, entries)}),
    }
    return files, index.builder.counted


def search_documents(site: Site) -> list[dict]:
    names = site.tag_names()
    return [
        {
            "ref": page.paper.slug,
            "title": page.title_text,
            "tags": " ".join(names.get(t, t) for t in page.paper.tags),
            "authors": " ".join(page.paper.authors),
            "body": page.text,
        }
        for page in site.papers
    ]


def build_store(site: Site) -> dict:
    """What a result shows without loading the paper page.

    docs[ref] = [title, URL, tag slugs, summary]; tags[slug] = [name, URL]; URLs are relative
    to the site root, as are `search` (the results page) and `tagIndex`.
    """
    return {
        "v": STORE_FORMAT,
        "search": urls.SEARCH,
        "tagIndex": urls.TAG_INDEX,
        "tags": {listing.tag.slug: [listing.tag.name, urls.tag_path(listing.tag.slug)] for listing in site.tags},
        "docs": {
            page.paper.slug: [page.title_text, urls.paper_path(page.paper.slug), list(page.paper.tags), page.summary]
            for page in site.papers
        },
    }


def js_global(name: str, value) -> str:
    """`window.NAME = JSON.parse('...')`: a script that registers the data. V8 and the other engines
    read a large JSON string much faster than the same data as an object literal."""
    literal = to_json(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"window.{name} = JSON.parse('{literal}');\n"


def to_json(value) -> str:
    # "</" escaped so no string in the data can close a <script> element.
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
