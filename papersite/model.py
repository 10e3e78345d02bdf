"""Plain data passed between the build stages. Frozen: a stage makes new values, never edits."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SiteConfig:
    title: str
    description: str
    base_url: str | None = None   # absolute, ends with "/"; None leaves out sitemap, feed, canonical links
    repo_url: str | None = None
    language: str = "en"
    per_page: int = 50            # papers per listing page (home, tag pages)


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
