"""Incremental builds give exactly the output of a clean build, after every kind of edit.

Each test builds the 59-paper real-corpus sample (tests/fixtures/ml-sample.jsonl) once with
the cache, edits something, builds again with the cache, and compares every byte of the
output with a clean build of the edited project into another directory. Also: the cache
is ignored when corrupt, stale or told to (--clean); a hand-edited output file is made
again; and a parallel build writes the same bytes as a serial one.
"""

from __future__ import annotations

import contextlib
import os
import io
import json
import re
import shutil
from functools import partial
from pathlib import Path

import pytest

from conftest import REPO, build_args, make_project, paper_text, snapshot
from papersite import stages, urls, workers
from support.maps import without_map_points
from papersite.cli import main
from papersite.digests import digest
from papersite.enrich import authors as authors_module
from papersite.enrich import people as people_module
from papersite.enrich import related as related_module
from papersite.incremental import cache as cache_module
from papersite.incremental import reuse
from papersite.incremental import store as store_module
from papersite.incremental.inputs import FileDigests, code_version
from papersite.incremental.store import default_cache_path, delta_path, state_path
from papersite.publish import exports, search, search_terms
from papersite.stages import Built
from papersite.pipeline import BuildOptions, WarmCache, build

SAMPLE = REPO / "tests" / "fixtures" / "ml-sample.jsonl"


@pytest.fixture(autouse=True)
def fixed_code_version(monkeypatch):
    """One code version for the whole module: these tests are about the data in the cache, and a
    module edited while they run (in a shared working tree) must not turn every build cold."""
    import papersite.incremental.cache as build_cache

    monkeypatch.setattr(build_cache, "code_version", lambda: CODE)


CODE = code_version()


@pytest.fixture(scope="module")
def sample_project(tmp_path_factory) -> Path:
    root = make_project(tmp_path_factory.mktemp("cache") / "proj")
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert main(["import", str(SAMPLE), "--content", str(root / "content")]) == 0
    # Own copies: the tests compare builds made seconds apart, so their inputs must hold still.
    shutil.copytree(REPO / "templates", root / "templates")
    shutil.copytree(REPO / "static", root / "static")
    return root


@pytest.fixture
def proj(sample_project, tmp_path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(sample_project, root)
    return root


def options(root: Path, out: Path | None = None, **extra) -> BuildOptions:
    return BuildOptions(content=root / "content", config=root / "site.yml", out=out or root / "site",
                        templates=root / "templates", static=root / "static", jobs=extra.pop("jobs", 1), **extra)


def assert_same_as_clean(root: Path, tmp_path: Path):
    """The incremental output equals a clean build of the same inputs, file for file, apart from
    where the topic map places papers: a clean build lays the map out afresh, an incremental one
    keeps every point it can (tests/test_projection.py). The maps must still agree in everything
    else: the same papers, links, titles, marks and legend."""
    clean = tmp_path / "clean"
    build(options(root, clean / "site", clean=True, cache_dir=clean / "cache"))
    ours, theirs = snapshot(root / "site"), snapshot(clean / "site")
    assert sorted(ours) == sorted(theirs)
    different = [path for path in ours if without_map_points(ours[path]) != without_map_points(theirs[path])]
    assert not different, different[:5]


def paper_file(root: Path, name: str) -> Path:
    return next((root / "content" / "papers").glob(f"{name}.md"))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def first_paper(root: Path) -> Path:
    return sorted((root / "content" / "papers").glob("*.md"))[0]


def slug_of(paper: Path) -> str:
    return re.search(r"^slug: (.+)$", paper.read_text(encoding="utf-8"), re.MULTILINE).group(1)


def bibtex_title(bib: Path) -> str:
    """The collection a BibTeX file names: "% 3 papers from TITLE, one entry each, UTF-8."."""
    return re.match(r"% \d+ papers? from (.*), one entry each", bib.read_text(encoding="utf-8")).group(1)


def log_papers_json_lines(monkeypatch, log: Path) -> None:
    """Each paper's papers.json line encoded from now on appends its slug to `log` (a file: with two
    jobs the exports are made in a forked worker)."""
    json_line = exports.json_line

    def logging(value):
        if isinstance(value, dict) and "abstract_markdown" in value:
            with log.open("a", encoding="utf-8") as f:
                f.write(value["slug"] + "\n")
        return json_line(value)

    monkeypatch.setattr(exports, "json_line", logging)


def log_bibtex_files(monkeypatch, log: Path) -> None:
    """Each BibTeX file made from now on appends its title to `log` (a file, as above)."""
    bibtex_file = exports.bibtex_file

    def logging(title, entries):
        with log.open("a", encoding="utf-8") as f:
            f.write(title + "\n")
        return bibtex_file(title, entries)

    monkeypatch.setattr(exports, "bibtex_file", logging)


def logged(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines()


@pytest.fixture(params=["in the build process", "in a worker"])
def output_check(request, monkeypatch, tmp_path):
    """Where a build surveys its previous output: itself (a small site), or a worker (a large
    site: cache.PARALLEL_CHECK_FILES). Yields the build's jobs and the pids that surveyed it."""
    if request.param == "in the build process":
        yield 1, lambda: []
        return
    import papersite.incremental.cache as build_cache
    from papersite.incremental.reuse import PreviousOutput

    monkeypatch.setattr(build_cache, "PARALLEL_CHECK_FILES", 0)
    log = tmp_path / "checked-by"
    real = PreviousOutput.survey

    def logged(self):
        with open(log, "a") as f:   # the worker's memory goes with it: its pid is written down
            f.write(f"{os.getpid()}\n")
        return real(self)

    monkeypatch.setattr(PreviousOutput, "survey", logged)
    yield 2, lambda: [int(pid) for pid in log.read_text().split()] if log.exists() else []


def test_a_rebuild_with_nothing_changed_writes_nothing(proj, output_check):
    jobs, checked_by = output_check
    first = build(options(proj, jobs=jobs))
    assert first.rendered == first.pages and first.reused == 0
    index = proj / "site" / "index.html"
    before = index.stat()
    again = build(options(proj, jobs=jobs))
    if jobs > 1:
        assert len(checked_by()) == 1 and os.getpid() not in checked_by()
    assert again.rendered == 0 and again.reused == first.pages
    assert (again.pages, again.files, again.warnings) == (first.pages, first.files, first.warnings)
    after = index.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_build_leaves_what_it_made_to_a_caller_that_exits_without_freeing_it(proj, tmp_path):
    """build.py exits without freeing the build's objects one by one (pipeline.build's `keep`): an
    edit build hands over its cache, its site and its pages' plan instead of freeing them as it
    returns, and writes the same site as a build that frees them."""
    from papersite.enrich.listings import Site
    from papersite.incremental.cache import BuildCache
    from papersite.render.specs import Spec

    build(options(proj))
    path = first_paper(proj)
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + " An added sentence.\n", encoding="utf-8")
    kept: list = []
    result = build(options(proj), keep=kept)
    assert 0 < result.rendered < result.pages
    caches = [item for item in kept if isinstance(item, BuildCache)]
    assert len(caches) == 1 and "pages" in caches[0].store.states
    built = [item for item in kept if isinstance(item, Built)]
    assert len(built) == 1 and isinstance(built[0].site, Site)
    assert len(built[0].site.papers) == len(list((proj / "content" / "papers").glob("*.md")))
    assert len(built[0].plan) == result.pages and all(isinstance(spec, Spec) for spec in built[0].plan)
    assert_same_as_clean(proj, tmp_path)


def test_a_specs_version_changes_exactly_when_all_its_fields_do(proj):
    """Paper, author and listing pages' specs carry the digest of what they were made from
    (render/plan.py PageSpec.version), which their pages' keys take instead of fingerprinting every
    field: after each kind of change, a spec's version changes exactly when the fingerprint of its
    fields does."""
    from dataclasses import replace

    from papersite.digests import Fingerprints
    from papersite.incremental.reuse import page_key
    from papersite.render.specs import Spec

    def planned() -> dict[str, Spec]:
        kept: list = []
        build(options(proj), keep=kept)
        plan = next(item.plan for item in kept if isinstance(item, Built))
        return {spec.path: spec for spec in plan}

    def fields_key(spec: Spec) -> bytes:
        return page_key(Fingerprints(), b"", replace(spec, version=b""))

    def abstract():
        path = first_paper(proj)
        path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + " An added sentence.\n", encoding="utf-8")

    def site_title():
        edit(proj / "site.yml", "title: ", "title: Renamed ")

    def author_name():
        edit(first_paper(proj), "authors: [", "authors: [Ada Newcomer, ")

    def tag_description():
        edit(proj / "content" / "tags.yml", "description: ", "description: Renamed ")

    def added_paper():
        source = first_paper(proj)
        text = source.read_text(encoding="utf-8").replace(f"slug: {source.stem}\n", "slug: brand-new-paper\n")
        text = re.sub(r"(?m)^title: .*$", "title: A brand new paper", text.replace("id: ", "id: added-", 1), count=1)
        (proj / "content" / "papers" / "brand-new-paper.md").write_text(text, encoding="utf-8")

    def last_listed() -> Path:   # a paper the home page's first page does not list
        last = max((spec for spec in before.values() if spec.kind == "home"), key=lambda spec: spec.context["pagination"].number)
        assert last.path != urls.HOME
        return Path(last.context["papers"][-1].paper.path)

    def added_later():   # it becomes the first page's news
        path = last_listed()
        text = re.sub(r"(?m)^added: .*\n", "", path.read_text(encoding="utf-8"))
        path.write_text(re.sub(r"(?m)^(year: .*\n)", r"\1added: 2027-01-04\n", text, count=1), encoding="utf-8")

    def news_abstract():
        path = Path(before[urls.HOME].context["recent"].papers[0].paper.path)
        path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + " Another sentence.\n", encoding="utf-8")

    before = planned()
    assert {spec.kind for spec in before.values() if spec.version} == {"paper", "author", "tag", "proceedings", "home", "map"}
    assert all(spec.version for spec in before.values() if spec.kind in ("paper", "author", "tag", "proceedings", "home", "map"))
    for change in (abstract, site_title, tag_description, author_name, added_paper, added_later, news_abstract):
        change()
        after = planned()
        same = [path for path in before.keys() & after.keys() if before[path].version or after[path].version]
        moved = {path for path in same if before[path].version != after[path].version}
        assert moved == {path for path in same if fields_key(before[path]) != fields_key(after[path])}, change.__name__
        assert moved and len(moved) < len(same) or change is site_title, change.__name__
        if change in (added_later, news_abstract):
            assert after[urls.HOME].context["recent"].count == 1 and urls.HOME in moved, change.__name__
        if change is news_abstract:   # the page of papers by day added (made once there are two days) lists it first
            assert after[urls.ADDED].context["days"][0].papers[0].paper.path == before[urls.HOME].context["recent"].papers[0].paper.path
            assert urls.ADDED in moved
        before = after


