"""`python build.py serve`: build, serve on 127.0.0.1, rebuild on change, reload the open page.

- The server is http.server over the output directory, which the build replaces atomically,
  so a request sees either the old site or the new one, never half of each.
- A watcher snapshots the mtimes and sizes of content/, templates/, static/ and the config when
  inotify says they changed (or, where there is no inotify, every so often; see watch.py) and
  rebuilds (into the same --out) once they stop changing.
- A failed rebuild prints `path:line: message` and the last good site stays up.
- An edit to one paper's page is previewed first: that page is rendered at once and served
  from memory until a rebuild that has the edit is served (preview.py). A thread of its own hears of the save through inotify, so a page saved again
  while the site is being rebuilt is previewed at once too.
- Live reload: every HTML response gets `<script src="/__papersite/livereload.js">`, added
  while it is sent; the script asks `/__papersite/build-id?since=ID&page=PATH` with the page's
  build id, which answers as soon as another build is served (a long poll), and then reloads;
  unless the answer says `same`: the page it shows, a preview, is byte for byte the rebuilt
  site's, and a second reload would only lose the reader's place.
  Both are answered from memory, so `site/` stays byte-identical to a normal build.
- Without --base-url the server's own address is the base URL: canonical links, the feed,
  the copy-link button and the 404 page point at the local site, not at production.
- Ctrl-C (or SIGTERM) stops the server and exits with 0.
"""

from __future__ import annotations

import gc
import html
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import NamedTuple
from urllib.parse import parse_qs, urlsplit

from .. import urls
from ..errors import Problem, SiteError, problem_line, warning_lines
from ..pipeline import BuildOptions, BuildResult, WarmCache, build
from ..inputs.files import paper_pages_dir
from ..progress import Progress
from ..stages import Built
from .preview import PreviewBase, preview_base, preview_page
from .watch import ChangeSignal, changed_files, snapshot, wait_seconds

HOST = "127.0.0.1"
# A page's request for the next build id is held this long at most (then asked again).
LONG_POLL_SECONDS = 20.0
# A save is often several writes: the files must stay the same this long before a rebuild.
SETTLE_SECONDS = 0.05
SETTLE_TRIES = 40
# With nothing saved for this long after a build, the collector makes its full pass (see `rebuild`).
COLLECT_WHEN_IDLE_SECONDS = 5.0
# The preview thread's wait for a save, at most, before it looks whether the server is stopping.
IDLE_WAIT_SECONDS = 2.0
PREFIX = "/__papersite/"
LIVERELOAD_URL = PREFIX + "livereload.js"
BUILD_ID_URL = PREFIX + "build-id"
LIVERELOAD_JS = (Path(__file__).with_name("livereload.js")).read_bytes()


class Preview(NamedTuple):
    """A page previewed (preview.py), and what it was made from."""

    page: bytes
    source: str                # the paper's file
    stamp: tuple[int, int]     # its (mtime, size) as read, compared with the snapshot a build was made from


