"""What a build is asked to do (`BuildOptions`) and what it reports (`BuildResult`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import Problem, SiteError

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
    unchanged: bool = False         # no input changed: the previous output stands, nothing was written


def check_strict(options: BuildOptions, warnings: tuple[Problem, ...]) -> None:
    if options.strict and warnings:
        raise SiteError([Problem(w.path, w.line, f"{w.message} (an error under --strict)") for w in warnings])
