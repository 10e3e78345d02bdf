"""arXiv API Atom feeds: each entry a page, venue arXiv unless --venue, with its arXiv id, PDF and DOI as links."""

from __future__ import annotations

import pytest

from conftest import build_args
from papersite.errors import Report, SiteError
from papersite.ingest.readers.arxiv import read_arxiv
from papersite.ingest.records import Defaults
from support.imported import SOURCES, pages_by_title


def test_feed_entries_become_pages(project, cli):
    result = cli("import", SOURCES / "arxiv-query.xml", "--content", project / "content")
    assert result.code == 0, result.err
    assert "as an arXiv API Atom feed" in result.out and "import: 3 added" in result.out
    pages = pages_by_title(project / "content")
    sparse = pages["Sparse Mixture Routing for Efficient Transformers"]   # the title's line break joined
    assert (sparse["venue"], sparse["year"], sparse["id"]) == ("arXiv", 2024, "arxiv2024-2405-01234")
    assert sparse["authors"] == ["Ada Lovelace", "Émilie du Châtelet", "Alan Turing"]
    # The PDF as the abstract page links it, and as the snapshot reader writes it: https, the latest version.
    assert sparse["links"] == {"pdf": "https://arxiv.org/pdf/2405.01234", "doi": "10.5555/neurips.2024.0042",
                               "arxiv": "2405.01234"}
    assert sparse["body"].startswith("We present SparseRoute, a routing scheme for mixture-of-experts transformers that")
    protein = pages["Diffusion Models for Protein Backbone Design"]
    assert "refold to within 2 Å of the design" in protein["body"]
    assert "ai-for-science" in protein["tags"]
    old = pages["Typed Lambda Calculi for Stream Processing"]
    assert (old["year"], old["links"]["arxiv"]) == (2001, "cs/0112017")
    assert cli(*build_args(project)).code == 0


def test_venue_flag_names_the_venue(project, cli):
    result = cli("import", SOURCES / "arxiv-query.xml", "--content", project / "content", "--venue", "Preprints")
    assert result.code == 0, result.err
    assert {page["venue"] for page in pages_by_title(project / "content").values()} == {"Preprints"}


def read(text: str, defaults: Defaults = Defaults()):
    report = Report()
    return read_arxiv(text, "query.xml", report, defaults), report


FEED = '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n{}</feed>\n'
ENTRY = ("  <entry>\n    <id>http://arxiv.org/abs/{id}</id>\n    <published>2024-01-02T00:00:00Z</published>\n"
         "    <title>{title}</title>\n    <summary>{summary}</summary>\n    <author><name>Ada Lovelace</name></author>\n"
         "    <arxiv:primary_category xmlns:arxiv=\"http://arxiv.org/schemas/atom\" term=\"cs.LG\"/>\n  </entry>\n")


def test_primary_category_is_a_keyword_and_markup_is_escaped_text():
    [record], _ = read(FEED.format(ENTRY.format(id="2401.00001v1", title="A &lt;b&gt;bold&lt;/b&gt; claim",
                                                summary="We study x &amp; y.")))
    assert (record.title, record.abstract, record.keywords) == ("A <b>bold</b> claim", "We study x & y.", ("cs.LG",))


def test_a_bad_entry_is_reported_at_its_line_and_the_others_read():
    text = FEED.format(ENTRY.format(id="2401.00001v1", title="Good", summary="An abstract.")
                       + ENTRY.format(id="2401.00002v1", title="No summary", summary=" ")
                       + ENTRY.format(id="not-an-id", title="Bad id", summary="An abstract."))
    records, report = read(text)
    assert [r.title for r in records] == ["Good"]
    assert [(p.line, p.message) for p in report.errors] == [
        (11, "entry: 'summary' is missing or empty"),
        (19, "entry: 'id' 'http://arxiv.org/abs/not-an-id' is not an arXiv abstract address"),
    ]


def test_an_api_error_feed_is_reported():
    error = ("  <entry>\n    <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345</id>\n"
             "    <title>Error</title>\n    <summary>incorrect id format for 1234.12345</summary>\n  </entry>\n")
    records, report = read(FEED.format(error))
    assert records == [] and [str(p) for p in report.errors] == [
        "query.xml:3: the arXiv API answered with an error: incorrect id format for 1234.12345"]


@pytest.mark.parametrize("text, line, message", [
    (FEED.format("  <entry>\n    <title>Unclosed\n  </entry>\n"), 5, "not well-formed XML: mismatched tag"),
    ('<?xml version="1.0"?>\n<rss version="2.0"><channel/></rss>\n', 1, "not an Atom feed as the arXiv API gives it: the root element is <rss>"),
    ('<?xml version="1.0"?>\n<!DOCTYPE feed [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n'
     '<feed xmlns="http://www.w3.org/2005/Atom"><title>&b;</title></feed>\n', None, "refused XML"),
])
def test_a_feed_that_cannot_be_read_is_refused(text, line, message):
    with pytest.raises(SiteError) as info:
        read(text)
    [problem] = info.value.problems
    assert problem.line == line and problem.message.startswith(message)


def test_a_line_that_starts_with_white_space_starts_a_paragraph():
    """arXiv keeps an abstract's line break only before white space: its authors' paragraph mark."""
    summary = "  We study x, a problem\nof y.\n  In a second part, we\nbound z."
    [record], _ = read(FEED.format(ENTRY.format(id="2401.00001v1", title="T", summary=summary)))
    assert record.abstract == "We study x, a problem of y.\n\nIn a second part, we bound z."
