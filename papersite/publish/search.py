"""The search files: the Lunr index, the result store and the BibTeX entries, as self-registering scripts.

A `fetch` of JSON fails under file://, so each file assigns a global instead, and the browser
loads it with a <script> element the first time it is needed: static/search.js loads the search
when a search box is first used, static/reading-list.js the BibTeX entries when a list is
exported (so the export gives the build's own entries, the ones papers.bib holds; a large site's
in parts, of which an export loads those of its papers: `bibtex_scripts`).

Two shapes, by size:

- Below SHARD_FROM papers, one index and one store (`assets/search-index.js`, the compact
  encoding of search_codec.py; `assets/search-store.js`): one small download, then every query
  is local.
- From SHARD_FROM papers, term shards and store chunks under `assets/search/`
  (search_shards.py): the first query loads a few small files, not the whole index. The two
  files keep their names: `search-index.js` holds the shards' meta (`{"shards": ...}`) and
  `search-store.js` what every result list needs but no documents, so the browser always starts
  with the same two files and learns the shape from the first.

Both are made from the same term counts (search_terms.py), which the worker keeps between builds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from functools import partial

import numpy as np
from lunr.pipeline import Pipeline

from .. import urls
from ..digests import digest, fingerprint, text_digest
from ..enrich.listings import PaperPage, Site
from ..output import Deferred, Made, MadeTogether, made_once
from .lunr_index import SEARCH_PIPELINE
from .search_codec import encode_index
from .search_shards import GLOBAL as SHARD_GLOBAL
from .search_shards import Layout, Shards, plan_shards, script_path, tag_documents
from .search_terms import FIELD_NAMES, TermCounts, changed_terms, count_keyed_terms, keyed_documents

STORE_FORMAT = 1
INDEX_GLOBAL = "PAPERSITE_INDEX"
STORE_GLOBAL = "PAPERSITE_STORE"
BIBTEX_GLOBAL = "PAPERSITE_BIBTEX"
BIBTEX_PARTS_GLOBAL = "PAPERSITE_BIBTEX_PARTS"
# About this many BibTeX entries a part (~14 KB, ~3.5 KB gzip at 100,000 papers): exporting a
# reading list of a 100,000-paper site loads its papers' parts, not 51 MB of entries, and an
# author's BibTeX there (templates/author.html) loads one part for nearly each of their papers:
# 186 papers, 180 parts and 0.6 MB gzip; with parts of 200 entries, 158 parts and 3.4 MB
# (bench/README.md).
BIBTEX_PER_PART = 25
# From this many papers the index is sharded. One index and store of 1,000 papers are about
# 240 KB gzip, the most the first query of a large site loads (bench/README.md, "Search").
SHARD_FROM = 1000
BYLINE_AUTHORS = 3   # as templates/partials/paper_list.html shows them


# The result store's chunks made by a build, for the next: chunk name -> (the digest of its papers'
# page versions, the digest of its file).
ChunkMemo = dict[str, Made]


def build_search_files(site: Site, previous: dict | None = None, shard_from: int = SHARD_FROM,
                       layout: Layout = Layout()) -> tuple[dict[str, str | Deferred], dict]:
    """The index and store files, and the state for the next build (`previous`: the last build's):
    each paper's term counts and, in a sharded index, what made each shard and store chunk."""
    previous = previous or {}
    pipeline = search_pipeline_names()
    files: dict[str, str | Deferred] = {}
    if len(site.papers) < shard_from:
        counts, counted, _ = count_search_terms(site.papers, site.tag_names(), previous.get("terms"))
        files[urls.SEARCH_INDEX] = js_global(INDEX_GLOBAL, encode_index(counts, pipeline))
        files[urls.SEARCH_STORE] = js_global(STORE_GLOBAL, build_store(site))
        return files, {"terms": counted, "chunks": {}, "shards": {}}
    # A large index numbers its documents in reverse site order, oldest first (search_shards.py):
    # a new volume, first on the site, is numbered last, and leaves the other numbers as they were.
    papers = site.papers[::-1]
    counts, counted, keys = count_search_terms(papers, site.tag_names(), previous.get("terms"))
    shards = plan_shards(counts, tag_documents([page.paper.tags for page in papers]), layout)
    files[urls.SEARCH_INDEX] = js_global(INDEX_GLOBAL, {"shards": shards.meta(pipeline)})
    files[urls.SEARCH_STORE] = js_global(STORE_GLOBAL, {**store_pages(site), "paper": urls.paper_path("\0").split("\0")})
    last = previous.get("shards") or {}
    changed = changed_terms(previous.get("terms"), counted, last.get("documents"), counts.refs, keys)
    shard_files, shard_memo = shard_scripts(shards, changed, last.get("files") or {})
    files.update(shard_files)
    chunk_files, chunks = store_chunks(papers, layout.chunk, previous.get("chunks") or {})
    files.update(chunk_files)
    # The documents as the next build compares them (changed_terms): their refs' digest and their keys.
    documents = (text_digest(*counts.refs), b"".join(keys))
    return files, {"terms": counted, "chunks": chunks, "shards": {"documents": documents, "files": shard_memo}}


# The shards' bucket and posting files a build made, for the next: file name -> (what it was made
# of, Shards.made_from; the digest of its file).
ShardMemo = dict[str, Made]


def shard_scripts(shards: Shards, changed: Collection[str] | None, previous: ShardMemo) -> tuple[dict[str, str | Deferred], ShardMemo]:
    """The scripts of the shards' files, and their memo for the next build. A bucket or posting
    file is Deferred when the `previous` build made it of the same and none of its terms is in
    `changed` (Shards.to_make): an edit encodes its paper's terms' files, not 50,000 at 100,000
    papers."""
    to_make = shards.to_make(changed, previous)
    values = MadeTogether(shards.encode, shards.made_from, shards.encode(to_make))
    files: dict[str, str | Deferred] = {}
    memo: ShardMemo = {}
    for name, made_from in shards.made_from.items():
        files[script_path(name)], memo[name] = made_once(partial(shard_script, values, name), made_from,
                                                         previous.get(name), name not in to_make)
    for name, value in shards.topic_files().items():
        files[script_path(name)] = js_register(SHARD_GLOBAL, name, value)
    return files, memo


def shard_script(values: MadeTogether, name: str) -> str:
    """The script of one of the shards' files: encoded already, or now (a Deferred file the output lacks)."""
    return js_register(SHARD_GLOBAL, name, values(name))


def store_chunks(pages: Sequence[PaperPage], size: int, previous: ChunkMemo) -> tuple[dict[str, str | Deferred], ChunkMemo]:
    """The result store's chunk files (search_shards.py: `s-<n>`, `size` documents each), and
    their memo for the next build. A chunk is Deferred when the `previous` build made it from
    pages of the same versions (which digest all a document shows, listings.paper_page): an edit
    makes its paper's chunk, not 12,500 of them at 100,000 papers."""
    files: dict[str, str | Deferred] = {}
    memo: ChunkMemo = {}
    for start in range(0, len(pages), size):
        some = pages[start:start + size]
        name = f"s-{start // size}"
        made_from = digest(b"".join(page.version for page in some)) if all(page.version for page in some) else None
        files[script_path(name)], made = made_once(partial(store_chunk, name, some), made_from, previous.get(name))
        if made is not None:
            memo[name] = made
    return files, memo


def store_chunk(name: str, pages: Sequence[PaperPage]) -> str:
    """One chunk of the result store: each paper as [slug, title, tag slugs, summary, *byline]."""
    docs = [[page.paper.slug, page.title_text, list(page.paper.tags), page.summary, *byline(page)] for page in pages]
    return js_register(SHARD_GLOBAL, name, docs)


# The BibTeX parts made by a build, for the next: part file -> (the digest of its papers' slugs, the
# digest of its file).
PartMemo = dict[str, Made]


def bibtex_scripts(slugs: Sequence[str], entries: Sequence[str], per_part: int = BIBTEX_PER_PART,
                   changed: Collection[str] = (), previous: PartMemo | None = None) -> tuple[dict[str, str | Deferred], PartMemo]:
    """Each paper's BibTeX entry by slug, for the reading list's export, and the memo for the next
    build. Up to `per_part` papers, `{"entries": {slug: entry}}` in one file; beyond, that file holds
    `{"parts": n}` and the entries are in n parts (a power of two, so a part's papers change only
    when the collection doubles), each paper's in the part `bibtex_parts_of` gives it, which
    static/reading-list.js computes too. A part is Deferred when the `previous` build made it of the
    same papers and none of their entries is `changed` (publish/exports.py Records): an edit makes
    its paper's part, not 51 MB of entries."""
    parts = 1 << max(0, math.ceil(len(slugs) / per_part) - 1).bit_length()
    if parts == 1:
        return {urls.SEARCH_BIBTEX: js_global(BIBTEX_GLOBAL, {"entries": dict(zip(slugs, entries))})}, {}
    grouped: list[dict[str, str]] = [{} for _ in range(parts)]
    for slug, entry, part in zip(slugs, entries, bibtex_parts_of(slugs, parts)):
        grouped[part][slug] = entry
    files: dict[str, str | Deferred] = {urls.SEARCH_BIBTEX: js_global(BIBTEX_GLOBAL, {"parts": parts})}
    memo: PartMemo = {}
    previous = previous or {}
    changed = set(changed)
    for n, group in enumerate(grouped):
        path = urls.bibtex_part(n)
        files[path], memo[path] = made_once(partial(js_register, BIBTEX_PARTS_GLOBAL, str(n), group), text_digest(*group),
                                            previous.get(path), changed.isdisjoint(group))
    return files, memo


def bibtex_parts_of(slugs: Sequence[str], parts: int) -> list[int]:
    """The 32-bit FNV-1a hash of each slug's UTF-8 bytes, modulo `parts`: a hash as easily written in
    JavaScript. All slugs a byte position at a time (a loop over each slug's bytes was 0.25 s at
    100,000 papers, in the worker an edit waits for; this, 0.03 s)."""
    data = [slug.encode("utf-8") for slug in slugs]
    width = max(map(len, data), default=0)
    grid = np.frombuffer(b"".join(d.ljust(width, b"\0") for d in data), dtype=np.uint8).reshape(len(data), width)
    lengths = np.fromiter(map(len, data), dtype=np.int64, count=len(data))
    h = np.full(len(data), 0x811C9DC5, dtype=np.uint64)
    for column in range(width):
        h = np.where(lengths > column, ((h ^ grid[:, column]) * 0x01000193) & 0xFFFFFFFF, h)
    return (h % parts).tolist()


def search_pipeline_names() -> list[str]:
    """The search pipeline as a serialised index names it: its functions' registered names."""
    pipeline = Pipeline()
    pipeline.add(*SEARCH_PIPELINE)
    return pipeline.serialize()


def search_documents(papers: Sequence[PaperPage], names: dict[str, str]) -> list[dict]:
    """What is indexed of each paper (search_terms.count_terms adds lunr_index.camel_parts to its
    title and abstract, and the title's forms); `names`: the topics' (Site.tag_names)."""
    return [dict(zip(("ref", *FIELD_NAMES), (page.paper.slug, *document_texts(page, names)))) for page in papers]


def document_texts(page: PaperPage, names: dict[str, str]) -> tuple[str, ...]:
    """A paper's texts by search field (search_terms.FIELD_NAMES)."""
    texts = {"title": page.title_text, "tags": " ".join(names.get(t, t) for t in page.paper.tags),
             "authors": " ".join(page.paper.authors), "body": page.text, "venue": page.paper.venue,
             "year": str(page.paper.year), "forms": ""}   # the forms: made from the title (lunr_index.indexed_document)
    return tuple(texts[name] for name in FIELD_NAMES)


def count_search_terms(papers: Sequence[PaperPage], names: dict[str, str], previous: dict | None) -> tuple[TermCounts, dict, list[bytes]]:
    """The term counts of `papers` (numbered in that order), the state for the next build, and each
    paper's key in it. Each paper is keyed by its page's version, which digests every text it is
    searched by (listings.paper_page) but the topics' names: the texts themselves are made and
    digested only for the papers the previous build did not count (100,000 at anthology scale, an
    edit's few)."""
    if all(page.version for page in papers):
        shared = b"paper page\0" + fingerprint(names)
        refs, keys = [page.paper.slug for page in papers], [digest(shared + page.version) for page in papers]
        texts = lambda i: document_texts(papers[i], names)
    else:
        refs, keys, texts = keyed_documents(search_documents(papers, names))
    return (*count_keyed_terms(refs, keys, texts, previous), keys)


def store_pages(site: Site) -> dict:
    """What every result list needs: the results page, the topic index, each topic's name and page,
    and an author's page as the text before and after the slug."""
    return {
        "v": STORE_FORMAT,
        "search": urls.SEARCH,
        "tagIndex": urls.TAG_INDEX,
        "tags": {listing.tag.slug: [listing.tag.name, urls.tag_path(listing.tag.slug)] for listing in site.tags},
        "author": urls.author_path("\0").split("\0"),
        "years": year_starts([page.paper.year for page in site.papers]),
    }


def year_starts(years: Sequence[int]) -> list[list[int]]:
    """[[year, its first document], ...]: documents are numbered in the site's order, newest year
    first (inputs/papers.py `sort_papers`), so the results page sorts its results by year with
    these few numbers, not a store entry per result."""
    starts: list[list[int]] = []
    for doc, year in enumerate(years):
        if not starts or starts[-1][0] != year:
            starts.append([year, doc])
    return starts


def byline(page: PaperPage) -> list:
    """What a result's byline shows: [venue, year, its first BYLINE_AUTHORS authors as [name, page
    slug or None], how many authors it has] (the rest are "et al.", as on the listings)."""
    return [page.paper.venue, page.paper.year, [[c.name, c.slug] for c in page.credits[:BYLINE_AUTHORS]], len(page.credits)]


def build_store(site: Site) -> dict:
    """What a result shows without loading the paper page.

    docs[ref] = [title, URL, tag slugs, summary, *byline]; tags[slug] = [name, URL]; URLs are
    relative to the site root, as are `search` (the results page) and `tagIndex`.
    """
    return {
        **store_pages(site),
        "docs": {
            page.paper.slug: [page.title_text, urls.paper_path(page.paper.slug), list(page.paper.tags), page.summary, *byline(page)]
            for page in site.papers
        },
    }


def js_global(name: str, value) -> str:
    """`window.NAME = JSON.parse('...')`: a script that registers the data. V8 and the other engines
    read a large JSON string much faster than the same data as an object literal."""
    return f"window.{name} = JSON.parse('{js_string(value)}');\n"


def js_register(name: str, key: str, value) -> str:
    """`(window.NAME = window.NAME || {})["KEY"] = JSON.parse('...')`: one of many files that fill one registry."""
    return f"(window.{name} = window.{name} || {{}})[{to_json(key)}] = JSON.parse('{js_string(value)}');\n"


def js_string(value) -> str:
    return to_json(value).replace("\\", "\\\\").replace("'", "\\'")


def to_json(value) -> str:
    # "</" escaped so no string in the data can close a <script> element.
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
