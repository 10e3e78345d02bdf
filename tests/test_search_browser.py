"""Search in a real browser: headless Chromium (Debian's /usr/bin/chromium) via Playwright.

From file:// and from an HTTP server that serves the site under a sub-path: type, see the
right paper first, press Enter and land on it; the results page with its tag filter; lunr
syntax, unparseable queries and no results; nothing loaded on a plain page view; no console
errors; untrusted text stays text; results' bylines; an author's name offers their page. A
sharded site (issue 13) from file:// and over HTTP: prefix, typo and field queries (`author:`,
`venue:`), the topic, venue, year and author filters, only the files a query needs; the search
page at phone width.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from conftest import REPO, QuietHandler, axe_violations, build_args, make_project, paper_text, served

from papersite.cli import main

SEARCH_FILES = ("search-core.js", "search-index.js", "search-store.js", "search-shards.js", "vendor/lunr.js")
FIRST_USE = ("search-core.js", "search-index.js", "search-store.js", "search-shards.js")  # lunr.js only for query syntax

EXTRA_PAPERS = {
    "renyi-cafe.md": paper_text(
        id="extra-0001", slug="renyi-cafe", title='"Rényi divergences at the café"', tags="[learning-theory]",
        body="We bound the Rényi divergence of the naïve estimator with an array of delays.",
    ),
    "markup-title.md": paper_text(
        id="extra-0002", slug="markup-title", title="'<img src=x onerror=alert(1)> Quokka <b>bold</b> tricks'",
        tags="[optimization]", body="Quokka training with <script>alert(2)</script> in the abstract.",
        authors="[Ada Lovelace, '<b>Bold</b> Name', Carol Ng, Dan Wu]",
    ),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The shipped papers plus EXTRA_PAPERS, built into a temporary directory (never the repo's site/)."""
    root = make_project(tmp_path_factory.mktemp("browser") / "proj", EXTRA_PAPERS, copy_papers=True)
    if not any((REPO / "content" / "papers").glob("*.md")):
        assert main(["import", str(REPO / "content" / "sources" / "neurips2025-abstracts.txt"), "--content", str(root / "content")]) == 0
    assert main(build_args(root)) == 0
    return root / "site"


class FaviconHandler(QuietHandler):
    def do_GET(self):
        if self.path == "/favicon.ico":
            # The host's root, not the site's (which lives under a sub-path): answer as
            # papersite/serve.py does, so the browser's unprompted request logs no 404.
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture(scope="module")
def http_base(site, tmp_path_factory):
    """The site served at http://127.0.0.1:<random port>/some/sub/path/, stopped after the module."""
    www = tmp_path_factory.mktemp("www")
    shutil.copytree(site, www / "some" / "sub" / "path")
    with served(www, FaviconHandler) as base:
        yield base + "some/sub/path/"


def file_url(site: Path, path: str) -> str:
    return (site / path).as_uri()


def paper_of(href: str) -> str:
    """A result's link without the terms it carries for its page to mark."""
    return href.partition("?")[0]


def highlighted_terms(href: str) -> list[str]:
    """The index terms a result's link carries (`?highlight=`), for its page to mark."""
    return parse_qs(urlsplit(href).query).get("highlight", [""])[0].split()


