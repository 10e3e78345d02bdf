"""`python build.py serve` as a user runs it: a subprocess on a free port over a tmp project.

Every wait is bounded polling; nothing asserts how fast a rebuild is.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import REPO, make_project, paper_text
from papersite.dev.watch import snapshot
from papersite.errors import LISTED_OF_A_KIND

WAIT = 30.0   # upper bound for any one thing to happen; the loop returns as soon as it does


def wait_for(condition, what: str, timeout: float = WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8")


@pytest.fixture(autouse=True, scope="module")
def ctrl_c_as_at_a_terminal():
    """The servers' Ctrl-C is a terminal's, even when the suite runs as a background job (`pytest &`),
    whose processes start with SIGINT ignored and pass that on: a server started so ignored it, and
    `Server.stop` waited in vain. A handler, unlike an ignored signal, is not inherited."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


class Server:
    def __init__(self, root: Path, *extra: str, defaults: bool = False):
        """`defaults`: started in the project's folder with no paths given, as a user starts it."""
        self.root = root
        self.out: list[str] = []
        self.err: list[str] = []
        paths = [] if defaults else ["--content", str(root / "content"), "--config", str(root / "site.yml"), "--out", str(root / "site")]
        self.proc = subprocess.Popen(
            [sys.executable, str(REPO / "build.py"), "serve", "--port", "0", *paths, *extra],
            cwd=root if defaults else REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, lines), daemon=True).start()
        match = wait_for(lambda: next((m for line in list(self.out) if (m := re.search(r"at (http://127\.0\.0\.1:\d+/)", line))), None)
                         or (self.proc.poll() is not None and AssertionError(f"serve exited: {self.err}")),
                         "the server to start")
        if isinstance(match, AssertionError):
            raise match
        self.url = match.group(1)

    @staticmethod
    def _read(stream, lines):
        for line in stream:
            lines.append(line.rstrip("\n"))

    def get(self, path: str = "") -> tuple[int, str]:
        return fetch(self.url + path)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("serve did not stop on Ctrl-C") from None
        return self.proc.returncode


@pytest.fixture
def served(tmp_path):
    root = make_project(tmp_path / "proj", {
        "a.md": paper_text(),
        "b.md": paper_text(id="test-0002", slug="second-paper", title="A second paper on reinforcement learning"),
    })
    server = Server(root)
    yield server
    server.stop()


def edit_title(root: Path, title: str, **fields) -> None:
    (root / "content" / "papers" / "a.md").write_text(paper_text(title=title, **fields), encoding="utf-8")


def test_serves_the_site_with_live_reload_only_over_http(served):
    status, body = served.get()
    assert status == 200 and "A paper about reinforcement learning" in body
    assert '<script src="/__papersite/livereload.js"' in body
    on_disk = (served.root / "site" / "index.html").read_text(encoding="utf-8")
    assert "__papersite" not in on_disk   # the build itself never carries the dev script
    assert not any("__papersite" in p.read_text(encoding="utf-8", errors="replace")
                   for p in (served.root / "site").rglob("*") if p.is_file())
    status, script = served.get("__papersite/livereload.js")
    assert status == 200 and "location.reload" in script
    status, body = served.get("papers/a-paper.html")
    assert status == 200 and 'href="http://127.0.0.1:' in body   # the server's address is the base URL
    status, body = served.get("no/such/page.html")
    assert status == 404 and "Page not found" in body
    status, body = served.get("tags/")
    assert status == 200


def test_an_edit_rebuilds_and_changes_the_page(served):
    _, before_id = served.get("__papersite/build-id")
    edit_title(served.root, "An edited title about bandits")
    wait_for(lambda: "An edited title about bandits" in served.get("papers/a-paper.html")[1], "the edit to show")
    # the new files are swapped in a moment before the build id moves on and the line is printed
    wait_for(lambda: served.get("__papersite/build-id")[1] != before_id, "a new build id")
    wait_for(lambda: any(line.startswith("serve: rebuilt") and "a.md" in line for line in served.out), "the rebuild line")


