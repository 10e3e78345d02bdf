"""The importer: raw abstracts in, one valid page per paper out, human edits never lost."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from conftest import REPO, SEED_DAY, build_args
from papersite.inputs.papers import split_front_matter
from papersite.errors import Report, SiteError
from papersite.ingest.importer import find_code_links
from papersite.ingest.readers.plain import read_plain
from papersite.ingest.records import Defaults, clean_abstract

SEED = REPO / "content" / "sources" / "neurips2025-abstracts.txt"


def front_matter(path):
    front, body, _ = split_front_matter(path.read_text(encoding="utf-8"), str(path))
    return yaml.safe_load(front), body


@pytest.fixture
def imported(project, cli):
    result = cli("import", SEED, "--content", project / "content")
    assert result.code == 0, result.err
    return project, result


def test_seed_import_writes_one_valid_page_per_abstract(imported, cli):
    project, result = imported
    pages = sorted((project / "content" / "papers").glob("*.md"))
    assert len(pages) == 19
    assert "import: 19 added, 0 skipped (already imported), 0 failed" in result.out
    ids = set()
    for path in pages:
        data, body = front_matter(path)
        assert list(data) == ["id", "slug", "title", "title_source", "venue", "year", "added", "tags", "code", "authors",
                              "links", "aliases", "import_digest"]
        assert str(data["added"]) == SEED_DAY
        assert data["links"] == {}
        assert data["slug"] == path.stem
        assert data["venue"] == "NeurIPS" and data["year"] == 2025
        assert data["title_source"] == "derived"
        assert 1 <= len(data["tags"]) <= 4
        assert len(data["title"]) <= 100
        assert body.strip()
        ids.add(data["id"])
    assert ids == {f"neurips2025-{n:04d}" for n in range(1, 20)}
    assert cli(*build_args(project)).code == 0


# Pages whose derived title, and so slug, changed with a better title rule after they were
# published: each keeps its old address as an alias, which redirects (new slug: old slug).
RENAMED_SEED_PAGES = {
    "data-augmentation-contrastive-learning": "theoretical-framework-analyzing-data",
    "decentralized-multi-agent-stochastic-shortest": "decentralized-multi-agent-ssps",
    "diffusion-transformer-early-layers": "locality-attention-maps",
    "improving-reasoning-large-language-models": "controlled-setting-shortest-path-tasks",
}


def test_seed_pages_match_what_we_ship(imported):
    """The committed content/papers is exactly what the importer makes from the committed source,
    but for the aliases that keep renamed pages' published addresses working."""
    project, _ = imported
    shipped = {p.name: p.read_text() for p in (REPO / "content" / "papers").glob("*.md")}
    fresh = {p.name: p.read_text() for p in (project / "content" / "papers").glob("*.md")}
    for slug, old in RENAMED_SEED_PAGES.items():
        name = f"{slug}.md"
        assert f"\naliases: [{old}]\n" in shipped[name]
        shipped[name] = shipped[name].replace(f"\naliases: [{old}]\n", "\naliases: []\n")
    assert fresh == shipped


def test_fastsverl_page(imported):
    project, _ = imported
    data, body = front_matter(project / "content" / "papers" / "fastsverl.md")
    assert data["id"] == "neurips2025-0001"
    assert data["title"].startswith("FastSVERL: ")
    assert data["tags"][:2] == ["reinforcement-learning", "interpretability"]
    assert body.startswith("Reinforcement learning has achieved remarkable success")


@pytest.mark.parametrize("slug, url", [
    ("redoubt", "https://github.com/sgNicola/Redoubt"),
    ("prior-guidance", "https://github.com/ku-dmlab/PG"),
])
def test_code_urls_lose_trailing_punctuation(imported, slug, url):
    project, _ = imported
    data, body = front_matter(project / "content" / "papers" / f"{slug}.md")
    assert data["code"] == [url]
    assert url in body


def test_latex_text_macros_become_markdown(imported):
    project, _ = imported
    papers = project / "content" / "papers"
    _, contrastive = front_matter(papers / "data-augmentation-contrastive-learning.md")
    assert "Contrastive learning—a modern approach" in contrastive
    assert "*approximate sufficient statistics*" in contrastive
    assert "definition in [@oko2025statistical] for" in contrastive
    assert "$f$-divergences" in contrastive
    _, guidance = front_matter(papers / "prior-guidance.md")
    assert "***Prior Guidance***" in guidance
    _, bandit = front_matter(papers / "simulation-based-approach.md")
    assert "up to 50%," in bandit and "*simulation with optimism*" in bandit
    for path in papers.glob("*.md"):
        text = path.read_text()
        for macro in ("\\textit", "\\textbf", "\\emph", "\\cite", "\\%", "``"):
            assert macro not in text, (path.name, macro)


def test_reimport_skips_and_never_overwrites_hand_edits(imported, cli):
    project, _ = imported
    page = project / "content" / "papers" / "fastsverl.md"
    edited = page.read_text().replace("title_source: derived", "title_source: edited")
    page.write_text(edited)
    result = cli("import", SEED, "--content", project / "content")
    assert result.code == 0
    assert "0 added, 19 skipped (already imported), 0 failed" in result.out
    assert page.read_text() == edited


