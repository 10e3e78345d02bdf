"""Planning an import: --update refreshes what nobody edited and keeps what someone did; repeats are skipped."""

from __future__ import annotations

import json

import pytest

from conftest import build_args, make_project
from papersite.ingest import importer
from papersite.ingest.pagetext import import_state, signed_page
from support.imported import pages_by_title, read_page

RECORDS = [
    {"title": "Graph Transformers for Molecules", "abstract": "We study graph transformers on small molecules.",
     "authors": ["Ada Lovelace"], "venue": "ICML", "year": 2024, "source_id": "a"},
    {"title": "Bandits in the Wild", "abstract": "We study bandits outside the lab.",
     "authors": ["Alan Turing"], "venue": "ICML", "year": 2024, "source_id": "b"},
]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture
def imported(project, cli, tmp_path):
    source = write_jsonl(tmp_path / "papers.jsonl", RECORDS)
    assert cli("import", source, "--content", project / "content").code == 0
    return project / "content", source


def test_update_refreshes_an_unedited_page_and_keeps_an_edited_one(imported, cli, tmp_path):
    content, source = imported
    pages = pages_by_title(content)
    graph, bandits = pages["Graph Transformers for Molecules"]["path"], pages["Bandits in the Wild"]["path"]
    edited = bandits.read_text().replace("We study bandits", "We (a person) study bandits")
    bandits.write_text(edited)
    write_jsonl(source, [
        {**RECORDS[0], "abstract": "We study graph transformers on molecules of every size. Code: https://github.com/x/gt.",
         "authors": ["Ada Lovelace", "Charles Babbage"], "venue": "ICML", "links": {"doi": "10.5555/gt.1"}},
        {**RECORDS[1], "abstract": "A new abstract the source gives."},
    ])
    result = cli("import", source, "--content", content, "--update")
    assert result.code == 0, result.err
    assert "import: 0 added, 1 updated, 0 unchanged, 1 kept (edited since import), 0 skipped (already imported), 0 failed" in result.out
    assert f"{bandits}: kept as it is: edited since it was imported" in result.out
    assert bandits.read_text() == edited
    front, body = read_page(graph)
    assert body == "We study graph transformers on molecules of every size. Code: https://github.com/x/gt."
    assert front["authors"] == ["Ada Lovelace", "Charles Babbage"]
    assert front["links"] == {"doi": "10.5555/gt.1"} and front["code"] == ["https://github.com/x/gt"]
    # What a person may have chosen stays: the id, the slug (the URL), the title and the tags.
    assert front["slug"] == graph.stem and front["id"] == "icml2024-a" and front["title"] == "Graph Transformers for Molecules"
    assert import_state(graph.read_text()) == "unedited"
    again = cli("import", source, "--content", content, "--update")
    assert "import: 0 added, 0 updated, 1 unchanged, 1 kept (edited since import)" in again.out
    assert cli(*build_args(content.parent)).code == 0


def test_update_keeps_an_edit_saved_after_the_pages_were_read(imported, cli, monkeypatch):
    # The pages are read first (on workers, in a large site), and each is read again where it may be
    # rewritten: a person's edit saved in between is kept, not refreshed over.
    content, source = imported
    bandits = pages_by_title(content)["Bandits in the Wild"]["path"]
    edited = bandits.read_text().replace("We study bandits", "We (a person, meanwhile) study bandits")
    listed = importer.scan_pages

    def scan_then_edit(*args):
        pages = listed(*args)
        bandits.write_text(edited)
        return pages

    monkeypatch.setattr(importer, "scan_pages", scan_then_edit)
    write_jsonl(source, [RECORDS[0], {**RECORDS[1], "abstract": "A new abstract the source gives."}])
    result = cli("import", source, "--content", content, "--update")
    assert "import: 0 added, 0 updated, 1 unchanged, 1 kept (edited since import)" in result.out
    assert bandits.read_text() == edited


def test_update_keeps_a_page_written_by_hand_and_adds_new_papers(imported, cli):
    content, source = imported
    page = pages_by_title(content)["Graph Transformers for Molecules"]["path"]
    text = "".join(line for line in page.read_text().splitlines(keepends=True) if not line.startswith("import_digest:"))
    page.write_text(text)
    write_jsonl(source, [*RECORDS, {**RECORDS[0], "title": "A Third Paper", "source_id": "c"}])
    result = cli("import", source, "--content", content, "--update")
    assert f"{page}: kept as it is: it has no import digest (written by hand)" in result.out
    assert "import: 1 added, 0 updated, 1 unchanged, 1 kept (edited since import)" in result.out
    assert page.read_text() == text


