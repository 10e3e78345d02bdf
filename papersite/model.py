"""Plain data passed between the build stages. Frozen: a stage makes new values, never edits."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SiteConfig:
    title: str
    description: str
    base_url: str | None = None   # absolute, ends with "/"; None leaves out sitemap, feed, canonical links
    repo_url: str | None = None
    language: str = "en"
    per_page: int = 50            # papers per listing page (home, tag pages)
    # The site's own LaTeX macros: (`\\name`, replacement) sorted by name (text/macros.py).
    math_macros: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Tag:
    slug: str
    name: str
    description: str
    phrases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Taxonomy:
    tags: tuple[Tag, ...]
    fallback: str          # slug of the tag given to a paper no phrase matches

    def by_slug(self) -> dict[str, Tag]:
        return {t.slug: t for t in self.tags}


@dataclass(frozen=True)
class Paper:
    """One content page, validated. `body` is Markdown with LaTeX math as $...$."""

    id: str
    slug: str
    title: str
    title_source: str
    venue: str
    year: int
    tags: tuple[str, ...]
    code: tuple[str, ...]
    authors: tuple[str, ...]
    aliases: tuple[str, ...]
    links: tuple[tuple[str, str], ...]   # (kind, value) in inputs/links.py's LINK_KINDS order
    body: str
    path: str          # the source file, for messages
    body_line: int     # line of the file where the body starts, for messages
    added: str = ""    # the day it joined the site (YYYY-MM-DD), "" when the page does not say
    # The digest of what the Paper was made from (file name, taxonomy, bytes: inputs/papers.py paper_key),
    # when loaded from content; the pages' keys use it instead of digesting the Paper (digests.py).
    version: bytes = field(default=b"", compare=False, repr=False)
    # The digest of its title and body (digests.text_digest), taken where the page was parsed: the
    # key of its texts (enrich/texts.py), which an edit then need not take of every paper again.
    text_version: bytes = field(default=b"", compare=False, repr=False)


@dataclass(frozen=True)
class PersonEntry:
    """One person of content/authors.yml: the names that are theirs and what their page says about them."""

    name: str                      # the name their page shows
    variants: tuple[str, ...]      # other spellings papers give, merged into this person
    slug: str | None               # the page's address when set, else the name's (inputs/names.py)
    aliases: tuple[str, ...]       # old slugs, each kept as a redirect
    homepage: str | None
    orcid: str | None              # the bare iD, 0000-0002-1825-0097
    note: str | None
    papers: tuple[str, ...]        # paper ids: when given, the person's names mean them on these papers only
    keys: tuple[str, ...]          # what the name and each variant compare as (inputs/names.py)
    path: str                      # for messages
    line: int
    lines: tuple[tuple[str, int], ...] = ()        # the line of each field the entry has
    key_lines: tuple[tuple[str, int], ...] = ()    # the line of each of its keys

    def line_of(self, field: str) -> int:
        return dict(self.lines).get(field, self.line)

    def key_line(self, key: str) -> int:
        return dict(self.key_lines).get(key, self.line)
