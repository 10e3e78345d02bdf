"""What a phone's reader sees of a page (tests/test_layout_browser.py, tests/test_corpus.py): a 390×844
Chromium page with or without JavaScript, where the content starts, how much the layout shifted, and
whether the page is wider than the screen."""

from __future__ import annotations

PHONE = {"width": 390, "height": 844}
# Sums every layout shift not caused by the reader's input, as Lighthouse's CLS counts them.
SHIFT_OBSERVER = """
window.__shifts = 0;
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shifts += entry.value;
}).observe({type: "layout-shift", buffered: true});
"""


def phone_page(browser, contexts: list, js: bool = True):
    """A new phone-sized page (its context appended to `contexts`, for the caller to close) that records
    console errors in `page.errors`, requests in `page.requests`, and its layout shifts."""
    context = browser.new_context(viewport=PHONE, java_script_enabled=js, device_scale_factor=1)
    contexts.append(context)
    page = context.new_page()
    page.errors, page.requests = [], []
    page.on("console", lambda msg: msg.type == "error" and page.errors.append(msg.text))
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("request", lambda request: page.requests.append(request.url))
    page.add_init_script(SHIFT_OBSERVER)
    return page


def settle(page, results: bool = False) -> None:
    """Wait until the page's scripts have done what they do on load (`results`: the search page's results)."""
    page.wait_for_load_state("load")
    if results:
        page.locator("#search-page-results li").first.wait_for()
    page.wait_for_timeout(300)


def content_top(page) -> dict:
    """Where the main content and its heading start, and where the topics list is (None without one)."""
    return page.evaluate("""() => {
        const main = document.querySelector("main"), h1 = main.querySelector("h1");
        const sidebar = document.getElementById("sidebar");
        return {main: main.getBoundingClientRect().top, h1: h1.getBoundingClientRect().top,
                sidebar: sidebar ? sidebar.getBoundingClientRect().top : null};
    }""")


def shifts(page) -> float:
    return page.evaluate("window.__shifts")


def overflow(page) -> int:
    """How many pixels the page is wider than the screen (0 when it fits)."""
    return max(0, page.evaluate("document.documentElement.scrollWidth") - PHONE["width"])


def phone_problems(browser, url: str, results: bool = False) -> list[str]:
    """What a phone's reader would notice on the page at `url`, one line each (empty: nothing): the content's
    top not where it is without JavaScript, or not on the first screen, or the topics above it; layout shifts
    summing over 0.02; a page wider than the screen; console errors. `results`: a search page with a query."""
    contexts: list = []
    problems, tops = [], {}
    try:
        for js in (False, True):
            page = phone_page(browser, contexts, js)
            page.goto(url)
            settle(page, results=results and js)
            tops[js] = top = content_top(page)
            how = "with JavaScript" if js else "without JavaScript"
            if top["h1"] >= PHONE["height"] / 3:
                problems.append(f"{how}: the title starts {top['h1']}px down")
            if top["sidebar"] is not None and top["sidebar"] < top["main"]:
                problems.append(f"{how}: the topics come before the content")
            if wider := overflow(page):
                problems.append(f"{how}: {wider}px wider than the screen")
            if js and shifts(page) > 0.02:
                problems.append(f"layout shifts sum to {shifts(page):.3f}")
            problems += [f"{how}: console: {error}" for error in page.errors]
    finally:
        for context in contexts:
            context.close()
    if (tops[True]["main"], tops[True]["h1"]) != (tops[False]["main"], tops[False]["h1"]):
        problems.append(f"the content starts at {tops[True]} with JavaScript, {tops[False]} without")
    return problems