def test_without_update_an_import_skips_and_changes_nothing(imported, cli):
    content, source = imported
    before = {p: p.read_bytes() for p in (content / "papers").glob("*.md")}
    write_jsonl(source, [{**r, "abstract": "Changed."} for r in RECORDS])
    result = cli("import", source, "--content", content)
    assert "import: 0 added, 2 skipped (already imported), 0 failed" in result.out
    assert {p: p.read_bytes() for p in (content / "papers").glob("*.md")} == before


def test_update_and_force_do_not_go_together(imported, cli, capsys):
    content, source = imported
    with pytest.raises(SystemExit) as info:
        cli("import", source, "--content", content, "--update", "--force")
    assert info.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_the_same_paper_twice_in_one_source_is_one_page(project, cli, tmp_path):
    source = write_jsonl(tmp_path / "twice.jsonl", [
        {**RECORDS[0], "links": {"doi": "10.5555/gt.1"}},
        {**RECORDS[0], "title": "Graph Transformers for Molecules (extended)", "source_id": "a2", "links": {"doi": "https://doi.org/10.5555/GT.1"}},
    ])
    result = cli("import", source, "--content", project / "content")
    assert f"{source}:2: skipped: the same paper as line 1 (the same DOI 10.5555/gt.1)" in result.out
    assert list(pages_by_title(project / "content")) == ["Graph Transformers for Molecules"]


def test_records_without_an_id_of_their_own_never_take_another_papers(tmp_path, cli):
    """Ids by position (neurips2025-0001) belong to the untitled plain-text abstracts; a titled record without
    a source id gets one from its title, so a spreadsheet of the same conference adds its papers."""
    root = make_project(tmp_path / "shipped", copy_papers=True)
    source = tmp_path / "orals.csv"
    source.write_text("Title,Abstract,Venue,Year\nAn Oral Paper,We study orals.,NeurIPS,2025\n")
    result = cli("import", source, "--content", root / "content")
    assert "import: 1 added, 0 skipped" in result.out
    page = pages_by_title(root / "content")["An Oral Paper"]
    assert page["id"].startswith("neurips2025-t") and len(page["id"]) == len("neurips2025-t") + 10


def test_two_records_that_each_match_one_page_update_it_once(imported, cli):
    """One record has the page's id, another its title and first author; they share nothing with each other."""
    content, source = imported
    page = pages_by_title(content)["Graph Transformers for Molecules"]["path"]
    write_jsonl(source, [
        {**RECORDS[0], "title": "Graph Transformers, Renamed", "abstract": "The abstract by the page's id."},
        {**RECORDS[0], "source_id": "elsewhere", "abstract": "The abstract by the page's title."},
    ])
    result = cli("import", source, "--content", content, "--update")
    assert f"{source}:2: skipped: the same paper as line 1 ({page})" in result.out
    assert read_page(page)[1] == "The abstract by the page's id."


def test_update_from_a_preprint_keeps_the_venue_and_the_other_sources_links(project, cli, tmp_path):
    """An ICLR paper imported from OpenReview, refreshed from arXiv: a newer abstract, the venue stays."""
    published = {"title": "Graph Transformers for Molecules", "abstract": "We study graph transformers.",
                 "authors": ["Ada Lovelace"], "venue": "ICLR", "year": 2024, "source_id": "a",
                 "links": {"openreview": "https://openreview.net/forum?id=GnNeDg9xYz", "arxiv": "2310.01234"}}
    content = project / "content"
    assert cli("import", write_jsonl(tmp_path / "openreview.jsonl", [published]), "--content", content).code == 0
    preprint = {**published, "abstract": "We study graph transformers, version two.", "venue": "arXiv", "year": 2023,
                "source_id": "2310.01234", "links": {"arxiv": "2310.01234", "pdf": "https://arxiv.org/pdf/2310.01234"}}
    result = cli("import", write_jsonl(tmp_path / "arxiv.jsonl", [preprint]), "--content", content, "--update")
    assert "1 updated" in result.out, result.out
    front, body = read_page(pages_by_title(content)["Graph Transformers for Molecules"]["path"])
    assert body == "We study graph transformers, version two."
    assert (front["venue"], front["year"]) == ("ICLR", 2024)
    assert front["links"] == {"openreview": "https://openreview.net/forum?id=GnNeDg9xYz", "arxiv": "2310.01234",
                              "pdf": "https://arxiv.org/pdf/2310.01234"}
    # The other way round: a page imported from arXiv takes the venue the paper was published in since.
    later = {"title": "Bandits in the Wild", "abstract": "We study bandits.", "authors": ["Alan Turing"], "venue": "arXiv",
             "year": 2023, "source_id": "2311.00001", "links": {"arxiv": "2311.00001"}}
    assert cli("import", write_jsonl(tmp_path / "arxiv2.jsonl", [later]), "--content", content).code == 0
    result = cli("import", write_jsonl(tmp_path / "icml.jsonl", [{**later, "venue": "ICML", "year": 2024, "links": {}}]),
                 "--content", content, "--update")
    assert "1 updated" in result.out, result.out
    front, _ = read_page(pages_by_title(content)["Bandits in the Wild"]["path"])
    assert (front["venue"], front["year"], front["links"]) == ("ICML", 2024, {"arxiv": "2311.00001"})


