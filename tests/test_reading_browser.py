"""In Chromium from file://: the reading list, the keyboard shortcuts and the map filter of the shipped site."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import bibtexparser
import pytest

from conftest import axe_violations, build_args, make_project, paper_text
from support.search_oracle import read_js_global

from papersite import urls
from papersite.publish import search

FIRST, SECOND = "fastsverl", "aapt"

# A title, authors and a body that exercise BibTeX escaping (the build's, which the export must give).
TEX_PAPER = "quokka-escapes"
TEX_PAPERS = {
    f"{TEX_PAPER}.md": paper_text(
        id="extra-0001", slug=TEX_PAPER,
        title="'Quokka & co.: 50% faster #1 with ~tildes~, under_scores, {braces} and $\\alpha$ for Ünal'",
        authors="[Ünal Ørsted, Jean-Luc d'Arc]", tags="[optimization]", body="Quokka training at 50% of the cost & more.",
    ),
    # More authors than a listing names: "et al." wherever the paper was saved from. Ünal Ørsted is
    # an author of both: on an anthology's site (anthology_site) their BibTeX is made in the browser.
    "many-authors.md": paper_text(id="extra-0002", slug="many-authors", title="'Wombats in the wild'",
                                  authors="[Ada One, Bo Two, Cy Three, Di Four, Ünal Ørsted]", tags="[optimization]",
                                  body="Wombat burrows, surveyed at scale."),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The shipped corpus built once for the module (the tests only read it)."""
    from papersite.cli import main

    root = make_project(tmp_path_factory.mktemp("reading") / "shipped", copy_papers=True)
    assert main(build_args(root)) == 0
    return root / "site"


@pytest.fixture(scope="module")
def tex_site(tmp_path_factory) -> Path:
    """The shipped corpus plus TEX_PAPERS."""
    from papersite.cli import main

    root = make_project(tmp_path_factory.mktemp("reading-tex") / "shipped", TEX_PAPERS, copy_papers=True)
    assert main(build_args(root)) == 0
    return root / "site"