def test_editing_one_abstract_rebuilds_only_what_shows_it(proj, tmp_path):
    build(options(proj))
    path = first_paper(proj)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n") + " An added closing sentence about $x^2$ and https://example.org/x.\n", encoding="utf-8")
    result = build(options(proj))
    assert 0 < result.rendered < result.pages // 2
    assert result.reused > result.pages // 2
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("kind", ["title", "tags", "authors", "venue-year"])
def test_editing_front_matter(proj, tmp_path, kind):
    build(options(proj))
    path = first_paper(proj)
    text = path.read_text(encoding="utf-8")
    front = text.split("---\n")[1]
    line = {key: value for key, value in (l.split(":", 1) for l in front.splitlines() if ":" in l)}
    if kind == "title":
        edit(path, "title:" + line["title"], "title: 'A new title with $\\alpha$ in it'")
    elif kind == "tags":
        edit(path, "tags:" + line["tags"], "tags: [robotics]")
    elif kind == "authors":
        edit(path, "authors:" + line["authors"], "authors: [Ada Lovelace, Émilie du Châtelet]")
    else:
        edit(path, "year:" + line["year"], "year: 2031")
    build(options(proj))
    assert_same_as_clean(proj, tmp_path)


def test_a_year_changed_keeps_the_last_builds_people_ranking_and_author_pages(proj, tmp_path, monkeypatch):
    """A paper whose year changed moves in site order, and the papers between its old and new places
    shift by one. The people are the last build's with their papers renumbered (people.reordered),
    the related papers start from the last ranking (related.aligned), and only its authors' pages
    are versioned again (authors.changed_lines): at 100,000 papers each was done afresh, 40 s where
    an abstract's edit took 13. Of the home page's pages, only those whose papers moved are
    rendered again: the proceedings' counts changed, which they do not show. The site is a clean build's."""
    monkeypatch.setattr(urls, "EXPORTS_SPLIT_FROM", 1)   # exports per proceedings, as from 10,000 papers
    with open(proj / "site.yml", "a", encoding="utf-8") as f:
        f.write("per_page: 7\n")
    build(options(proj))
    before = page_files(proj)
    path = first_paper(proj)
    slug = slug_of(path)
    assert listed_first(before) != slug
    edit(path, re.search(r"(?m)^year: .*$", path.read_text(encoding="utf-8"))[0], "year: 2031")
    versioned = []
    page_version = authors_module.page_version
    with monkeypatch.context() as patch:
        patch.setattr(people_module, "identify", lambda *args: pytest.fail("every author identified again"))
        patch.setattr(related_module, "rank_all", lambda *args: pytest.fail("every paper ranked again"))
        patch.setattr(related_module, "INCREMENTAL_SHARE", 1.0)
        patch.setattr(authors_module, "page_version", lambda person, entries: versioned.append(person.slug) or page_version(person, entries))
        build(options(proj))
    assert versioned and {f"{name}.html" for name in versioned} == authors_of(proj, slug)
    after = page_files(proj)
    home = {path for path in after if path == "index.html" or path.startswith("browse/")}
    assert {path for path in home if after[path][1] != before[path][1]} == rendered_again(before, after) & home
    assert listed_first(after) == slug
    assert_same_as_clean(proj, tmp_path)


def test_an_authors_name_changed_on_one_paper_identifies_its_people_alone(proj, tmp_path, monkeypatch):
    """A name corrected on one paper: the people named on it before and now are identified again
    (people.reidentified), everyone else is the last build's; the author pages versioned again are
    those of the people on those people's papers, and only author pages that changed are rendered.
    At 100,000 papers everyone was identified and every page versioned again. The site is a clean build's."""
    build(options(proj))
    before = page_files(proj)
    path = first_paper(proj)
    slug = slug_of(path)
    old_authors = authors_of(proj, slug)
    line = re.search(r"(?m)^authors: \[(.*)\]$", path.read_text(encoding="utf-8"))
    edit(path, line[0], f"authors: [Ada Lovelace, {line[1]}]")
    versioned = []
    page_version = authors_module.page_version
    with monkeypatch.context() as patch:
        patch.setattr(people_module, "identify", lambda *args: pytest.fail("every author identified again"))
        patch.setattr(authors_module, "page_version", lambda person, entries: versioned.append(person.slug) or page_version(person, entries))
        build(options(proj))
    after = page_files(proj)
    assert authors_of(proj, slug) == old_authors | {"ada-lovelace.html"}
    assert "ada-lovelace" in versioned and len(versioned) < len([p for p in after if p.startswith("authors/")]) // 4
    pages = {path for path in rendered_again(before, after, "authors/") if path != "index.html" and not path.startswith("letters/")}
    assert pages and pages <= {f"{name}.html" for name in versioned}
    assert_same_as_clean(proj, tmp_path)


def test_a_paper_added_and_another_removed_identify_their_people_alone(proj, tmp_path, monkeypatch):
    """A paper added and another removed: the people named on them are identified again, everyone
    else keeps their person with their papers renumbered (people.reidentified); at 100,000 papers
    an add identified all 476,000 names again. The site is a clean build's."""
    build(options(proj))
    papers = sorted((proj / "content" / "papers").glob("*.md"))
    added = proj / "content" / "papers" / "a-paper-added.md"
    added.write_text(paper_text(id="p-added", slug="a-paper-added", title="A paper added", authors="[Ada Lovelace, Grace Hopper]"),
                     encoding="utf-8")
    papers[-1].unlink()
    with monkeypatch.context() as patch:
        patch.setattr(people_module, "identify", lambda *args: pytest.fail("every author identified again"))
        build(options(proj))
    assert {"ada-lovelace.html", "grace-hopper.html"} <= authors_of(proj, "a-paper-added")
    assert_same_as_clean(proj, tmp_path)


def listed_first(pages: dict[str, tuple[int, bytes]]) -> str:
    """The slug of the home page's first paper."""
    listing = re.search(rb'<ol class="paper-list.*?</ol>', pages["index.html"][1], re.S)[0]
    return re.search(rb'href="papers/([^"]+)\.html"', listing)[1].decode()


def test_editing_the_taxonomy(proj, tmp_path):
    build(options(proj))
    edit(proj / "content" / "tags.yml", "name: ", "name: Renamed ")
    build(options(proj))
    assert_same_as_clean(proj, tmp_path)


def test_editing_a_template_rebuilds_every_page(proj, tmp_path):
    first = build(options(proj))
    base = proj / "templates" / "base.html"
    base.write_text(base.read_text(encoding="utf-8").replace("</body>", "<!-- edited -->\n</body>"), encoding="utf-8")
    result = build(options(proj))
    assert result.rendered == first.pages
    assert "<!-- edited -->" in (proj / "site" / "index.html").read_text(encoding="utf-8")
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("change", [("title: ", "title: Renamed "), ("title: ", "repo_url: https://example.org/repo\ntitle: ")])
def test_editing_the_config(proj, tmp_path, change):
    build(options(proj))
    edit(proj / "site.yml", *change)
    build(options(proj))
    assert_same_as_clean(proj, tmp_path)


