"""What a page tells citation tools: a paper page's Google Scholar Highwire meta tags, schema.org JSON-LD and
BibTeX entry; an author page's schema.org Person.

Templates reach these as `cite.*` (a Jinja global). Everything is plain data; the
templates escape it (meta attributes) or serialise it with `tojson` (JSON-LD).
"""

from __future__ import annotations

from .. import urls
from ..enrich.authors import AuthorPage
from ..enrich.bibtex import bibtex_entry
from ..enrich.listings import PaperPage
from ..enrich.venues import ARTICLE, INPROCEEDINGS, cited_venue
from ..inputs.links import arxiv_id_of, doi_of, same_as
from .plan import Chrome


def bibtex(chrome: Chrome, item: PaperPage, key: str) -> str:
    """The entry papers.bib has for the paper (enrich/bibtex.py)."""
    paper = item.paper
    return bibtex_entry(paper, key, item.title_latex, chrome.config.base_url, tuple(chrome.tag(t).name for t in paper.tags))


def highwire(chrome: Chrome, item: PaperPage, canonical: str | None) -> list[tuple[str, str]]:
    """Google Scholar's `citation_*` meta tags, in the order its guidelines list them."""
    paper = item.paper
    tags = [("citation_title", item.title_text)]
    # Each name as the page shows it (NFC, given name first): the reading list matches them to the byline's links.
    tags += [("citation_author", credit.name) for credit in item.credits]
    tags.append(("citation_publication_date", str(paper.year)))
    # A journal's title or a conference's proceedings', in full (Zotero makes the first a journal
    # article, the second a conference paper); a preprint has neither.
    venue = cited_venue(paper.venue)
    if venue.kind == ARTICLE:
        tags.append(("citation_journal_title", venue.title))
    elif venue.kind == INPROCEEDINGS:
        tags.append(("citation_conference_title", venue.title))
    links = dict(paper.links)
    if "pdf" in links:
        tags.append(("citation_pdf_url", links["pdf"]))
    if doi := doi_of(links.get("doi", "")):
        tags.append(("citation_doi", doi))
    if arxiv_id := arxiv_id_of(links.get("arxiv", "")):
        tags.append(("citation_arxiv_id", arxiv_id))
    if canonical:
        # Scholar needs an absolute URL; without base_url there is none to give.
        tags.append(("citation_abstract_html_url", canonical))
    tags.append(("citation_language", chrome.config.language))
    if paper.tags:
        tags.append(("citation_keywords", "; ".join(chrome.tag(t).name for t in paper.tags)))
    return tags


def jsonld(chrome: Chrome, item: PaperPage, canonical: str | None) -> dict:
    """schema.org ScholarlyArticle, for search engines and reference managers.

    Nothing the page already says in a form these readers take: no `abstract` (the page shows
    it), no `name` beside `headline`, no `inLanguage` (the page's lang), no `mainEntityOfPage`
    beside `url`; each would be paid once per paper."""
    paper = item.paper
    data: dict = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "headline": item.title_text,
        "datePublished": str(paper.year),
        "identifier": paper.id,
        "publication": {"@type": "PublicationEvent", "name": f"{paper.venue} {paper.year}"},
        "isPartOf": {"@type": "WebSite", "name": chrome.config.title},
    }
    if item.credits:
        # Each author's page, where they are listed with all their papers (only absolute URLs are useful here).
        base = chrome.config.base_url
        data["author"] = [{"@type": "Person", "name": credit.name,
                           **({"url": urls.absolute_url(base, urls.author_path(credit.slug))} if base and credit.slug else {})}
                          for credit in item.credits]
    if paper.tags:
        data["keywords"] = [chrome.tag(t).name for t in paper.tags]
    if addresses := same_as(paper.links):
        data["sameAs"] = addresses
    if canonical:
        data["url"] = canonical
        data["isPartOf"]["url"] = chrome.config.base_url
    return data


def person_jsonld(author: AuthorPage, canonical: str | None) -> dict:
    """schema.org Person for an author page: `sameAs` gives their ORCID record and homepage."""
    data: dict = {"@context": "https://schema.org", "@type": "Person", "name": author.name}
    if canonical:
        data["url"] = canonical
    if same := [address for address in (f"https://orcid.org/{author.orcid}" if author.orcid else None, author.homepage) if address]:
        data["sameAs"] = same
    if author.note:
        data["description"] = author.note
    return data
