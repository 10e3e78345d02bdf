"""The build, top to bottom: inputs -> enrich -> render -> publish -> output, each stage's previous state in and new state out."""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from threadpoolctl import threadpool_limits

from . import urls
from .digests import digest, fingerprint
from .enrich.bibtex import bibtex_keys
from .enrich.listings import Site, list_site, paper_pages
from .enrich.projection import project_2d
from .enrich.related import relate_papers
from .enrich.terms import page_texts, weigh_terms
from .enrich.texts import render_texts
from .enrich.topicmap import layout_map
from .errors import Problem, Report, SiteError
from .incremental.inputs import FileDigests, code_version, input_version, tree_version
from .incremental.reuse import (PreviousOutput, Reused, content_digest, kept_pages, output_manifest, page_keys,
                                record_pages, render_keyed, reuse_unchanged, split_for_writing)
from .incremental.store import Store, default_cache_path, read_sealed, state_path, templates_path, worker_path
from .inputs.config import load_config
from .inputs.papers import load_content
from .output import check_output_target, copy_plan, write_site
from .progress import Progress, StageClock
from .publish.exports import export_files, paper_records
from .publish.feeds import BASE_URL_NOTE, feed_files, sitemap_files
from .publish.search import build_search_files
from .render.jinja import Renderer, make_environment
from .render.plan import plan_pages, site_chrome
from .workers import Background, ordered_map, resolve_jobs

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

    store: Store | None = None


def build(options: BuildOptions, progress: Progress | None = None, warm: WarmCache | None = None) -> BuildResult:
    """Gather and check everything first; write only when the whole site rendered."""
    progress = progress or Progress(enabled=False)
    # One BLAS thread: the build spreads its work over processes, and one thread also fixes the
    # summation order, so the map's coordinates never depend on the core count.
    with collector_paused(), threadpool_limits(limits=1, user_api="blas"):
        try:
            return run_build(options, progress, warm)
        finally:
            progress.finish()


def run_build(options: BuildOptions, progress: Progress, warm: WarmCache | None) -> BuildResult:
    started, clock, report = time.perf_counter(), StageClock(), Report()
    check_output_target(options.out, [options.content, options.config.parent, options.templates, options.static, PROJECT_ROOT])
    try:
        config = load_config(options.config, options.base_url)
    except SiteError as err:   # reported with the content's problems, all together
        report.absorb(err)
    jobs, out, code = resolve_jobs(options.jobs), options.out.absolute(), code_version()
    cache_path = default_cache_path(out, options.cache_dir)
    last = {} if options.clean else read_sealed(state_path(cache_path), code)[0] or {}
    inputs = FileDigests(last.get("files"))
    version = input_version(input_paths(options), options.base_url, code, inputs)
    if not report.errors and last.get("input") == version and PreviousOutput(out, last.get("manifest")).holds_exactly(set(last["manifest"])):
        return unchanged_build(options, last, warm, cache_path, code, started)
    cache = open_cache(warm, cache_path, code, options.clean)

    progress.stage("reading content")
    with clock("content"):
        papers, taxonomy, papers_memo = load_content(options.content, report, inputs.done, cache.previous("papers"))
    if not options.lunr_js.is_file():
        report.error(options.lunr_js, None, "lunr.js is missing: run `npm ci` in the project first")
    report.raise_errors()
    env = make_environment(options.templates, None if options.clean else templates_path(cache_path))
    progress.stage(f"preparing {len(papers)} papers")
    with clock("markdown and math"):
        texts, texts_memo = render_texts(papers, report, jobs, cache.previous("texts"), progress.tick)
    site = list_site(config, taxonomy, paper_pages(papers, texts))
    keys = bibtex_keys(papers)
    # Search and the exports read the papers' texts, not their related papers or the pages:
    # a worker makes them while related papers are ranked and the pages render.
    side = Background(partial(publish_search_and_exports, site, keys, worker_path(cache_path), code, not options.clean), jobs)
    try:
        with clock("related papers"):
            terms, counts = weigh_terms(page_texts(site.papers), cache.previous("terms"))
            related, ranking = relate_papers(site.papers, terms, cache.previous("related"))
        with clock("topic map"):
            coordinates, projection = project_2d(terms, cache.previous("projection"))
            topic_map = layout_map(site.papers, coordinates, taxonomy)
        plan = plan_pages(site, keys, related, topic_map)
        progress.stage("rendering pages")
        with clock("render"):
            previous = PreviousOutput(out, cache.small.get("manifest"))
            shared = digest(code + tree_version(options.templates, files=inputs) + fingerprint(site_chrome(site)))
            pages, digests, records = render_pages(Renderer(env, site_chrome(site)), plan, shared, cache.previous("pages"),
                                                   previous, jobs, progress)
        files = {**pages, **sitemap_files(config, plan)}
        progress.stage("building the search index and exports")
        with clock("search and exports (waiting)"):
            files.update(side.result())
    finally:
        side.cancel()
    notes = () if config.base_url else (Problem(str(options.config), None, BASE_URL_NOTE),)
    check_strict(options, tuple(report.warnings))
    html_pages, generated = sum(1 for name in files if name.endswith(".html")), len(files)

    progress.stage(f"writing {len(files)} files")
    with clock("write"):
        files.update(static_files(options))
        digests.update((path, content_digest(value)) for path, value in files.items() if path not in digests)
        files = reuse_unchanged(files, previous, digests)
        manifest = write_output(out, files, digests, previous)
    with clock("cache"):
        # An input edited while this build ran may or may not be in its output: record no input version then.
        edited_meanwhile = input_version(input_paths(options), options.base_url, code, FileDigests(inputs.seen)) != version
        cache.save({"papers": papers_memo, "texts": texts_memo, "terms": counts, "related": ranking,
                    "projection": projection, "pages": records},
                   {"input": None if edited_meanwhile else version, "files": inputs.seen, "manifest": manifest,
                    "warnings": tuple(report.warnings), "notes": notes, "page_count": html_pages, "file_count": generated})
        if warm is not None:
            warm.store = cache
    rendered = sum(1 for value in pages.values() if not isinstance(value, Reused))
    return BuildResult(html_pages, generated, tuple(report.warnings), time.perf_counter() - started, notes,
                       rendered=rendered, reused=len(pages) - rendered, timings=tuple(clock.seconds.items()),
                       cache_note=cache.problem)