def test_asking_for_the_next_build_id_waits_for_the_next_build(served):
    _, first_id = served.get("__papersite/build-id")
    answers: list[tuple[float, str]] = []

    def ask() -> None:
        answer = served.get(f"__papersite/build-id?since={first_id}")[1]
        answers.append((time.monotonic(), answer))

    asker = threading.Thread(target=ask)
    asker.start()
    time.sleep(1.0)
    assert not answers   # held while nothing is rebuilt
    edited = time.monotonic()
    edit_title(served.root, "A title the waiting page hears of")
    asker.join(WAIT)
    assert answers and answers[0][1] != first_id and answers[0][0] > edited
    assert "A title the waiting page hears of" in served.get("papers/a-paper.html")[1]   # answered once served
    _, now = served.get(f"__papersite/build-id?since={first_id}")
    assert now == answers[0][1]   # an id already past `since` is answered at once


def test_a_broken_edit_keeps_the_last_good_site_and_a_fix_recovers(served):
    page_file = served.root / "content" / "papers" / "a.md"
    _, good_id = served.get("__papersite/build-id")
    edit_title(served.root, "A broken edit", year="soon")
    wait_for(lambda: any(f"{page_file}:7: 'year' must be a four-digit year" in line for line in served.err),
             "the error with its path and line")
    wait_for(lambda: any("build failed" in line for line in served.err), "the failure summary")
    status, body = served.get("papers/a-paper.html")
    assert status == 200 and "A paper about reinforcement learning" in body   # the last good site
    assert served.get("__papersite/build-id")[1] == good_id
    (served.root / "content" / "papers" / "a.md").write_text("---\nid: [unclosed\n---\nBody.\n", encoding="utf-8")
    wait_for(lambda: any(f"{page_file}:2: YAML syntax error" in line for line in served.err), "the YAML error")
    assert served.get()[0] == 200
    edit_title(served.root, "A fixed title about bandits")
    wait_for(lambda: "A fixed title about bandits" in served.get("papers/a-paper.html")[1], "the fix to show")
    assert served.proc.poll() is None


def test_each_warning_is_printed_by_the_build_that_first_has_it(served):
    warning = "'code' entry 'ftp://example.org/x' is not a plain http(s) URL"
    edit_title(served.root, "A paper with an odd code link", code="[ftp://example.org/x]")
    wait_for(lambda: any("with 1 warning in" in line for line in served.out), "the rebuild with the warning")
    # The server's stdout and stderr are read by threads of their own: the summary line can be read
    # before the warning printed ahead of it (a loaded machine, 2026-12-06).
    wait_for(lambda: any(warning in line for line in served.err), "the warning")
    assert sum(warning in line for line in served.err) == 1
    (served.root / "content" / "papers" / "b.md").write_text(
        paper_text(id="test-0002", slug="second-paper", title="Another edit, elsewhere"), encoding="utf-8")
    wait_for(lambda: any("with 1 warning (1 shown before) in" in line for line in served.out), "the next rebuild")
    assert sum(warning in line for line in served.err) == 1   # not repeated


def test_of_many_unknown_commands_it_lists_the_first_and_counts_the_rest(served):
    formulas = " ".join(f"$\\cA_{{{n}}}$" for n in range(LISTED_OF_A_KIND + 5))
    (served.root / "content" / "papers" / "a.md").write_text(paper_text(body=f"We bound {formulas} here."), encoding="utf-8")
    wait_for(lambda: any(f"with {LISTED_OF_A_KIND + 5} warnings in" in line for line in served.out), "the rebuild")
    wait_for(lambda: any("serve: 5 more unknown LaTeX command warnings not listed (the note below sums them up; "
                         "--all-warnings lists each)" in line for line in served.err), "the count of the rest")
    note = "site.yml: note: 1 unknown LaTeX command in 1 paper, shown as code; by papers: \\cA (1)."
    wait_for(lambda: any(note in line for line in served.err), "the note that sums them up")
    assert sum("warning: unknown LaTeX command \\cA" in line for line in served.err) == LISTED_OF_A_KIND


