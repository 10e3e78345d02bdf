"""The build, top to bottom: config, content, enrich, render, search, write."""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import parallel, timing, urls
from . import progress as progress_
from .cache import (BuildCache, FileDigests, code_version, default_cache_path, digest, fingerprint, read_sealed,
                    search_exports_path, state_path, templates_path, tree_version)
from .config import load_config
from .content import load_content
from .enrich import read_papers, relate_papers
from .errors import Problem, Report, SiteError
from .incremental import Session, judge_pages, output_matches, output_unchanged, record_manifest, split_for_writing
from .output import check_output_target, copy_plan, write_site
from .progress import Progress
from .publish import BASE_URL_NOTE, export_files, indexable_pages, is_indexable, sitemap_files
from .render import build_site_data, make_environment, render_site
from .search import build_search_files
from .timing import timed
from .tracking import site_summary

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class BuildOptions:
    content: Path
    config: Path
    out: Path
    base_url: str | None = None
    strict: bool = False
    templates: Path = PROJECT_ROOT / "templates"
    static: Path = PROJECT_ROOT / "static"
    lunr_js: Path = PROJECT_ROOT / "node_modules" / "lunr" / "lunr.js"
    clean: bool = False             # ignore the build cache (a fresh one is still written)
    jobs: int | None = None         # workers for per-page work; None: $PAPERSITE_JOBS, else one per core
    cache_dir: Path | None = None   # default: .papersite-cache/ beside the output directory


@dataclass(frozen=True)
class BuildResult:
    pages: int
    files: int
    warnings: tuple[Problem, ...]
    seconds: float
    # Facts about the build that are not defects in the input (no base_url): printed, never
    # errors under --strict.
    notes: tuple[Problem, ...] = ()
    rendered: int = 0               # pages rendered by this build ...
    reused: int = 0                 # ... and pages kept from the previous output
    timings: tuple[tuple[str, float], ...] = ()   # seconds per stage (bench/build.py)
    cache_note: str | None = None   # why the cache on disk was not used, when it was not


@dataclass
class WarmCache:
    """The cache the last build in this process saved: the dev server's next build starts from it
    instead of reading tens of megabytes back from disk."""

    cache: BuildCache | None = None


def build(options: BuildOptions, progress: Progress | None = None, warm: WarmCache | None = None) -> BuildResult:
    """Gather and check everything first; write only when the whole site rendered.

    `progress` shows the stage and pages rendered on a terminal (see progress.py).
    """
    with progress_.active(progress), collector_paused():
        return _build(options, warm)


