"""The real corpus, through a 59-record sample of it: import keeps every record and handles every
quirk, every written page parses again, the build has no errors and its pages stay light.

tests/fixtures/ml-sample.jsonl holds lines of ../shared/data/ml-abstracts.jsonl (bench/data has the
whole file, gzipped), chosen to cover: every venue and year; LaTeX in titles and abstracts
(inline, display, text macros, \\cite, ``quotes'', unknown math macros); hard line breaks,
blank-line paragraphs, a \\r\\n, a tab and PDF hyphen wraps; **bold**; bare URLs, one ending in a
period, \\url{} (one broken across lines) and an <https://...> autolink; the backspace abstract
(5zXTwX92qv) and the author name with a DEL (7118); non-ASCII text and names; truncated abstracts;
CoRL keywords; the odd source ids; the longest and shortest abstracts and the longest title.
The whole corpus is imported and built by bench/build.py, not here.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import REPO, build_args, make_project
from support.imported import front_matters
from papersite.inputs.papers import load_content, split_front_matter
from papersite.errors import Report
from papersite.inputs.files import read_text
from papersite.inputs.yamlsrc import FastLoader, SlowLoader, load_document

SAMPLE = REPO / "tests" / "fixtures" / "ml-sample.jsonl"
RECORDS = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]


def sample_line(source_id: str) -> int:
    return next(n for n, r in enumerate(RECORDS, start=1) if r["source_id"] == source_id)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The sample imported once (the import is what most tests here look at)."""
    from papersite.cli import main

    root = make_project(tmp_path_factory.mktemp("scale") / "proj")
    import io
    import contextlib

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["import", str(SAMPLE), "--content", str(root / "content")])
    assert code == 0, err.getvalue()
    return root, out.getvalue(), err.getvalue()


def pages_by_id(root: Path) -> dict[str, tuple[dict, str]]:
    found = {}
    for path in sorted((root / "content" / "papers").glob("*.md")):
        front, body, _ = split_front_matter(read_text(path), str(path))
        data = yaml.safe_load(front)
        found[data["id"]] = (data, body)
    return found


def test_the_sample_covers_the_corpus_quirks():
    venues = {(r["venue"], r["year"]) for r in RECORDS}
    assert venues == {("NeurIPS", 2016), ("NeurIPS", 2017), ("NeurIPS", 2018), ("ICML", 2019), ("ICML", 2024), ("CoRL", 2024)}
    abstracts = "\n".join(r["abstract"] for r in RECORDS)
    for needle in ("\b", "-\n", "\r\n", "\n\n", "\t", "**", "\\url{", "<https://", "\\cite{", "\\emph{", "$$", "``", "http"):
        assert needle in abstracts, needle
    assert any("\x7f" in a for r in RECORDS for a in r["authors"])
    assert any(r["keywords"] for r in RECORDS) and any("$" in r["title"] for r in RECORDS)
    assert {"5zXTwX92qv", "7118", "VE3yWXt3KB", "LfJgeBNCFI", "10058", "7c8c9a742a", "5065873f75"} <= {r["source_id"] for r in RECORDS}


def test_import_keeps_every_record_with_its_venue_and_year(imported):
    root, out, _ = imported
    assert f"import: {len(RECORDS)} added" in out
    pages = pages_by_id(root)
    assert len(pages) == len(RECORDS)
    by_source = {data["id"].split("-", 1)[1]: data for data, _ in pages.values()}
    for record in RECORDS:
        data = by_source[re.sub(r"[^A-Za-z0-9_-]+", "-", record["source_id"]).strip("-")]
        assert (data["venue"], data["year"]) == (record["venue"], record["year"])
        assert data["authors"] == [a.replace("\x7f", "") for a in record["authors"]]


def test_control_characters_are_dropped_with_a_warning(imported):
    root, _, err = imported
    assert f"{SAMPLE}:{sample_line('5zXTwX92qv')}: warning: dropped control characters U+0008" in err
    assert f"{SAMPLE}:{sample_line('7118')}: warning: dropped control characters U+007F" in err
    # A \r\n is a line break, not a control character to complain about.
    assert f"{SAMPLE}:{sample_line('7160')}: warning: dropped control characters U+000D" not in err
    for path in (root / "content" / "papers").glob("*.md"):
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", path.read_text(encoding="utf-8")), path.name


def test_hyphen_wraps_are_joined_and_real_hyphens_kept(imported):
    root, _, _ = imported
    bodies = {page_id: body for page_id, (_, body) in pages_by_id(root).items()}
    assert "captions" in bodies["neurips2018-11088"] and "cap-" not in bodies["neurips2018-11088"]
    assert "geometry-unaware" in bodies["neurips2018-11497"] and "information" in bodies["neurips2018-11497"]
    assert "Pretty-CLEVR" in bodies["neurips2018-11339"] and "network" in bodies["neurips2018-11339"]
    assert all("-\n" not in body for body in bodies.values())


def test_every_written_page_parses_again(imported):
    root, _, _ = imported
    report = Report()
    papers, _, _ = load_content(root / "content", report)
    assert not report.errors and len(papers) == len(RECORDS)


def test_libyaml_and_python_yaml_agree_on_every_page_and_fixture(imported):
    """yamlsrc reads with libyaml first: it must accept and build exactly what PyYAML does."""
    root, _, _ = imported
    texts = front_matters(root / "content" / "papers")
    texts += [p.read_text(encoding="utf-8", errors="replace") for p in (REPO / "tests" / "fixtures").rglob("*.yml")]
    texts += ["a: 1\n\tb: 2\n", "title: 'unclosed\n", "k: [1, 2\n", "a: 1\na: 2\n", "x: \"\\x7f\"\n", ""]
    assert FastLoader is not None
    for text in texts:
        outcomes = []
        for loader in (FastLoader, SlowLoader):
            try:
                node, value, duplicates = load_document(loader, text)
                outcomes.append(("ok", value, node is None, [key.value for key in duplicates]))
            except yaml.YAMLError:
                outcomes.append(("error",))
        assert outcomes[0] == outcomes[1], text


def test_the_sample_builds_without_errors_and_renders_its_quirks(imported, cli, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(imported[0], root)
    result = cli(*build_args(root))
    assert result.code == 0, result.err
    assert " error" not in result.err
    site = root / "site"
    pages = {p.name: p.read_text(encoding="utf-8") for p in (site / "papers").glob("*.html")}
    assert len(pages) == len(RECORDS)
    everything = "\n".join(pages.values())
    assert "<math" in everything                        # math rendered
    assert '<a href="https://' in everything            # URLs linked
    assert "\x08" not in everything and "\x7f" not in everything
    # Listings are paginated (per_page 50): 59 papers give two home pages.
    assert (site / "browse" / "page-2.html").is_file()
    assert (site / "index.html").read_text(encoding="utf-8").count('class="paper-card"') == 50
    largest = max(p.stat().st_size for p in site.rglob("*.html"))
    assert largest < 200_000


def test_bold_and_autolinks_become_markup_not_text(imported, cli, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(imported[0], root)
    assert cli(*build_args(root)).code == 0
    bold = next(p for p in (root / "content" / "papers").glob("*.md") if "**" in p.read_text(encoding="utf-8"))
    html = (root / "site" / "papers" / f"{bold.stem}.html").read_text(encoding="utf-8")
    abstract = html[html.index('class="abstract"'):]
    abstract = abstract[: abstract.index("</section>")]
    assert "<strong>" in abstract and "**" not in abstract