def test_the_site_it_serves_is_not_the_one_published(tmp_path):
    """site/ is what `build.py` makes for publishing; the dev server's pages name the local server
    as their address, so they go to a folder of their own."""
    root = make_project(tmp_path / "proj", {"a.md": paper_text()})
    server = Server(root, defaults=True)
    try:
        status, html = server.get("papers/a-paper.html")
        assert status == 200 and f'<link rel="canonical" href="{server.url}papers/a-paper.html">' in html
        assert (root / ".papersite-serve" / "site" / "papers" / "a-paper.html").is_file()
        assert not (root / "site").exists()
    finally:
        assert server.stop() == 0


def test_ctrl_c_exits_cleanly(served):
    assert served.get()[0] == 200
    assert served.stop() == 0
    assert any("serve: stopped" in line for line in served.out)
    assert not any("Traceback" in line for line in served.err)


def test_a_busy_port_is_a_one_line_error(tmp_path, served):
    port = re.search(r":(\d+)/", served.url).group(1)
    root = make_project(tmp_path / "other", {"a.md": paper_text()})
    result = subprocess.run([sys.executable, "build.py", "serve", "--port", port, "--content", str(root / "content"),
                             "--config", str(root / "site.yml"), "--out", str(root / "site")],
                            cwd=REPO, capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.browser
def test_the_open_page_reloads_itself_after_a_rebuild(served, page):
    page.goto(served.url + "papers/a-paper.html")
    expect(page.locator("h1")).to_have_text("A paper about reinforcement learning")
    edit_title(served.root, "A title that arrives by live reload")
    expect(page.locator("h1")).to_have_text("A title that arrives by live reload", timeout=WAIT * 1000)
    assert page.console_errors == []


def test_a_rebuild_keeps_its_objects_from_the_collector_until_the_server_is_idle(tmp_path, monkeypatch, capsys):
    """A full collection walks the whole warm cache and site (~0.3 s at 5,000 papers): the server
    freezes them after each build and collects once no file has changed for a while. The build's
    own data (its site, its pages' plan) is freed then too, not before the open page reloads."""
    import gc

    from papersite.dev import serve
    from papersite.pipeline import BuildOptions

    root = make_project(tmp_path, {"a.md": paper_text()})
    dev = serve.DevServer(BuildOptions(content=root / "content", config=root / "site.yml", out=root / "site"), 0, False)
    try:
        assert dev.rebuild() is True
        assert gc.get_freeze_count() > 0 and dev.garbage_due
        dev.collect_when_idle()   # just built: not idle yet
        assert dev.garbage_due and dev.leftovers
        monkeypatch.setattr(serve, "COLLECT_WHEN_IDLE_SECONDS", 0.0)
        dev.collect_when_idle()
        assert not dev.garbage_due and dev.leftovers is None and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        dev.httpd.server_close()


def test_open_pages_hear_of_a_rebuild_before_its_cache_is_saved(tmp_path, monkeypatch):
    """Saving the cache is 1-2 s of an edit at 100,000 papers: the new site is served, and the
    waiting page told, as soon as it is in place; a build with nothing to do is announced too."""
    from papersite.dev import serve
    from papersite.incremental.cache import BuildCache
    from papersite.pipeline import BuildOptions

    root = make_project(tmp_path, {"a.md": paper_text()})
    dev = serve.DevServer(BuildOptions(content=root / "content", config=root / "site.yml", out=root / "site"), 0, False)
    seen_at_save: list[tuple[str, str]] = []
    save = BuildCache.save

    def observed_save(cache, *args):
        page = (root / "site" / "papers" / "a-paper.html").read_text(encoding="utf-8")
        seen_at_save.append((dev.build_id, page))
        return save(cache, *args)

    monkeypatch.setattr(BuildCache, "save", observed_save)
    try:
        assert dev.rebuild() is True
        first = dev.build_id
        assert seen_at_save == [(first, seen_at_save[0][1])]   # the first build was announced before its save
        edit_title(root, "An edit served before the save")
        assert dev.rebuild(" (a.md changed)") is True
        build_id, page = seen_at_save[-1]
        assert build_id != first and build_id == dev.build_id and "An edit served before the save" in page
        assert dev.rebuild() is True   # nothing changed: nothing saved, and still a new id
        assert len(seen_at_save) == 2 and dev.build_id != build_id
    finally:
        dev.httpd.server_close()


def test_a_file_saved_during_the_first_build_is_built_next(tmp_path, monkeypatch):
    """The watcher's first snapshot used to be taken after the first build: at 50,000 papers that
    took over a second, and a file saved meanwhile counted as built already and was never served."""
    from papersite.dev import serve
    from papersite.pipeline import BuildOptions

    root = make_project(tmp_path, {"a.md": paper_text()})
    dev = serve.DevServer(BuildOptions(content=root / "content", config=root / "site.yml", out=root / "site"), 0, False)
    reasons: list[str] = []
    second = threading.Event()

    def rebuild(reason: str = "", inputs: dict | None = None) -> bool:
        reasons.append(reason)
        if len(reasons) == 1:
            edit_title(root, "Saved while the first build ran")
        else:
            second.set()
        return True

    monkeypatch.setattr(dev, "rebuild", rebuild)
    monkeypatch.setattr(dev.httpd, "serve_forever", lambda poll_interval: second.wait(WAIT))
    assert dev.serve() == 0
    assert len(reasons) == 2 and "a.md" in reasons[1]


def test_a_path_too_long_for_the_file_system_gets_the_404_page(served):
    """8 KB of path: the file system refuses the name, the server answers as for any missing page."""
    status, body = served.get("papers/" + "a" * 8000 + ".html")
    assert status == 404 and "<html" in body
    assert served.get("papers/a-paper.html")[0] == 200
    assert not [line for line in served.err if "Traceback" in line]


def test_every_response_forbids_type_sniffing(served):
    for path in ("", "papers/a-paper.html", "assets/site.js", "no-such-page.html", "__papersite/livereload.js"):
        request = urllib.request.Request(served.url + path)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                headers = response.headers
        except urllib.error.HTTPError as err:
            headers = err.headers
        assert headers["X-Content-Type-Options"] == "nosniff", path


def test_a_burst_of_requests_is_answered_in_full(served):
    """A page's burst of requests (scripts, styles, search shards) is queued, not dropped: the
    listen backlog holds 128, not socketserver's 5 that made the rest retry for seconds."""
    from papersite.dev.serve import DevHTTPServer

    assert DevHTTPServer.request_queue_size >= 128
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(served.get("papers/a-paper.html")[0])) for _ in range(150)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert results == [200] * 150


