"""CSV and TSV sources: a conference system's spreadsheet becomes pages, whatever its column names' case and wording."""

from __future__ import annotations

import pytest

from conftest import build_args
from papersite.errors import Report, SiteError
from papersite.ingest.readers.spreadsheet import read_csv, read_tsv
from papersite.ingest.records import Defaults
from support.imported import SOURCES, pages_by_title


def test_csv_export_of_a_conference_system(project, cli):
    result = cli("import", SOURCES / "accepted.csv", "--content", project / "content")
    assert result.code == 0, result.err
    assert "as CSV" in result.out and "import: 2 added" in result.out
    pages = pages_by_title(project / "content")
    offline = pages["Offline Reinforcement Learning with Conservative Value Priors"]
    assert (offline["venue"], offline["year"], offline["id"]) == ("ICML", 2024, "icml2024-117")
    assert offline["authors"] == ["Hedy Lamarr", "John von Neumann", "Sofia Kovalevskaya"]
    assert offline["links"] == {"pdf": "https://example.org/papers/117.pdf", "doi": "10.5555/icml.2024.0007"}
    private = pages["Private Federated Averaging with Shuffled Clients"]
    assert private["authors"] == ["Ada Lovelace", "Charles Babbage"]   # "Family, Given" turned round
    assert private["links"] == {}
    # A quoted cell keeps its commas, doubled quotes and blank-line paragraphs.
    assert 'the "shuffled" protocol is $(\\varepsilon, \\delta)$-differentially private' in private["body"]
    assert private["body"].endswith("$1/\\sqrt{n}$.\n\nA second paragraph, as a spreadsheet cell can hold one.")
    assert cli(*build_args(project)).code == 0


def test_tsv_with_a_track_for_venue_and_year(project, cli):
    result = cli("import", SOURCES / "easychair.tsv", "--content", project / "content")
    assert result.code == 0, result.err
    pages = pages_by_title(project / "content")
    theory = pages["A Theory of In-Context Learning in Linear Attention"]
    assert theory["authors"] == ["Srinivasa Ramanujan", "Emmy Noether"]
    assert (theory["venue"], theory["year"]) == ("NeurIPS", 2024)
    assert theory["links"] == {"openreview": "https://openreview.net/forum?id=IcLlInAtT1"}
    tokens = pages["Tokenizer-Free Language Models from Bytes"]
    assert (tokens["venue"], tokens["year"]) == ("NeurIPS", 2024)   # from "NeurIPS 2024 oral", the year cell empty
    assert tokens["links"] == {"url": "https://example.org/bytes"}


def read(text: str, reader=read_csv, defaults: Defaults = Defaults()):
    report = Report()
    return reader(text, "papers.csv", report, defaults), report


@pytest.mark.parametrize("header", [
    "title,abstract,authors,venue,year", "TITLE,ABSTRACT,AUTHORS,VENUE,YEAR", "Paper_Title,Abstract Note,Author,Conference,Publication Year",
    " paper-title , summary , creators , journal , date ",
])
def test_column_names_match_whatever_their_case_and_wording(header):
    [record], report = read(f"{header}\nA title,We study things.,Ada Lovelace and Alan Turing,ICLR,2024-05-07\n")
    assert not report.errors
    assert (record.title, record.abstract, record.authors, record.venue, record.year) == (
        "A title", "We study things.", ("Ada Lovelace", "Alan Turing"), "ICLR", 2024)


def test_a_semicolon_separated_csv_is_read_too():
    [record], _ = read("Title;Abstract;Authors;Year\nT;We study things, a lot.;Lovelace, Ada;2024\n", defaults=Defaults("ICML"))
    assert (record.abstract, record.authors, record.venue) == ("We study things, a lot.", ("Ada Lovelace",), "ICML")


def test_a_header_without_title_or_abstract_names_the_headers_found():
    with pytest.raises(SiteError) as info:
        read("\nName,Summary of work,Year\nA,B,2024\n")
    [problem] = info.value.problems
    assert problem.line == 2
    assert problem.message.startswith("the header names no title and no abstract column (headers found: 'Name', 'Summary of work', 'Year'; ")


def test_bad_rows_are_reported_at_their_line_and_the_others_read():
    text = ('title,abstract,venue,year\n'
            'One,"A first abstract,\nover two lines.",ICML,2024\n'
            'Two,,ICML,2024\n'
            'Three,An abstract,ICML,2024,extra,cells\n'
            'Four,"An abstract" with a stray quote,ICML,2024\n'
            'Five,An abstract,,\n'
            'Six,The last abstract,ICML,2024\n')
    records, report = read(text)
    assert [r.title for r in records] == ["One", "Six"]
    assert [(p.line, p.message.split(":")[0].split(" (")[0]) for p in report.errors] == [
        (4, "the row has no abstract"),
        (5, "the row has 6 fields, the header 4"),
        (6, "this row could not be read"),
        (7, "no venue/year"),
    ]


def test_a_year_that_is_no_year_is_an_error_whatever_the_flag():
    records, report = read("title,abstract,venue,year\nOne,An abstract,ICML,abc\nTwo,An abstract,ICML,\n", defaults=Defaults(year=2023))
    assert [(r.title, r.year) for r in records] == [("Two", 2023)]
    assert [(p.line, p.message) for p in report.errors] == [(2, "the year 'abc' is not a year (write it as four digits, such as 2024)")]