@pytest.fixture(scope="module")
def anthology_site(tmp_path_factory) -> Path:
    """tex_site's papers laid out as an anthology's (urls.EXPORTS_SPLIT_FROM papers and more): its
    exports are per proceedings and its authors' BibTeX files are made in the browser."""
    from papersite.cli import main

    root = make_project(tmp_path_factory.mktemp("reading-anthology") / "shipped", TEX_PAPERS, copy_papers=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(urls, "EXPORTS_SPLIT_FROM", 1)
        assert main(build_args(root)) == 0
    return root / "site"


def url_of(site: Path, path: str) -> str:
    return (site / path).as_uri()


def papers_bib_entries(site: Path) -> dict[str, str]:
    """papers.bib's entries by paper slug, each as the file has it, ending with its newline (the file
    is a header comment line, then the entries with a blank line before each)."""
    text = (site / "papers.bib").read_bytes().decode("utf-8")
    header, body = text.split("\n\n", 1)
    entries = [entry if entry.endswith("\n") else entry + "\n" for entry in body.split("\n\n")]
    assert header.startswith(f"% {len(entries)} papers from ")
    slugs = {p["bibtex_key"]: p["slug"] for p in json.loads((site / "papers.json").read_text(encoding="utf-8"))["papers"]}
    return {slugs[re.match(r"@\w+\{([^,]+),", entry)[1]]: entry for entry in entries}


def export_bibtex(page) -> str:
    """Click BibTeX on reading-list.html and wait for the entries (loaded on the first export)."""
    page.click("[data-export=bibtex]")
    page.locator(".export-output").wait_for()
    return page.input_value("#export-text")


def clean(page) -> None:
    assert page.console_errors == []
    assert page.dialogs == []


def save(page, site: Path, slug: str) -> str:
    page.goto(url_of(site, f"papers/{slug}.html"))
    toggle = page.locator("button.save-toggle")
    assert toggle.is_visible()
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    return page.locator("h1").inner_text()


def test_save_two_papers_reload_list_remove_and_export(site, page):
    first_title = save(page, site, FIRST)
    second_title = save(page, site, SECOND)
    page.reload()
    assert page.locator("button.save-toggle").get_attribute("aria-pressed") == "true"

    page.goto(url_of(site, "reading-list.html"))
    items = page.locator("#reading-list-items > li")
    assert items.count() == 2
    assert [items.nth(i).locator(".paper-card-title a").inner_text() for i in range(2)] == [first_title, second_title]
    assert items.nth(0).locator(".paper-card-summary").inner_text().startswith("Reinforcement learning")
    assert items.nth(0).locator(".paper-card-title a").get_attribute("href") == f"papers/{FIRST}.html"
    assert "2 saved papers" in page.locator("#reading-list-status").inner_text()

    # BibTeX: the textarea and the downloaded Blob hold papers.bib's entries, joined as papers.bib joins them.
    bibtex = export_bibtex(page)
    entries = papers_bib_entries(site)
    assert bibtex == entries[FIRST] + "\n" + entries[SECOND]
    with page.expect_download() as info:
        page.click("#export-download")
    download = info.value
    assert download.suggested_filename == "reading-list.bib"
    assert Path(download.path()).read_text(encoding="utf-8") == bibtex

    page.click("[data-export=markdown]")
    markdown = page.input_value("#export-text")
    lines = markdown.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("- [FastSVERL: A scalable method") and f"papers/{FIRST}.html)" in lines[0]
    assert lines[1].startswith("- [AAPT: Autoregressive adversarial post-training](file://")

    # Remove one: the list, the export and (after a reload) the paper's toggle all follow.
    page.click("#reading-list-items > li:first-child .remove-button")
    assert items.count() == 1
    assert page.evaluate("document.activeElement.className") == "button remove-button"
    assert FIRST not in page.input_value("#export-text")
    page.reload()
    assert page.locator("#reading-list-items > li").count() == 1
    assert page.locator("#reading-list-items .paper-card-title a").inner_text() == second_title
    page.goto(url_of(site, f"papers/{FIRST}.html"))
    assert page.locator("button.save-toggle").get_attribute("aria-pressed") == "false"
    clean(page)


def test_a_saved_paper_shows_the_summary_its_card_shows(site, page):
    """Saved from its page, a paper is listed with the summary of its card on the home page, which
    the page itself carries only in its description meta tags."""
    page.goto(url_of(site, "index.html"))
    cards = {slug: page.locator(".paper-list .paper-card").filter(has=page.locator(f'a[href="papers/{slug}.html"]'))
             for slug in (FIRST, SECOND)}
    expected = [cards[slug].locator(".paper-card-summary").inner_text() for slug in (FIRST, SECOND)]
    assert expected[0].startswith("Reinforcement learning") and expected[0].endswith("…")
    for slug in (FIRST, SECOND):
        save(page, site, slug)
        assert page.locator("button.save-toggle").get_attribute("data-summary") is None
    page.goto(url_of(site, "reading-list.html"))
    summaries = page.locator("#reading-list-items > li .paper-card-summary")
    assert [summaries.nth(i).inner_text() for i in range(summaries.count())] == expected
    clean(page)


def test_reading_list_survives_a_new_page_in_the_same_browser(site, page):
    save(page, site, FIRST)
    other = page.context.new_page()
    other.goto(url_of(site, "reading-list.html"))
    assert other.locator("#reading-list-items > li").count() == 1
    other.close()
    clean(page)


def test_two_sites_do_not_share_a_list(site, page, tmp_path):
    copy = tmp_path / "other-site"
    shutil.copytree(site, copy)
    save(page, site, FIRST)
    page.goto(url_of(copy, "reading-list.html"))
    assert page.locator("#reading-list-items > li").count() == 0
    assert "No saved papers" in page.locator("#reading-list-status").inner_text()
    page.goto(url_of(copy, f"papers/{FIRST}.html"))
    assert page.locator("button.save-toggle").get_attribute("aria-pressed") == "false"
    clean(page)


def test_bibtex_export_is_the_builds_own_entries(tex_site, page):
    """Saved from search results (which store no BibTeX) and from a paper page, in that order: the
    export is those papers' entries in papers.bib, byte for byte, in list order."""
    saved = []
    for query in ("quokka", "shapley"):
        page.goto(url_of(tex_site, "search.html") + "?q=" + query)
        card = page.locator("#search-page-results > li.paper-card").first
        card.locator(".paper-card-title a").wait_for()
        saved.append(card.locator(".paper-card-title a").get_attribute("href").partition("?")[0].removeprefix("papers/").removesuffix(".html"))
        card.locator("button.save-toggle").click()
    assert saved == [TEX_PAPER, FIRST]
    save(page, tex_site, SECOND)
    saved.append(SECOND)

    page.goto(url_of(tex_site, "reading-list.html"))
    entries = papers_bib_entries(tex_site)
    expected = "\n".join(entries[slug] for slug in saved)
    assert "\\textbraceleft{}braces\\textbraceright{}" in expected and "Ünal Ørsted and Jean-Luc d'Arc" in expected
    assert export_bibtex(page) == expected
    with page.expect_download() as info:
        page.click("#export-download")
    assert Path(info.value.path()).read_bytes() == expected.encode("utf-8")
    # Loaded once: toggling the format, or changing the list, adds no second script.
    page.click("[data-export=markdown]")
    page.click("#reading-list-items > li:first-child .remove-button")
    assert export_bibtex(page) == entries[FIRST] + "\n" + entries[SECOND]
    assert page.locator('script[src$="search-bibtex.js"]').count() == 1
    clean(page)


def parted_copy(site: Path, target: Path, entries: dict[str, str] | None = None) -> Path:
    """A copy of `site` whose BibTeX entries (by default its papers.bib's) are in parts of two, as
    a large site's are."""
    shutil.copytree(site, target)
    entries = entries or papers_bib_entries(site)
    for rel, text in search.bibtex_scripts(list(entries), list(entries.values()), per_part=2)[0].items():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_text(text, encoding="utf-8")
    return target


def test_bibtex_export_of_a_large_site_loads_only_its_papers_parts(tex_site, page, tmp_path):
    site = parted_copy(tex_site, tmp_path / "parted")
    entries = papers_bib_entries(site)
    parts = read_js_global((site / urls.SEARCH_BIBTEX).read_text(encoding="utf-8"))["parts"]
    part = dict(zip(entries, search.bibtex_parts_of(list(entries), parts)))
    saved = [TEX_PAPER, FIRST]
    for slug in saved:
        save(page, site, slug)
    page.goto(url_of(site, "reading-list.html"))
    assert export_bibtex(page) == "\n".join(entries[slug] for slug in saved)

    def loaded() -> list[str]:
        return sorted(page.eval_on_selector_all('script[src*="assets/bibtex/"]', "els => els.map(e => e.getAttribute('src'))"))

    assert loaded() == sorted({urls.bibtex_part(part[slug]) for slug in saved})
    # A paper added while the export is open (from another tab, say) brings its own part.
    later = next(slug for slug in entries if part[slug] not in {part[s] for s in saved})
    page.evaluate("slug => window.papersiteReadingList.add({slug, title: slug, url: `papers/${slug}.html`})", later)
    page.wait_for_function("() => document.querySelector('#export-text').value.split('@').length === 4")
    assert page.input_value("#export-text") == "\n".join(entries[slug] for slug in [*saved, later])
    assert loaded() == sorted({urls.bibtex_part(part[slug]) for slug in [*saved, later]})
    clean(page)
    # A part that cannot be loaded is named, and the Markdown export still works.
    (site / urls.bibtex_part(part[FIRST])).unlink()
    page.reload()
    page.click("[data-export=bibtex]")
    problem = page.locator("#reading-list-export .export-problem")
    problem.wait_for()
    assert f"({urls.bibtex_part(part[FIRST])})" in problem.inner_text()


def result_slugs(page) -> list[str]:
    return page.eval_on_selector_all("#search-page-results .paper-card-title a",
                                     "links => links.map(a => a.getAttribute('href').split('?')[0].slice(7, -5))")


def test_search_results_export_as_bibtex(tex_site, page, tmp_path):
    """The results listed so far, in their order, as papers.bib has their entries; a large site's
    from their parts alone, and a part that cannot be loaded said and left as comments."""
    site = parted_copy(tex_site, tmp_path / "parted")
    entries = papers_bib_entries(site)
    for built in (tex_site, site):
        page.goto(url_of(built, "search.html") + "?q=learning")
        button = page.locator(".search-export button")
        button.wait_for()
        slugs = result_slugs(page)
        assert len(slugs) > 5 and button.inner_text() == f"BibTeX of the {len(slugs)} papers shown"
        with page.expect_download() as info:
            button.click()
        assert info.value.suggested_filename == "search-results.bib"
        assert Path(info.value.path()).read_bytes() == "\n".join(entries[slug] for slug in slugs).encode("utf-8")
    parts = read_js_global((site / urls.SEARCH_BIBTEX).read_text(encoding="utf-8"))["parts"]
    part = dict(zip(entries, search.bibtex_parts_of(list(entries), parts)))
    loaded = page.eval_on_selector_all('script[src*="assets/bibtex/"]', "els => els.map(e => e.getAttribute('src'))")
    assert sorted(loaded) == sorted({urls.bibtex_part(part[slug]) for slug in slugs})
    page.goto(url_of(site, "search.html") + "?q=quokka")   # a paper whose part is gone
    page.locator(".search-export button").wait_for()
    assert result_slugs(page) == [TEX_PAPER] and page.inner_text(".search-export button") == "BibTeX of the paper shown"
    assert page.console_errors == []
    (site / urls.bibtex_part(part[TEX_PAPER])).unlink()
    with page.expect_download() as info:
        page.click(".search-export button")
    text = Path(info.value.path()).read_text(encoding="utf-8")
    assert text.startswith('% "Quokka & co.') and "its entry could not be loaded" in text
    assert "could not be loaded and are left as comments" in page.inner_text(".search-export")
    page.goto(url_of(site, "search.html") + "?q=xyzzyqq")   # nothing found: nothing to export
    page.wait_for_function("() => document.querySelector('#search-status').textContent.includes('No papers')")
    assert page.locator(".search-export:visible").count() == 0
    assert page.console_errors == ["Failed to load resource: net::ERR_FILE_NOT_FOUND"] and page.dialogs == []   # the part removed


def author_slug(site: Path, name: str) -> str:
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))["papers"]
    return next(slug for paper in papers for author, slug in zip(paper["authors"], paper["author_slugs"]) if author == name)