def test_force_reimport_replaces_but_keeps_the_slug(imported, cli):
    project, _ = imported
    papers = project / "content" / "papers"
    page = papers / "fastsverl.md"
    renamed = papers / "fast-shapley.md"
    page.rename(renamed)
    # Renamed by hand: the old slug is an alias, so the links already sent out still arrive.
    renamed.write_text(renamed.read_text().replace("slug: fastsverl", "slug: fast-shapley")
                       .replace("aliases: []", "aliases: [fastsverl]"))
    result = cli("import", SEED, "--content", project / "content", "--force")
    assert result.code == 0
    assert "19 replaced (--force)" in result.out
    data, _ = front_matter(renamed)
    assert data["slug"] == "fast-shapley" and data["title_source"] == "derived"
    assert data["aliases"] == ["fastsverl"]
    assert not page.exists()


def test_slug_collisions_get_a_suffix(project, cli, tmp_path):
    source = tmp_path / "twice.txt"
    abstract = "We introduce FastSVERL, a scalable method for explaining reinforcement learning by approximating Shapley values."
    source.write_text(f"NeurIPS 2025 Papers\n\n{abstract}\n\n{abstract} Again, with more words.\n")
    assert cli("import", source, "--content", project / "content").code == 0
    names = sorted(p.name for p in (project / "content" / "papers").glob("*.md"))
    assert names == ["fastsverl-2.md", "fastsverl.md"]


def test_jsonl_import_keeps_given_titles_authors_venue(project, cli, tmp_path):
    source = tmp_path / "papers.jsonl"
    records = [
        {"title": "Deep $\\ell_1$ Networks", "abstract": "We study sparse networks. Code: https://github.com/a/b.",
         "authors": ["Ada Lovelace", "Émilie du Châtelet"], "keywords": ["Sim-to-Real"], "venue": "CoRL", "year": 2024, "source_id": "Xy9"},
        {"title": "An Oral", "abstract": "Diffusion models for video generation, with temporal consistency.",
         "authors": ["A. Turing"], "keywords": [], "track": "NeurIPS 2025 oral", "source_id": "abc"},
    ]
    source.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")
    result = cli("import", source, "--content", project / "content")
    assert result.code == 0, result.err
    pages = {front_matter(p)[0]["id"]: front_matter(p)[0] for p in (project / "content" / "papers").glob("*.md")}
    corl = pages["corl2024-Xy9"]
    assert corl["title"] == "Deep $\\ell_1$ Networks" and corl["title_source"] == "given"
    assert corl["authors"] == ["Ada Lovelace", "Émilie du Châtelet"]
    assert corl["code"] == ["https://github.com/a/b"]
    assert "robotics" in corl["tags"]
    oral = pages["neurips2025-abc"]
    assert (oral["venue"], oral["year"]) == ("NeurIPS", 2025)
    assert cli(*build_args(project)).code == 0


def test_control_characters_are_dropped_with_a_warning(project, cli, tmp_path):
    source = tmp_path / "c.jsonl"
    source.write_text(json.dumps({"title": "T", "abstract": "Bad \b char and a \x7f here, long enough.", "venue": "ICML", "year": 2024}) + "\n")
    result = cli("import", source, "--content", project / "content")
    assert result.code == 0
    assert f"{source}:1: warning: dropped control characters U+0008, U+007F" in result.err
    [page] = (project / "content" / "papers").glob("*.md")
    assert "Bad  char" not in page.read_text() and "\b" not in page.read_text()
    assert cli(*build_args(project)).code == 0


def test_clean_abstract_joins_wraps_and_keeps_paragraphs():
    report = Report()
    text = clean_abstract("We train cap-\ntions  with\ttabs\nand breaks.\n\nSecond para.", "s", 1, report)
    assert text == "We train captions with tabs and breaks.\n\nSecond para."


def test_find_code_links_only_code_hosts():
    text = "See https://github.com/x/y. and https://example.org/page, https://huggingface.co/m/n)."
    assert find_code_links(text) == ("https://github.com/x/y", "https://huggingface.co/m/n")


def test_text_source_heading_gives_venue_and_year():
    records = read_plain("ICML 2024 Accepted\n\nFirst abstract\nwrapped.\n\nSecond.\n", "s.txt", Report())
    assert [(r.venue, r.year, r.line, r.abstract) for r in records] == [
        ("ICML", 2024, 3, "First abstract wrapped."), ("ICML", 2024, 6, "Second.")]


def test_text_source_heading_without_venue_and_year_takes_the_flags():
    [record] = read_plain("Accepted papers\n\nAn abstract.\n", "s.txt", Report(), Defaults("ICLR", 2024))
    assert (record.venue, record.year) == ("ICLR", 2024)
    # The heading's own venue and year come first.
    [record] = read_plain("ICML 2023 Accepted\n\nAn abstract.\n", "s.txt", Report(), Defaults("ICLR", 2024))
    assert (record.venue, record.year) == ("ICML", 2023)
    with pytest.raises(SiteError, match=r"must name the venue and year, like 'NeurIPS 2025 Papers' \(or pass --venue and --year\)"):
        read_plain("Accepted papers\n\nAn abstract.\n", "s.txt", Report(), Defaults("ICLR"))


def test_import_requires_the_taxonomy(tmp_path, cli):
    (tmp_path / "content").mkdir()
    shutil.copyfile(SEED, tmp_path / "seed.txt")
    result = cli("import", tmp_path / "seed.txt", "--content", tmp_path / "content")
    assert result.code == 1
    assert "tags.yml: tag taxonomy not found" in result.err
