"""papers.bib and papers.json: one file of every paper, or a file per proceedings for a large collection."""

from __future__ import annotations

import json
import re

import bibtexparser
import pytest

from conftest import REPO, make_project
from papersite import urls
from papersite.cli import main
from papersite.pipeline import BuildOptions, build

SAMPLE = REPO / "tests" / "fixtures" / "ml-sample.jsonl"


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = make_project(tmp_path_factory.mktemp("exports") / "proj")
    assert main(["import", str(SAMPLE), "--content", str(root / "content")]) == 0
    return root


def built(root, out, monkeypatch=None, split_from=None):
    if split_from is not None:
        monkeypatch.setattr(urls, "EXPORTS_SPLIT_FROM", split_from)
    build(BuildOptions(content=root / "content", config=root / "site.yml", out=out, jobs=1, clean=True,
                       cache_dir=out.parent / f"{out.name}-cache"))
    return out


def entries(bib: str) -> list[str]:
    """The entries of a BibTeX file, as written (the header comment left out)."""
    return [block.strip() for block in bib.split("\n\n") if block.startswith("@")]


def test_a_large_collection_gets_a_file_per_proceedings_with_every_entry_once(sample, tmp_path, monkeypatch):
    whole = built(sample, tmp_path / "whole")
    split = built(sample, tmp_path / "split", monkeypatch, split_from=10)
    assert not (split / urls.BIBTEX).exists() and not (split / urls.EXPORT_JSON).exists()
    index = json.loads((split / urls.EXPORTS_INDEX).read_text(encoding="utf-8"))
    assert index["format"] == "papersite-exports/1"
    parts = index["proceedings"]
    assert {(p["venue"], p["year"]) for p in parts} == {("NeurIPS", 2016), ("NeurIPS", 2017), ("NeurIPS", 2018),
                                                          ("ICML", 2019), ("ICML", 2024), ("CoRL", 2024)}
    all_entries, all_papers = [], []
    for part in parts:
        bib = (split / part["bib"]).read_text(encoding="utf-8")
        parsed = bibtexparser.parse_string(bib)
        assert not parsed.failed_blocks and len(parsed.entries) == part["papers"]
        all_entries += entries(bib)
        data = json.loads((split / part["json"]).read_text(encoding="utf-8"))
        assert data["format"] == "papersite-papers/5"
        assert {(p["venue"], p["year"]) for p in data["papers"]} == {(part["venue"], part["year"])}
        all_papers += data["papers"]
    assert sorted(all_entries) == sorted(entries((whole / urls.BIBTEX).read_text(encoding="utf-8")))
    whole_papers = json.loads((whole / urls.EXPORT_JSON).read_text(encoding="utf-8"))["papers"]
    assert sorted(p["slug"] for p in all_papers) == sorted(p["slug"] for p in whole_papers)


def test_pages_link_the_files_that_exist(sample, tmp_path, monkeypatch):
    split = built(sample, tmp_path / "split", monkeypatch, split_from=10)
    downloads = (split / urls.DOWNLOADS).read_text(encoding="utf-8")
    for part in json.loads((split / urls.EXPORTS_INDEX).read_text(encoding="utf-8"))["proceedings"]:
        assert f'href="{part["bib"]}"' in downloads and f'href="{part["json"]}"' in downloads
    assert 'href="downloads.html"' in (split / urls.HOME).read_text(encoding="utf-8")
    page = next((split / "papers").glob("*.html")).read_text(encoding="utf-8")
    venue_year = re.search(r'data-venue="([^"]+)"', page).group(1)
    link = re.search(r'All ([^:]+) papers: <a href="\.\./(exports/[^"]+\.bib)"', page)
    assert link and link.group(1).startswith(venue_year) and (split / link.group(2)).is_file()
    monkeypatch.undo()
    whole = built(sample, tmp_path / "whole")
    home = (whole / urls.HOME).read_text(encoding="utf-8")
    # The files themselves, and the page that says what they hold.
    assert 'href="papers.bib"' in home and '(<a href="downloads.html">about these files</a>)' in home
    assert "exports/" not in (whole / urls.DOWNLOADS).read_text(encoding="utf-8")