def test_an_anthologys_author_bibtex_file_is_their_papers_entries_newest_first(tex_site, anthology_site, page, tmp_path):
    """At anthology size the page of an author of several papers saves <slug>.bib: the file the
    build writes for them on a smaller site (tex_site, the same papers), their entries newest first
    (in site order within a year) under a header naming them; from a site of parts, loading only theirs."""
    entries = papers_bib_entries(tex_site)
    data = json.loads((tex_site / "papers.json").read_text(encoding="utf-8"))
    site = parted_copy(anthology_site, tmp_path / "parted", entries)
    slug = author_slug(tex_site, "Ünal Ørsted")
    theirs = sorted((paper for paper in data["papers"] if slug in paper["author_slugs"]), key=lambda paper: -paper["year"])
    assert len(theirs) == 2
    parts = read_js_global((site / urls.SEARCH_BIBTEX).read_text(encoding="utf-8"))["parts"]
    part = dict(zip(entries, search.bibtex_parts_of(list(entries), parts)))
    for built in (anthology_site, site):
        page.goto(url_of(built, f"authors/{slug}.html"))
        link = page.get_by_role("link", name="BibTeX")
        with page.expect_download() as info:
            link.click()
        assert info.value.suggested_filename == f"{slug}.bib"
        text = Path(info.value.path()).read_bytes().decode("utf-8")
        # Byte for byte the file a smaller site's build writes for them (publish/exports.py).
        assert text == (tex_site / "authors" / f"{slug}.bib").read_text(encoding="utf-8")
        assert [entry.key for entry in bibtexparser.parse_string(text).entries] == [paper["bibtex_key"] for paper in theirs]
        assert link.inner_text() == "BibTeX" and link.get_attribute("aria-busy") is None   # not "Loading BibTeX…" now
    loaded = page.eval_on_selector_all('script[src*="assets/bibtex/"]', "els => els.map(e => e.getAttribute('src'))")
    assert sorted(loaded) == sorted({"../" + urls.bibtex_part(part[paper["slug"]]) for paper in theirs})
    clean(page)
    # A part that cannot be loaded: the file says which entry, the page that it is left out.
    (site / urls.bibtex_part(part[TEX_PAPER])).unlink()
    page.reload()
    with page.expect_download() as info:
        page.get_by_role("link", name="BibTeX").click()
    assert "its entry could not be loaded" in Path(info.value.path()).read_text(encoding="utf-8")
    assert "1 of 2 entries could not be loaded" in page.inner_text(".page-header .stats")


