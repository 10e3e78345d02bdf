"""A phone (390×844) in Chromium, over HTTP under a sub-path as GitHub Pages serves a project site:
every kind of page shows its content first, with or without JavaScript; nothing moves as scripts run
(layout shifts sum to at most 0.02); no page is wider than the screen; the console stays clean (the
icon is the site's own, linked relatively, never the host root's /favicon.ico); and a page loads
the search and reading-list scripts only when it uses them. The topics drawer is an enhancement of
the list that follows the content.
"""

from __future__ import annotations

import shutil

import pytest

from conftest import build_args, make_project, paper_text, served
from papersite.cli import main
from support.phone import PHONE, overflow, phone_page, phone_problems, settle

# The longest topic name of content/tags.yml, so the search page's topic menu is at its widest.
EXTRA = {"long-topic.md": paper_text(id="extra-0001", slug="long-topic", authors="[Ada Lovelace]",
                                     title="'Weak labels for graph neural networks'",
                                     tags="[label-efficient-learning, graph-learning]",
                                     body="Graph neural networks trained from weak labels."),
         # What made 197 of the real corpus's 5,876 paper pages wider than a 320-pixel phone: a long URL
         # in the abstract, a long word in the title, an inline formula wider than the screen.
         "wide-things.md": paper_text(id="extra-0002", slug="wide-things",
                                      title="'Electroencephalograms of Overparameterization'",
                                      body="Code: https://github.com/an-organisation-with-a-long-name/"
                                           "a-repository-with-an-even-longer-name-for-its-experiments/tree/main/src. "
                                           "We bound $a_1 + a_2 + a_3 + a_4 + a_5 + a_6 + a_7 + a_8 + a_9 + a_{10} + a_{11} + "
                                           "a_{12} + a_{13} + a_{14} + a_{15} + a_{16}$ from above.")}
PAGES = {
    "home": "index.html",
    "paper": "papers/fastsverl.html",
    "paper with wide things": "papers/wide-things.html",
    "tag": "tags/graph-learning.html",
    "topics": "tags/index.html",
    "search": "search.html?q=graph+neural",
    "map": "map.html",
    "reading list": "reading-list.html",
    "author": "authors/ada-lovelace.html",
    "authors": "authors/index.html",
    "downloads": "downloads.html",
}


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The shipped papers plus EXTRA, served at http://127.0.0.1:<port>/sub/path/ with a plain 404 elsewhere."""
    root = make_project(tmp_path_factory.mktemp("layout") / "proj", EXTRA, copy_papers=True)
    assert main(build_args(root)) == 0
    www = tmp_path_factory.mktemp("www")
    shutil.copytree(root / "site", www / "sub" / "path")
    with served(www) as base:
        yield base + "sub/path/"


@pytest.fixture
def phone(browser):
    """Makes phone-sized pages, with JavaScript or without it (`phone(js=False)`); see support/phone.py."""
    contexts = []
    yield lambda js=True: phone_page(browser, contexts, js)
    for context in contexts:
        context.close()


@pytest.mark.parametrize("kind", PAGES)
def test_a_phone_sees_the_content_first_and_nothing_moves(base, browser, kind):
    """The content's top the same with and without JavaScript, the topics after it, shifts ≤ 0.02,
    nothing wider than the screen, no console error (support/phone.py)."""
    assert phone_problems(browser, base + PAGES[kind], results=kind == "search") == []


@pytest.mark.parametrize("kind", PAGES)
def test_the_icon_is_the_sites_own(base, phone, kind):
    page = phone()
    page.goto(base + PAGES[kind])
    settle(page, results=kind == "search")
    # Under the sub-path, linked relatively; nothing asks the host root for /favicon.ico (a 404 here).
    icon = page.eval_on_selector('link[rel="icon"]', "link => link.href")
    assert icon == base + "assets/favicon.svg", kind
    assert page.request.get(icon).headers["content-type"] == "image/svg+xml"
    assert not any(url.endswith("/favicon.ico") for url in page.requests), kind
    assert page.errors == []


def test_the_search_page_topic_menu_fits_the_phone(base, phone):
    page = phone()
    page.goto(base + "search.html")
    options = page.eval_on_selector_all("#search-page-tag option", "els => els.map(e => e.textContent)")
    assert "Label-efficient and weakly supervised learning" in options
    box = page.locator("#search-page-tag").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


