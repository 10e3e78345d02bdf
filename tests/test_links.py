"""A paper's `links`: what each kind may hold, and where the site shows them: the paper page's aside,
Scholar's citation tags, JSON-LD `sameAs`, the BibTeX entry and papers.json."""

from __future__ import annotations

import html
import json
import re

import bibtexparser
import pytest

from conftest import build_args, make_project, paper_text
from papersite.cli import main
from papersite.inputs.links import arxiv_id_of, doi_of, link_href, link_problem, link_text, openreview_id_of

BASE = "https://example.org/papers/"
ALL_LINKS = ("{pdf: 'https://example.org/sparse.pdf', doi: '10.5555/neurips.2024.0042', arxiv: '2405.01234', "
             "openreview: 'https://openreview.net/forum?id=SpRt24aBcD', url: 'https://example.org/sparse'}")


@pytest.mark.parametrize("kind, value", [
    ("doi", "10.5555/12345678"), ("doi", "10.1002/(SICI)1097-4571(199806)49:8;2-0"), ("doi", "https://doi.org/10.5555/1"),
    ("arxiv", "2401.12345"), ("arxiv", "2401.12345v3"), ("arxiv", "0704.0001"), ("arxiv", "hep-th/9901001"),
    ("arxiv", "math.GT/0309136"), ("arxiv", "https://arxiv.org/abs/2401.12345"),
    ("pdf", "https://example.org/a.pdf"), ("openreview", "https://openreview.net/forum?id=abc"), ("url", "http://example.org/"),
])
def test_valid_links(kind, value):
    assert link_problem(kind, value) is None


@pytest.mark.parametrize("kind, value", [
    ("url", "javascript:alert(1)"), ("pdf", "data:application/pdf;base64,AAAA"), ("url", "mailto:a@example.org"),
    ("pdf", "/pdf/abc.pdf"), ("url", "https://exa mple.org/"), ("url", "https://example.org/\u202eevil"),
    ("doi", "10.5555/\"><script>alert(1)</script>"), ("doi", "doi:10.5555/1"), ("doi", "11.5555/1"),
    ("arxiv", "arXiv:2401.12345"), ("arxiv", "2401.123"), ("openreview", "abc123"), ("url", "https:///no-host"),
])
def test_invalid_links(kind, value):
    assert link_problem(kind, value) is not None


def test_identifiers_and_addresses():
    assert doi_of("https://doi.org/10.5555/a%2Fb") == "10.5555/a/b" and doi_of("https://example.org/x") is None
    assert arxiv_id_of("http://arxiv.org/pdf/2401.12345v2") == "2401.12345" == arxiv_id_of("2401.12345v2")
    assert arxiv_id_of("https://arxiv.org/abs/cs/0112017v1") == "cs/0112017"
    assert openreview_id_of("https://openreview.net/forum?id=SpRt24aBcD&noteId=x") == "SpRt24aBcD"
    assert link_href("doi", "10.5555/a#b?c") == "https://doi.org/10.5555/a%23b%3Fc"
    assert link_href("arxiv", "2401.12345") == "https://arxiv.org/abs/2401.12345"
    assert link_href("url", "https://example.org/x") == "https://example.org/x"
    assert link_text("doi", "https://doi.org/10.5555/1") == "DOI 10.5555/1" and link_text("pdf", "https://x.org/a.pdf") == "PDF"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("links") / "proj", {
        "linked.md": paper_text(id="l-0001", slug="sparse-mixture-routing", title="Sparse Mixture Routing", links=ALL_LINKS),
        "bare.md": paper_text(id="l-0002", slug="no-links", title="A paper without links"),
        "arxiv-url.md": paper_text(id="l-0003", slug="arxiv-url", title="Linked by address",
                                   links="{arxiv: 'https://arxiv.org/abs/2402.07890v2', doi: 'https://example.org/not-a-doi'}"),
    })
    assert main(build_args(root, "--base-url", BASE)) == 0
    return root / "site"


def page(site, slug: str) -> str:
    return (site / "papers" / f"{slug}.html").read_text(encoding="utf-8")


def meta(text: str, name: str) -> list[str]:
    return [html.unescape(v) for v in re.findall(rf'<meta name="{re.escape(name)}" content="([^"]*)">', text)]


def jsonld(text: str) -> dict:
    return json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', text, re.S).group(1))


def test_paper_page_shows_its_links(site):
    text = page(site, "sparse-mixture-routing")
    links = re.search(r'<dt>Links</dt>\s*<dd><ul class="paper-links">(.*?)</ul></dd>', text, re.S).group(1)
    shown = [(html.unescape(href), label) for href, label in re.findall(r'<a href="([^"]*)" rel="nofollow noopener">([^<]*)</a>', links)]
    assert shown == [
        ("https://example.org/sparse.pdf", "PDF"),
        ("https://doi.org/10.5555/neurips.2024.0042", "DOI 10.5555/neurips.2024.0042"),
        ("https://arxiv.org/abs/2405.01234", "arXiv 2405.01234"),
        ("https://openreview.net/forum?id=SpRt24aBcD", "OpenReview"),
        ("https://example.org/sparse", "Web page"),
    ]
    assert "<dt>Links</dt>" not in page(site, "no-links")


def test_citation_tags_and_json_ld_name_the_paper_elsewhere(site):
    text = page(site, "sparse-mixture-routing")
    assert meta(text, "citation_pdf_url") == ["https://example.org/sparse.pdf"]
    assert meta(text, "citation_doi") == ["10.5555/neurips.2024.0042"]
    assert meta(text, "citation_arxiv_id") == ["2405.01234"]
    assert jsonld(text)["sameAs"] == ["https://doi.org/10.5555/neurips.2024.0042", "https://arxiv.org/abs/2405.01234",
                                      "https://openreview.net/forum?id=SpRt24aBcD", "https://example.org/sparse"]
    other = page(site, "arxiv-url")
    assert meta(other, "citation_arxiv_id") == ["2402.07890"] and meta(other, "citation_doi") == []
    bare = page(site, "no-links")
    assert not meta(bare, "citation_pdf_url") and not meta(bare, "citation_doi") and "sameAs" not in jsonld(bare)


def test_bibtex_entries_carry_doi_eprint_and_the_papers_own_url(site):
    library = bibtexparser.parse_string((site / "papers.bib").read_text(encoding="utf-8"))
    assert not library.failed_blocks
    entries = {entry.key: entry.fields_dict for entry in library.entries}
    linked = {name: field.value for name, field in entries["sparse-mixture-routing2025"].items()}
    assert linked["doi"] == "10.5555/neurips.2024.0042"
    assert (linked["eprint"], linked["archivePrefix"]) == ("2405.01234", "arXiv")
    assert linked["url"] == "https://example.org/sparse"
    bare = entries["no-links2025"]
    assert list(bare) == ["title", "author", "booktitle", "year", "url", "keywords"]
    assert bare["url"].value == f"{BASE}papers/no-links.html"
    by_address = {name: field.value for name, field in entries["arxiv-url2025"].items()}
    assert by_address["eprint"] == "2402.07890" and "doi" not in by_address


def test_papers_json_gives_links_as_written(site):
    doc = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    assert doc["format"] == "papersite-papers/5"
    links = {paper["slug"]: paper["links"] for paper in doc["papers"]}
    assert links["sparse-mixture-routing"] == {
        "pdf": "https://example.org/sparse.pdf", "doi": "10.5555/neurips.2024.0042", "arxiv": "2405.01234",
        "openreview": "https://openreview.net/forum?id=SpRt24aBcD", "url": "https://example.org/sparse"}
    assert links["no-links"] == {}