def test_saved_papers_link_their_authors_pages(tex_site, page):
    save(page, tex_site, TEX_PAPER)
    page.goto(url_of(tex_site, "reading-list.html"))
    names = page.locator("#reading-list-items .paper-card-meta a")
    assert names.all_inner_texts() == ["Ünal Ørsted", "Jean-Luc d'Arc"]
    for link in names.all():
        target = tex_site / link.get_attribute("href")
        assert target.is_file() and f"papers/{TEX_PAPER}.html" in target.read_text(encoding="utf-8")
    names.first.click()
    assert page.locator("h1").inner_text() == "Ünal Ørsted"
    clean(page)


def test_bibtex_export_of_papers_the_build_no_longer_has(site, page):
    """A saved paper missing from this build: the entry saved from its page, else a comment line."""
    page.goto(url_of(site, "reading-list.html"))
    page.evaluate("""() => {
        const list = window.papersiteReadingList;
        list.add({slug: "gone-from-page", title: "Gone", url: "papers/gone-from-page.html",
                  bibtex: "@inproceedings{gone2024,\\n  title     = {Gone}\\n}\\n"});
        list.add({slug: "fastsverl", title: "FastSVERL", url: "papers/fastsverl.html"});
        list.add({slug: "gone", title: "Gone  @home\\nfor good", url: "papers/gone.html"});
        list.add({slug: "constructor", title: "Not a paper", url: "papers/constructor.html"});
    }""")
    assert export_bibtex(page) == "\n".join([
        "@inproceedings{gone2024,\n  title     = {Gone}\n}\n",
        papers_bib_entries(site)[FIRST],
        '% "Gone home for good" is no longer on this site.\n',
        '% "Not a paper" is no longer on this site.\n',
    ])
    clean(page)


