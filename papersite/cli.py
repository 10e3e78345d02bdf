"""Command line: `python build.py [build|import|serve] ...`. User mistakes print path:line: message, never a traceback."""

from __future__ import annotations

import argparse
import difflib
import logging
import sys
from pathlib import Path

from .errors import LISTED_OF_A_KIND, Report, SiteError, in_line_order, problem_line, warning_lines
from .ingest.formats import FORMAT_LABELS
from .inputs.values import year_problem
from .output import InterruptedAfterCommit
from .pipeline import BuildOptions, build
from .progress import Progress
from .workers import parse_jobs

COMMANDS = ("build", "import", "serve")
# The dev server builds a site of its own: its pages name the local server as their address
# (canonical links, sitemap, feed), which site/, the one published, must never do.
BUILD_OUT = Path("site")
SERVE_OUT = Path(".papersite-serve") / "site"

BUILD_EXAMPLES = """examples:
  python build.py                                   build content/ into site/
  python build.py build --base-url https://me.github.io/papers/
  python build.py build --content other/ --out /tmp/site --strict
"""
SERVE_EXAMPLES = """examples:
  python build.py serve                             build, then serve on http://127.0.0.1:8000/
  python build.py serve --port 0                    any free port (printed)
  python build.py serve --content other/ --out /tmp/site
"""
IMPORT_EXAMPLES = """examples:
  python build.py import content/sources/neurips2025-abstracts.txt
  python build.py import library.bib                  BibTeX with abstracts: Zotero, JabRef, the ACL Anthology
  python build.py import accepted.csv --venue ICML --year 2024
  python build.py import notes.json                   OpenReview API notes (v1 or v2)
  python build.py import query.xml                    an arXiv API Atom feed
  python build.py import arxiv-metadata.json          arXiv's metadata snapshot
  python build.py import papers.jsonl --update        refresh pages nobody has edited since their import
  python build.py import export.txt --format bibtex   a format the extension does not tell
"""


def port_number(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535; 0 picks a free one)")
    return int(text)


def worker_count(text: str) -> int:
    try:
        return parse_jobs(text)
    except ValueError as exc:   # argparse shows an ArgumentTypeError's own words
        raise argparse.ArgumentTypeError(str(exc)) from None


def flag_year(text: str) -> int:
    year = int(text) if text.lstrip("-").isdigit() else text
    if (problem := year_problem(year)) is not None:
        raise argparse.ArgumentTypeError(f"must be {problem}")
    return year


def make_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser, and each command's own (which reports its options' mistakes with its own usage)."""
    parser = argparse.ArgumentParser(
        prog="build.py", description="papersite: research-paper abstracts in, a static reading site out.",
        epilog="Run `python build.py COMMAND --help` for a command's options. With no command, `build` runs.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    build_parser = commands.add_parser(
        "build", help="build the site from content/ into site/", epilog=BUILD_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read content/, templates/, static/ and site.yml; write the site to --out, replacing it only when the build succeeds.",
    )
    add_build_options(build_parser, BUILD_OUT)
    serve_parser = commands.add_parser(
        "serve", help="build, serve on localhost, rebuild on every change", epilog=SERVE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Build into --out (by default .papersite-serve/site, not the site/ you publish) and serve it on 127.0.0.1. Edits to the content, templates, static files or "
                    "config rebuild the site (in under 2 seconds for an abstract at 5,000 papers) and reload the open page; a failed rebuild "
                    "prints its errors and the last good site stays up. Without --base-url the server's own address "
                    "is the base URL. Ctrl-C stops.",
    )
    add_build_options(serve_parser, SERVE_OUT)
    serve_parser.add_argument("--port", type=port_number, default=8000, help="port on 127.0.0.1 (default: 8000; 0 picks a free one)")
    import_parser = commands.add_parser(
        "import", help="turn a raw abstracts file into content/papers/*.md pages", epilog=IMPORT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Import abstracts from plain text (a heading line, then one abstract per paragraph), JSON Lines, BibTeX, "
                    "CSV or TSV, OpenReview API notes, an arXiv API Atom feed or arXiv's metadata snapshot; the format is "
                    "told by the extension and content, or by --format. A paper already imported (the same id, DOI, arXiv id, "
                    "OpenReview id, or title and first author) is skipped, unless --force or --update.",
    )
    import_parser.add_argument("source", type=Path, help="the file to import")
    import_parser.add_argument("--content", type=Path, default=Path("content"), help="content directory (default: content)")
    import_parser.add_argument("--format", choices=tuple(FORMAT_LABELS), help="read the source as this format")
    again = import_parser.add_mutually_exclusive_group()
    again.add_argument("--force", action="store_true", help="overwrite pages that already exist, edited or not (their ids and slugs are kept)")
    again.add_argument("--update", action="store_true",
                       help="refresh the abstract, authors, venue, year and links of pages not edited since their import; list the others as kept")
    import_parser.add_argument("--venue", help="venue for records that name none (and for arXiv's, instead of 'arXiv')")
    import_parser.add_argument("--year", type=flag_year, help="year for records that name none")
    return parser, {"build": build_parser, "serve": serve_parser, "import": import_parser}


def add_build_options(parser: argparse.ArgumentParser, out: Path) -> None:
    parser.add_argument("--content", type=Path, default=Path("content"), help="content directory (default: content)")
    parser.add_argument("--config", type=Path, default=Path("site.yml"), help="site config file (default: site.yml)")
    parser.add_argument("--out", type=Path, default=out, help=f"output directory (default: {out})")
    parser.add_argument("--base-url", help="absolute URL the site is served from; enables sitemap, feed and canonical links")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument("--all-warnings", action="store_true",
                        help=f"list every warning (by default, of a kind a note sums up, such as unknown LaTeX commands, the first {LISTED_OF_A_KIND})")
    parser.add_argument("--clean", action="store_true",
                        help="ignore the build cache and render everything (a fresh cache is still written)")
    parser.add_argument("--jobs", type=worker_count, metavar="N",
                        help="worker processes for per-page work (default: $PAPERSITE_JOBS, else one per core; 1: none)")
    parser.add_argument("--cache-dir", type=Path, metavar="DIR",
                        help="where the build cache lives (default: .papersite-cache/ beside the output directory)")
    parser.add_argument("--templates", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--static", type=Path, help=argparse.SUPPRESS)


def build_options(args: argparse.Namespace) -> BuildOptions:
    extra = {key: value for key in ("templates", "static", "jobs", "cache_dir") if (value := getattr(args, key, None)) is not None}
    return BuildOptions(content=args.content, config=args.config, out=args.out,
                        base_url=args.base_url, strict=args.strict, clean=getattr(args, "clean", False), **extra)


def print_problems(problems, kind: str = "error") -> None:
    """Each file's problems in the order of its lines, as a compiler lists them."""
    for problem in in_line_order(problems):
        print(problem_line(problem, kind), file=sys.stderr)


