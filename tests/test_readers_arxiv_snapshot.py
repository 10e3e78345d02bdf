"""arXiv's metadata snapshot: JSON Lines whose year is the first version's, whose links come from the id."""

from __future__ import annotations

import json

from conftest import build_args
from papersite.errors import Report
from papersite.ingest.readers.arxiv_snapshot import read_arxiv_snapshot
from papersite.ingest.records import Defaults
from support.imported import SOURCES, pages_by_title


def test_snapshot_lines_become_pages(project, cli):
    # Named .json, as arXiv names the file, though it is JSON Lines: read as the snapshot, never as text.
    result = cli("import", SOURCES / "arxiv-snapshot.json", "--content", project / "content")
    assert result.code == 0, result.err
    assert "as arXiv's metadata snapshot (JSON Lines)" in result.out and "import: 3 added" in result.out
    pages = pages_by_title(project / "content")
    protein = pages["Diffusion Models for Protein Backbone Design"]
    assert protein["authors"] == ["The Open Protein Consortium", "Rosalind Franklin", "Dorothy Crowfoot Hodgkin"]
    assert (protein["venue"], protein["year"]) == ("arXiv", 2024)
    assert protein["links"] == {"pdf": "https://arxiv.org/pdf/2402.07890", "arxiv": "2402.07890"}
    assert protein["body"].endswith("refold to within 2 Å of the design.")
    # The first version (October 2023) gives the year, not a later one or the update date.
    certified = pages["Certified Robustness of Graph Neural Networks under Edge Noise"]
    assert certified["year"] == 2023 and certified["authors"] == ["Grace Hopper", "Kurt Gödel"]
    diphoton = pages["Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"]
    assert diphoton["authors"] == ["C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan"]
    assert diphoton["links"] == {"pdf": "https://arxiv.org/pdf/0704.0001", "doi": "10.1103/PhysRevD.76.013009",
                                 "arxiv": "0704.0001"}
    assert (diphoton["year"], diphoton["id"]) == (2007, "arxiv2007-0704-0001")
    assert cli(*build_args(project)).code == 0


def test_bad_lines_are_reported_and_the_others_read():
    good = {"id": "2401.00001", "title": "Good", "abstract": "An abstract.", "authors": "Ada Lovelace",
            "versions": [{"version": "v1", "created": "Tue, 2 Jan 2024 10:00:00 GMT"}]}
    lines = [json.dumps(good), "{not json", json.dumps({**good, "id": "0001"}), json.dumps({**good, "versions": []}),
             json.dumps({**good, "abstract": ""}), "[]"]
    report = Report()
    records = read_arxiv_snapshot("\n".join(lines), "arxiv.json", report)
    assert [r.title for r in records] == ["Good"]
    assert [(p.line, p.message.split(":")[0]) for p in report.errors] == [
        (2, "not valid JSON"), (3, "'id' '0001' is not an arXiv id"), (4, "no year"),
        (5, "'abstract' must be non-empty text"), (6, "each line must be a JSON object, as in arXiv's metadata snapshot")]
    [record] = read_arxiv_snapshot(json.dumps({**good, "versions": []}), "arxiv.json", Report(), Defaults("SciPost", 2020))
    assert (record.venue, record.year) == ("SciPost", 2020)


def test_a_line_that_starts_with_white_space_starts_a_paragraph():
    line = {"id": "2401.00001", "title": "T", "abstract": "  We study x, a problem\nof y.\n  In a second part, we\nbound z.\n",
            "authors": "Ada Lovelace", "versions": [{"version": "v1", "created": "Tue, 2 Jan 2024 10:00:00 GMT"}]}
    [record] = read_arxiv_snapshot(json.dumps(line), "arxiv.json", Report())
    assert record.abstract == "We study x, a problem of y.\n\nIn a second part, we bound z."