def test_bibtex_export_without_the_entries_file_says_so_and_tries_again(site, page, tmp_path):
    """The entries file fails to load (a flaky connection): the export gives the entries saved from
    the papers' pages, comments for the others, and says so; pressing BibTeX again tries again."""
    copy = tmp_path / "copy"
    shutil.copytree(site, copy)
    entries = copy / "assets" / "search-bibtex.js"
    kept = entries.read_bytes()
    entries.unlink()
    save(page, copy, FIRST)
    page.goto(url_of(copy, "reading-list.html"))
    page.evaluate("() => window.papersiteReadingList.add({slug: 'aapt', title: 'AAPT', url: 'papers/aapt.html'})")
    page.click("[data-export=bibtex]")
    problem = page.locator("#reading-list-export .export-problem")
    problem.wait_for()
    assert problem.inner_text() == ("The site's BibTeX entries (assets/search-bibtex.js) could not be loaded: 1 of 2 papers are "
                                    "left as comments below. Press BibTeX again to try again; the Markdown export works.")
    assert problem.get_attribute("role") == "alert"
    saved_from_page = papers_bib_entries(site)[FIRST]
    assert page.input_value("#export-text") == "\n".join([saved_from_page, '% "AAPT": its entry could not be loaded.\n'])
    page.click("[data-export=markdown]")
    assert problem.is_hidden() and "[FastSVERL" in page.input_value("#export-text")
    # The connection is back: BibTeX again loads the entries.
    entries.write_bytes(kept)
    page.click("[data-export=bibtex]")
    page.wait_for_function("() => !document.querySelector('#reading-list-export .export-output').hidden && "
                           "!document.getElementById('export-text').value.startsWith('%')")
    assert problem.is_hidden()
    assert page.input_value("#export-text") == "\n".join([saved_from_page, papers_bib_entries(site)["aapt"]])
    # The browser's own report of the missing file is the only console error.
    assert [e for e in page.console_errors if not e.startswith("Failed to load resource")] == []
    assert page.dialogs == []