def say(message: str, stream=None) -> None:
    print(message, file=stream or sys.stdout, flush=True)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class DevServer:
    def __init__(self, options: BuildOptions, port: int, explicit_base_url: bool, all_warnings: bool = False):
        self.options = options
        self.all_warnings = all_warnings
        self.lock = threading.Lock()
        self.warm = WarmCache()
        self.changes = ChangeSignal(self.watched())
        # The paper pages, watched apart for previews (a second inotify instance: the watcher's
        # own signal stays the watcher's); None without inotify, when the watcher's snapshots
        # find the edit to preview.
        papers = ChangeSignal([paper_pages_dir(options.content)], names=True)
        self.paper_changes: ChangeSignal | None = None if papers.polling else papers
        if papers.polling:
            papers.close()
        self.built = threading.Condition(self.lock)   # notified when a build is served
        self.build_count = 0
        self.session = f"{os.getpid():x}"
        self.last_errors: tuple[Problem, ...] = ()
        self.stop = threading.Event()
        self.warned: set[Problem] = set()   # the last build's warnings, printed already
        self.noted: set[Problem] = set()    # ... and its notes
        self.last_build = 0.0            # time.monotonic() when the last build ended
        self.garbage_due = False         # a build's objects are frozen, not yet collected
        self.leftovers: list | None = None   # the last build's data, not yet freed (see `rebuild`)
        self.preview_from: PreviewBase | None = None   # the last build's paper pages, to preview an edit with
        self.previews: dict[str, Preview] = {}   # pages previewed since, by URL path, served in place of the site's
        self.served_inputs: dict = {}    # the snapshot the site served was built from ({}: not known)
        self.previewed: tuple[str, str, bytes] = ("", "", b"")   # the last preview's build id, URL path and page
        handler = partial(DevHandler, directory=str(options.out.absolute()), dev=self)
        self.httpd = DevHTTPServer((HOST, port), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://{HOST}:{self.httpd.server_address[1]}/"
        if not explicit_base_url:
            self.options = replace(options, base_url=self.url)

    @property
    def build_id(self) -> str:
        with self.lock:
            return f"{self.session}-{self.build_count}"

    def wait_for_build(self, since: str, timeout: float) -> str:
        """The build id once it differs from `since`, or after `timeout` seconds: a page asking
        with its own id hears of the next build the moment it is served (a long poll)."""
        with self.built:
            self.built.wait_for(lambda: f"{self.session}-{self.build_count}" != since or self.stop.is_set(), timeout)
            return f"{self.session}-{self.build_count}"

    def watched(self) -> list[Path]:
        return [self.options.content, self.options.templates, self.options.static, self.options.config]

    def rebuild(self, reason: str = "", inputs: dict | None = None) -> bool:
        """One build; True when it succeeded. Never raises for bad input or a crash in a stage.

        The build leaves its data (the site, its pages' plan) in `leftovers`, freed once the server
        is idle (`collect_when_idle`), or at the next build if that comes first: freeing millions of
        objects one by one took 0.9 s at 100,000 papers, which the open page waited for."""
        try:
            return self._rebuild(reason, inputs)
        finally:
            # What a build leaves (the cache held warm, the site) lives until the next one: out of
            # the collector's reach, no full collection walks those millions of objects while the
            # next save is being built (bench/README.md). Garbage among them is still freed by
            # reference counting; cycles wait for `collect_when_idle`.
            gc.freeze()
            self.last_build, self.garbage_due = time.monotonic(), True

    def collect_when_idle(self) -> None:
        """What `rebuild` put off (freeing the last build's data, a full collection), once no file has changed for a while."""
        if self.garbage_due and time.monotonic() - self.last_build >= COLLECT_WHEN_IDLE_SECONDS:
            self.leftovers = None
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self.garbage_due = False

    def _rebuild(self, reason: str, inputs: dict | None) -> bool:
        self.leftovers = []   # (the last build's, if not freed yet, are freed here)
        started, served = time.perf_counter(), []

        def serve_new_site() -> None:
            # Open pages reload now, while the build saves its cache (1-2 s at 100,000 papers).
            served.append(time.perf_counter() - started)
            self.announce_build(inputs=inputs)

        try:
            result: BuildResult = build(self.options, Progress(), self.warm, on_wait=lambda: say(
                f"serve: another build into {self.options.out} is running; waiting for it to finish", sys.stderr),
                keep=self.leftovers, on_commit=serve_new_site)
        except SiteError as err:
            for problem in err.problems:
                say(str(problem), sys.stderr)
            with self.lock:
                self.last_errors = err.problems
                self.previews = {}
            kept = "the last good site is still served" if self.has_site() else "nothing to serve until it is fixed"
            say(f"serve: build failed with {plural(len(err.problems), 'error')}; {kept}", sys.stderr)
            return False
        except Exception as exc:  # a bug, not the user's input: report it and keep serving
            traceback.print_exc()
            with self.lock:
                self.last_errors = (Problem("build", None, f"the build crashed: {exc!r}"),)
                self.previews = {}
            say("serve: the build crashed (a bug in papersite); the last good site is still served", sys.stderr)
            return False
        # Each warning is printed once, by the build that first has it: a rebuild after a save
        # shows what the save changed, not the same 127 lines of a large collection again.
        fresh = [problem for problem in result.warnings if problem not in self.warned]
        noted = [note for note in result.notes if note not in self.noted]
        for line in warning_lines(fresh, self.all_warnings, "serve", "the note below sums them up; " if noted else ""):
            say(line, sys.stderr)
        for note in noted:   # which unknown LaTeX commands, in how many papers: what the warnings left out
            say(problem_line(note, "note"), sys.stderr)
        self.warned, self.noted = set(result.warnings), set(result.notes)
        if not served:   # a build that found nothing changed
            self.announce_build(inputs=inputs)
        built = next((item for item in self.leftovers if isinstance(item, Built)), None)
        if built is not None:
            self.preview_from = preview_base(built.taxonomy, built.plan, built.render, built.site.config.math_macros)
        what = "built" if self.build_count == 1 else "rebuilt"
        shown = f" ({len(result.warnings) - len(fresh)} shown before)" if len(fresh) < len(result.warnings) else ""
        say(f"serve: {what} {plural(result.pages, 'page')} with {plural(len(result.warnings), 'warning')}{shown} "
            f"in {served[0] if served else result.seconds:.2f}s{reason}")
        return True

    def announce_build(self, inputs: dict | None = None) -> None:
        """A new build is served: pages waiting on its id hear of it and reload. The previews it
        does not have stay: those of files saved since `inputs`, the snapshot it was built from
        (a file the snapshot does not name is taken to be in the build: its preview goes)."""
        with self.lock:
            self.build_count += 1
            self.previews = {path: preview for path, preview in self.previews.items()
                             if inputs is not None and inputs.get(preview.source, preview.stamp) != preview.stamp}
            self.served_inputs = inputs or {}
            self.last_errors = ()
            self.built.notify_all()

    def announce_preview(self, path: str, preview: Preview) -> bool:
        """A page previewed: served in place of the site's, and pages waiting hear of it; unless
        the site served is already built from that very save (a small site's rebuild can be in
        place before its preview is made), when the preview is dropped (False)."""
        with self.lock:
            if self.served_inputs.get(preview.source) == preview.stamp:
                return False
            self.build_count += 1
            self.previews = {**self.previews, path: preview}
            self.previewed = (f"{self.session}-{self.build_count}", path, preview.page)
            self.built.notify_all()
            return True

    def preview(self, files: list[str]) -> bool:
        """When the only file changed is a paper's page, that page as the coming build will make it,
        served until a build that has it is (preview.py). True if previewed."""
        base = self.preview_from
        if len(files) != 1 or base is None:
            return False
        started = time.perf_counter()
        try:
            st = os.stat(files[0])   # taken before it is read: a later save differs from it
            made = preview_page(base, files[0])
        except OSError:
            return False
        except Exception:   # a bug in the preview must not cost the rebuild, which reports properly
            traceback.print_exc()
            return False
        if made is None:
            return False
        path, page = made
        if not self.announce_preview("/" + path, Preview(page.encode("utf-8"), files[0], (st.st_mtime_ns, st.st_size))):
            return False
        say(f"serve: previewed {path} in {time.perf_counter() - started:.2f}s")
        return True

    def preview_saves(self) -> None:
        """Preview each paper page inotify says was saved, at once, even while a rebuild runs."""
        changes = self.paper_changes
        while not self.stop.is_set():
            if changes.wait(IDLE_WAIT_SECONDS):
                self.preview(changes.take_written())

    def preview_of(self, path: str) -> bytes | None:
        with self.lock:
            found = self.previews.get(path)
        return found.page if found is not None else None

    def shows_same(self, page: str, since: str, served: Callable[[str], bytes | None]) -> bool:
        """Whether the page at URL path `page`, opened at build `since` as a preview, is what is
        served now (`served(page)`), byte for byte."""
        with self.lock:
            build_id, path, shown = self.previewed
        return build_id == since and page == path and served(page) == shown

    def has_site(self) -> bool:
        return (self.options.out / urls.HOME).is_file()

    def watch(self, seen: dict) -> None:
        """Rebuild whenever the watched files differ from `seen`, their snapshot before the last build."""
        changes, wait = self.changes, wait_seconds(self.changes.polling, 0.0)
        while True:
            changes.wait(wait)
            if self.stop.is_set():
                return
            started = time.monotonic()
            now = snapshot(self.watched())
            wait = wait_seconds(changes.polling, time.monotonic() - started)
            if now == seen:
                self.collect_when_idle()
                continue
            for _ in range(SETTLE_TRIES):   # a save is often several writes: wait for quiet
                changes.wait(SETTLE_SECONDS)
                if self.stop.is_set():
                    return
                later = snapshot(self.watched())
                if later == now:
                    break
                now = later
            files = changed_files(seen, now)
            seen = now   # taken before the build: edits made during it trigger the next one
            if self.paper_changes is None:   # (else the preview thread has heard of the save)
                self.preview(files)
            shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
            self.rebuild(f" ({shown} changed)", seen)

    def serve(self) -> int:
        say(f"serve: building {self.options.content} into {self.options.out}")
        # Taken before the first build, as each later one is: a file saved while it runs, or while the
        # watcher would take its first snapshot (over a second at 50,000 papers), is built next.
        seen = snapshot(self.watched())
        self.rebuild()
        watcher = threading.Thread(target=self.watch, args=(seen,), name="papersite-watch", daemon=True)
        watcher.start()
        previewer = threading.Thread(target=self.preview_saves, name="papersite-preview", daemon=True)
        if self.paper_changes is not None:
            previewer.start()
        say(f"serve: serving {self.options.out} at {self.url} (Ctrl-C to stop)")
        try:
            self.httpd.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop.set()
            self.changes.interrupt()
            if self.paper_changes is not None:
                self.paper_changes.interrupt()
            self.httpd.server_close()
            watcher.join(timeout=30)
            self.changes.close()
            if self.paper_changes is not None:
                previewer.join(timeout=30)
                self.paper_changes.close()
        say("serve: stopped")
        return 0


class DevHTTPServer(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5: a page's burst of requests (its scripts, styles,
    # search shards) overflowed it, and the kernel made the rest retry their SYN for seconds.
    request_queue_size = 128


class DevHandler(SimpleHTTPRequestHandler):
    """Static files with no caching, live reload in HTML, and the site's 404 page for missing paths."""

    server_version = "papersite-serve"

    def __init__(self, *args, dev: DevServer, **kwargs):
        self.dev = dev
        super().__init__(*args, **kwargs)

    def log_message(self, format, *args):   # noqa: A002 - the base class's name
        pass   # one line per request would drown the build messages

    def do_GET(self):
        self.respond(head=False)

    def do_HEAD(self):
        self.respond(head=True)

    def respond(self, head: bool) -> None:
        path = urlsplit(self.path).path
        if path == LIVERELOAD_URL:
            return self.send(HTTPStatus.OK, "text/javascript; charset=utf-8", LIVERELOAD_JS, head)
        if path == BUILD_ID_URL:
            query = parse_qs(urlsplit(self.path).query)
            since, page = query.get("since", [""])[0], query.get("page", [""])[0]
            build_id = self.dev.wait_for_build(since, LONG_POLL_SECONDS) if since else self.dev.build_id
            if build_id != since and page and self.dev.shows_same(page, since, self.served_bytes):
                build_id += " same"
            return self.send(HTTPStatus.OK, "text/plain; charset=utf-8", build_id.encode(), head)
        if (preview := self.dev.preview_of(path)) is not None:
            return self.send(HTTPStatus.OK, "text/html; charset=utf-8", self.inject(preview), head)
        if not self.dev.has_site():
            return self.send_build_errors(head)
        try:
            self.send_file(path, head)
        except OSError:   # a name too long for the file system, say: no such page
            self.send_file("/" + urls.NOT_FOUND, head, HTTPStatus.NOT_FOUND)

    def served_bytes(self, path: str) -> bytes | None:
        """The page at URL path `path` as it is served now, before the live reload script is added."""
        preview = self.dev.preview_of(path)
        if preview is not None:
            return preview
        try:
            return Path(self.translate_path(path)).read_bytes()
        except OSError:
            return None

    def send_file(self, path: str, head: bool, status: HTTPStatus = HTTPStatus.OK) -> None:
        fs_path = Path(self.translate_path(path))
        if fs_path.is_dir():
            if not path.endswith("/"):
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", path + "/")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            fs_path = fs_path / "index.html"
        if path == "/favicon.ico" and not fs_path.is_file():
            # Browsers ask for it unprompted; "no content" keeps a 404 out of the console.
            return self.send(HTTPStatus.NO_CONTENT, "image/x-icon", b"", head)
        if not fs_path.is_file():
            status, fs_path = HTTPStatus.NOT_FOUND, Path(self.directory) / urls.NOT_FOUND
        try:
            body = fs_path.read_bytes()
        except OSError:   # gone between the check and the read (a swap), or no 404 page
            return self.send(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", b"not found\n", head)
        ctype = self.guess_type(str(fs_path))
        if fs_path.suffix == ".html":
            body = self.inject(body)
            ctype = "text/html; charset=utf-8"
        elif ctype.startswith("text/") or ctype in ("application/javascript", "application/json", "application/xml"):
            ctype += "; charset=utf-8"
        self.send(status, ctype, body, head)

    def inject(self, body: bytes) -> bytes:
        tag = f'<script src="{LIVERELOAD_URL}" data-build-id="{self.dev.build_id}" defer></script>\n'.encode()
        at = body.find(b"</head>")
        return body[:at] + tag + body[at:] if at >= 0 else body + tag

    def send_build_errors(self, head: bool) -> None:
        with self.dev.lock:
            problems = self.dev.last_errors
        items = "".join(f"<li>{html.escape(str(p))}</li>" for p in problems) or "<li>building…</li>"
        page = (f"<!doctype html><html><head><meta charset='utf-8'><title>Build failed</title></head>"
                f"<body><h1>The site did not build</h1><ul>{items}</ul>"
                f"<p>Fix the input; this page reloads after the next build.</p></body></html>")
        self.send(HTTPStatus.SERVICE_UNAVAILABLE, "text/html; charset=utf-8", self.inject(page.encode()), head)

    def send(self, status: HTTPStatus, ctype: str, body: bytes, head: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        # A file is what its type says, never sniffed into HTML or script (a page of the content's
        # text served as text/plain, say).
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if not head:
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass


def run_serve(options: BuildOptions, port: int, explicit_base_url: bool, all_warnings: bool = False) -> int:
    try:
        dev = DevServer(options, port, explicit_base_url, all_warnings)
    except OSError as exc:
        say(f"serve: cannot listen on {HOST}:{port}: {exc.strerror or exc} (pass --port N, or --port 0 for any free port)",
            sys.stderr)
        return 1

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    try:
        return dev.serve()
    except KeyboardInterrupt:   # during the first build
        dev.stop.set()
        dev.httpd.server_close()
        say("serve: stopped")
        return 0