def input_paths(options: BuildOptions) -> list[Path]:
    """Everything a build reads."""
    return [options.content, options.config, options.templates, options.static, options.lunr_js]


def open_cache(warm: WarmCache | None, path: Path, code: bytes, clean: bool) -> Store:
    """The previous build's states: the dev server's copy in memory when it is still what is on disk, else the files."""
    kept = Store.reopen(warm.store, path, code) if warm is not None and warm.store is not None and not clean else None
    return kept or Store.open(path, code, read=not clean)


def unchanged_build(options: BuildOptions, last: dict, warm: WarmCache | None, path: Path, code: bytes, started: float) -> BuildResult:
    """No input changed since the last build and its output is intact: that output is this build's.
    Nothing is read beyond the inputs' bytes, nothing is written; its warnings are repeated."""
    warnings = tuple(last.get("warnings", ()))
    check_strict(options, warnings)
    if warm is not None and warm.store is None:   # the dev server's first build: its next one starts warm
        warm.store = Store.open(path, code)
    pages = last.get("page_count", 0)
    return BuildResult(pages, last.get("file_count", 0), warnings, time.perf_counter() - started, tuple(last.get("notes", ())),
                       rendered=0, reused=pages, timings=(("unchanged check", time.perf_counter() - started),))


def check_strict(options: BuildOptions, warnings: tuple[Problem, ...]) -> None:
    if options.strict and warnings:
        raise SiteError([Problem(w.path, w.line, f"{w.message} (an error under --strict)") for w in warnings])


def render_pages(renderer: Renderer, plan, shared: bytes, records, previous: PreviousOutput, jobs: int,
                 progress: Progress) -> tuple[dict, dict[str, bytes], dict]:
    """{path: HTML, or Reused for a page the previous output already holds}, the digest of each, and the page records."""
    paths = [spec.path for spec in plan]
    keys = page_keys(plan, shared)
    kept = kept_pages(paths, keys, records, previous)
    todo = [spec for spec in plan if spec.path not in kept]
    made = ordered_map(partial(render_keyed, renderer.render), todo, jobs, on_progress=progress.tick)
    pages = {spec.path: html for spec, (html, _) in zip(todo, made)}
    digests = {spec.path: made_digest for spec, (_, made_digest) in zip(todo, made)}
    pages.update(kept)
    digests.update((path, found.digest) for path, found in kept.items())
    return {path: pages[path] for path in paths}, digests, record_pages(paths, keys, digests, records)


def publish_search_and_exports(site: Site, keys: dict[str, str], path: Path, code: bytes, read: bool) -> dict[str, str | bytes]:
    """The search files, the exports and the feeds, with a cache of their own that the worker making
    them reads and writes itself (the build process is spared loading and saving it)."""
    store = Store.open(path, code, read=read)
    entries, lines, records = paper_records(site, keys, store.previous("records"))
    search, counted = build_search_files(site, entries, store.previous("search"))
    store.save({"records": records, "search": counted}, {})
    return {**search, **export_files(site, entries, lines), **feed_files(site)}


def static_files(options: BuildOptions) -> dict[str, bytes]:
    """Our CSS and JavaScript, and lunr.js from node_modules."""
    plan = copy_plan([(options.static, urls.ASSETS), (options.lunr_js, urls.LUNR_JS)])
    return {rel: source.read_bytes() for rel, source in plan.items()}


def write_output(out: Path, files: dict, digests: dict[str, bytes], previous: PreviousOutput) -> dict:
    """Write the new output beside `out` and swap it in, unless the output already is exactly these
    files; the manifest of what is on disk now."""
    if all(isinstance(value, Reused) for value in files.values()) and previous.holds_exactly(set(files)):
        return dict(previous.manifest)
    write, link = split_for_writing(files, out)
    copied = write_site(out, write, [], reuse=link)
    return output_manifest(out, files, digests, previous.manifest, copied)


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