def record_requests(page) -> list[str]:
    """What `page` requests, from each document it opens on (its own request first): a request
    listener sees file:// loads too, which leave no resource timing entries."""
    requested: list[str] = []

    def on_request(request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            requested.clear()
        requested.append(request.url)

    page.on("request", on_request)
    return requested


def search_requests(requested: list[str]) -> list[str]:
    return [url for url in requested if url.endswith(SEARCH_FILES)]


def type_query(page, text: str) -> None:
    page.click("#search-input")
    page.keyboard.type(text)


def first_option(page):
    page.wait_for_selector("#search-popup [role=option]")
    return page.locator("#search-popup [role=option]").first


def shapley_then_enter(page, start_url: str) -> None:
    requested = record_requests(page)
    page.goto(start_url)
    assert page.locator("#search-input").is_visible() and search_requests(requested) == []  # a plain page view loads nothing for search
    type_query(page, "shapley")
    option = first_option(page)
    assert option.locator(".result-title").inner_text().startswith("FastSVERL")
    assert option.get_attribute("aria-selected") == "true"
    assert paper_of(option.get_attribute("href")).endswith("papers/fastsverl.html")
    assert highlighted_terms(option.get_attribute("href")) == ["shaplei"]   # what it matched, for the page to mark
    # The listbox is named, and each option is the result's link, no control inside another (axe:
    # aria-input-field-name, nested-interactive).
    assert page.get_attribute("#search-popup-list", "aria-label") == "Search results"
    assert option.evaluate("o => o.tagName + ' ' + o.querySelectorAll('a, button, input').length") == "A 0"
    assert option.locator("mark").count() >= 1  # "Shapley" highlighted
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert paper_of(page.url).endswith("/papers/fastsverl.html")
    assert page.locator("h1").inner_text().startswith("FastSVERL")
    page.wait_for_selector(".abstract mark")
    assert page.console_errors == [] and page.dialogs == []


def test_file_url_shapley_enter(site, page):
    shapley_then_enter(page, file_url(site, "index.html"))


def test_http_sub_path_shapley_enter(http_base, page):
    shapley_then_enter(page, http_base + "index.html")
    assert paper_of(page.url) == http_base + "papers/fastsverl.html"


def marked_words(page) -> list[str]:
    return page.eval_on_selector_all("main mark", "marks => marks.map(m => m.textContent)")


def test_a_result_opens_its_page_with_the_words_it_matched_marked(site, page):
    """As Sphinx and Material for MkDocs do: the words a result matched are marked on its page, found
    as the results were (a misspelling's close spelling, a stem's other forms), and can be hidden."""
    requested = record_requests(page)
    page.goto(file_url(site, "papers/fastsverl.html"))
    page.wait_for_timeout(300)
    assert marked_words(page) == [] and page.locator(".search-matches-hide").count() == 0
    assert not [url for url in requested if url.endswith(("search.js", *SEARCH_FILES))]   # a plain view loads nothing for search
    texts, markup = [page.inner_text(part) for part in ("h1", ".abstract")], page.inner_html(".abstract")
    top = page.evaluate("document.querySelector('.abstract').getBoundingClientRect().top")
    page.goto(file_url(site, "search.html") + "?q=" + quote("shaply value"))   # a typo, and a stem
    link = page.locator("#search-page-results .paper-card-title a").first
    link.wait_for()
    assert paper_of(link.get_attribute("href")) == "papers/fastsverl.html"
    assert highlighted_terms(link.get_attribute("href")) == ["shaplei", "valu"]
    with page.expect_navigation():
        link.click()
    page.wait_for_selector(".search-matches-hide")
    assert set(marked_words(page)) == {"Shapley", "values"}
    assert page.locator("h1#title mark").count() == 2 and page.locator(".abstract mark").count() >= 2
    assert page.locator(".abstract h2 mark").count() == 0
    assert [page.inner_text(part) for part in ("h1", ".abstract")] == texts   # marked, not changed
    assert page.inner_text(".search-matches-hide") == "Hide highlights"
    # Beside the Save toggle, whose line is there before any script runs: nothing moved.
    assert page.evaluate("document.querySelector('.abstract').getBoundingClientRect().top") == top
    # The query's code is loaded for it, not the index, the store or lunr.js.
    assert [url.rsplit("/", 1)[-1] for url in search_requests(requested)] == ["search-core.js"]
    page.click(".search-matches-hide")
    assert marked_words(page) == [] and page.locator(".search-matches-hide").count() == 0
    assert page.inner_html(".abstract") == markup
    assert page.evaluate("document.activeElement.id") == "main"
    assert page.console_errors == [] and page.dialogs == []


def test_highlight_terms_over_http_and_hidden_from_the_address(http_base, page):
    page.goto(http_base + "search.html?q=shapley")
    link = page.locator("#search-page-results .paper-card-title a").first
    link.wait_for()
    with page.expect_navigation():
        link.click()
    assert page.url == http_base + "papers/fastsverl.html?highlight=shaplei"
    page.wait_for_selector(".search-matches-hide")
    assert set(marked_words(page)) == {"Shapley"}
    page.click(".search-matches-hide")
    assert page.url == http_base + "papers/fastsverl.html"   # a copied address marks nothing
    page.reload()
    page.wait_for_timeout(300)
    assert marked_words(page) == []
    assert page.console_errors == [] and page.dialogs == []


def test_highlight_terms_are_never_markup(site, page):
    """The terms come from the address, which anyone can write: they are compared with words,
    never inserted; markup in the paper's own text stays text."""
    hostile = quote("<img src=y onerror=alert(1)> quokka \" onmouseover=alert(2) <b>")
    page.goto(file_url(site, "papers/markup-title.html") + "?highlight=" + hostile)
    page.wait_for_selector(".search-matches-hide")
    assert set(marked_words(page)) == {"Quokka"}
    assert page.locator("main img, main script, main b").count() == 0
    assert "<img src=x onerror=alert(1)>" in page.inner_text("h1")
    page.goto(file_url(site, "papers/fastsverl.html") + "?highlight=" + quote("nothingmatches"))
    page.wait_for_function("() => window.PapersiteSearch && window.PapersiteSearch.isForm")   # the marking's code ran
    page.wait_for_timeout(100)
    assert marked_words(page) == [] and page.locator(".search-matches-hide").count() == 0   # nothing to hide
    assert page.dialogs == [] and page.console_errors == []


def test_results_newest_first(tmp_path, site, page):
    """"Newest first" orders each group (every word, then some of them) by year, in rank order
    within a year; the address keeps it. A site whose papers share one year offers no order."""
    papers = {
        "a.md": paper_text(id="n-a", slug="quokka-bandits", title="'Quokka bandits'", year="2019", venue="ICML",
                           body="Quokka bandits, quokka bandits: quokka bandits for quokka."),
        "b.md": paper_text(id="n-b", slug="late-both", title="'A late paper'", year="2025", body="One quokka met bandits."),
        "c.md": paper_text(id="n-c", slug="bandits-only", title="'Middle paper'", year="2021", venue="ICML", body="Bandits alone."),
        "d.md": paper_text(id="n-d", slug="quokka-only", title="'Late paper'", year="2025", venue="ICML", body="A quokka alone."),
        "e.md": paper_text(id="n-e", slug="unrelated", title="'Other paper'", year="2023", venue="CoRL", body="Nothing here."),
    }
    root = make_project(tmp_path / "proj", papers)
    assert main(build_args(root)) == 0

    def listed() -> list[str]:
        page.wait_for_selector("#search-page-results li.paper-card")
        return page.eval_on_selector_all("#search-page-results > li", """items => items.map(li =>
            li.classList.contains("search-divider") ? "|" : li.querySelector(".paper-card-title a").getAttribute("href").split("?")[0])""")

    page.goto(file_url(root / "site", "search.html") + "?q=" + quote("quokka bandits"))
    relevant = listed()
    assert relevant[:3] == ["papers/quokka-bandits.html", "papers/late-both.html", "|"]
    assert page.input_value("#search-page-sort") == ""
    page.select_option("#search-page-sort", "newest")
    page.wait_for_function("() => location.search.includes('sort=newest')")
    newest = ["papers/late-both.html", "papers/quokka-bandits.html", "|", "papers/quokka-only.html", "papers/bandits-only.html"]
    assert listed() == newest
    page.reload()
    assert page.input_value("#search-page-sort") == "newest" and listed() == newest
    page.select_option("#search-page-sort", "")
    page.wait_for_function("() => !location.search.includes('sort=')")
    assert listed() == relevant
    page.goto(file_url(site, "search.html") + "?q=shapley&sort=newest")   # one year: no order to choose
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-sort").count() == 0
    assert page.console_errors == [] and page.dialogs == []


def test_a_long_lists_own_search(tmp_path, page):
    """Submitted from a proceedings' paginated list, the search page opens with that venue and
    year as its filters, and lists only their papers; from a topic's, with that topic."""
    from test_validity import need_java, nu_check

    papers = {f"{n}.md": paper_text(id=f"s-{n}", slug=f"paper-{n}", title=f"'Quokka study {n}'", venue="ICML",
                                    year="2019" if n < 7 else "2021", tags="[reinforcement-learning]") for n in range(9)}
    papers["other.md"] = paper_text(id="s-x", slug="other", title="'Quokka elsewhere'", venue="NeurIPS", tags="[optimization]")
    root = make_project(tmp_path / "proj", papers)
    (root / "site.yml").write_text("title: T\ndescription: D\nper_page: 5\n", encoding="utf-8")
    assert main(build_args(root)) == 0
    site = root / "site"
    page.goto(file_url(site, "venues/icml/2019/page-2.html"))
    page.fill(".scoped-search input[name=q]", "quokka")
    with page.expect_navigation():
        page.press(".scoped-search input[name=q]", "Enter")
    page.wait_for_selector("#search-page-results li.paper-card")
    assert (page.input_value("#search-page-input"), page.input_value("#search-page-venue"), page.input_value("#search-page-year")) == \
        ("quokka", "ICML", "2019")
    metas = page.eval_on_selector_all("#search-page-results .paper-card-meta", "els => els.map(e => e.textContent.split(' · ')[0])")
    assert metas == ["ICML 2019"] * 7
    page.goto(file_url(site, "tags/reinforcement-learning.html"))
    page.fill(".scoped-search input[name=q]", "quokka")
    with page.expect_navigation():
        page.click(".scoped-search button")
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.input_value("#search-page-tag") == "reinforcement-learning"
    assert page.locator("#search-page-results li.paper-card").count() == 9   # not the NeurIPS paper
    assert page.console_errors == [] and page.dialogs == []
    page.goto(file_url(site, "tags/reinforcement-learning.html"))   # (axe's reading of stylesheets logs errors from file://)
    assert axe_violations(page, "a topic's list with its own search") == []
    need_java()
    assert nu_check(site) == []


def test_from_a_nested_page_over_http(http_base, page):
    requested = record_requests(page)
    page.goto(http_base + "papers/aapt.html")
    type_query(page, "diffusion")
    href = first_option(page).get_attribute("href")
    assert href.startswith("../papers/")
    page.wait_for_function("() => window.PapersiteSearch?.state?.() === 'ready'")
    loaded = search_requests(requested)
    assert sorted(u.rsplit("/", 1)[-1] for u in loaded) == sorted(FIRST_USE)
    assert all(u.startswith(http_base + "assets/") for u in loaded)
    assert page.console_errors == []


def diffusion_papers(site: Path) -> set[str]:
    content = site.parent / "content" / "papers"
    return {p.stem for p in content.glob("*.md") if "diffusion" in p.read_text(encoding="utf-8").lower()}


def test_results_page_lists_the_diffusion_papers(site, page):
    page.goto(file_url(site, "search.html") + "?q=diffusion")
    page.wait_for_selector("#search-page-results li.paper-card")
    hrefs = page.locator("#search-page-results .paper-card-title a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    found = {paper_of(h).rsplit("/", 1)[-1].removesuffix(".html") for h in hrefs}
    expected = diffusion_papers(site)
    assert len(expected) >= 2 and found == expected
    assert page.input_value("#search-page-input") == "diffusion"
    assert "match" in page.inner_text("#search-status")
    assert page.locator("#search-page-results mark").count() >= len(expected)
    assert page.console_errors == []


def test_results_page_tag_filter(site, page):
    page.goto(file_url(site, "search.html") + "?q=learning&tag=reinforcement-learning")
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.input_value("#search-page-tag") == "reinforcement-learning"
    cards = page.locator("#search-page-results li.paper-card")
    filtered = cards.count()
    assert filtered >= 2
    for i in range(filtered):
        assert "Reinforcement learning" in cards.nth(i).locator(".tag-chips").inner_text()
    page.select_option("#search-page-tag", "")  # all topics: more results
    page.wait_for_function("(n) => document.querySelectorAll('#search-page-results li.paper-card').length > n", arg=filtered)
    assert page.console_errors == []


def test_see_all_link_opens_the_results_page(http_base, page):
    page.goto(http_base + "index.html")
    type_query(page, "learning")
    first_option(page)
    link = page.locator("#search-popup a.search-all")
    assert link.get_attribute("href") == "search.html?q=learning"
    with page.expect_navigation():
        link.click()
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.url == http_base + "search.html?q=learning"
    assert page.console_errors == []


def test_a_pasted_title_with_a_colon_finds_its_paper(site, page):
    """A colon after a word that is no field's name is a separator: 29% of the real titles have one."""
    query = "FastSVERL: A scalable method for explaining reinforcement learning"
    page.goto(file_url(site, "search.html") + "?q=" + quote(query))
    page.wait_for_selector("#search-page-results li.paper-card")
    first = page.locator("#search-page-results .paper-card-title a").first
    assert paper_of(first.get_attribute("href")).endswith("papers/fastsverl.html")
    assert "can't be read" not in page.locator("#search-status").inner_text()
    page.goto(file_url(site, "index.html"))
    type_query(page, "FastSVERL: A scalable")
    assert first_option(page).locator(".result-title").inner_text().startswith("FastSVERL")
    page.locator("#search-input").fill("author:")   # a field being typed: no error while it is
    page.wait_for_timeout(300)
    assert "can't be read" not in page.locator("#search-popup").inner_text()
    assert page.console_errors == []


@pytest.mark.parametrize("query", ["title:shapley^x", "title:shapley~x"])
def test_unparseable_query_shows_a_message(site, page, query):
    page.goto(file_url(site, "search.html") + "?q=" + quote(query))
    page.wait_for_function("() => document.getElementById('search-status').textContent.includes(\"can't be read\")")
    assert page.locator("#search-page-results li").count() == 0
    page.goto(file_url(site, "index.html"))
    type_query(page, query)
    page.wait_for_function("() => document.getElementById('search-popup').textContent.includes(\"can't be read\")")
    assert page.console_errors == []


def test_no_results_offers_the_tag_index(site, page):
    page.goto(file_url(site, "papers/fastsverl.html"))
    type_query(page, "xyzzyqq")
    page.wait_for_selector("#search-popup .search-message a")  # only the no-results message has a link
    assert "No papers match" in page.inner_text("#search-popup")
    assert page.get_attribute("#search-popup .search-message a", "href") == "../tags/index.html"
    page.goto(file_url(site, "search.html") + "?q=xyzzyqq")
    page.wait_for_selector("#search-status a")
    assert page.get_attribute("#search-status a", "href") == "tags/index.html"
    assert "too common" not in page.inner_text("#search-status")
    assert page.console_errors == []


def test_a_query_of_words_too_common_to_index_says_so(site, page):
    page.goto(file_url(site, "search.html") + "?q=of+because")
    page.wait_for_selector("#search-status a")
    assert page.inner_text("#search-status").startswith(
        "No papers match \u201cof because\u201d. \u201cof\u201d, \u201cbecause\u201d are words too common to search for: add a word of the topic.")
    page.goto(file_url(site, "index.html"))
    type_query(page, "because")
    page.wait_for_selector("#search-popup .search-message a")
    assert "\u201cbecause\u201d is a word too common to search for" in page.inner_text("#search-popup")
    assert page.console_errors == []


def test_lunr_syntax_works(site, page):
    page.goto(file_url(site, "search.html") + "?q=" + quote("title:shapley"))
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-results li.paper-card").count() == 1
    page.goto(file_url(site, "search.html") + "?q=" + quote("+diffusion -video"))
    page.wait_for_selector("#search-page-results li.paper-card")
    text = page.inner_text("#search-page-results")
    assert "AAPT" not in text  # the video diffusion paper is excluded
    page.goto(file_url(site, "search.html") + "?q=" + quote("robst~1"))
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.console_errors == []


def test_accents_prefix_and_typo(site, page):
    page.goto(file_url(site, "index.html"))
    for query, title in (("Renyi", "Rényi divergences"), ("cafe", "Rényi divergences"), ("shap", "FastSVERL"), ("shaply", "FastSVERL")):
        page.fill("#search-input", "")
        type_query(page, query)
        page.wait_for_function("(t) => { const o = document.querySelector('#search-popup [role=option] .result-title');"
                               " return o && o.textContent.startsWith(t); }", arg=title)
    assert page.console_errors == []


def test_keyboard(site, page):
    page.goto(file_url(site, "index.html"))
    page.keyboard.press("/")  # site.js focuses the box
    page.keyboard.type("learning")
    first_option(page)
    options = page.locator("#search-popup [role=option]")
    assert options.count() >= 3
    page.keyboard.press("ArrowDown")
    assert options.nth(1).get_attribute("aria-selected") == "true"
    assert options.nth(0).get_attribute("aria-selected") == "false"
    assert page.get_attribute("#search-input", "aria-activedescendant") == options.nth(1).get_attribute("id")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")  # wraps to the last
    assert options.nth(options.count() - 1).get_attribute("aria-selected") == "true"
    href = options.nth(options.count() - 1).get_attribute("href")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(href.removeprefix("."))
    type_query(page, "diffusion")
    first_option(page)
    page.keyboard.press("Escape")   # closes the popup, keeping the query (the ARIA combobox pattern) ...
    assert page.input_value("#search-input") == "diffusion" and page.locator("#search-popup").is_hidden()
    page.keyboard.press("Escape")   # ... then clears it
    assert page.input_value("#search-input") == "" and page.locator("#search-popup").is_hidden()
    assert page.console_errors == []


def test_untrusted_text_stays_text(site, page):
    page.goto(file_url(site, "index.html"))
    type_query(page, "quokka")
    title = first_option(page).locator(".result-title")
    assert "<img src=x onerror=alert(1)>" in title.inner_text()
    assert page.locator("#search-popup img, #search-popup b, #search-popup script").count() == 0
    page.goto(file_url(site, "search.html") + "?q=quokka")
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-results img, #search-page-results b, #search-page-results script").count() == 0
    # the byline: venue, year, the first three authors linked to their pages, then "et al."
    byline = page.locator("#search-page-results li.paper-card .paper-card-meta").first
    assert byline.inner_text() == "NeurIPS 2025 · Ada Lovelace, <b>Bold</b> Name, Carol Ng et al."
    assert byline.locator("a").first.get_attribute("href").endswith("authors/ada-lovelace.html")
    assert (site / "authors" / "ada-lovelace.html").is_file()
    assert page.dialogs == [] and page.console_errors == []


def test_an_author_name_offers_their_page_first(site, page):
    page.goto(file_url(site, "index.html"))
    type_query(page, "ada lovel")                  # a name, the last word as typed
    page.wait_for_selector("#search-option-author")
    assert first_option(page).get_attribute("id") == "search-option-author"
    assert first_option(page).locator(".result-title").inner_text() == "Ada Lovelace"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith("/authors/ada-lovelace.html")
    page.goto(file_url(site, "search.html") + "?q=lovelace")
    page.wait_for_selector("#search-page-results li.paper-card")
    offer = page.locator("#search-page-results li:first-child.search-author a")
    assert offer.inner_text() == "Ada Lovelace" and offer.get_attribute("href").endswith("authors/ada-lovelace.html")
    page.goto(file_url(site, "search.html") + "?q=quokka")     # not a name: no offer
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-results .search-author").count() == 0
    assert page.dialogs == [] and page.console_errors == []


def test_filters_in_the_url_match_in_any_case_and_say_when_unknown(site, page):
    """venue=neurips (the menu says NeurIPS) and year=1999 (no paper has it) were both dropped
    silently, the URL still naming them."""
    page.goto(file_url(site, "search.html") + "?q=shapley&venue=neurips&year=1999&tag=no-such-topic")
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-venue").input_value() == "NeurIPS"
    assert page.locator("#search-page-year").input_value() == "" and page.locator("#search-page-tag").input_value() == ""
    assert page.locator(".search-ignored").inner_text() == \
        "This site has no topic \u201cno-such-topic\u201d, no year \u201c1999\u201d: those filters are off."
    assert "at NeurIPS" in page.locator("#search-status").inner_text()
    page.goto(file_url(site, "search.html") + "?q=shapley&venue=NeurIPS")
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator(".search-ignored").count() == 0
    assert page.console_errors == []


def test_show_more_adds_the_next_results_and_the_keyboard_goes_on_there(tmp_path, page):
    papers = {f"p{n}.md": paper_text(id=f"p-{n}", slug=f"study-{n:02d}", title=f"'Quokka study number {n}'") for n in range(30)}
    root = make_project(tmp_path / "proj", papers)
    assert main(build_args(root)) == 0
    page.goto(file_url(root / "site", "search.html") + "?q=quokka")
    page.wait_for_selector("#search-page-results li.paper-card")
    cards = page.locator("#search-page-results li.paper-card")
    assert cards.count() == 20
    page.focus("#search-page-results .search-more button")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelectorAll('#search-page-results li.paper-card').length === 30")
    assert page.locator("#search-page-results .search-more").count() == 0
    # The focus, left on <body> when the button went, is on the first of the new results.
    assert page.evaluate("document.activeElement.closest('li.paper-card') === document.querySelectorAll('#search-page-results li.paper-card')[20]")
    assert page.console_errors == []


def test_a_family_name_offers_the_author_most_results_have(tmp_path, page):
    """"bengio" offered whichever Bengio came first among the results (Samy, 7 papers), not the
    one most of them are by (Yoshua, 21); a stop word offers nobody ("the" is not Lucas Theis)."""
    # Samy's one paper, by him alone, ranks first (a shorter author list); Yoshua is on the other three.
    papers = {f"y{n}.md": paper_text(id=f"y-{n}", slug=f"yoshua-{n}", title=f"'Deep learning study {n}'",
                                     authors="[Yoshua Bengio, Ada Lovelace, Alan Turing]") for n in range(3)}
    papers["s.md"] = paper_text(id="s-0", slug="samy-0", title="'A deep study'", authors="[Samy Bengio]")
    papers["t.md"] = paper_text(id="t-0", slug="theis-0", title="'The theory of deep study'", authors="[Lucas Theis]")
    root = make_project(tmp_path / "proj", papers)
    assert main(build_args(root)) == 0
    page.goto(file_url(root / "site", "index.html"))
    type_query(page, "bengio")
    option = first_option(page)
    assert option.get_attribute("id") == "search-option-author" and option.locator(".result-title").inner_text() == "Yoshua Bengio"
    page.goto(file_url(root / "site", "search.html") + "?q=the")
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-results .search-author").count() == 0
    assert page.console_errors == []


def test_plain_page_views_load_nothing(site, http_base, page):
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    for url in (file_url(site, "index.html"), file_url(site, "papers/fastsverl.html"), http_base + "tags/index.html"):
        page.goto(url)
        page.wait_for_load_state("load")
    assert [u for u in requests if u.endswith(SEARCH_FILES)] == []
    page.focus("#search-input")  # first use loads them (search.js defines PapersiteSearch once it runs)
    page.wait_for_function("() => window.PapersiteSearch?.state?.() === 'ready'")
    assert sorted(u.rsplit("/", 1)[-1] for u in requests if u.endswith(SEARCH_FILES)) == sorted(FIRST_USE)
    assert page.console_errors == []


def test_the_search_page_fetches_the_search_while_it_parses(http_base, page):
    """search.html searches as it opens: it preloads the files search.js asks for, each fetched once."""
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(http_base + "search.html?q=shapley")
    page.wait_for_selector("#search-page-results li.paper-card")
    preloaded = page.eval_on_selector_all('link[rel="preload"][as="script"]', "links => links.map(l => l.href)")
    assert sorted(preloaded) == sorted(http_base + "assets/" + name for name in FIRST_USE)
    assert sorted(u.rsplit("/", 1)[-1] for u in requests if u.endswith(SEARCH_FILES)) == sorted(FIRST_USE)
    assert page.console_errors == []


# --- partial matches, close spellings, a phone --------------------------------------------

def test_papers_with_some_of_the_words_follow(site, page):
    page.goto(file_url(site, "search.html") + "?q=" + quote("shapley reinforcement"))
    page.wait_for_selector("#search-page-results li.search-divider")
    titles = page.locator("#search-page-results .paper-card-title").all_inner_texts()
    assert titles[0].startswith("FastSVERL") and len(titles) > 2
    assert "every word" in page.inner_text("#search-status")
    assert page.console_errors == []


def test_a_misspelt_word_says_so(site, page):
    page.goto(file_url(site, "search.html") + "?q=" + quote("reinforcemnt shapley"))
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-results .paper-card-title").first.inner_text().startswith("FastSVERL")
    assert "Close spellings of \u201creinforcemnt\u201d" in page.inner_text("#search-status")
    page.goto(file_url(site, "search.html") + "?q=" + quote("shapley"))
    page.wait_for_selector("#search-page-results li.paper-card")
    assert "Close spellings" not in page.inner_text("#search-status")   # a word the index has is not respelt
    assert page.console_errors == []


def test_the_search_page_fits_a_phone(site, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        phone = context.new_page()
        for query in ("", "?q=learning", "?q=learning&tag=reinforcement-learning"):
            phone.goto(file_url(site, "search.html") + query)
            phone.wait_for_timeout(300)
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390, query
    finally:
        context.close()


# --- a sharded site ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sharded(site, tmp_path_factory) -> Path:
    from test_search_shards import sharded_copy

    return sharded_copy(site, tmp_path_factory.mktemp("sharded-browser") / "site")


def test_file_url_search_on_a_sharded_site(sharded, page):
    requested = []
    page.on("request", lambda r: requested.append(r.url))

    def shard_requests(page) -> list[str]:   # file:// loads leave no resource timing entries
        return [n.rsplit("/", 1)[-1] for n in requested if "/assets/search/" in n]

    page.goto(file_url(sharded, "papers/fastsverl.html"))
    type_query(page, "shap")                       # a prefix, as typed
    assert first_option(page).locator(".result-title").inner_text().startswith("FastSVERL")
    loaded = shard_requests(page)
    total = len(list((sharded / "assets" / "search").iterdir()))
    assert loaded and len(loaded) < total / 10 and all(n[0] in "dps" for n in loaded)
    page.fill("#search-input", "")
    type_query(page, "shaply values ")            # a typo
    page.wait_for_function("() => { const o = document.querySelector('#search-popup [role=option] .result-title');"
                           " return o && o.textContent.startsWith('FastSVERL'); }")
    assert "Close spellings" in page.inner_text("#search-popup")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert paper_of(page.url).endswith("/papers/fastsverl.html")
    page.goto(file_url(sharded, "search.html") + "?q=" + quote("title:shapley"))   # a field
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-results li.paper-card").count() == 1
    page.goto(file_url(sharded, "search.html") + "?q=learning&tag=reinforcement-learning")   # the topic filter
    page.wait_for_selector("#search-page-results li.paper-card")
    assert "t-reinforcement-learning.js" in shard_requests(page)
    cards = page.locator("#search-page-results li.paper-card")
    for i in range(cards.count()):
        assert "Reinforcement learning" in cards.nth(i).locator(".tag-chips").inner_text()
    page.goto(file_url(sharded, "search.html") + "?tag=optimization")   # a topic alone
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.console_errors == [] and page.dialogs == []


def test_author_and_venue_fields_on_a_sharded_site(sharded, page):
    """`author:` from file:// on a multi-shard site: only the author's papers, ranked by the rest of the query."""
    assert len(list((sharded / "assets" / "search").glob("d-*.js"))) > 1
    page.goto(file_url(sharded, "papers/fastsverl.html"))
    type_query(page, "author:lovelace quokka")
    page.wait_for_function("() => { const o = document.querySelector('#search-popup [role=option] .result-title');"
                           " return o && o.textContent.includes('Quokka'); }")
    titles = page.locator("#search-popup [role=option] .result-title").all_inner_texts()
    assert len(titles) == 2 and "Rényi" in titles[1]   # EXTRA_PAPERS: by Ada Lovelace, as paper_text has it
    page.goto(file_url(sharded, "search.html") + "?q=" + quote("venue:neurips -author:lovelace shapley"))
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-results .paper-card-title").first.inner_text().startswith("FastSVERL")
    assert "Quokka" not in page.inner_text("#search-page-results")
    page.goto(file_url(sharded, "search.html") + "?author=" + quote("Ada Lovelace"))   # the author filter alone
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-results li.paper-card").count() == 2
    assert page.input_value("#search-page-author") == "Ada Lovelace"
    page.goto(file_url(sharded, "search.html") + "?q=shapley&venue=NeurIPS&year=2025")   # venue and year filters
    page.wait_for_selector("#search-page-results li.paper-card")
    assert page.locator("#search-page-results .paper-card-title").first.inner_text().startswith("FastSVERL")
    assert "at NeurIPS from 2025" in page.inner_text("#search-status")
    page.select_option("#search-page-tag", "optimization")     # and the topic: none of the Shapley papers
    page.wait_for_function("() => document.querySelector('#search-status').textContent.startsWith('No papers')")
    page.select_option("#search-page-tag", "")
    page.fill("#search-page-author", "lovelace")
    page.wait_for_function("() => document.querySelector('#search-status').textContent.includes('by lovelace')")
    assert "q=shapley" in page.url and "author=lovelace" in page.url and "venue=NeurIPS" in page.url
    assert page.console_errors == [] and page.dialogs == []


def test_http_search_on_a_sharded_site(sharded, page, tmp_path):
    www = tmp_path / "www"
    shutil.copytree(sharded, www / "sub")
    with served(www, FaviconHandler) as root:
        base = root + "sub/"
        requested = record_requests(page)
        page.goto(base + "index.html")
        type_query(page, "diffusion")
        assert first_option(page).get_attribute("href").startswith("papers/")
        assert "search-shards.js" in [u.rsplit("/", 1)[-1] for u in search_requests(requested)]
        page.goto(base + "search.html?q=" + quote("+diffusion -video"))
        page.wait_for_selector("#search-page-results li.paper-card")
        assert "AAPT" not in page.inner_text("#search-page-results")
        assert page.console_errors == []


def test_a_compound_in_any_spelling_is_highlighted_whole(site, page):
    page.goto(file_url(site, "search.html") + "?q=multiagent")
    page.wait_for_selector("#search-page-results mark")
    marks = page.locator("#search-page-results .paper-card-title mark").all_inner_texts()
    assert "multi-agent" in marks   # "Decentralized multi-agent SSPs ...", found by its joined spelling
    assert page.console_errors == []
