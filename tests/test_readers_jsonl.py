"""Our JSON Lines records may carry links, written as the front matter's `links`."""

from __future__ import annotations

import json

from papersite.errors import Report
from papersite.ingest.readers.jsonl import read_jsonl
from papersite.ingest.records import Defaults

RECORD = {"title": "T", "abstract": "We study things.", "venue": "ICML", "year": 2024}


def test_links_are_read_and_written_bare():
    report = Report()
    [record] = read_jsonl(json.dumps({**RECORD, "links": {"doi": "doi:10.5555/X", "url": "https://arxiv.org/abs/2401.00001v2",
                                                          "pdf": "ftp://example.org/a.pdf"}}), "p.jsonl", report)
    assert record.links == (("doi", "10.5555/X"), ("arxiv", "2401.00001"))
    assert [str(w) for w in report.warnings] == ["p.jsonl:1: left out the pdf link: it must be an http(s) URL, got 'ftp://example.org/a.pdf'"]


def test_links_of_another_shape_are_an_error():
    report = Report()
    assert read_jsonl(json.dumps({**RECORD, "links": {"homepage": "https://example.org"}}) + "\n"
                      + json.dumps({**RECORD, "links": ["https://example.org"]}), "p.jsonl", report) == []
    assert [(p.line, p.message) for p in report.errors] == [
        (1, "'links' must be an object of text, with keys among pdf, doi, arxiv, openreview, url"),
        (2, "'links' must be an object of text, with keys among pdf, doi, arxiv, openreview, url")]


def test_a_year_as_text_is_read_and_one_that_is_no_year_is_never_replaced_by_the_flag():
    report = Report()
    [record] = read_jsonl(json.dumps({**RECORD, "year": "2019"}), "p.jsonl", report)
    assert record.year == 2019 and not report.errors
    lines = "\n".join(json.dumps({**RECORD, "year": year}) for year in ("20x2", True, 2019.5))
    assert read_jsonl(lines, "p.jsonl", report, Defaults("ICML", 2023)) == []
    assert [str(p) for p in report.errors] == [
        "p.jsonl:1: the year '20x2' is not a year (write it as four digits, such as 2024)",
        "p.jsonl:2: the year True is not a year (write it as four digits, such as 2024)",
        "p.jsonl:3: the year 2019.5 is not a year (write it as four digits, such as 2024)"]


def test_a_record_without_a_year_is_told_what_it_lacks():
    report = Report()
    assert read_jsonl(json.dumps({"title": "T", "abstract": "We study things.", "venue": "ICML"}), "p.jsonl", report) == []
    assert [str(p) for p in report.errors] == ["p.jsonl:1: no venue/year: the record has no 'year' (pass --venue and --year)"]


def test_a_venue_spelled_out_is_its_short_name():
    report = Report()
    lines = "\n".join(json.dumps({**RECORD, "venue": venue}) for venue in (
        "Proceedings of the 41st International Conference on Machine Learning", "ICML"))
    assert [r.venue for r in read_jsonl(lines, "p.jsonl", report)] == ["ICML", "ICML"]


def test_a_records_added_day_is_read_with_or_without_a_time():
    report = Report()
    lines = [json.dumps({**RECORD, "added": added}) for added in ("2024-03-01", "2024-03-02T09:00:00Z", "2024-02-30", 20240301)]
    records = read_jsonl("\n".join(lines), "s.jsonl", report)
    assert [r.added for r in records] == ["2024-03-01", "2024-03-02", None, None]
    assert [w.line for w in report.warnings] == [3, 4] and not report.errors
