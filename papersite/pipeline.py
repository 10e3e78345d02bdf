"""The build's entry: one build at a time into an output, and the build that finds nothing
changed. A build with work to do runs the stages, top to bottom, in stages.py.

A build that finds nothing changed reads only the inputs' bytes and the cache's record of them,
and imports none of the stages: numpy, SciPy, Jinja and Markdown take about a second to import,
longer than such a build itself.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from .errors import Report, SiteError
from .incremental.cache import BuildCache, WarmCache
from .inputs.config import load_config
from .inputs.files import paper_pages_dir
from .model import SiteConfig
from .options import PROJECT_ROOT, BuildOptions, BuildResult, check_strict
from .output import Staging, build_lock, check_output_target, output_path, recover_output
from .progress import Progress
from .workers import resolve_jobs


def build(options: BuildOptions, progress: Progress | None = None, warm: WarmCache | None = None,
          on_wait: Callable[[], None] | None = None, keep: list | None = None,
          on_commit: Callable[[], None] | None = None) -> BuildResult:
    """Gather and check everything first; write only when the whole site rendered. One build at a
    time into one output: a second one waits (`on_wait()` hears of it) for the first to end.

    `keep`: a list the build leaves its data in (the cache, the site, its pages' plan), for a
    caller that frees them when it chooses: build.py never (it exits), the dev server once it is
    idle. Freeing a collection's millions of objects one by one is a noticeable share of an edit
    build (0.09 s of 1.9 s at 5,000 papers, 0.9 s at 100,000).

    `on_commit()` is called once the new site is in place, before the cache is saved (the dev
    server reloads its pages then: the save is 1–2 s at 100,000 papers); not by a build that
    finds nothing changed, nor by one that fails."""
    progress = progress or Progress(enabled=False)
    check_output_target(options.out, [options.config.parent, PROJECT_ROOT],
                        [options.content, options.templates, options.static, options.lunr_js.parent])
    options = replace(options, out=output_path(options.out))
    with build_lock(options.out, on_wait), collector_paused():
        try:
            recover_output(options.out)
            return run_build(options, progress, warm, keep, on_commit)
        finally:
            progress.finish()


def run_build(options: BuildOptions, progress: Progress, warm: WarmCache | None, keep: list | None = None,
              on_commit: Callable[[], None] | None = None) -> BuildResult:
    """The previous output when no input changed; else the whole build (stages.py)."""
    started, report = time.perf_counter(), Report()
    config = read_config(options, report)
    cache = BuildCache.for_output(options.out, options.cache_dir, input_paths(options), paper_pages_dir(options.content),
                                  options.base_url, options.clean, resolve_jobs(options.jobs))
    if keep is not None:
        keep.append(cache)
    try:
        if cache.unchanged() and not report.errors:
            return unchanged_build(options, cache, warm, started)
        # A worker is still surveying the previous output, on another core, while this process
        # imports the stages and runs them (bench/README.md).
        with Staging(options.out) as staging:
            from .stages import run_stages   # only now: see the module's docstring
            return run_stages(options, config, report, cache, staging, progress, warm, started, keep, on_commit)
    finally:
        cache.stop_survey()


def read_config(options: BuildOptions, report: Report) -> SiteConfig | None:
    """site.yml; its problems go into `report`, to be reported with the content's, all together."""
    try:
        return load_config(options.config, options.base_url)
    except SiteError as err:
        report.absorb(err)
        return None


def input_paths(options: BuildOptions) -> list[Path]:
    """Everything a build reads."""
    return [options.content, options.config, options.templates, options.static, options.lunr_js]


def unchanged_build(options: BuildOptions, cache: BuildCache, warm: WarmCache | None, started: float) -> BuildResult:
    """No input changed since the last build and its output is intact: that output is this build's.
    Nothing is read beyond the inputs' bytes, nothing is written; its warnings are repeated."""
    warnings, notes, pages, files = cache.last_result()
    check_strict(options, warnings)
    cache.keep_warm(warm)
    seconds = time.perf_counter() - started
    return BuildResult(pages, files, warnings, seconds, notes, rendered=0, reused=pages, timings=(("unchanged check", seconds),),
                       unchanged=True)


@contextmanager
def collector_paused():
    """No cycle collection during a build. A build holds millions of objects (the cache, the
    site) and makes few cycles; each full collection walked them all, a large share of an edit
    rebuild for little memory saved (bench/README.md). Those still alive at the end join the oldest
    generation: left in the youngest, the first collection after the build walked them all (0.9 s
    at 100,000 papers, before the dev server's page could reload)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()