def run_build(args: argparse.Namespace, keep: list | None = None) -> int:
    result = build(build_options(args), Progress(), on_wait=lambda: print(
        f"build: another build into {args.out} is running; waiting for it to finish", file=sys.stderr, flush=True),
        keep=keep)
    for line in warning_lines(result.warnings, args.all_warnings, "build", "the note below sums them up; "):
        print(line, file=sys.stderr)
    print_problems(result.notes, "note")
    done = f"up to date in {args.out}, nothing changed," if result.unchanged else f"written to {args.out}"
    print(f"build: {result.pages} pages ({result.files} files) {done} "
          f"with {len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''} in {result.seconds:.2f}s")
    return 0


def run_import(args: argparse.Namespace) -> int:
    """Warnings and the records that failed go to stderr as path:line; what was read, skipped and kept to stdout.
    Exit status 1 when a record failed, though the others were imported."""
    from .ingest.importer import import_source
    from .ingest.records import Defaults

    # bibtexparser logs every entry it cannot parse (with lines counted from 0); the import reports
    # each one itself, as path:line, so the library's own messages are not shown.
    library_log = logging.getLogger("bibtexparser")
    if not library_log.handlers:
        library_log.addHandler(logging.NullHandler())
    report = Report()
    mode = "force" if args.force else "update" if args.update else "new"
    try:
        summary = import_source(args.source, args.content, report, mode, Defaults(args.venue, args.year), args.format,
                                on_wait=lambda: print(f"import: another import into {args.content} is running; waiting for it to finish",
                                                      file=sys.stderr, flush=True))
    except SiteError:
        print_problems(report.warnings, "warning")
        raise
    print_problems(report.warnings, "warning")
    print_problems(report.errors)
    print(f"import: read {args.source} as {summary.source_label}")
    for note in summary.notes:
        print(note)
    print(summary.line())
    if report.errors:
        print(f"import: {summary.failed} record{'s' if summary.failed != 1 else ''} failed (above); the others were imported",
              file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None, keep: list | None = None) -> int:
    """`keep`: a build leaves its data there for a caller that exits without freeing it (pipeline.build)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, commands = make_parser()
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        close = difflib.get_close_matches(argv[0], COMMANDS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        parser.error(f"no command '{argv[0]}'{hint} (the commands: {', '.join(COMMANDS)})")
    if not argv or argv[0] not in (*COMMANDS, "-h", "--help"):
        argv.insert(0, "build")
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        if args.command == "import":
            return run_import(args)
        if args.command == "serve":
            from .dev.serve import run_serve

            return run_serve(build_options(args), args.port, explicit_base_url=args.base_url is not None,
                             all_warnings=args.all_warnings)
        return run_build(args, keep)
    except SiteError as err:
        print_problems(err.problems)
        count = len(err.problems)
        print(f"{args.command}: failed with {count} error{'s' if count != 1 else ''}; nothing was written", file=sys.stderr)
        return 1
    except InterruptedAfterCommit:
        print(f"{args.command}: interrupted once the new site was in place: {args.out} is the new site, whole "
              "(its cache was not saved: the next build checks the output)", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"{args.command}: interrupted; nothing was written", file=sys.stderr)
        return 130
    except OSError as exc:
        # What the file system refused where no stage said more (a folder that cannot be made,
        # say): the file and the reason, not a traceback. Each stage left what it had as it was.
        print(f"{exc.filename or args.command}: {exc.strerror or exc}", file=sys.stderr)
        print(f"{args.command}: failed; nothing was written", file=sys.stderr)
        return 1