def test_toggle_api_for_search_results(site, page):
    page.goto(url_of(site, f"papers/{FIRST}.html"))
    page.evaluate("""() => {
        const button = window.papersiteReadingList.toggleButton(
            "fastsverl", "FastSVERL", "papers/fastsverl.html", {summary: "A summary.", authors: ["A. Author"], year: 2025});
        button.id = "from-search";
        document.body.appendChild(button);
    }""")
    added = page.locator("#from-search")
    assert added.get_attribute("aria-label") == "Save: FastSVERL"
    added.click()
    assert added.get_attribute("aria-pressed") == "true"
    # The page's own toggle follows, and vice versa.
    assert page.locator("header button.save-toggle").get_attribute("aria-pressed") == "true"
    page.locator("header button.save-toggle").click()
    assert added.get_attribute("aria-pressed") == "false"
    # Unsafe URLs are never stored: no toggle appears for them.
    hidden = page.evaluate("""() => window.papersiteReadingList.toggleButton("x", "X", "javascript:alert(1)").hidden""")
    assert hidden is True
    clean(page)


def test_save_from_the_search_results_page(site, page):
    page.goto(url_of(site, "search.html") + "?q=shapley")
    card = page.locator("#search-page-results > li.paper-card").first
    card.locator(".paper-card-title a").wait_for()
    toggle = card.locator("button.save-toggle")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true"
    page.goto(url_of(site, "reading-list.html"))
    items = page.locator("#reading-list-items > li")
    assert items.count() == 1
    assert items.nth(0).locator(".paper-card-title a").get_attribute("href") == f"papers/{FIRST}.html"
    clean(page)


@pytest.mark.parametrize("slug, query", [(TEX_PAPER, "quokka"), ("many-authors", "wombat")])
def test_a_paper_saved_from_search_is_listed_as_one_saved_from_its_page(tex_site, page, slug, query):
    """The same byline (first authors linked, "et al.", venue and year) and the same Markdown line,
    whichever Save button was pressed."""
    seen = []
    for where in ("its page", "the search page"):
        if where == "its page":
            save(page, tex_site, slug)
        else:
            page.goto(url_of(tex_site, "search.html") + "?q=" + query)
            card = page.locator(f'#search-page-results > li.paper-card:has(.paper-card-title a[href^="papers/{slug}.html"])')
            card.locator("button.save-toggle").click()
        page.goto(url_of(tex_site, "reading-list.html"))
        meta = page.locator("#reading-list-items .paper-card-meta")
        page.click("[data-export=markdown]")
        seen.append((meta.inner_text(), meta.locator("a").evaluate_all("els => els.map(e => e.getAttribute('href'))"),
                     page.input_value("#export-text")))
        page.evaluate("(slug) => window.papersiteReadingList.remove(slug)", slug)
    assert seen[0] == seen[1], where
    assert " · NeurIPS 2025" in seen[0][0] and len(seen[0][1]) == min(3, seen[0][0].count(",") + 1)
    assert ("et al." in seen[0][0]) == (slug == "many-authors")
    clean(page)


def test_titles_are_text_never_markup(site, page):
    page.goto(url_of(site, "reading-list.html"))
    page.evaluate("""() => window.papersiteReadingList.add({
        slug: "evil", title: "<img src=x onerror=alert(1)>", url: "papers/fastsverl.html", summary: "<b>bold</b>"})""")
    item = page.locator("#reading-list-items > li")
    assert item.locator(".paper-card-title a").inner_text() == "<img src=x onerror=alert(1)>"
    assert item.locator("img, b").count() == 0
    clean(page)