@pytest.fixture
def dev_server(tmp_path):
    """A dev server, in this process, over two papers, serving on a free port (its watcher and
    preview threads are not started: a test calls what they would)."""
    from papersite.dev import serve
    from papersite.pipeline import BuildOptions

    root = make_project(tmp_path, {
        "a.md": paper_text(),
        "b.md": paper_text(id="test-0002", slug="second-paper", title="A second paper on reinforcement learning",
                           body="Reinforcement learning with logarithmic regret."),
    })
    dev = serve.DevServer(BuildOptions(content=root / "content", config=root / "site.yml", out=root / "site"), 0, False)
    assert dev.rebuild() is True
    threading.Thread(target=dev.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield dev, root, root / "content" / "papers" / "a.md"
    dev.httpd.shutdown()
    dev.httpd.server_close()
    dev.changes.close()
    if dev.paper_changes is not None:
        dev.paper_changes.close()


def test_an_edited_paper_is_served_at_once_as_the_rebuild_will_make_it(dev_server):
    """Hugo's fast render: the edited page, rendered from the last build's plan, is served while the
    site is rebuilt; the site on disk is the build's alone; the rebuild then serves that very page."""
    dev, root, source = dev_server
    url = dev.url + "papers/a-paper.html"
    page_file = root / "site" / "papers" / "a-paper.html"
    before_id, on_disk = dev.build_id, page_file.read_bytes()
    source.write_text(paper_text(title="Retitled, reinforcement learning at once",
                                 body="We study reinforcement learning with $O(\\log K)$ regret, and *bandits*."), encoding="utf-8")
    assert dev.preview([str(source)]) is True
    status, body = fetch(url)
    assert status == 200 and "<h1 id=\"title\">Retitled, reinforcement learning at once</h1>" in body
    assert "<em>bandits</em>" in body and "<math" in body
    assert dev.build_id != before_id and f'data-build-id="{dev.build_id}"' in body   # the open page reloads to it
    assert page_file.read_bytes() == on_disk   # nothing is written outside a build
    assert "Retitled" not in fetch(dev.url)[1]   # the other pages wait for the rebuild
    previewed = dev.preview_of("/papers/a-paper.html")
    assert dev.rebuild(" (a.md changed)") is True
    assert dev.preview_of("/papers/a-paper.html") is None
    assert page_file.read_bytes() == previewed   # byte for byte the page the build made
    assert "Retitled" in fetch(dev.url)[1]


@pytest.mark.parametrize("edit", [
    {"slug": "a-new-slug"}, {"year": "2024"}, {"venue": "ICML"}, {"authors": "[Ada Lovelace, Charles Babbage]"},
    {"tags": "[bandits]"}, {"body": ""}, {"year": "next year"}, "delete", "two files", "the same name elsewhere",
])
def test_an_edit_that_moves_or_breaks_a_paper_waits_for_the_rebuild(dev_server, edit):
    """Its page would be made elsewhere, would list other papers, or not at all: the build decides
    (and reports a broken page); the page served is the last build's until then."""
    dev, root, source = dev_server
    before_id, files = dev.build_id, [str(source)]
    if edit == "delete":
        source.unlink()
    elif edit == "two files":
        source.write_text(paper_text(title="An edit among two"), encoding="utf-8")
        files.append(str(root / "content" / "papers" / "b.md"))
    elif edit == "the same name elsewhere":
        files = [str(root / "a.md")]
        (root / "a.md").write_text(paper_text(title="A moved or broken edit"), encoding="utf-8")
    else:
        source.write_text(paper_text(title="A moved or broken edit", **edit), encoding="utf-8")
    assert dev.preview(files) is False
    assert dev.build_id == before_id and dev.previews == {}
    assert "A moved or broken edit" not in fetch(dev.url + "papers/a-paper.html")[1]


def test_a_preview_made_after_its_rebuild_is_in_place_is_dropped(dev_server):
    """A small site's rebuild can be served before the preview thread has made its preview: that
    preview, of the very save the site was built from, would then shadow the built page."""
    dev, root, source = dev_server
    source.write_text(paper_text(title="Built before its preview"), encoding="utf-8")
    assert dev.rebuild(" (a.md changed)", snapshot(dev.watched())) is True
    built_id = dev.build_id
    assert dev.preview([str(source)]) is False
    assert dev.build_id == built_id and dev.previews == {}


def test_a_failed_rebuild_drops_the_preview(dev_server):
    """A preview shows one page; if the rebuild then fails (another file broke meanwhile), the last
    good site is what is served, the preview with it gone."""
    dev, root, source = dev_server
    source.write_text(paper_text(title="Previewed, then the build fails"), encoding="utf-8")
    assert dev.preview([str(source)]) is True
    (root / "content" / "papers" / "b.md").write_text("---\ntitle: [unclosed\n---\nText.\n", encoding="utf-8")
    assert dev.rebuild() is False
    assert dev.previews == {} and "Previewed, then" not in fetch(dev.url + "papers/a-paper.html")[1]


def test_a_page_saved_while_the_site_is_rebuilt_is_previewed_at_once_and_kept(dev_server, monkeypatch, tmp_path_factory):
    """The preview thread hears of each save through inotify, even while a rebuild runs (at 100,000
    papers, 15-20 s). That rebuild was made from the files as they were before the second save, so
    its page is not the saved one: the preview stays served past it, until a rebuild from the
    files as saved is in place."""
    from papersite.dev import serve

    dev, root, source = dev_server
    if dev.paper_changes is None:
        pytest.skip("no inotify here: the watcher's snapshots find the edit to preview")
    page = "papers/a-paper.html"
    building, release = threading.Event(), threading.Event()
    real_build = serve.build

    def slow_build(*args, **kwargs):
        building.set()
        assert release.wait(WAIT)
        return real_build(*args, **kwargs)

    def save(title: str) -> None:   # by another process, as an editor saves
        saved = tmp_path_factory.mktemp("editor") / "a.md"
        saved.write_text(paper_text(title=title), encoding="utf-8")
        subprocess.run(["cp", str(saved), str(source)], check=True)

    previewer = threading.Thread(target=dev.preview_saves)
    previewer.start()
    try:
        save("The first save")
        wait_for(lambda: "The first save" in fetch(dev.url + page)[1], "the first save's preview")
        first_inputs = snapshot(dev.watched())
        monkeypatch.setattr(serve, "build", slow_build)
        rebuild = threading.Thread(target=dev.rebuild, args=(" (a.md changed)", first_inputs))
        rebuild.start()
        assert building.wait(WAIT)
        save("The second save")
        wait_for(lambda: "The second save" in fetch(dev.url + page)[1], "the second save's preview, during the rebuild")
        release.set()
        rebuild.join(WAIT)
        assert dev.preview_of("/" + page) is not None and "The second save" in fetch(dev.url + page)[1]
        monkeypatch.setattr(serve, "build", real_build)
        assert dev.rebuild(" (a.md changed)", snapshot(dev.watched())) is True
        assert dev.preview_of("/" + page) is None and "The second save" in fetch(dev.url + page)[1]
    finally:
        release.set()
        dev.stop.set()
        dev.paper_changes.interrupt()
        previewer.join(WAIT)


def test_the_rebuild_answers_same_to_a_page_showing_its_own_bytes_as_a_preview(dev_server):
    """The open page reloaded to the preview; when the rebuilt site's page is the preview byte for
    byte, its next long poll is answered `same` (no second reload); otherwise plainly."""
    dev, root, source = dev_server
    page = "/papers/a-paper.html"
    source.write_text(paper_text(title="The same page twice"), encoding="utf-8")
    assert dev.preview([str(source)]) is True
    previewed = dev.build_id
    assert dev.rebuild(" (a.md changed)") is True
    assert fetch(f"{dev.url}__papersite/build-id?since={previewed}&page={page}")[1] == f"{dev.build_id} same"
    assert fetch(f"{dev.url}__papersite/build-id?since={previewed}&page=/index.html")[1] == dev.build_id
    assert fetch(f"{dev.url}__papersite/build-id?since={previewed}")[1] == dev.build_id
    # The abstract loses the word it shared with the other paper: the rebuilt page's related list differs.
    source.write_text(paper_text(title="A different page after the rebuild", body="We study reinforcement learning."),
                      encoding="utf-8")
    assert dev.preview([str(source)]) is True
    previewed = dev.build_id
    assert dev.rebuild(" (a.md changed)") is True
    assert fetch(f"{dev.url}__papersite/build-id?since={previewed}&page={page}")[1] == dev.build_id


@pytest.mark.browser
@pytest.mark.parametrize("body, reloads", [("We study reinforcement learning with $O(\\log K)$ regret.", False),
                                           ("We study reinforcement learning.", True)])
def test_an_open_page_reloads_to_the_preview_and_again_only_if_the_rebuild_differs(dev_server, page, body, reloads):
    dev, _, source = dev_server
    page.goto(dev.url + "papers/a-paper.html")
    expect(page.locator("h1")).to_have_text("A paper about reinforcement learning")
    source.write_text(paper_text(title="Previewed in the browser", body=body), encoding="utf-8")
    with page.expect_navigation():
        assert dev.preview([str(source)]) is True
    expect(page.locator("h1")).to_have_text("Previewed in the browser")
    page.evaluate("window.stillOpen = true")
    rebuilt = f"since={dev.session}-{dev.build_count + 1}"
    # Sent once the page has heard of the rebuild: by the same document if it kept it, else by the reloaded one.
    with page.expect_request(lambda request: "build-id" in request.url and rebuilt in request.url, timeout=WAIT * 1000):
        assert dev.rebuild(" (a.md changed)") is True
    expect(page.locator("h1")).to_have_text("Previewed in the browser")
    assert page.evaluate("window.stillOpen === true") is (not reloads)
    assert page.console_errors == []
