"""OpenReview API notes, v2 and v1, in the shapes the API returns: pages with the forum and PDF as links."""

from __future__ import annotations

import json

import pytest

from conftest import build_args
from papersite.errors import Report, SiteError
from papersite.ingest.readers.openreview import note_venue, read_openreview
from papersite.ingest.records import Defaults
from support.imported import SOURCES, pages_by_title


def test_api_v2_notes_under_notes(project, cli):
    result = cli("import", SOURCES / "openreview-v2.json", "--content", project / "content")
    assert result.code == 0, result.err
    assert "as OpenReview API notes" in result.out and "import: 2 added" in result.out
    pages = pages_by_title(project / "content")
    sparse = pages["Sparse Mixture Routing for Efficient Transformers"]
    assert (sparse["venue"], sparse["year"], sparse["id"]) == ("NeurIPS", 2024, "neurips2024-SpRt24aBcD")
    assert sparse["authors"] == ["Ada Lovelace", "Émilie du Châtelet", "Alan Turing"]
    assert sparse["links"] == {"pdf": "https://openreview.net/pdf/5f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6.pdf",
                               "openreview": "https://openreview.net/forum?id=SpRt24aBcD"}
    assert sparse["body"].startswith("We present *SparseRoute*, a routing scheme")
    assert "cuts inference cost by 40% at equal" in sparse["body"]
    assert cli(*build_args(project)).code == 0


def test_api_v1_notes_as_a_list(project, cli):
    result = cli("import", SOURCES / "openreview-v1.json", "--content", project / "content")
    assert result.code == 0, result.err
    pages = pages_by_title(project / "content")
    certified = pages["Certified Robustness of Graph Neural Networks under Edge Noise"]
    assert (certified["venue"], certified["year"]) == ("ICLR", 2024)
    assert certified["authors"] == ["Grace Hopper", "Kurt Gödel"]
    assert certified["links"]["openreview"] == "https://openreview.net/forum?id=GnNeDg9xYz"
    # "Submitted to ICLR 2024": the venue id names the venue and year.
    curriculum = pages["Curriculum Learning for Symbolic Regression"]
    assert (curriculum["venue"], curriculum["year"]) == ("ICLR", 2024)


@pytest.mark.parametrize("venue, venueid, expected", [
    ("NeurIPS 2025 oral", None, ("NeurIPS", 2025)),
    ("ICLR 2019 Conference Paper", "ICLR.cc/2019/Conference", ("ICLR", 2019)),
    ("Submitted to ICLR 2024", "ICLR.cc/2024/Conference/Rejected_Submission", ("ICLR", 2024)),
    (None, "robot-learning.org/CoRL/2024/Conference", ("CoRL", 2024)),
    ("Withdrawn Submission", "NeurIPS.cc/2023/Track/Datasets_and_Benchmarks", ("NeurIPS", 2023)),
    ("Published at TMLR 2023", None, ("TMLR", 2023)),
    ("TMLR", "TMLR", ("TMLR", None)),
])
def test_venue_and_year_from_venue_or_venueid(venue, venueid, expected):
    assert note_venue(venue, venueid) == expected


def test_an_old_v1_notes_invitation_and_a_journals_publication_date_give_the_year():
    # ICLR 2018's v1 notes have no venue or venue id: only their invitation says where they were.
    assert note_venue(None, None, ["ICLR.cc/2018/Conference/-/Blind_Submission"]) == ("ICLR", 2018)
    # TMLR's name no year; the year is the one the paper was published in (pdate, 2023-11-14 UTC).
    assert note_venue("Transactions on Machine Learning Research", "TMLR", [], 1_700_000_000_000) == ("TMLR", 2023)
    assert note_venue("Accepted by TMLR", "TMLR", ["TMLR/-/Submission"], 1_700_000_000_000) == ("TMLR", 2023)
    assert note_venue("TMLR", "TMLR", [], None) == ("TMLR", None)
    tmlr = {**note("t", title="T", abstract="A journal paper."), "pdate": 1_700_000_000_000}
    tmlr["content"]["venueid"] = {"value": "TMLR"}
    old = {"id": "o", "forum": "o", "invitation": "ICLR.cc/2018/Conference/-/Blind_Submission",
           "content": {"title": "Old", "abstract": "An old note."}}
    records, report = read(json.dumps([tmlr, old]))
    assert [(r.venue, r.year) for r in records] == [("TMLR", 2023), ("ICLR", 2018)] and not report.errors