def test_a_new_page_carries_the_day_it_was_added_and_update_and_force_keep_it(project, cli, tmp_path, monkeypatch):
    source = write_jsonl(tmp_path / "papers.jsonl", RECORDS[:1])
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796169600")   # 2026-12-02, UTC
    assert cli("import", source, "--content", project / "content").code == 0
    page = pages_by_title(project / "content")["Graph Transformers for Molecules"]["path"]
    assert "\nyear: 2024\nadded: 2026-12-02\ntags:" in page.read_text()
    # Weeks later the source changes and a second paper joins it.
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1799020800")   # 2027-01-04
    write_jsonl(source, [{**RECORDS[0], "abstract": "We study graph transformers on large molecules."}, RECORDS[1]])
    assert cli("import", source, "--content", project / "content", "--update").code == 0
    pages = pages_by_title(project / "content")
    assert str(read_page(page)[0]["added"]) == "2026-12-02" and "large molecules" in page.read_text()
    assert str(pages["Bandits in the Wild"]["added"]) == "2027-01-04"
    assert import_state(page.read_text()) == "unedited"
    assert cli("import", source, "--content", project / "content", "--force").code == 0
    assert str(read_page(page)[0]["added"]) == "2026-12-02"
    assert cli(*build_args(project)).code == 0


def test_without_source_date_epoch_the_day_is_today(project, cli, tmp_path, monkeypatch):
    import datetime
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    source = write_jsonl(tmp_path / "papers.jsonl", RECORDS[:1])
    before = datetime.date.today()
    assert cli("import", source, "--content", project / "content").code == 0
    added = read_page(pages_by_title(project / "content")["Graph Transformers for Molecules"]["path"])[0]["added"]
    assert before <= added <= datetime.date.today()


def test_a_source_date_epoch_that_is_no_time_is_an_error_and_nothing_is_written(project, cli, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    source = write_jsonl(tmp_path / "papers.jsonl", RECORDS)
    result = cli("import", source, "--content", project / "content")
    assert result.code != 0
    assert "SOURCE_DATE_EPOCH: must be a whole number of seconds since 1970-01-01 UTC, got 'yesterday'" in result.err
    assert "Traceback" not in result.err
    assert not list((project / "content" / "papers").glob("*.md"))


def test_a_page_with_an_impossible_date_does_not_stop_an_import(project, cli, tmp_path):
    """PyYAML raises a bare ValueError for `2025-02-30`; the import reads such a page as unreadable, and goes on."""
    papers = project / "content" / "papers"
    papers.mkdir(parents=True, exist_ok=True)
    (papers / "odd.md").write_text("---\nid: odd-1\nslug: odd\nvenue: 2025-02-30\n---\nText.\n")
    result = cli("import", write_jsonl(tmp_path / "papers.jsonl", RECORDS), "--content", project / "content")
    assert result.code == 0, result.err
    assert "import: 2 added" in result.out


def test_a_day_the_source_gives_is_a_new_pages_and_fills_in_a_page_without_one(project, cli, tmp_path):
    source = write_jsonl(tmp_path / "papers.jsonl", [{**RECORDS[0], "added": "2023-05-12"}, RECORDS[1]])
    assert cli("import", source, "--content", project / "content").code == 0
    pages = pages_by_title(project / "content")
    assert str(pages["Graph Transformers for Molecules"]["added"]) == "2023-05-12"
    assert str(pages["Bandits in the Wild"]["added"]) == "2026-12-02"   # the day of the import (conftest)
    # A page imported before pages had the line takes the source's day on --update; one with a day keeps it.
    bare = pages["Bandits in the Wild"]["path"]
    front, body = read_page(bare)
    del front["added"], front["import_digest"]
    bare.write_text(signed_page(front, body))
    assert import_state(bare.read_text()) == "unedited" and "added:" not in bare.read_text()
    write_jsonl(source, [{**RECORDS[0], "added": "2024-01-01"}, {**RECORDS[1], "added": "2022-02-02"}])
    assert cli("import", source, "--content", project / "content", "--update").code == 0
    pages = pages_by_title(project / "content")
    assert str(pages["Graph Transformers for Molecules"]["added"]) == "2023-05-12"
    assert str(pages["Bandits in the Wild"]["added"]) == "2022-02-02"
