"""Permanent links in a real browser: an old slug redirects, "Copy link" copies the permanent URL,
and the 404 page works at any depth under a sub-path, with and without base_url."""

from __future__ import annotations

import mimetypes
import threading
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import build_args, make_project, paper_text
from papersite.cli import main

pytestmark = pytest.mark.browser

RENAMED = paper_text(id="pub-0002", slug="new-name", title="'A paper that changed its slug'", aliases="[old-name]")
OTHER = paper_text(id="pub-0003", slug="another-paper", title="'Another paper on reinforcement learning'")


def build(root: Path, *extra: str) -> Path:
    assert main(build_args(root, *extra)) == 0
    return root / "site"


def real_errors(page) -> list[str]:
    """Console errors, less the 404 responses a 404 page (and its root probe) is made of."""
    return [e for e in page.console_errors if "status of 404" not in e]


def test_old_slug_redirects_to_the_new_page_from_file_url(tmp_path, page):
    site = build(make_project(tmp_path / "proj", {"renamed.md": RENAMED, "other.md": OTHER}))
    page.goto((site / "papers" / "old-name.html").as_uri())
    page.wait_for_url("**/papers/new-name.html", timeout=10_000)
    assert page.locator("h1").inner_text() == "A paper that changed its slug"
    assert page.console_errors == []


@pytest.mark.parametrize("suffix", ["#related", "?from=share#related"])
def test_old_slug_link_keeps_its_fragment_and_query_from_file_url(tmp_path, page, suffix):
    site = build(make_project(tmp_path / "proj", {"renamed.md": RENAMED, "other.md": OTHER}))
    page.goto((site / "papers" / "old-name.html").as_uri() + suffix)
    new_page = (site / "papers" / "new-name.html").as_uri() + suffix
    page.wait_for_url(lambda url: url == new_page, timeout=10_000)
    assert page.evaluate("document.querySelector(':target') && document.querySelector(':target').id") == "related"
    # and it is in view below the sticky header, not under it (style.css: scroll-padding-top)
    top, header = page.evaluate("[document.getElementById('related').getBoundingClientRect().top,"
                                " document.querySelector('.site-header').getBoundingClientRect().bottom]")
    assert header <= top < page.viewport_size["height"]
    assert page.locator("h1").inner_text() == "A paper that changed its slug"
    assert page.console_errors == []


def test_old_slug_link_keeps_its_fragment_under_a_sub_path(pages_host, page):
    base, root = pages_host
    make_project(root, {"renamed.md": RENAMED, "other.md": OTHER})
    build(root, "--base-url", base)
    page.goto(base + "papers/old-name.html#related")
    page.wait_for_url(lambda url: url == base + "papers/new-name.html#related", timeout=10_000)
    assert page.locator("#related").count() == 1
    assert real_errors(page) == []


def test_old_slug_forwards_at_once_without_javascript(tmp_path, browser):
    """The no-JavaScript fallback, the <noscript> refresh: to the new page (the fragment cannot follow)."""
    site = build(make_project(tmp_path / "proj", {"renamed.md": RENAMED}))
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto((site / "papers" / "old-name.html").as_uri() + "#related")
        page.wait_for_url(lambda url: url == (site / "papers" / "new-name.html").as_uri(), timeout=5_000)
        assert page.locator("h1").inner_text() == "A paper that changed its slug"
    finally:
        context.close()


def test_redirect_page_has_a_visible_link_for_readers_without_refresh(tmp_path, browser):
    site = build(make_project(tmp_path / "proj", {"renamed.md": RENAMED}))
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.route("**/*", lambda route: route.continue_())
        page.goto((site / "papers" / "old-name.html").as_uri(), wait_until="domcontentloaded")
        link = page.get_by_role("link", name="papers/new-name.html")
        assert link.get_attribute("href") == "new-name.html"
    finally:
        context.close()


@pytest.mark.parametrize("base_url", ["https://example.org/papers/", None])
def test_copy_link_copies_the_permanent_url(tmp_path, page, base_url):
    extra = ("--base-url", base_url) if base_url else ()
    site = build(make_project(tmp_path / "proj", {"renamed.md": RENAMED}), *extra)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    paper = site / "papers" / "new-name.html"
    page.goto(paper.as_uri() + "#abstract")
    button = page.locator("button[data-copy-link]")
    assert button.inner_text() == "Copy link"
    button.click()
    expect(button).to_have_text("Copied", timeout=5_000)
    expected = f"{base_url}papers/new-name.html" if base_url else paper.as_uri()
    assert page.evaluate("navigator.clipboard.readText()") == expected
    bibtex_button = page.locator("button[data-copy-from]")
    bibtex_button.click()
    expect(bibtex_button).to_have_text("Copied", timeout=5_000)
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("@inproceedings{new-name2025,") and copied == page.locator("#bibtex").inner_text()
    assert page.console_errors == []


class PagesLikeHandler(BaseHTTPRequestHandler):
    """Serves `site` under /repo/ as GitHub Pages does: a missing path gets 404.html with status 404."""

    def __init__(self, *args, site: Path, **kwargs):
        self.site = site
        super().__init__(*args, **kwargs)

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.respond(head=True)

    def do_GET(self):
        self.respond(head=False)

    def respond(self, head: bool):
        path = self.path.split("?")[0].split("#")[0]
        target = None
        if path.startswith("/repo/"):
            candidate = (self.site / path[len("/repo/"):]).resolve()
            if candidate.is_dir():
                candidate = candidate / "index.html"
            if self.site.resolve() in candidate.parents and candidate.is_file():
                target = candidate
        status = 200 if target else 404
        target = target or self.site / "404.html"
        body = target.read_bytes()
        self.send_response(status)
        self.send_header("Content-Type", mimetypes.guess_type(str(target))[0] or "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)


@pytest.fixture
def pages_host(tmp_path):
    site = tmp_path / "proj" / "site"
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(PagesLikeHandler, site=site))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/repo/", tmp_path / "proj"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("with_base_url", [False, True])
@pytest.mark.parametrize("missing", ["no-such-page.html", "papers/misspelt.html", "a/b/c/d"])
def test_404_page_works_at_any_depth_under_a_sub_path(pages_host, page, with_base_url, missing):
    base, root = pages_host
    make_project(root, {"renamed.md": RENAMED})
    build(root, *(("--base-url", base) if with_base_url else ()))
    response = page.goto(base + missing)
    assert response.status == 404
    assert page.locator("h1").inner_text() == "Page not found"
    # the stylesheet and the site's scripts loaded from the site root, not from the missing directory
    assert page.evaluate("getComputedStyle(document.querySelector('.site-header')).position") == "sticky"
    expect(page.locator(".theme-toggle")).to_be_visible(timeout=5_000)   # site.js ran
    assert page.eval_on_selector("form.search-box", "form => form.action") == base + "search.html"
    assert page.evaluate("document.documentElement.getAttribute('data-root')") in (base, "/repo/")
    assert real_errors(page) == []
    with page.expect_navigation():
        page.get_by_role("link", name="All topics").first.click()
    assert page.url == base + "tags/index.html"
    assert page.locator("h1").inner_text() == "Topics"