def read(text: str, defaults: Defaults = Defaults()):
    report = Report()
    return read_openreview(text, "notes.json", report, defaults), report


def note(note_id: str, **content) -> dict:
    return {"id": note_id, "forum": note_id, "content": {key: {"value": value} for key, value in content.items()}}


def test_a_bad_note_is_reported_at_its_line_and_the_others_read():
    notes = [note("a", title="One", abstract="First.", venue="ICML 2024"),
             note("b", title="Two", venue="ICML 2024"),
             note("c", title="Three", abstract="Third.", authors="Ada Lovelace", venue="ICML 2024"),
             "not a note",
             note("e", title="Five", abstract="Fifth.")]
    text = json.dumps({"notes": notes, "count": 5}, indent=1)
    records, report = read(text)
    assert [r.title for r in records] == ["One"]

    def line_of(part: str) -> int:
        return text[:text.index(part)].count("\n") + 1

    # Each note is reported at its opening brace, the line before its "id".
    assert [(p.line, p.message) for p in report.errors] == [
        (line_of('"id": "b"') - 1, "note 'b': 'content.abstract' must be non-empty text"),
        (line_of('"id": "c"') - 1, "note 'c': 'content.authors' must be a list of text"),
        (line_of('"not a note"'), "each note must be an object with a 'content' object, as the OpenReview API gives it"),
        (line_of('"id": "e"') - 1, "note 'e': no venue/year in 'content.venue' or 'content.venueid' (pass --venue and --year)"),
    ]
    [record], _ = read(json.dumps([notes[4]]), Defaults("TMLR", 2023))
    assert (record.venue, record.year) == ("TMLR", 2023)


def test_withdrawn_and_desk_rejected_submissions_are_left_out_and_said():
    notes = [note("a", title="Accepted", abstract="An abstract.", venue="ICLR 2024 poster", venueid="ICLR.cc/2024/Conference"),
             note("w", title="Withdrawn", abstract="An abstract.", venue="ICLR 2024 Conference Withdrawn Submission",
                  venueid="ICLR.cc/2024/Conference/Withdrawn_Submission", authors=["Anonymous"]),
             note("d", title="Desk rejected", abstract="An abstract.", venue="ICLR 2024 Conference Desk Rejected Submission",
                  venueid="ICLR.cc/2024/Conference/Desk_Rejected_Submission"),
             note("r", title="Rejected", abstract="An abstract.", venue="Submitted to ICLR 2024",
                  venueid="ICLR.cc/2024/Conference/Rejected_Submission")]
    records, report = read("\n".join(json.dumps(n) for n in notes))
    assert [(r.title, r.venue, r.year) for r in records] == [("Accepted", "ICLR", 2024), ("Rejected", "ICLR", 2024)]
    assert [(p.line, p.message) for p in report.warnings] == [
        (2, "note 'w': withdrawn submission (ICLR 2024 Conference Withdrawn Submission), not imported"),
        (3, "note 'd': desk rejected submission (ICLR 2024 Conference Desk Rejected Submission), not imported")]
    assert not report.errors
    # A file of nothing but withdrawn notes has notes: none is imported, and none is an error.
    records, report = read(json.dumps(notes[1]))
    assert records == [] and not report.errors and len(report.warnings) == 1


def test_notes_one_a_line_and_a_single_note():
    lines = "\n".join(json.dumps(note(n, title=n.upper(), abstract="An abstract.", venue="ICML 2024")) for n in "ab")
    records, _ = read(lines)
    assert [(r.title, r.line) for r in records] == [("A", 1), ("B", 2)]
    [record], _ = read(json.dumps(note("x", title="X", abstract="An abstract.", venue="ICML 2024")))
    assert record.links == (("openreview", "https://openreview.net/forum?id=x"),)


def test_json_that_is_no_notes_is_refused_with_its_line():
    with pytest.raises(SiteError, match=r"not valid JSON: Expecting"):
        read('[\n  {"id": "a",\n   "content": }\n]')
    with pytest.raises(SiteError) as info:
        read('\n\n{"results": []}')
    assert info.value.problems[0].line == 3 and "expected OpenReview notes" in info.value.problems[0].message