def test_j_and_k_go_to_the_next_and_previous_paper(site, page):
    page.goto(url_of(site, f"papers/{FIRST}.html"))
    next_href = page.locator('.prev-next a[rel="next"]').get_attribute("href")
    page.keyboard.press("j")
    page.wait_for_url(re.compile(re.escape(next_href.split("/")[-1]) + "$"))
    page.keyboard.press("k")
    page.wait_for_url(re.compile(rf"{FIRST}\.html$"))
    # On a list of papers, j/k move the focus along the list.
    page.goto(url_of(site, "index.html"))
    page.keyboard.press("j")
    page.keyboard.press("j")
    focused = page.evaluate("document.activeElement.closest('.paper-card') !== null")
    assert focused
    second = page.locator(".paper-list .paper-card-title a").nth(1).get_attribute("href")
    assert page.evaluate("document.activeElement.getAttribute('href')") == second
    page.keyboard.press("k")
    first = page.locator(".paper-list .paper-card-title a").nth(0).get_attribute("href")
    assert page.evaluate("document.activeElement.getAttribute('href')") == first
    clean(page)


def test_question_mark_opens_an_accessible_shortcuts_dialog(site, page):
    page.goto(url_of(site, f"papers/{FIRST}.html"))
    assert page.locator(".shortcuts-hint").is_visible()
    page.keyboard.press("?")
    dialog = page.locator("dialog#shortcuts-dialog")
    assert dialog.is_visible()
    assert page.evaluate("document.getElementById('shortcuts-dialog').open") is True
    assert page.evaluate("document.getElementById('shortcuts-dialog').contains(document.activeElement)")
    assert dialog.get_attribute("aria-labelledby") == "shortcuts-title"
    assert "Next paper" in dialog.inner_text() and "Search" in dialog.inner_text()
    # Modal: j does nothing behind it; Esc closes it.
    page.keyboard.press("j")
    assert page.url.endswith(f"{FIRST}.html")
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    page.keyboard.press("?")
    assert dialog.is_visible()
    page.locator("dialog#shortcuts-dialog button").click()
    assert not dialog.is_visible()
    clean(page)


def test_shortcuts_do_not_fire_while_typing(site, page):
    page.goto(url_of(site, f"papers/{FIRST}.html"))
    theme = page.evaluate("document.documentElement.getAttribute('data-theme')")
    page.click("#search-input")
    page.keyboard.type("jkt?/")
    assert page.input_value("#search-input") == "jkt?/"
    assert page.url.endswith(f"{FIRST}.html")
    assert page.evaluate("document.documentElement.getAttribute('data-theme')") == theme
    assert not page.locator("dialog#shortcuts-dialog").is_visible()
    page.goto(url_of(site, "reading-list.html"))
    save_url = page.url
    page.evaluate("""() => window.papersiteReadingList.add({slug: "aapt", title: "AAPT", url: "papers/aapt.html"})""")
    page.click("[data-export=markdown]")
    page.click("#export-text")
    page.keyboard.press("j")
    page.keyboard.press("?")
    assert page.url == save_url and not page.locator("dialog#shortcuts-dialog").is_visible()
    clean(page)


def test_t_toggles_the_theme(site, page):
    page.goto(url_of(site, "index.html"))
    before = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.keyboard.press("t")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != before
    clean(page)


@pytest.mark.parametrize("system", ["light", "dark"])
def test_the_theme_button_says_which_theme_is_on_and_leads_back_to_the_systems(site, browser, system):
    context = browser.new_context(color_scheme=system)
    try:
        page = context.new_page()
        page.goto(url_of(site, "index.html"))
        button = page.locator(".theme-toggle")
        assert button.get_attribute("aria-label") == "Dark theme"
        assert button.get_attribute("aria-pressed") == ("true" if system == "dark" else "false")
        button.click()   # the other theme, chosen: remembered on the next page
        other = "light" if system == "dark" else "dark"
        assert button.get_attribute("aria-pressed") == ("true" if other == "dark" else "false")
        page.goto(url_of(site, "tags/index.html"))
        assert page.get_attribute("html", "data-theme") == other
        page.locator(".theme-toggle").click()   # back to the system's: the choice is forgotten
        assert page.get_attribute("html", "data-theme") is None
        page.reload()
        assert page.get_attribute("html", "data-theme") is None
        assert page.locator(".theme-toggle").get_attribute("aria-pressed") == ("true" if system == "dark" else "false")
    finally:
        context.close()