def test_per_page_and_base_url_changes(proj, tmp_path):
    build(options(proj))
    with open(proj / "site.yml", "a", encoding="utf-8") as f:
        f.write("per_page: 7\nbase_url: https://example.org/papers/\n")
    build(options(proj))
    assert (proj / "site" / "browse" / "page-9.html").is_file()
    assert_same_as_clean(proj, tmp_path)


def test_deleting_a_paper(proj, tmp_path):
    build(options(proj))
    gone = first_paper(proj)
    gone.unlink()
    build(options(proj))
    assert not (proj / "site" / "papers" / f"{gone.stem}.html").exists()
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("keep_alias", [True, False])
def test_renaming_a_slug(proj, tmp_path, keep_alias):
    build(options(proj))
    path = first_paper(proj)
    old = path.stem
    edit(path, f"slug: {old}\n", "slug: a-renamed-paper\n")
    if keep_alias:
        edit(path, "aliases: []", f"aliases: [{old}]")
    build(options(proj))
    assert (proj / "site" / "papers" / "a-renamed-paper.html").is_file()
    assert (proj / "site" / "papers" / f"{old}.html").is_file() == keep_alias
    assert_same_as_clean(proj, tmp_path)


def test_adding_a_paper(proj, tmp_path):
    build(options(proj))
    source = first_paper(proj)
    text = source.read_text(encoding="utf-8").replace(f"slug: {source.stem}\n", "slug: brand-new-paper\n")
    text = text.replace("id: ", "id: added-", 1)
    text = re.sub(r"(?m)^title: .*$", "title: A brand new paper", text, count=1)
    (proj / "content" / "papers" / "brand-new-paper.md").write_text(text, encoding="utf-8")
    build(options(proj))
    assert_same_as_clean(proj, tmp_path)


def test_several_edits_in_a_row_stay_identical(proj, tmp_path):
    build(options(proj))
    papers = sorted((proj / "content" / "papers").glob("*.md"))
    edit(papers[3], "\n---\n", "\n---\nA first line added to the abstract.\n\n")
    build(options(proj))
    papers[5].unlink()
    build(options(proj))
    edit(proj / "site.yml", "title: ", "title: Again ")
    build(options(proj))
    edit(papers[3], "A first line added", "A first line changed")
    build(options(proj))
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("change", ["edited", "deleted", "added"])
def test_a_hand_edited_deleted_or_added_output_file_is_made_again_or_removed(proj, tmp_path, output_check, change):
    jobs, checked_by = output_check
    build(options(proj, jobs=jobs))
    page = sorted((proj / "site" / "papers").glob("*.html"))[0]
    if change == "edited":
        page.write_text("tampered", encoding="utf-8")
    elif change == "deleted":
        (proj / "site" / "tags" / "index.html").unlink()
    else:
        (proj / "site" / "stray.html").write_text("not ours", encoding="utf-8")
    result = build(options(proj, jobs=jobs))
    assert "unchanged check" not in dict(result.timings)   # not taken for a build with nothing to do
    assert page.read_text(encoding="utf-8") != "tampered"
    assert (proj / "site" / "tags" / "index.html").is_file()
    assert not (proj / "site" / "stray.html").exists()
    if jobs > 1:
        assert len(checked_by()) == 1 and os.getpid() not in checked_by()
    assert_same_as_clean(proj, tmp_path)


def test_an_edit_deletes_what_was_put_in_the_output_by_hand_without_following_a_link(proj, tmp_path, output_check):
    """Files, links and empty folders put in the output go as a clean build would leave it; a link
    to a folder elsewhere goes as a link, and what that folder holds stays."""
    jobs, _ = output_check
    build(options(proj, jobs=jobs))
    site, elsewhere = proj / "site", tmp_path / "elsewhere"
    (elsewhere / "papers").mkdir(parents=True)
    (elsewhere / "papers" / "mine.html").write_text("mine", encoding="utf-8")
    (site / "linked").symlink_to(elsewhere)
    (site / "empty" / "deeper").mkdir(parents=True)
    (site / "papers" / "stray.html").write_text("not ours", encoding="utf-8")
    edit(first_paper(proj), "\n---\n", "\n---\nAn edit.\n\n")
    assert 0 < build(options(proj, jobs=jobs)).rendered
    assert not (site / "linked").is_symlink() and not (site / "empty").exists() and not (site / "papers" / "stray.html").exists()
    assert (elsewhere / "papers" / "mine.html").read_text(encoding="utf-8") == "mine"
    assert_same_as_clean(proj, tmp_path)


def test_files_an_edit_does_not_make_again_are_made_when_the_output_lost_them(proj, tmp_path):
    """An edit that adds no page takes the sitemap and the static files from the previous output;
    one deleted or changed there since is made again."""
    with open(proj / "site.yml", "a", encoding="utf-8") as config:
        config.write("base_url: https://example.org/papers/\n")
    build(options(proj))
    (proj / "site" / "sitemap.xml").unlink()
    (proj / "site" / "assets" / "style.css").write_text("tampered", encoding="utf-8")
    edit(first_paper(proj), "\n---\n", "\n---\nAn edit.\n\n")
    assert build(options(proj)).rendered > 0
    assert (proj / "site" / "sitemap.xml").is_file()
    assert (proj / "site" / "assets" / "style.css").read_text(encoding="utf-8") != "tampered"
    assert_same_as_clean(proj, tmp_path)


def test_a_build_with_inputs_changed_uses_the_survey_of_its_output(proj, tmp_path, output_check):
    """The survey that tells a build with nothing to do that its output is intact tells an edit
    what to keep and what to delete: one survey, by one worker, reaped."""
    jobs, checked_by = output_check
    build(options(proj, jobs=jobs))
    edit(first_paper(proj), "\n---\n", "\n---\nAn edit.\n\n")
    assert build(options(proj, jobs=jobs)).rendered > 0
    if jobs > 1:
        assert len(checked_by()) == 1 and os.getpid() not in checked_by()
        for pid in checked_by():   # reaped: neither running nor left a zombie
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
    assert not [p for p in proj.iterdir() if p.name.startswith(".site.tmp-")]
    assert_same_as_clean(proj, tmp_path)


