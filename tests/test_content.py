"""Content loading: valid pages become Papers; each broken fixture gives its path:line message."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPO, build_args, make_project, paper_text
from papersite.content import load_content, split_front_matter
from papersite.errors import Report, SiteError

INVALID = Path(__file__).parent / "fixtures" / "invalid"
CASES = sorted(p.name for p in INVALID.iterdir() if (p / "expected.txt").is_file())


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", CASES)
def test_invalid_fixture_reports_file_and_line_and_keeps_previous_site(case, tmp_path, cli):
    root = make_project(tmp_path, {"good.md": paper_text(id="good-0001", slug="good")})
    assert cli(*build_args(root)).code == 0
    before = snapshot(root / "site")
    fixture = INVALID / case
    for page in (fixture / "papers").glob("*.md"):
        shutil.copyfile(page, root / "content" / "papers" / page.name)
    # Optional: a tags.yml or site.yml replacing the project's, and extra arguments (args.txt).
    for name, target in (("tags.yml", root / "content" / "tags.yml"), ("site.yml", root / "site.yml")):
        if (fixture / name).is_file():
            shutil.copyfile(fixture / name, target)
    extra = (fixture / "args.txt").read_text().split() if (fixture / "args.txt").is_file() else []
    result = cli(*build_args(root), *extra)
    assert result.code == 1
    for expected in (fixture / "expected.txt").read_text().splitlines():
        assert expected in result.err, f"{case}: expected {expected!r} in:\n{result.err}"
    assert "Traceback" not in result.err
    assert "nothing was written" in result.err
    assert snapshot(root / "site") == before


def test_every_problem_is_reported_once_per_line(tmp_path, cli):
    root = make_project(tmp_path)
    shutil.copytree(INVALID / "several-problems" / "papers", root / "content" / "papers", dirs_exist_ok=True)
    result = cli(*build_args(root))
    problems = [line for line in result.err.splitlines() if ".md:" in line]
    assert len(problems) == 2
    assert "failed with 2 errors" in result.err


def test_valid_page_loads_into_a_paper(project):
    (project / "content" / "papers" / "a.md").write_text(paper_text(authors="[Ada Lovelace, Alan Turing]"))
    report = Report()
    papers, taxonomy = load_content(project / "content", report)
    assert not report.errors
    [paper] = papers
    assert paper.slug == "a-paper" and paper.year == 2025
    assert paper.authors == ("Ada Lovelace", "Alan Turing")
    assert paper.tags == ("reinforcement-learning",)
    assert paper.body.startswith("We study reinforcement learning")
    assert paper.body_line == 13
    assert taxonomy.fallback in taxonomy.by_slug()


@pytest.mark.parametrize("encode", [
    pytest.param(lambda text: b"\xef\xbb\xbf" + text.encode(), id="bom"),
    pytest.param(lambda text: text.replace("\n", "\r\n").encode(), id="crlf"),
])
def test_bom_and_crlf_pages_build(encode, tmp_path, cli):
    root = make_project(tmp_path)
    (root / "content" / "papers" / "a.md").write_bytes(encode(paper_text()))
    assert cli(*build_args(root)).code == 0
    html = (root / "site" / "papers" / "a-paper.html").read_text()
    assert "A paper about reinforcement learning" in html


def test_front_matter_split_reports_body_line():
    _, body, line = split_front_matter("---\na: 1\n---\nbody\n", "x.md")
    assert body == "body\n" and line == 4


def test_missing_front_matter_is_an_error():
    with pytest.raises(SiteError, match="x.md:1: missing front matter"):
        split_front_matter("just text\n", "x.md")


def test_duplicate_yaml_key_is_an_error_not_silently_dropped(project, cli):
    (project / "content" / "papers" / "a.md").write_text(paper_text().replace("venue: NeurIPS\n", "venue: NeurIPS\ntitle: Again\n"))
    result = cli(*build_args(project))
    assert result.code == 1
    assert "papers/a.md:7: duplicate key 'title'" in result.err


def test_missing_content_directory(tmp_path, cli):
    shutil.copyfile(REPO / "site.yml", tmp_path / "site.yml")
    result = cli("build", "--content", tmp_path / "nope", "--config", tmp_path / "site.yml", "--out", tmp_path / "site")
    assert result.code == 1
    assert f"{tmp_path / 'nope'}: content directory not found" in result.err
    assert not (tmp_path / "site").exists()


def test_missing_site_config(project, cli):
    (project / "site.yml").unlink()
    (project / "content" / "papers" / "a.md").write_text(paper_text())
    result = cli(*build_args(project))
    assert result.code == 1
    assert "site.yml: site config not found" in result.err


def test_template_syntax_error_names_template_and_line(project, tmp_path, cli):
    (project / "content" / "papers" / "a.md").write_text(paper_text())
    templates = tmp_path / "templates"
    shutil.copytree(REPO / "templates", templates)
    (templates / "tag.html").write_text('{% extends "base.html" %}\n{% block content %}\n{% if %}\n{% endblock %}\n')
    result = cli(*build_args(project), "--templates", templates)
    assert result.code == 1
    assert f"{templates / 'tag.html'}:3: template syntax error" in result.err


def test_unconvertible_math_warns_then_fails_under_strict(project, cli):
    (project / "content" / "papers" / "a.md").write_text(paper_text(body="Intro line.\n\nWe bound $\\notacommand{x}$ tightly."))
    result = cli(*build_args(project))
    assert result.code == 0
    assert "papers/a.md:15: warning: unknown LaTeX command \\notacommand" in result.err
    html = (project / "site" / "papers" / "a-paper.html").read_text()
    assert '<code class="math-error">$\\notacommand{x}$</code>' in html
    strict = cli(*build_args(project), "--strict")
    assert strict.code == 1
    assert "papers/a.md:15: unknown LaTeX command \\notacommand" in strict.err