def test_map_legend_filters_the_map(site, page):
    page.goto(url_of(site, "map.html"))
    links = page.locator(".topic-map-svg a")
    assert links.count() == len([p for p in (site / "papers").glob("*.html")
                                 if 'http-equiv="refresh"' not in p.read_text(encoding="utf-8")])
    assert page.locator(".map-help").is_visible()
    first = page.locator(".legend-filter").first
    group = first.get_attribute("data-group")
    first.click()
    assert first.get_attribute("aria-pressed") == "true"
    faded = page.locator(".tm-group.tm-faded")
    assert faded.count() == page.locator(".tm-group").count() - 1
    assert page.locator(f'.tm-group[data-group="{group}"]').get_attribute("class") == "tm-group"
    assert faded.first.locator("a").first.get_attribute("tabindex") == "-1"
    assert "Highlighting 1 topic" in page.locator(".map-status").inner_text()
    page.click(".map-clear")
    assert page.locator(".tm-group.tm-faded").count() == 0
    # A point is a link to its paper.
    href = links.first.get_attribute("href")
    links.first.click()
    page.wait_for_url(re.compile(re.escape(href) + "$"))
    clean(page)


def test_tag_chart_bars_are_links(site, page):
    page.goto(url_of(site, "tags/index.html"))
    bars = page.locator(".tag-chart-list a")
    assert bars.count() >= 5
    box = page.locator(".tag-chart-list").bounding_box()
    assert box["width"] > 300
    # Each bar is as long as its share of the most papers a topic has: the first is the longest.
    widths = bars.locator(".bar").evaluate_all("rects => rects.map(r => r.getBoundingClientRect().width)")
    assert widths == sorted(widths, reverse=True) and widths[0] > 200 and widths[-1] > 0
    bars.first.click()
    page.wait_for_url(re.compile(r"tags/[a-z0-9-]+\.html$"))
    clean(page)


def test_without_javascript_nothing_breaks(site, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(url_of(site, f"papers/{FIRST}.html"))
    assert not page.locator("button.save-toggle").is_visible()
    page.goto(url_of(site, "reading-list.html"))
    assert "needs JavaScript" in page.locator("main").inner_text()
    assert not page.locator("#reading-list").is_visible()
    page.goto(url_of(site, "map.html"))
    assert page.locator(".topic-map-svg a").count() > 0 and page.locator(".legend-filter").count() == 0
    context.close()


def test_without_javascript_an_author_page_offers_no_bibtex_it_cannot_make(tex_site, anthology_site, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    slug = author_slug(tex_site, "Ünal Ørsted")
    page.goto(url_of(anthology_site, f"authors/{slug}.html"))
    assert page.inner_text(".page-header .stats") == "2 papers"
    page.goto(url_of(tex_site, f"authors/{slug}.html"))   # a smaller site's file is there
    assert page.get_by_role("link", name="BibTeX").get_attribute("href") == f"{slug}.bib"
    page.goto(url_of(anthology_site, "authors/ada-one.html"))   # one paper: its Cite box
    assert page.get_by_role("link", name="BibTeX").get_attribute("href") == "../papers/many-authors.html#cite"
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations_on_the_reading_pages(site, browser, scheme):
    """map.html with a filter on, the reading list with entries and an export, the shortcuts dialog open."""
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    problems = []

    def check(name: str) -> None:
        problems.extend(axe_violations(page, f"{scheme} {name}"))

    try:
        page.goto(url_of(site, "map.html"))
        page.locator(".legend-filter").first.click()
        check("map.html")
        save(page, site, FIRST)
        check(f"papers/{FIRST}.html (saved)")
        page.goto(url_of(site, "reading-list.html"))
        export_bibtex(page)
        check("reading-list.html")
        page.goto(url_of(site, "tags/index.html"))
        page.keyboard.press("?")
        check("tags/index.html with the shortcuts dialog")
    finally:
        context.close()
    assert problems == []
