"""Stage 5: the Lunr search index and the result store, shipped as self-registering JS files.

A `fetch` of JSON fails under file://, so each file assigns a global instead.
"""

from __future__ import annotations

import json

from lunr import lunr

from . import urls
from .render import SiteData


def search_documents(site: SiteData) -> list[dict]:
    names = {listing.tag.slug: listing.tag.name for listing in site.tags}
    return [
        {
            "ref": page.paper.slug,
            "title": page.title_text,
            "tags": " ".join(names[t] for t in page.paper.tags),
            "authors": " ".join(page.paper.authors),
            "body": page.text,
        }
        for page in site.papers
    ]


def build_search_files(site: SiteData) -> dict[str, str]:
    docs = search_documents(site)
    index = lunr(
        ref="ref",
        fields=[{"field_name": "title", "boost": 10}, {"field_name": "tags", "boost": 5},
                {"field_name": "authors", "boost": 3}, "body"],
        documents=docs,
    )
    store = {
        page.paper.slug: {"t": page.title_text, "u": urls.paper_path(page.paper.slug),
                          "g": list(page.paper.tags), "s": page.summary}
        for page in site.papers
    }
    return {
        urls.SEARCH_INDEX: "window.PAPERSITE_INDEX = " + to_json(index.serialize()) + ";\n",
        urls.SEARCH_STORE: "window.PAPERSITE_STORE = " + to_json(store) + ";\n",
    }


def to_json(value) -> str:
    # "</" escaped so no string in the data can close a <script> element.
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
