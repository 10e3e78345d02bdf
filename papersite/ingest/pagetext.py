"""A page as `import` writes it, and the record it keeps of what it wrote.

The front matter's keys come in one order, and its last line is `import_digest:`, the digest of
the whole page as written without that line. `import --update` reads it back: a page whose text
still has that digest is as the import left it, and may be refreshed; any other page has been
edited (or was written by hand) and is kept as it is. The digest is of the text itself, so any
change at all, a tag, a comma or a space, counts as an edit: nothing a person wrote is lost.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import yaml

from .. import workers
from ..digests import digest
from ..errors import SiteError
from ..inputs.files import read_text
from ..inputs.links import LINK_KINDS
from ..inputs.papers import is_page_name, split_front_matter
from ..inputs.plainyaml import read_simple
from ..inputs.values import SLUG_RE
from ..inputs.yamlsrc import FastLoader, SlowLoader
from .identity import identities

FRONT_ORDER = ("id", "slug", "title", "title_source", "venue", "year", "added", "tags", "code", "authors", "links", "aliases")
RECORD_RE = re.compile(r"^import_digest: (?P<digest>[0-9a-f]{32})\n(?=---\n)", re.MULTILINE)


def page_digest(text: str) -> str:
    return digest(text.encode("utf-8")).hex()


def signed_page(front: dict, body: str) -> str:
    """The page's text: front matter in FRONT_ORDER (those it has), the import digest last, then the body."""
    dumped = yaml.dump({key: front[key] for key in FRONT_ORDER if key in front}, Dumper=yaml.CSafeDumper, sort_keys=False,
                       allow_unicode=True, default_flow_style=None, width=100000)
    unsigned = f"---\n{dumped}---\n{body}\n"
    return f"---\n{dumped}import_digest: {page_digest(unsigned)}\n---\n{body}\n"


def import_state(text: str) -> str:
    """"unedited" (as the import wrote it), "edited" (changed since), or "unrecorded" (no import digest)."""
    found = RECORD_RE.search(text)
    if found is None:
        return "unrecorded"
    unsigned = text[:found.start()] + text[found.end():]
    return "unedited" if page_digest(unsigned) == found["digest"] else "edited"


@dataclass(frozen=True)
class ExistingPage:
    """A page already in content/papers, as the importer needs it: read, never changed unless asked."""

    path: Path
    id: str
    slug: str
    aliases: tuple[str, ...]        # its old slugs, which redirect to it: kept by --force
    identities: tuple[str, ...]
    # Its front matter, text and import state are read where the page may be rewritten (read_page):
    # an import into a large site holds, and its workers send back, only these fields of each page.

    @property
    def names(self) -> tuple[str, ...]:
        """Its file name, slug and aliases: URLs a new page must not take."""
        return (self.path.stem, self.slug, *self.aliases)


# From this many pages on, an import reads them on workers: at 100,000 pages, reading them was
# most of an import of a volume (bench/README.md).
PARALLEL_PAGES = 5_000


def scan_pages(papers_dir: Path, jobs: int = 1) -> list[ExistingPage]:
    """Every page, whatever state it is in: one the build would reject still holds its id and its
    URL. Read on `jobs` workers when there are many."""
    # The page files the build reads (inputs/papers.py is_page_name), sorted as names: sorting
    # 100,000 Paths compares their parts in Python.
    names = sorted(filter(is_page_name, os.listdir(papers_dir))) if papers_dir.is_dir() else []
    return workers.ordered_map(partial(scan_page, papers_dir), names, jobs, min_items=PARALLEL_PAGES)


def scan_page(papers_dir: Path, name: str) -> ExistingPage:
    path = papers_dir / name
    data, _ = read_page(path)
    slug = data.get("slug") if isinstance(data.get("slug"), str) and SLUG_RE.match(data["slug"]) else path.stem
    aliases = [a for a in data.get("aliases") or [] if isinstance(a, str)] if isinstance(data.get("aliases"), list) else []
    return ExistingPage(
        path=path,
        id=str(data.get("id") or f"file:{path.name}"),
        slug=slug,
        aliases=tuple(aliases),
        identities=page_identities(data),
    )


def read_page(path: Path) -> tuple[dict, str]:
    """A page's front matter and its text; ({}, "") for one that cannot be read or parsed."""
    try:
        text = read_text(path)
        front_text, _, _ = split_front_matter(text, str(path))
        # The forms this module writes, read as the build reads them (inputs/plainyaml.py):
        # with a YAML parser for each page, an import of 2,000 papers into a 100,000-paper
        # site took 23 s, 14 s so.
        data = read_simple(front_text)
        if data is None:
            data = yaml.load(front_text, Loader=FastLoader or SlowLoader)
    except (SiteError, yaml.YAMLError):
        return {}, ""
    return data if isinstance(data, dict) else {}, text


def page_identities(data: dict) -> tuple[str, ...]:
    links = data.get("links") if isinstance(data.get("links"), dict) else {}
    pairs = tuple((kind, links[kind]) for kind in LINK_KINDS if isinstance(links.get(kind), str))
    authors = [a for a in data.get("authors") or [] if isinstance(a, str)] if isinstance(data.get("authors"), list) else []
    title = data.get("title") if isinstance(data.get("title"), str) and data.get("title_source") != "derived" else None
    return identities(pairs, title, authors)