@contextmanager
def collector_paused():
    """No cycle collection during a build. A build holds millions of objects (the cache, the
    site) and makes few cycles; each full collection walked them all, ~0.5 s of a 2.5 s edit
    rebuild at 5,000 papers, for ~10% less peak memory."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def input_version(options: BuildOptions, code: bytes, files: FileDigests) -> bytes:
    """Everything a build reads: the code, and every file of the content, config, templates and static files."""
    parts = [code, repr(options.base_url).encode()]
    for path in (options.content, options.config, options.templates, options.static, options.lunr_js):
        parts.append(tree_version(path, files=files))
    return digest(b"\0".join(parts))


def unchanged_result(options: BuildOptions, state: dict, inputs: bytes, out: Path, started: float) -> BuildResult | None:
    """When no input changed since the last build and its output is intact, that output is this
    build's: nothing is read beyond the inputs' bytes, nothing is written; its warnings are repeated."""
    if not state or state.get("input") != inputs or not output_matches(out, state.get("manifest", {})):
        return None
    warnings = tuple(state.get("warnings", ()))
    if options.strict and warnings:
        raise SiteError([Problem(w.path, w.line, f"{w.message} (an error under --strict)") for w in warnings])
    pages = state.get("page_count", 0)
    return BuildResult(pages, state.get("file_count", 0), warnings, time.perf_counter() - started, tuple(state.get("notes", ())),
                       rendered=0, reused=pages, timings=(("unchanged check", time.perf_counter() - started),))


def make_search_and_exports(site, cache_path: Path, code: bytes, read: bool) -> dict[str, str | bytes]:
    """The search index and the exports, with a build cache of their own that the worker making
    them reads and writes itself: it holds memoised results only (pure, so nothing in it has to
    agree with the main cache), and the build process is spared loading and saving it."""
    cache = BuildCache.open(cache_path, code, read=read)
    with cache.active():
        files = {**build_search_files(site), **export_files(site)}
    cache.save()
    return files


def _build(options: BuildOptions, warm: WarmCache | None) -> BuildResult:
    started = time.perf_counter()
    report = Report()
    check_output_target(options.out, [options.content, options.config.parent, options.templates, options.static, PROJECT_ROOT])
    try:
        config = load_config(options.config, options.base_url)
    except SiteError as err:
        report.absorb(err)
        config = None
    jobs = parallel.resolve_jobs(options.jobs)
    out = options.out.absolute()
    cache_path = default_cache_path(out, options.cache_dir)
    code = code_version()
    state = None if options.clean else read_sealed(state_path(cache_path), code)[0]
    sources = FileDigests(state.get("files") if state else None)
    inputs = input_version(options, code, sources)
    if state and not report.errors:
        unchanged = unchanged_result(options, state, inputs, out, started)
        if unchanged is not None:
            if warm is not None and warm.cache is None:   # the dev server's first build: its next one starts warm
                warm.cache = BuildCache.open(cache_path, code)
            return unchanged
    kept = BuildCache.reopen(warm.cache, cache_path, code) if warm and warm.cache and not options.clean else None
    cache = kept or BuildCache.open(cache_path, code, read=not options.clean)
    with cache.active(), timing.recording() as timings:
        progress_.stage("reading content")
        with timed("content"):
            papers, taxonomy = load_content(options.content, report, cache, sources)
        if not options.lunr_js.is_file():
            report.error(str(options.lunr_js), None, "lunr.js is missing: run `npm ci` in the project first")
        report.raise_errors()
        env = make_environment(options.templates, None if options.clean else templates_path(cache_path))
        progress_.stage(f"preparing {len(papers)} papers")
        pages = read_papers(papers, report, cache, jobs)
        # Search and the exports read the papers' text, not their related papers or the pages:
        # a worker makes them while related papers are ranked and the pages render.
        early = build_site_data(config, pages, taxonomy, layout_map=False)
        side = search_exports_path(cache_path)
        background = parallel.Background(lambda: make_search_and_exports(early, side, code, not options.clean), jobs)
        try:
            related = relate_papers(pages)
            with timed("site data"):
                site = build_site_data(config, pages, taxonomy, related)
            # What every page shows (config, tags and their counts: the sidebar) is part of every page's key.
            session = Session(cache, out, site, fingerprint,
                              digest(cache.code + tree_version(options.templates, files=sources) + fingerprint(site_summary(site))))
            digests = session.digests
            progress_.stage("rendering pages")
            with timed("render"):
                files: dict = dict(render_site(env, site, jobs, session))
            progress_.stage("writing the sitemap")
            with timed("sitemap"):
                files.update(sitemap_files(site, indexable_pages(judge_pages(session, files, is_indexable, "indexable"))))
            progress_.stage("building the search index and exports")
            with timed("search and exports (waiting)"):
                files.update(background.result())
        finally:
            background.cancel()
        notes = () if config.base_url else (Problem(str(options.config), None, BASE_URL_NOTE),)
        if options.strict and report.warnings:
            raise SiteError([Problem(w.path, w.line, f"{w.message} (an error under --strict)") for w in report.warnings])
        report.raise_errors()
        generated = len(files)
        html_pages = sum(1 for name in files if name.endswith(".html"))
        progress_.stage(f"writing {len(files)} files")
        with timed("write"):
            # Static files go through the same check as pages: linked when unchanged on disk.
            for rel, source in copy_plan([(options.static, urls.ASSETS), (options.lunr_js, urls.LUNR_JS)]).items():
                data = source.read_bytes()
                kept = session.on_disk(rel)
                files[rel] = kept if kept is not None and kept.digest == digests.of({rel: data})[rel] else data
            if output_unchanged(session, files, digests):
                for path in files:
                    cache.put("manifest", path, session.manifest[path])
            else:
                write, link = split_for_writing(files, out)
                copied = write_site(out, write, [], reuse=link)
                record_manifest(cache, out, files, digests, session.manifest, copied)
        with timed("cache"):
            # An input edited while this build ran may or may not be in its output: record no input version then.
            edited_meanwhile = input_version(options, code, FileDigests(sources.seen)) != inputs
            cache.save(input=None if edited_meanwhile else inputs, files=sources.seen, warnings=tuple(report.warnings),
                       notes=notes, page_count=html_pages, file_count=generated)
            if warm is not None:
                warm.cache = cache
    return BuildResult(html_pages, generated, tuple(report.warnings), time.perf_counter() - started, notes,
                       rendered=session.rendered, reused=session.reused, timings=tuple(timings.items()),
                       cache_note=cache.problem)
