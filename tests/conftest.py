"""Shared fixtures: small project trees in tmp_path, the CLI in-process, and a headless Chromium."""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import os
import shutil
import sys
import threading
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from papersite.cli import main  # noqa: E402

# Every import in the tests runs on the day the shipped pages were imported: `import` writes the
# day it runs into each page it adds (`added`), and tests compare pages with the shipped ones.
SEED_DAY = "2026-12-02"
os.environ["SOURCE_DATE_EPOCH"] = "1796169600"   # 2026-12-02T00:00:00Z

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]


@dataclass
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys):
    """Run `python build.py ARGS` in-process; returns exit code and what it printed."""

    def run(*args: str | Path) -> Run:
        capsys.readouterr()
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run


def make_project(root: Path, papers: dict[str, str] | None = None, copy_papers: bool = False) -> Path:
    """A small site tree: the shipped tags.yml and site.yml, plus the given pages (name -> text)."""
    (root / "content" / "papers").mkdir(parents=True)
    shutil.copyfile(REPO / "content" / "tags.yml", root / "content" / "tags.yml")
    shutil.copyfile(REPO / "site.yml", root / "site.yml")
    if copy_papers:
        for path in sorted((REPO / "content" / "papers").glob("*.md")):
            shutil.copyfile(path, root / "content" / "papers" / path.name)
    for name, text in (papers or {}).items():
        (root / "content" / "papers" / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path) -> Path:
    return make_project(tmp_path / "proj")


@pytest.fixture
def shipped(tmp_path) -> Path:
    """A copy of the shipped content, so tests never build into the repository's own site/."""
    return make_project(tmp_path / "shipped", copy_papers=True)


def build_args(root: Path, *extra: str) -> list[str]:
    return ["build", "--content", str(root / "content"), "--config", str(root / "site.yml"), "--out", str(root / "site"), *extra]


REAL_CORPUS = REPO / "bench" / "data" / "ml-abstracts.jsonl.gz"
REAL_BASE_URL = "https://example.org/papers/"


def real_corpus_args(root: Path) -> list[str]:
    """How the real corpus's project is built: with a base URL, as a site published on GitHub Pages."""
    return build_args(root, "--base-url", REAL_BASE_URL)


@pytest.fixture(scope="session")
def real_corpus(tmp_path_factory) -> Path:
    """The real corpus (all 5,876 papers) imported into a project and built once for the whole session
    (about a minute and a half on two cores). A test that changes it puts it back as it found it."""
    root = make_project(tmp_path_factory.mktemp("real-corpus") / "proj")
    source = root / "corpus.jsonl"
    source.write_bytes(gzip.decompress(REAL_CORPUS.read_bytes()))
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["import", str(source), "--content", str(root / "content")]) == 0
        assert main(real_corpus_args(root)) == 0
    return root


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file under `directory`, by its relative path: two sites compared file for file."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def paper_text(**fields) -> str:
    """A valid page, with fields overridden (a value of None removes the field)."""
    base = {
        "id": "test-0001", "slug": "a-paper", "title": "A paper about reinforcement learning",
        "title_source": "given", "venue": "NeurIPS", "year": "2025", "tags": "[reinforcement-learning]",
        "code": "[]", "authors": "[Ada Lovelace]", "aliases": "[]",
    }
    body = fields.pop("body", "We study reinforcement learning with $O(\\sqrt{K})$ regret.")
    base.update(fields)
    front = "".join(f"{k}: {v}\n" for k, v in base.items() if v is not None)
    return f"---\n{front}---\n{body}\n"


def tool(name: str) -> str:
    """The path of a Debian tool the check needs; skipped without it, except in CI (.ci/run installs it)."""
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is required under CI (.ci/run installs it)")
        pytest.skip(f"no {name} on this machine")
    return found


def chromium_available() -> bool:
    return CHROMIUM.exists()


@pytest.fixture(scope="session")
def browser():
    if not chromium_available():
        if os.environ.get("CI") == "true":
            pytest.fail("Chromium is required under CI (apt-get install chromium)")
        pytest.skip("no Chromium at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors and dialogs; tests assert both stay empty."""
    context = browser.new_context()
    page = context.new_page()
    page.console_errors = []
    page.dialogs = []
    page.on("console", lambda msg: msg.type == "error" and page.console_errors.append(msg.text))
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    yield page
    context.close()


def axe_violations(page, label: str, options: dict | None = None) -> list[str]:
    """axe-core's violations on the page as it is now, one line each (at most three targets),
    prefixed with `label` so a failure says which page and state it was."""
    from axe_playwright_python.sync_playwright import Axe

    found = []
    for violation in Axe().run(page, options=options).response["violations"]:
        targets = [node["target"] for node in violation["nodes"]][:3]
        found.append(f"{label}: {violation['id']} ({violation['impact']}): {violation['help']} at {targets}")
    return found


class QuietHandler(SimpleHTTPRequestHandler):
    """A static file server that logs nothing; a missing file is a plain 404, as on most hosts."""

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def served(www: Path, handler: type = QuietHandler):
    """`www` served over HTTP on a free local port for the block: yields http://127.0.0.1:<port>/."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(www)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
