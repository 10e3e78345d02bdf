"""What a paper page tells citation tools: Highwire meta tags, JSON-LD, its BibTeX entry.

Templates reach these as `cite.*` (a Jinja global). Everything is plain data; the
templates escape it (meta attributes) or serialise it with `tojson` (JSON-LD).
"""

from __future__ import annotations

from collections.abc import Mapping

from .bibtex import bibtex_entry, bibtex_keys
from .enrich import PaperPage
from .tracking import derived, derived_table



def tag_names(site) -> dict[str, str]:
    return {listing.tag.slug: listing.tag.name for listing in site.tags}


@derived("bibtex-keys")
def key_table(site) -> dict[str, str]:
    return bibtex_keys([p.paper for p in site.papers])


def keys(site) -> Mapping[str, str]:
    """slug -> BibTeX key, computed once per build. A page reading one key depends on that
    key only, not on every paper (tracking.py), so an edit elsewhere does not rebuild it."""
    return derived_table(site, "bibtex-keys")


def bibtex_key(site, item: PaperPage) -> str:
    return keys(site)[item.paper.slug]


def bibtex(site, item: PaperPage) -> str:
    names = tag_names(site)
    return bibtex_entry(item.paper, bibtex_key(site, item), site.config, tuple(names.get(t, t) for t in item.paper.tags))


def highwire(site, item: PaperPage, canonical: str | None) -> list[tuple[str, str]]:
    """Google Scholar's `citation_*` meta tags, in the order its guidelines list them."""
    paper = item.paper
    names = tag_names(site)
    tags = [("citation_title", item.title_text)]
    tags += [("citation_author", author) for author in paper.authors]
    tags.append(("citation_publication_date", str(paper.year)))
    tags.append(("citation_conference_title", paper.venue))
    if canonical:
        # Scholar needs an absolute URL; without base_url there is none to give.
        tags.append(("citation_abstract_html_url", canonical))
    tags.append(("citation_language", site.config.language))
    if paper.tags:
        tags.append(("citation_keywords", "; ".join(names.get(t, t) for t in paper.tags)))
    return tags


def jsonld(site, item: PaperPage, canonical: str | None) -> dict:
    """schema.org ScholarlyArticle, for search engines and reference managers.

    No `abstract`: the page shows it, and crawlers read it there; a copy here would only add
    the abstract's weight to every paper page a second time."""
    paper = item.paper
    names = tag_names(site)
    data: dict = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "name": item.title_text,
        "headline": item.title_text,
        "datePublished": str(paper.year),
        "inLanguage": site.config.language,
        "identifier": paper.id,
        "publication": {"@type": "PublicationEvent", "name": f"{paper.venue} {paper.year}"},
        "isPartOf": {"@type": "WebSite", "name": site.config.title},
    }
    if paper.authors:
        data["author"] = [{"@type": "Person", "name": author} for author in paper.authors]
    if paper.tags:
        data["keywords"] = [names.get(t, t) for t in paper.tags]
    if canonical:
        data["url"] = canonical
        data["mainEntityOfPage"] = canonical
        data["isPartOf"]["url"] = site.config.base_url
    return data