@pytest.mark.parametrize("width", [320, 390, 600, 768, 1000])
def test_the_search_popup_stays_on_the_screen(base, browser, width):
    """Anchored to the header's box, the popup ran past the right edge of phones and tablets."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        for path in ("index.html", PAGES["paper"]):
            page.goto(base + path)
            page.click("#search-input")
            page.keyboard.type("graph neural networks")
            page.locator("#search-popup li").first.wait_for()
            box = page.locator("#search-popup").bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width and box["width"] >= min(width - 16, 400), (width, path, box)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, path)
    finally:
        context.close()


def test_a_long_word_in_the_query_wraps(base, phone):
    page = phone()
    page.goto(base + "search.html?q=" + "supercalifragilisticexpialidocious" * 3)
    page.wait_for_function("() => document.getElementById('search-status').textContent.length > 0")
    assert overflow(page) == 0


@pytest.mark.parametrize("kind", ["paper with wide things", "topics", "downloads", "home"])
def test_the_narrowest_phone_never_scrolls_sideways(base, browser, kind):
    context = browser.new_context(viewport={"width": 320, "height": 640})
    try:
        page = context.new_page()
        page.goto(base + PAGES[kind])
        assert page.evaluate("document.documentElement.scrollWidth") == 320
        if kind == "paper with wide things":   # the formula is all there, scrolled within its paragraph
            assert page.eval_on_selector(".abstract math", "m => m.getBoundingClientRect().width") > 320
        # The site's name whole, in two lines ("NeurI…" in one), beside a search box that says what it is.
        assert page.eval_on_selector(".brand", "b => b.scrollHeight <= b.clientHeight + 1 && b.scrollWidth <= b.clientWidth + 1")
        assert page.eval_on_selector("#search-input", "i => i.clientWidth") >= 80
    finally:
        context.close()


def test_topic_names_in_the_chart_never_run_into_their_counts(base, browser):
    context = browser.new_context(viewport={"width": 320, "height": 640})
    try:
        page = context.new_page()
        page.goto(base + "tags/index.html")
        rows = page.eval_on_selector_all(".tag-chart-list a", """links => links.map(a => {
            const label = a.querySelector('.bar-label').getBoundingClientRect(), count = a.querySelector('.bar-count').getBoundingClientRect();
            return [a.querySelector('.bar-label').textContent, label.right <= count.left, count.right <= innerWidth];
        })""")
        assert len(rows) >= 5 and [row for row in rows if not (row[1] and row[2])] == []
        assert page.evaluate("document.documentElement.scrollWidth") == 320
    finally:
        context.close()


def test_scripts_are_loaded_when_used(base, phone):
    page = phone()
    page.goto(base + "index.html")
    page.wait_for_load_state("load")
    scripts = lambda: [u.rpartition("/")[2] for u in page.requests if u.endswith(".js")]  # noqa: E731
    assert "search.js" not in scripts() and "reading-list.js" not in scripts()
    # The header box loads search.js on its first focus and answers what was typed meanwhile.
    page.click("#search-input")
    page.keyboard.type("graph")
    page.locator("#search-popup li").first.wait_for()
    assert scripts().count("search.js") == 1 and "search-index.js" in scripts()
    # A paper page loads the reading list (its Save toggle), not the search.
    page.goto(base + PAGES["paper"])
    page.wait_for_load_state("load")
    page.requests.clear()
    page.reload()
    page.locator("button.save-toggle:not([hidden])").wait_for()
    assert "reading-list.js" in scripts() and "search.js" not in scripts()
    # The "/" shortcut focuses the box, which loads the search there too.
    page.keyboard.press("/")
    page.keyboard.type("shapley")
    page.locator("#search-popup li").first.wait_for()
    assert page.errors == []


def test_the_topics_drawer_opens_over_the_page_and_closes(base, phone):
    page = phone()
    page.goto(base + "index.html")
    toggle = page.locator(".nav-toggle")
    toggle.wait_for(state="visible")
    sidebar = page.locator("#sidebar")
    assert sidebar.bounding_box()["y"] > PHONE["height"]   # after the content, off the first screen
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    box = sidebar.bounding_box()
    assert 0 <= box["y"] < PHONE["height"] / 2 and box["x"] + box["width"] <= PHONE["width"]
    assert page.locator("#sidebar a", has_text="All topics").is_visible()
    page.keyboard.press("Escape")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert sidebar.bounding_box()["y"] > PHONE["height"]
    toggle.click()
    page.mouse.click(380, 800)   # outside the drawer
    assert toggle.get_attribute("aria-expanded") == "false"
    assert page.errors == []


def test_the_topics_drawer_takes_the_keyboard_while_open(base, phone):
    """Opened from the keyboard, the focus is on its first topic and Tab stays among the topics, not
    the hundreds of links the drawer covers; closed, the focus is back on the menu button."""
    page = phone()
    page.goto(base + "index.html")
    toggle = page.locator(".nav-toggle")
    toggle.wait_for(state="visible")
    toggle.focus()
    page.keyboard.press("Enter")
    in_drawer = "() => document.getElementById('sidebar').contains(document.activeElement)"
    assert page.evaluate(in_drawer)
    for _ in range(3):
        page.keyboard.press("Tab")
        assert page.evaluate(in_drawer) or page.evaluate("() => !!document.activeElement.closest('.site-header')")
    assert page.evaluate("() => document.querySelector('main').inert && document.querySelector('.site-footer').inert")
    page.keyboard.press("Escape")
    assert page.evaluate("() => document.activeElement === document.querySelector('.nav-toggle')")
    assert not page.evaluate("() => document.querySelector('main').inert")
    # A window grown past the phone layout has no drawer: one left open closes, the page usable again.
    toggle.click()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function("() => !document.querySelector('main').inert")
    assert page.errors == []