@pytest.mark.parametrize("cell, authors", [
    ("Tim Dettmers, Artidoro Pagnoni", ("Tim Dettmers", "Artidoro Pagnoni")),   # a spreadsheet's list
    ("Yuntao Bai, Saurav Kadavath, Amanda Askell", ("Yuntao Bai", "Saurav Kadavath", "Amanda Askell")),
    ("Lovelace, Ada", ("Ada Lovelace",)),                                        # one name, family first
    ("Lovelace, Ada; Babbage, Charles", ("Ada Lovelace", "Charles Babbage")),
    ("Lovelace, Ada and Babbage, Charles", ("Ada Lovelace", "Charles Babbage")),
    ("van der Schaar, Mihaela and Daumé III, Hal", ("Mihaela van der Schaar", "Hal Daumé III")),
    ("Ada Lovelace and Charles Babbage", ("Ada Lovelace", "Charles Babbage")),
])
def test_authors_in_a_cell_in_every_form_spreadsheets_use(cell, authors):
    [record], report = read(f'title,abstract,authors,venue,year\nT,An abstract.,"{cell}",ICML,2024\n')
    assert record.authors == authors and not report.errors


def test_tsv_keeps_commas_in_cells():
    [record], _ = read("Title\tAbstract\tVenue\tYear\nA, B and C\tWe study a, b; and c.\tCoRL\t2024\n", reader=read_tsv)
    assert (record.title, record.abstract) == ("A, B and C", "We study a, b; and c.")


def test_a_venue_spelled_out_is_its_short_name():
    records, report = read('title,abstract,venue,year\nOne,An abstract.,"Advances in Neural Information Processing Systems 37",2024\n'
                           'Two,An abstract.,NeurIPS 2024 poster,\n')
    assert [(r.venue, r.year) for r in records] == [("NeurIPS", 2024), ("NeurIPS", 2024)] and not report.errors


# As CMT exports its papers (it names no venue: `import --venue ICML --year 2024`).
CMT_HEADER = "Paper ID,Paper Title,Abstract,Authors,Track Name,Status\n"
ICML = Defaults("ICML", 2024)


def test_a_conference_systems_author_list_loses_its_affiliations_and_contact_stars():
    records, report = read(CMT_HEADER + '12,T,An abstract.,"Ada Lovelace (University of London)*; Alan Turing (Princeton and '
                           'IAS); Wei (David) Zhang (Dept. of Physics, Astronomy)",Main Track,Accept (Oral)\n', defaults=ICML)
    assert [r.authors for r in records] == [("Ada Lovelace", "Alan Turing", "Wei (David) Zhang")]
    assert not report.errors and not report.warnings


def test_rejected_and_withdrawn_rows_are_left_out_with_a_warning():
    text = CMT_HEADER + ("1,One,An abstract.,Ada Lovelace,Main Track,Accept\n"
                         "2,Two,An abstract.,Ada Lovelace,Main Track,Reject\n"
                         "3,Three,An abstract.,Ada Lovelace,Main Track,Desk Reject\n"
                         "4,Four,An abstract.,Ada Lovelace,Main Track,Withdrawn\n"
                         "5,Five,An abstract.,Ada Lovelace,Main Track,\n")
    records, report = read(text, defaults=ICML)
    assert [r.title for r in records] == ["One", "Five"] and not report.errors
    assert [(w.line, w.message) for w in report.warnings] == [
        (3, "the row's status is 'Reject': not imported"), (4, "the row's status is 'Desk Reject': not imported"),
        (5, "the row's status is 'Withdrawn': not imported")]
    # A file of only such rows imports nothing, and is not called empty.
    records, report = read(CMT_HEADER + "2,Two,An abstract.,Ada Lovelace,Main Track,Rejected\n", defaults=ICML)
    assert records == [] and len(report.warnings) == 1


# As Zotero exports a collection (File > Export Collection > CSV).
ZOTERO_HEADER = '"Key","Item Type","Publication Year","Author","Title","Publication Title","Abstract Note","Date Added"\n'


def test_zoteros_date_added_is_the_day_the_paper_joined_and_one_that_is_no_day_is_left_out():
    records, report = read(ZOTERO_HEADER
                           + '"ABCD1234","conferencePaper","2017","Vaswani, Ashish; Shazeer, Noam","Attention Is All You Need",'
                           '"Advances in Neural Information Processing Systems","We propose the Transformer.","2023-05-12 10:31:05"\n'
                           '"EFGH5678","journalArticle","2020","Lovelace, Ada","Notes","Journal of Machine Learning Research",'
                           '"We study things.","last week"\n')
    assert [(r.venue, r.year, r.authors, r.added) for r in records] == [
        ("NeurIPS", 2017, ("Ashish Vaswani", "Noam Shazeer"), "2023-05-12"), ("JMLR", 2020, ("Ada Lovelace",), None)]
    assert [(w.line, w.message) for w in report.warnings] == [
        (3, "the date added 'last week' is not a day (YYYY-MM-DD); the page gets the day of this import")]
    assert not report.errors
