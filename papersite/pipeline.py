"""The build, top to bottom: config, content, enrich, render, search, write."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from . import urls
from .config import load_config
from .content import load_content
from .enrich import enrich_papers
from .errors import Problem, Report, SiteError
from .output import check_output_target, write_site
from .render import build_site_data, make_environment, render_site
from .search import build_search_files

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


@dataclass(frozen=True)
class BuildResult:
    pages: int
    files: int
    warnings: tuple[Problem, ...]
    seconds: float


def build(options: BuildOptions) -> BuildResult:
    """Gather and check everything first; write only when the whole site rendered."""
    started = time.perf_counter()
    report = Report()
    check_output_target(options.out, [options.content, options.config.parent, options.templates, options.static, PROJECT_ROOT])
    try:
        config = load_config(options.config, options.base_url)
    except SiteError as err:
        report.absorb(err)
        config = None
    papers, taxonomy = load_content(options.content, report)
    if not options.lunr_js.is_file():
        report.error(str(options.lunr_js), None, "lunr.js is missing: run `npm ci` in the project first")
    report.raise_errors()
    env = make_environment(options.templates)
    pages = enrich_papers(papers, report)
    site = build_site_data(config, pages, taxonomy)
    files: dict[str, str | bytes] = dict(render_site(env, site))
    files.update(build_search_files(site))
    if options.strict and report.warnings:
        raise SiteError([Problem(w.path, w.line, f"{w.message} (an error under --strict)") for w in report.warnings])
    report.raise_errors()
    write_site(options.out, files, [(options.static, urls.ASSETS), (options.lunr_js, urls.LUNR_JS)])
    html_pages = sum(1 for name in files if name.endswith(".html"))
    return BuildResult(html_pages, len(files), tuple(report.warnings), time.perf_counter() - started)