def corrupt(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "flip":
        data[len(data) // 2] ^= 0xFF
    elif how == "truncate":
        data = data[: len(data) // 3]
    else:
        data = bytearray(b"garbage")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("which", ["cache", "state"])
@pytest.mark.parametrize("how", ["flip", "truncate", "garbage"])
def test_a_corrupt_cache_file_is_ignored(proj, tmp_path, which, how):
    first = build(options(proj))
    cache_file = default_cache_path(proj / "site")
    path = cache_file if which == "cache" else state_path(cache_file)
    # Change an input too, so the build cannot stop at "nothing changed".
    edit(first_paper(proj), "\n---\n", "\n---\nAn edit.\n\n")
    corrupt(path, how)
    result = build(options(proj))
    assert result.rendered == first.pages   # nothing was trusted
    assert result.cache_note
    assert_same_as_clean(proj, tmp_path)
    assert build(options(proj)).rendered == 0  # and a good cache was written again


def test_an_edit_writes_a_small_delta_and_leaves_the_main_cache_file(proj, tmp_path, monkeypatch):
    # At 5,000 papers an edit changes under 1% of the entries; in this 59-paper sample, ~15%.
    monkeypatch.setattr(store_module, "DELTA_SHARE", 0.5)
    build(options(proj))
    main = default_cache_path(proj / "site")
    worker = store_module.worker_path(main)   # the search and exports worker's own cache
    before, worker_before = main.read_bytes(), worker.read_bytes()
    for n in range(3):
        edit(first_paper(proj), "\n---\n", f"\n---\nEdit {n}.\n\n")
        assert build(options(proj)).rendered > 0
    assert main.read_bytes() == before and worker.read_bytes() == worker_before
    assert 0 < delta_path(main).stat().st_size < len(before) / 3
    assert 0 < delta_path(worker).stat().st_size < len(worker_before) / 5   # each edit changes a paper or two
    assert_same_as_clean(proj, tmp_path)


def test_an_edit_reads_each_cache_file_once(proj, monkeypatch):
    """The state file is read first, alone, to know whether anything changed; the build that
    then loads the cache takes it as read (at 100,000 papers it is 42 MB, a third of a second)."""
    build(options(proj))
    read = []
    read_sealed = store_module.read_sealed

    def counted(path, code, **skip):
        read.append(Path(path).name)
        return read_sealed(path, code, **skip)

    for module in (store_module, cache_module):
        monkeypatch.setattr(module, "read_sealed", counted, raising=False)
    edit(first_paper(proj), "\n---\n", "\n---\nAn edit.\n\n")
    assert build(options(proj, jobs=1)).rendered > 0
    main = default_cache_path(proj / "site")
    worker = store_module.worker_path(main)   # the search and exports worker's own cache
    assert sorted(read) == sorted(path.name for cache in (main, worker) for path in (cache, state_path(cache), delta_path(cache)))


def test_many_changes_rewrite_the_main_cache_file_and_drop_the_delta(proj, tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "DELTA_SHARE", 0.5)
    build(options(proj))
    edit(first_paper(proj), "\n---\n", "\n---\nA small edit.\n\n")
    build(options(proj))
    main = default_cache_path(proj / "site")
    assert delta_path(main).is_file()
    before = main.read_bytes()
    for path in sorted((proj / "content" / "papers").glob("*.md")):
        edit(path, "\n---\n", "\n---\nOne of many edits.\n\n")
    build(options(proj))
    assert main.read_bytes() != before and not delta_path(main).exists()
    assert build(options(proj)).rendered == 0
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("how", ["flip", "truncate", "garbage", "stale"])
def test_a_corrupt_or_stale_delta_file_is_ignored(proj, tmp_path, how, monkeypatch):
    monkeypatch.setattr(store_module, "DELTA_SHARE", 0.5)
    first = build(options(proj))
    edit(first_paper(proj), "\n---\n", "\n---\nFirst edit.\n\n")
    build(options(proj))
    delta = delta_path(default_cache_path(proj / "site"))
    if how == "stale":   # a delta left beside a main file written after it
        kept = delta.read_bytes()
        monkeypatch.setattr(store_module, "DELTA_SHARE", 0.0)
        edit(first_paper(proj), "\n---\n", "\n---\nSecond edit.\n\n")
        build(options(proj))
        assert not delta.exists()
        delta.write_bytes(kept)
    else:
        corrupt(delta, how)
    edit(first_paper(proj), "\n---\n", "\n---\nThird edit.\n\n")
    result = build(options(proj))
    assert result.rendered == first.pages and result.cache_note.startswith("delta: ")
    assert_same_as_clean(proj, tmp_path)


def test_each_state_is_pickled_apart(tmp_path):
    """A pickle keeps every object it wrote until it ends: the main file is a pickle per state, so
    saving a large collection's cache holds one state's objects at a time, not the whole build's.
    What two states share comes back as equal copies."""
    shared = ("a title", 2024)
    states = {"papers": {b"k": shared, b"j": shared}, "texts": {b"k": shared}, "empty": {}}
    path = tmp_path / "site.cache"
    store_module.Store(path, CODE).save(states, {"input": b"v"})
    again = store_module.Store.open(path, CODE)
    assert again.problem is None and again.states == states and again.small["input"] == b"v"
    papers, texts = again.previous("papers"), again.previous("texts")
    assert papers[b"k"] is papers[b"j"] and texts[b"k"] == shared and texts[b"k"] is not papers[b"k"]


class CountedState:
    """A state that counts how many times it is unpickled."""

    loads = 0

    def __init__(self, value):
        self.value = value

    def __reduce__(self):
        return unpickled_state, (self.value,)


def unpickled_state(value):
    CountedState.loads += 1
    return CountedState(value)


def test_the_states_a_delta_replaces_are_not_read_from_the_main_file(tmp_path, monkeypatch):
    """The delta file is read first, and the main file's states it replaces whole are not
    unpickled: at 100,000 papers the word counts and the related papers' ranking, 77 MB that every
    edit replaces. A state the delta leaves as it was is read from the main file, wherever it is."""
    monkeypatch.setattr(store_module, "DELTA_SHARE", 1.0)
    path = tmp_path / "site.cache"
    store_module.Store(path, CODE).save({"terms": CountedState(1), "papers": {b"k": "a"}, "related": CountedState("ranked")},
                                        {"input": b"v"})
    last = store_module.Store.open(path, CODE)
    last.save({"related": last.previous("related"), "papers": {**last.previous("papers"), b"j": "b"}, "terms": CountedState(2)},
              {"input": b"w"})
    assert delta_path(path).is_file()
    CountedState.loads = 0
    again = store_module.Store.open(path, CODE)
    assert again.problem is None and again.previous("papers") == {b"k": "a", b"j": "b"}
    assert again.previous("terms").value == 2 and again.previous("related").value == "ranked"
    assert CountedState.loads == 2   # the delta's counts and the main file's ranking; not the main file's counts


def test_the_output_manifest_reads_back_each_files_record(tmp_path):
    """The manifest, stored as two columns (paths, packed records), reads back from the state file
    as written: each output file's digest, inode, size and time. A file the next build keeps
    keeps its record without a stat; one gone and not kept is left out."""
    out = tmp_path / "site"
    names = ["index.html", "papers/a paper.html", "authors/\u00e9l\u00e8ve.html"]
    digests = {}
    for n, name in enumerate(names):
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(b"x" * n)
        digests[name] = digest(b"x" * n)
    path = tmp_path / "site.cache"
    store_module.Store(path, CODE).save({}, {"manifest": reuse.output_manifest(out, digests, reuse.Manifest(), set())})
    manifest = store_module.Store.open(path, CODE).small["manifest"]
    stats = [os.stat(out / name) for name in names]
    assert list(manifest.entries()) == [(name, (digests[name], st.st_ino, st.st_size, st.st_mtime_ns))
                                        for name, st in zip(names, stats)]
    assert manifest.digest(names[1]) == digests[names[1]] and manifest.digest("gone.html") is None
    (out / names[0]).unlink()
    (out / names[1]).unlink()
    carried = reuse.output_manifest(out, digests, manifest, {names[0]})
    assert list(carried.keys()) == [names[0], names[2]] and carried.record(names[0]) == manifest.record(names[0])
    store_module.Store(path, CODE).save({}, {"manifest": reuse.Manifest()})
    assert len(store_module.Store.open(path, CODE).small["manifest"]) == 0


def test_the_dev_servers_next_build_starts_from_the_cache_in_memory(proj, tmp_path, monkeypatch):
    warm = WarmCache()
    build(options(proj), warm=warm)
    main = default_cache_path(proj / "site")
    reads: list[Path] = []
    read = store_module.read_sealed
    monkeypatch.setattr(store_module, "read_sealed", lambda path, code, **skip: reads.append(path) or read(path, code, **skip))
    edit(first_paper(proj), "\n---\n", "\n---\nWarm edit.\n\n")
    assert 0 < build(options(proj), warm=warm).rendered < 20
    assert main not in reads
    assert_same_as_clean(proj, tmp_path)
    # Another build wrote the cache since: the copy in memory is no longer trusted.
    edit(first_paper(proj), "\n---\n", "\n---\nA build from elsewhere.\n\n")
    build(options(proj))
    edit(first_paper(proj), "\n---\n", "\n---\nWarm again.\n\n")
    assert 0 < build(options(proj), warm=warm).rendered < 20
    assert main in reads
    assert_same_as_clean(proj, tmp_path)
    # A server started on an up-to-date site reads the cache once, at its first (empty) build.
    started = WarmCache()
    assert build(options(proj), warm=started).rendered == 0
    reads.clear()
    edit(first_paper(proj), "\n---\n", "\n---\nAfter a quiet start.\n\n")
    assert 0 < build(options(proj), warm=started).rendered < 20
    assert main not in reads
    assert_same_as_clean(proj, tmp_path)


def test_a_corrupt_state_file_alone_does_not_skip_the_build(proj, tmp_path):
    build(options(proj))
    corrupt(state_path(default_cache_path(proj / "site")), "flip")
    result = build(options(proj))
    assert result.rendered > 0 and result.cache_note
    assert_same_as_clean(proj, tmp_path)


def test_a_cache_from_another_code_version_is_ignored(proj, tmp_path, monkeypatch):
    first = build(options(proj))
    import papersite.incremental.cache as build_cache

    monkeypatch.setattr(build_cache, "code_version", lambda: b"another version!")
    # Its files are refused on their first entry, the code version, not unpickled whole first
    # (the states, and the output manifest of the state file: hundreds of megabytes at anthology scale).
    unpickled = []
    monkeypatch.setattr(store_module, "unpickle", lambda f: unpickled.append(f.name))
    result = build(options(proj))
    assert result.rendered == first.pages and "another version" in result.cache_note
    assert unpickled == []


def test_clean_ignores_the_cache(proj, cli):
    flags = ("--templates", proj / "templates", "--static", proj / "static")
    assert cli(*build_args(proj), *flags).code == 0
    result = build(options(proj, clean=True))
    assert result.rendered == result.pages
    run = cli(*build_args(proj), *flags, "--clean", "--jobs", "1")
    assert run.code == 0, run.err


def test_what_a_build_leaves_alive_is_not_left_to_the_first_collection_after_it(proj):
    """The collector is paused through a build; what it leaves alive joins the oldest generation, so
    the first collection after it does not walk millions of objects (0.9 s at 100,000 papers)."""
    import gc

    keep: list = []
    gc.disable()   # (so that nothing collects before the generations are looked at)
    try:
        build(options(proj, jobs=1), keep=keep)   # (no worker: forking one moves them too)
        young = {id(thing) for thing in gc.get_objects(generation=0)}
    finally:
        gc.enable()
    site = next(item.site for item in keep if isinstance(item, Built))
    assert not young & {id(site), *map(id, site.papers), *(id(page.paper) for page in site.papers)}


def test_the_cache_lives_outside_the_output(proj):
    build(options(proj))
    assert (proj / ".papersite-cache").is_dir()
    assert not any(p.name.endswith(".cache") for p in (proj / "site").rglob("*"))


def relative_options(root: Path) -> BuildOptions:
    """The project's paths as a user gives them, from `root`'s parent: proj/content, proj/site..."""
    return options(Path(root.name))


def test_a_project_moved_to_another_folder_keeps_its_cache(proj, tmp_path, monkeypatch):
    monkeypatch.chdir(proj.parent)
    first = build(relative_options(proj))
    moved = tmp_path / "elsewhere" / "proj"
    moved.parent.mkdir()
    proj.rename(moved)
    monkeypatch.chdir(moved.parent)
    again = build(relative_options(moved))
    assert again.unchanged and again.pages == first.pages
    assert sorted(p.name for p in (moved / ".papersite-cache").iterdir() if p.name.endswith(".cache")) == ["site.cache"]


def test_the_same_project_named_from_another_folder_renders_no_page_again(proj, monkeypatch):
    """Messages name each file as this build was told it; the pages do not, and are kept."""
    first = build(options(proj))
    warned = [Path(w.path).relative_to(proj.parent) for w in first.warnings]
    assert warned   # the sample's unknown LaTeX commands
    monkeypatch.chdir(proj.parent)
    again = build(relative_options(proj))
    assert again.rendered == 0 and again.reused == first.pages
    assert [Path(w.path) for w in again.warnings] == warned
    assert_same_as_clean(proj, proj.parent)


def test_caches_named_the_old_way_are_removed(proj):
    """Until 2026-12-07 a cache's name held a digest of where the output was: one was left behind
    for every place a project was built in."""
    caches = proj / ".papersite-cache"
    caches.mkdir()
    old = ["site-0123456789ab.cache", "site-0123456789ab.cache.state", "site-ffffffffffff.cache.search-exports.delta"]
    for name in old:
        (caches / name).write_bytes(b"old")
    (caches / "site-0123456789ab.cache.templates").mkdir()
    (caches / "site-0123456789ab.cache.templates" / "__jinja2_x.cache").write_bytes(b"old")
    others = ["serve-site-0123456789ab.cache", "site-notadigest.cache"]
    for name in others:
        (caches / name).write_bytes(b"another output's")
    build(options(proj))
    names = {p.name for p in caches.iterdir()}
    assert not names & {*old, "site-0123456789ab.cache.templates"}
    assert set(others) <= names and "site.cache" in names


def test_parallel_and_serial_builds_are_byte_identical(proj, tmp_path, monkeypatch):
    monkeypatch.setattr(workers, "MIN_PARALLEL_ITEMS", 8)   # the sample is small; make the workers run
    monkeypatch.setattr(people_module, "MIN_PARALLEL_NAMES", 8)
    forked = []
    fork = workers.fork
    monkeypatch.setattr(workers, "fork", lambda job: forked.append(job) or fork(job))
    serial = build(options(proj, tmp_path / "serial" / "site", jobs=1, clean=True, cache_dir=tmp_path / "c1"))
    assert forked == []
    para = build(options(proj, tmp_path / "parallel" / "site", jobs=2, clean=True, cache_dir=tmp_path / "c2"))
    # Pages parsed, author names read, Markdown and templates on two workers each; search and
    # exports on one, the map's fresh layout on one. The author pages' versions are taken in this
    # process.
    assert len(forked) == 10
    assert serial.warnings == para.warnings
    assert snapshot(tmp_path / "serial" / "site") == snapshot(tmp_path / "parallel" / "site")
    # And an incremental parallel build after an edit agrees with a serial clean one.
    edit(first_paper(proj), "\n---\n", "\n---\nParallel edit.\n\n")
    build(options(proj, tmp_path / "parallel" / "site", jobs=2, cache_dir=tmp_path / "c2"))
    build(options(proj, tmp_path / "serial" / "site", jobs=1, clean=True, cache_dir=tmp_path / "c1"))
    serial, parallel = snapshot(tmp_path / "serial" / "site"), snapshot(tmp_path / "parallel" / "site")
    assert sorted(serial) == sorted(parallel)
    assert all(without_map_points(serial[path]) == without_map_points(parallel[path]) for path in serial)


def test_an_input_file_is_read_again_only_when_its_size_or_time_changed(tmp_path):
    path = tmp_path / "paper.md"
    path.write_text("first text", encoding="utf-8")
    old = path.stat().st_mtime_ns - 60 * 10**9
    os.utime(path, ns=(old, old))
    first = FileDigests()
    remembered = first.of(str(path))
    assert str(path) in first.seen
    # Same size and time: trusted without reading (what the next build gains).
    path.write_text("other text", encoding="utf-8")
    os.utime(path, ns=(old, old))
    assert FileDigests(first.seen).of(str(path)) == remembered
    # A real edit moves the time: read again.
    path.write_text("edited text", encoding="utf-8")
    again = FileDigests(first.seen)
    assert again.of(str(path)) == digest(b"edited text")
    # Modified just now: a second edit in the same tick could keep size and time, so not remembered.
    assert str(path) not in again.seen


def age_inputs(root: Path, seconds: int = 60) -> list[Path]:
    """Every input file's time moved back, as for files saved a while before the build (a file
    saved within FileDigests.RACY_SECONDS is never trusted by the next build); the paper pages."""
    for path in root.rglob("*"):
        if path.is_file():
            old = path.stat().st_mtime_ns - seconds * 10**9
            os.utime(path, ns=(old, old))
    return sorted((root / "content" / "papers").glob("*.md"))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_first_build_reads_each_page_once_and_the_next_reads_none(proj, tmp_path, monkeypatch, jobs):
    """A first build's input version is made from the digests its parsing workers take as they
    read the pages, instead of reading every page once more before (7 s at 100,000 papers)."""
    from papersite.incremental import inputs as inputs_module
    from papersite.inputs import papers as papers_module

    pages = age_inputs(proj)
    log = tmp_path / "reads.log"

    def logged(read):
        def reading(path, *args, **kwargs):
            with open(log, "a", encoding="utf-8") as f:
                f.write(f"{path}\n")
            return read(path, *args, **kwargs)
        return reading

    monkeypatch.setattr(papers_module, "read_regular_with_stat", logged(papers_module.read_regular_with_stat))
    monkeypatch.setattr(inputs_module, "open", logged(open), raising=False)
    first = build(options(proj, jobs=jobs))
    reads = log.read_text(encoding="utf-8").split()
    assert sorted(path for path in reads if path.endswith(".md")) == [str(page) for page in pages]
    # What the next build trusts without reading: every page, as the workers saw it.
    cache = default_cache_path(proj / "site")
    trusted = store_module.read_sealed(state_path(cache), CODE)[0]["files"]
    assert all(trusted[str(page)][0][1:] == (page.stat().st_size, page.stat().st_mtime_ns) for page in pages)
    log.unlink()
    again = build(options(proj, jobs=jobs))
    assert again.rendered == 0 and again.reused == first.pages
    assert not log.exists()


def test_a_page_edited_after_a_first_build_read_it_is_built_by_the_next(proj, tmp_path, monkeypatch):
    """The first build's input version comes from what its workers read: a page saved after they
    read it is not in the output, so that build records no version and the next one builds it."""
    page = age_inputs(proj)[0]
    load = stages.load_content

    def load_then_edit(*args, **kwargs):
        loaded = load(*args, **kwargs)
        page.write_text(page.read_text(encoding="utf-8") + "\nSaved while the first build ran.\n", encoding="utf-8")
        return loaded

    monkeypatch.setattr(stages, "load_content", load_then_edit)
    build(options(proj))
    monkeypatch.setattr(stages, "load_content", load)
    again = build(options(proj))
    assert again.rendered > 0
    assert_same_as_clean(proj, tmp_path)
    assert "Saved while the first build ran." in (proj / "site" / "papers" / f"{page.stem}.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_edit_build_that_read_a_page_saved_after_it_began_records_no_version(proj, tmp_path, monkeypatch, jobs):
    """An edit build takes its input version as it begins, and its workers then read the pages that
    changed. One saved again in between is in the output as saved the second time, but in the
    version as saved the first: put back as it was the first time, it would match the version, and
    the next build would keep the page it does not show. So such a build records no version (as
    its changes are written: a delta here)."""
    monkeypatch.setattr(store_module, "DELTA_SHARE", 1.0)
    page = age_inputs(proj)[0]
    build(options(proj, jobs=jobs))
    edited = page.read_text(encoding="utf-8") + "\nThe edit.\n"
    page.write_text(edited, encoding="utf-8")
    load = stages.load_content

    def save_again_then_load(*args, **kwargs):
        page.write_text(edited + "\nSaved again after the build began.\n", encoding="utf-8")
        return load(*args, **kwargs)

    monkeypatch.setattr(stages, "load_content", save_again_then_load)
    assert build(options(proj, jobs=jobs)).rendered > 0
    assert delta_path(default_cache_path(proj / "site")).is_file()
    shown = (proj / "site" / "papers" / f"{page.stem}.html").read_text(encoding="utf-8")
    assert "Saved again after the build began." in shown
    monkeypatch.setattr(stages, "load_content", load)
    page.write_text(edited, encoding="utf-8")
    assert build(options(proj, jobs=jobs)).rendered > 0
    assert "Saved again" not in (proj / "site" / "papers" / f"{page.stem}.html").read_text(encoding="utf-8")
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("jobs", [1, 2])
def test_after_an_edit_the_search_index_tokenises_only_the_edited_paper(proj, tmp_path, monkeypatch, jobs):
    build(options(proj, jobs=jobs))
    tokenised = tmp_path / "tokenised.txt"   # a file: with two jobs the index is built in a forked worker
    tokenise = search_terms.tokenise_documents

    def counting(values, tokeniser):
        with tokenised.open("a", encoding="utf-8") as log:
            log.write(f"{len(values)}\n")
        return tokenise(values, tokeniser)

    monkeypatch.setattr(search_terms, "tokenise_documents", counting)
    edit(first_paper(proj), "\n---\n", "\n---\nSearchable edit.\n\n")
    assert build(options(proj, jobs=jobs)).rendered > 0
    assert tokenised.read_text(encoding="utf-8").split() == ["1"]   # one batch, of the edited paper alone
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("jobs", [1, 2])
def test_after_an_edit_papers_json_encodes_only_the_edited_paper(proj, tmp_path, monkeypatch, jobs):
    build(options(proj, jobs=jobs))
    encoded = tmp_path / "encoded.txt"
    log_papers_json_lines(monkeypatch, encoded)
    paper = first_paper(proj)
    edit(paper, "\n---\n", "\n---\nAn edit for the export.\n\n")
    assert build(options(proj, jobs=jobs)).rendered > 0
    assert logged(encoded) == [slug_of(paper)]
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("jobs", [1, 2])
def test_after_an_edit_only_its_proceedings_exports_are_made(proj, tmp_path, monkeypatch, jobs):
    """Exports split by proceedings: an edit encodes the papers.json lines of its paper's proceedings
    and makes that proceedings' two files, and no other proceedings' files."""
    monkeypatch.setattr(urls, "EXPORTS_SPLIT_FROM", 1)
    build(options(proj, jobs=jobs))
    site = proj / "site"
    encoded, made = tmp_path / "encoded.txt", tmp_path / "made.txt"
    log_papers_json_lines(monkeypatch, encoded)
    log_bibtex_files(monkeypatch, made)
    index = json.loads((site / "exports" / "index.json").read_text(encoding="utf-8"))
    assert len(index["proceedings"]) > 1
    paper = first_paper(proj)
    edit(paper, "\n---\n", "\n---\nAn edit for the export.\n\n")
    assert build(options(proj, jobs=jobs)).rendered > 0
    slug = slug_of(paper)
    part = next(part for part in index["proceedings"]
                if slug in {p["slug"] for p in json.loads((site / part["json"]).read_text(encoding="utf-8"))["papers"]})
    papers = json.loads((site / part["json"]).read_text(encoding="utf-8"))["papers"]
    assert sorted(logged(encoded)) == sorted(p["slug"] for p in papers)
    assert [title for title in logged(made) if ", by " not in title] == [bibtex_title(site / part["bib"])]
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("jobs", [1, 2])
def test_after_an_edit_only_its_authors_bibtex_files_are_made_and_one_deleted_is_made_again(proj, tmp_path, monkeypatch, jobs):
    """An author's BibTeX file made from the same entries as last time is not made again, unless the
    output lacks it; papers.bib is always made."""
    build(options(proj, jobs=jobs))
    site = proj / "site"
    made = tmp_path / "made.txt"
    log_bibtex_files(monkeypatch, made)
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))["papers"]
    edited = next(p for p in papers if sum((site / "authors" / f"{slug}.bib").is_file() for slug in p["author_slugs"] if slug) >= 1)
    authors = [site / "authors" / f"{slug}.bib" for slug in edited["author_slugs"] if slug and (site / "authors" / f"{slug}.bib").is_file()]
    deleted = next(bib for bib in sorted((site / "authors").glob("*.bib")) if bib not in authors)
    expected = {bibtex_title(bib) for bib in [*authors, deleted]} | {bibtex_title(site / "papers.bib")}
    deleted.unlink()
    edit(proj / "content" / "papers" / f"{edited['slug']}.md", "\n---\n", "\n---\nAn edit for the author files.\n\n")
    assert build(options(proj, jobs=jobs)).rendered > 0
    assert sorted(logged(made)) == sorted(expected)
    assert deleted.is_file()
    assert_same_as_clean(proj, tmp_path)


def test_an_output_restored_from_a_ci_cache_is_kept_by_its_bytes(proj, tmp_path):
    """actions/cache gives back the site and the cache at the same paths but as new files (other
    inodes, times in whole seconds): pages are still kept when their bytes are what the cache recorded."""
    build(options(proj))
    saved = tmp_path / "saved"
    shutil.copytree(proj, saved)
    shutil.rmtree(proj)
    shutil.copytree(saved, proj)   # new inodes, the same paths, as a restore gives
    for path in (proj / "site").rglob("*"):
        if path.is_file():
            os.utime(path, ns=(0, path.stat().st_mtime_ns // 10**9 * 10**9))
    result = build(options(proj))
    assert result.rendered == 0 and result.reused == result.pages
    edit(first_paper(proj), "\n---\n", "\n---\nAn edit after the restore.\n\n")
    result = build(options(proj))
    assert 0 < result.rendered < result.pages // 2
    assert_same_as_clean(proj, tmp_path)


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_edit_patches_the_previous_output_in_place(proj, tmp_path, monkeypatch, jobs):
    """An edit writes only what it makes anew and deletes what it no longer makes: what was edited,
    added, removed or tampered with still comes out as a clean build's, the files it keeps are
    the same files, and the manifest names each file as it is (the entries of the files kept are
    carried over, every other one is new)."""
    monkeypatch.setattr(workers, "MIN_PARALLEL_ITEMS", 8)
    build(options(proj, jobs=jobs))
    papers = sorted((proj / "content" / "papers").glob("*.md"))
    edit(papers[2], "\n---\n", "\n---\nAn edit while the previous output is surveyed.\n\n")
    gone = papers[4].stem
    edit(papers[4], f"slug: {gone}\n", "slug: a-renamed-paper\n")   # its old page is deleted
    site = proj / "site"
    (site / "tags" / "index.html").write_text("tampered", encoding="utf-8")
    (site / "papers.bib").unlink()   # made by the search and exports worker
    kept = sorted((site / "authors").glob("*.html"))[-1]
    inode = kept.stat().st_ino
    result = build(options(proj, jobs=jobs))
    assert 0 < result.rendered < result.reused
    assert kept.stat().st_ino == inode   # an untouched page is the previous output's file
    assert not (site / "papers" / f"{gone}.html").exists()
    assert not [p for p in site.parent.iterdir() if p.name.startswith((".site.tmp-", ".site.patch-"))]
    manifest = store_module.read_sealed(state_path(default_cache_path(site)), CODE)[0]["manifest"]
    for path, (_, *identity) in manifest.entries():
        st = os.stat(site / path)
        assert identity == [st.st_ino, st.st_size, st.st_mtime_ns], path
    assert_same_as_clean(proj, tmp_path)


def test_pages_no_longer_made_leave_no_empty_folder(proj, tmp_path):
    """The pages a build no longer makes are deleted from the previous output, with the folders
    that leaves empty, as a clean build has none."""
    with open(proj / "site.yml", "a", encoding="utf-8") as f:
        f.write("per_page: 7\n")
    build(options(proj, jobs=2))
    assert (proj / "site" / "browse" / "page-2.html").is_file()
    edit(proj / "site.yml", "per_page: 7\n", "per_page: 1000\n")
    build(options(proj, jobs=2))
    assert not (proj / "site" / "browse").exists()
    assert_same_as_clean(proj, tmp_path)
    ours, clean = proj / "site", tmp_path / "clean" / "site"
    assert {p.relative_to(ours) for p in ours.rglob("*") if p.is_dir()} == {p.relative_to(clean) for p in clean.rglob("*") if p.is_dir()}


def author_inodes(root: Path) -> dict[str, int]:
    """Each author page's inode: a page kept from the previous output is the same file, a rendered one is new."""
    return {path.name: path.stat().st_ino for path in (root / "site" / "authors").rglob("*.html")}


def authors_of(root: Path, slug: str) -> set[str]:
    """The author pages a paper's page links."""
    html = (root / "site" / "papers" / f"{slug}.html").read_text(encoding="utf-8")
    return {f"{name}.html" for name in re.findall(r'href="\.\./authors/([^"/]+)\.html"',
                                                  re.search(r'<p class="paper-authors">.*?</p>', html)[0])}


def test_an_edit_to_one_paper_renders_only_its_authors_pages(proj, tmp_path):
    build(options(proj))
    path = first_paper(proj)
    text = path.read_text(encoding="utf-8")
    its_authors = authors_of(proj, slug_of(path))
    assert its_authors
    before = author_inodes(proj)
    # An abstract's words are on no author page.
    path.write_text(text.rstrip("\n") + " An added closing sentence.\n", encoding="utf-8")
    build(options(proj))
    assert author_inodes(proj) == before
    # Its title is, on its authors' pages only.
    path.write_text(re.sub(r"^title: .*$", "title: A retitled paper", path.read_text(encoding="utf-8"), count=1, flags=re.M),
                    encoding="utf-8")
    build(options(proj))
    after = author_inodes(proj)
    assert {name for name in after if after[name] != before[name]} == its_authors
    assert_same_as_clean(proj, tmp_path)


def page_files(root: Path) -> dict[str, tuple[int, bytes]]:
    """Each page's inode and bytes, by its path in the site: a page kept from the previous output is the same file."""
    top = root / "site"
    return {path.relative_to(top).as_posix(): (path.stat().st_ino, path.read_bytes()) for path in top.rglob("*.html")}


def rendered_again(before: dict[str, tuple[int, bytes]], after: dict[str, tuple[int, bytes]], folder: str = "") -> set[str]:
    """The pages under `folder` that both outputs have and that are new files (rendered), by their paths in `folder`."""
    return {path[len(folder):] for path in after if path.startswith(folder) and path in before and after[path][0] != before[path][0]}


@pytest.mark.parametrize("change", ["added", "removed", "retagged"])
def test_a_paper_added_removed_or_retagged_renders_only_the_pages_that_show_it(proj, tmp_path, change):
    """The numbers of papers and of each topic's papers are in the specs of the pages that show
    them, not in the chrome every page is keyed by, so a page is rendered again only when what it
    shows changed: a paper page when its paper or a paper it links did (its related papers and
    neighbours: the collection's word statistics change with it), an author page when its
    author's papers did, and for a retagged paper only the pages that show its topics. They were
    in every page's key (the footer's count of papers, the topics' counts in the sidebar, each
    paper's BibTeX file's count of entries): one paper added or retagged rendered every page
    again, 19,649 at 5,000 papers."""
    build(options(proj))
    source = first_paper(proj)
    slug = slug_of(source)
    if change == "added":
        text = source.read_text(encoding="utf-8").replace(f"slug: {slug}\n", "slug: brand-new-paper\n")
        text = re.sub(r"(?m)^title: .*$", "title: A brand new paper", text.replace("id: ", "id: added-", 1), count=1)
        source = proj / "content" / "papers" / "brand-new-paper.md"
        source.write_text(text, encoding="utf-8")
        slug = "brand-new-paper"
    else:
        text = source.read_text(encoding="utf-8")
        tags = re.search(r"(?m)^tags: .*$", text)[0]
        if change == "retagged":
            edit(source, tags, "tags: [robotics]" if "robotics" not in tags else "tags: [optimization]")
        else:
            source.unlink()
    before = page_files(proj)
    its_authors = authors_of(proj, slug) if change != "added" else set()
    result = build(options(proj))
    after = page_files(proj)
    if change == "added":
        its_authors = authors_of(proj, slug)
    rendered = rendered_again(before, after, "papers/")
    assert rendered and all(after[f"papers/{name}"][1] != before[f"papers/{name}"][1] for name in rendered - {f"{slug}.html"})
    rendered = rendered_again(before, after, "authors/")
    index = {name for name in rendered if name == "index.html" or name.startswith("letters/")}
    assert its_authors and rendered - index <= its_authors
    assert result.rendered < result.pages // 3
    if change == "retagged":   # the pages that show its topics: those that list it, the topic index, the maps
        link = f'{slug}.html"'.encode()
        assert {path for path in rendered_again(before, after) if link not in before[path][1] + after[path][1]} <= {"tags/index.html", "map.html"}
        assert 0 < result.rendered <= 20
    assert_same_as_clean(proj, tmp_path)


def test_an_edit_makes_the_author_page_data_of_its_authors_alone(proj, monkeypatch):
    """The author pages' data: an abstract's words are on no author page, so the last build's is
    this one's, the same state (the cache's delta holds none of it); a title is, so the versions of
    its authors' pages are taken again, and no other's."""
    build(options(proj, jobs=1))
    versioned = []   # the people whose pages' versions were taken again
    page_version = authors_module.page_version

    def versioning(person, entries):
        versioned.append(person.slug)
        return page_version(person, entries)

    monkeypatch.setattr(authors_module, "page_version", versioning)
    path = first_paper(proj)
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + " An added closing sentence.\n", encoding="utf-8")
    build(options(proj, jobs=1))
    delta, _ = store_module.read_sealed(delta_path(default_cache_path(proj / "site")), code_version())
    assert versioned == [] and "author pages" not in delta["entries"] and "author pages" not in delta["whole"]
    path.write_text(re.sub(r"^title: .*$", "title: A retitled paper", path.read_text(encoding="utf-8"), count=1, flags=re.M),
                    encoding="utf-8")
    build(options(proj, jobs=1))
    slug = re.search(r"^slug: (\S+)$", path.read_text(encoding="utf-8"), re.M)[1]
    authors = {page.stem for page in (proj / "site" / "authors").glob("*.html")
               if f"../papers/{slug}.html" in page.read_text(encoding="utf-8")}
    assert versioned and set(versioned) == authors
    assert all("A retitled paper" in (proj / "site" / "authors" / f"{author}.html").read_text(encoding="utf-8") for author in authors)


def test_a_phrase_added_to_tags_yml_renders_no_page_again(proj, tmp_path):
    """A topic's phrases tag the papers `import` adds (ingest/tagging.py), and no page shows them:
    one added for the next import reads no page again and renders none, where it rendered every one."""
    from papersite.inputs import papers as papers_module
    build(options(proj))
    tags = proj / "content" / "tags.yml"
    text = tags.read_text(encoding="utf-8")
    assert "phrases: [" in text
    tags.write_text(text.replace("phrases: [", "phrases: [a phrase for the next import, ", 1), encoding="utf-8")
    parsed = []
    parse = papers_module.parse_page_file
    with pytest.MonkeyPatch.context() as patching:
        patching.setattr(papers_module, "parse_page_file", lambda *args: parsed.append(args[-1]) or parse(*args))
        result = build(options(proj))
    assert not result.unchanged and result.rendered == 0 and parsed == []
    assert_same_as_clean(proj, tmp_path)


def test_a_topics_description_edited_renders_its_pages_and_the_topic_index_alone(proj, tmp_path):
    """A topic's description is on its own pages and the topic index; the chrome every page is
    keyed by holds its name and slug only (it held the whole topic: every page was rendered again)."""
    build(options(proj))
    tags = proj / "content" / "tags.yml"
    text = tags.read_text(encoding="utf-8")
    slug, description = re.search(r"- slug: (\S+)\n\s+name: .*\n\s+description: (.*)\n", text).groups()
    tags.write_text(text.replace(description, "A description written again.", 1), encoding="utf-8")
    before = page_files(proj)
    result = build(options(proj))
    after = page_files(proj)
    rendered = rendered_again(before, after)
    assert f"tags/{slug}.html" in rendered and "tags/index.html" in rendered
    assert [path for path in rendered if path != "tags/index.html" and not path.startswith(f"tags/{slug}")] == []
    assert result.rendered == len(rendered)
    assert_same_as_clean(proj, tmp_path)


def test_adding_and_editing_authors_yml(proj, tmp_path):
    build(options(proj))
    papers = sorted((proj / "content" / "papers").glob("*.md"))
    first, second = (re.search(r"^authors: \[([^,\]]+)", p.read_text(encoding="utf-8"), re.M)[1] for p in papers[:2])
    people = proj / "content" / "authors.yml"
    people.write_text(f"authors:\n  - name: {first}\n    variants: ['{second}']\n    note: Merged\n", encoding="utf-8")
    build(options(proj))
    assert_same_as_clean(proj, tmp_path / "merged")
    people.write_text(f"authors:\n  - name: {first}\n    orcid: 0000-0002-1825-0097\n", encoding="utf-8")
    build(options(proj))
    assert_same_as_clean(proj, tmp_path / "orcid")


@pytest.mark.parametrize("jobs", [1, 2])
def test_search_and_export_files_are_kept_and_only_those_that_changed_written(proj, tmp_path, monkeypatch, jobs):
    """The previous output's search and export files are kept where they are, as its pages are;
    the search and exports worker writes only the files whose bytes changed (and one tampered
    with), and the files no longer made (the last result-store chunk, once three papers are
    deleted) are deleted."""
    monkeypatch.setattr(stages, "build_search_files", partial(search.build_search_files, shard_from=0))
    build(options(proj, jobs=jobs))
    folder = proj / "site" / "assets" / "search"
    before = {p.name: p.stat().st_ino for p in folder.iterdir()}
    assert len(before) > 100   # sharded: the sample's index is split into many files
    tampered = folder / "s-0.js"
    tampered.write_text("tampered", encoding="utf-8")
    edit(first_paper(proj), "\n---\n", "\n---\nAn edit with a word of its own: zyzzogeton.\n\n")
    build(options(proj, jobs=jobs))
    after = {p.name: p.stat().st_ino for p in folder.iterdir()}
    kept = [name for name, inode in after.items() if before.get(name) == inode]
    assert len(kept) > len(after) // 2   # the previous output's files, but for those the edit changed
    assert "s-0.js" not in kept and tampered.read_text(encoding="utf-8") != "tampered"
    assert_same_as_clean(proj, tmp_path)
    for path in sorted((proj / "content" / "papers").glob("*.md"))[-3:]:
        path.unlink()
    build(options(proj, jobs=jobs))
    assert "s-7.js" in set(after) - {p.name for p in folder.iterdir()}
    assert_same_as_clean(proj, tmp_path)


def test_the_search_and_exports_worker_starts_before_the_author_pages_are_made(proj, monkeypatch):
    """It needs the papers and their people, not the author pages: started after them, it was what
    an edit at 100,000 papers waited for last."""
    events = []
    background, with_authors = stages.Background, stages.with_authors

    def starting(func, jobs):
        events.append(func.func.__name__)
        return background(func, jobs)

    def making(*args):
        events.append("with_authors")
        return with_authors(*args)

    monkeypatch.setattr(stages, "Background", starting)
    monkeypatch.setattr(stages, "with_authors", making)
    build(options(proj, jobs=2))
    assert events == ["publish_side_files", "with_authors"]
    # Made from the people, not their pages: each lists exactly its author's papers, newest first
    # (in the site's order within a year), as the author's page does.
    papers = json.loads((proj / "site" / "papers.json").read_text(encoding="utf-8"))["papers"]
    bibs = sorted((proj / "site" / "authors").glob("*.bib"))
    assert bibs
    for bib in bibs:
        theirs = sorted((paper for paper in papers if bib.stem in paper["author_slugs"]), key=lambda paper: -paper["year"])
        assert re.findall(r"^@\w+\{([^,]+),", bib.read_text(encoding="utf-8"), re.MULTILINE) == [paper["bibtex_key"] for paper in theirs]


def test_the_search_and_exports_worker_writes_each_kind_of_file_before_making_the_next(proj, monkeypatch):
    """The search files are written before the exports are made, and the exports before the reading
    list's BibTeX: a kind of file is not held once it is written (at 100,000 papers they held
    together were hundreds of megabytes of the worker's peak). The authors' BibTeX files are written
    a few at a time, then the exports (the two held at once were 440 MB at 100,000 papers)."""
    events = []

    def recorded(name, make):
        def call(*args, **kwargs):
            events.append(name)
            return make(*args, **kwargs)
        return call

    place = reuse.place_files

    def placed(staging, previous, files):
        events.append(sorted(files))
        return place(staging, previous, files)

    monkeypatch.setattr(reuse, "place_files", placed)
    monkeypatch.setattr(stages, "export_files", recorded("making exports", stages.export_files))
    monkeypatch.setattr(stages, "bibtex_scripts", recorded("making BibTeX", stages.bibtex_scripts))
    monkeypatch.setattr(exports, "FILES_AT_ONCE", 2)
    build(options(proj, jobs=1))
    search_batch, making_exports, *export_batches, making_bibtex, bibtex_batch, feeds_batch = events
    assert "assets/search-index.js" in search_batch and making_exports == "making exports"
    *author_batches, exports_batch = export_batches
    author_files = sorted(str(path.relative_to(proj / "site")) for path in (proj / "site" / "authors").glob("*.bib"))
    assert len(author_files) > 2 and [len(batch) for batch in author_batches[:-1]] == [2] * (len(author_batches) - 1)
    assert sorted(name for batch in author_batches for name in batch) == author_files
    assert sorted(exports_batch) == ["papers.bib", "papers.json"]
    # The reading list's entries, in parts of ~25 (the project has more papers than one part holds).
    assert making_bibtex == "making BibTeX" and bibtex_batch[-1] == "assets/search-bibtex.js"
    assert bibtex_batch[:-1] and all(name.startswith("assets/bibtex/") for name in bibtex_batch[:-1])
    assert {".nojekyll", "robots.txt"} <= set(feeds_batch)


def test_a_page_saved_while_the_build_reads_it_is_built_again_even_when_saved_back(proj, monkeypatch):
    """The build takes the inputs' version as it starts, then reads an edited page: one saved in
    between is in the output but not in that version. Saved back as it was, the inputs would
    match the version again, and the next build would keep an output showing the other text."""
    build(options(proj))
    paper = first_paper(proj)
    edit(paper, "\n---\n", "\n---\nA first edit.\n\n")
    started_with = paper.read_text(encoding="utf-8")
    load_content = stages.load_content

    def saved_meanwhile(*args, **kwargs):
        paper.write_text(started_with.replace("A first edit.", "A second edit, saved as the build read it."), encoding="utf-8")
        return load_content(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(stages, "load_content", saved_meanwhile)
        build(options(proj))
    page = proj / "site" / "papers" / f"{slug_of(paper)}.html"
    assert "A second edit" in page.read_text(encoding="utf-8")
    paper.write_text(started_with, encoding="utf-8")
    result = build(options(proj))
    assert result.rendered > 0
    assert "A first edit." in page.read_text(encoding="utf-8") and "A second edit" not in page.read_text(encoding="utf-8")


def test_a_page_added_while_a_first_build_runs_is_built_next(proj, monkeypatch):
    """A first build takes the inputs' version at its end: a page added after it listed the pages
    is in that version but not in the output, and the next build must not take it as done."""
    added = proj / "content" / "papers" / "added-meanwhile.md"
    load_content = stages.load_content

    def added_meanwhile(*args, **kwargs):
        loaded = load_content(*args, **kwargs)
        added.write_text(paper_text(id="added-0001", slug="added-meanwhile", title="Added while the first build ran"),
                         encoding="utf-8")
        return loaded

    with monkeypatch.context() as patch:
        patch.setattr(stages, "load_content", added_meanwhile)
        build(options(proj))
    assert not (proj / "site" / "papers" / "added-meanwhile.html").exists()
    result = build(options(proj))
    assert result.rendered > 0
    assert "Added while the first build ran" in (proj / "site" / "papers" / "added-meanwhile.html").read_text(encoding="utf-8")


def test_an_edit_makes_again_only_the_feeds_its_paper_is_in_and_they_match_a_clean_build(proj, tmp_path):
    base = "https://example.org/p/"
    build(options(proj, base_url=base))
    feeds = {path: path.stat().st_mtime_ns for path in [proj / "site" / urls.FEED, *(proj / "site" / "tags").glob("*.xml")]}
    assert len(feeds) > 5
    path = first_paper(proj)
    slug, tags = slug_of(path), re.search(r"^tags: \[(.*)\]$", path.read_text(encoding="utf-8"), re.M)[1].split(", ")
    text = re.sub(r"(?m)^added: .*\n", "", path.read_text(encoding="utf-8"))
    path.write_text(re.sub(r"(?m)^(year: .*\n)", r"\1added: 2027-01-04\n", text, count=1), encoding="utf-8")
    build(options(proj, base_url=base))
    # The paper, added later than all others, now leads the site's feed and its topics' feeds.
    changed = {p.name for p, before in feeds.items() if p.stat().st_mtime_ns != before}
    assert changed == {urls.FEED, *(f"{tag}.xml" for tag in tags)}
    for name in changed:
        feed = ((proj / "site" / urls.FEED) if name == urls.FEED else (proj / "site" / "tags" / name)).read_text(encoding="utf-8")
        assert feed.index(f"{base}papers/{slug}.html") < feed.index("</entry>")
    clean = tmp_path / "clean"
    build(options(proj, clean / "site", clean=True, cache_dir=clean / "cache", base_url=base))
    for p in feeds:
        assert p.read_bytes() == (clean / "site" / p.relative_to(proj / "site")).read_bytes(), p.name
