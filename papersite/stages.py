"""The build, top to bottom: inputs -> enrich -> render -> publish -> output, each stage's previous
state in and new state out. pipeline.py calls it once it knows some input changed."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from threadpoolctl import threadpool_limits

from . import urls
from .enrich.bibtex import bibtex_keys
from .enrich.listings import Site, list_site, paper_pages, with_authors
from .enrich.people import Person, start_identifying
from .enrich.projection import fresh_layout, project_2d, tsne_ahead
from .enrich.related import relate_papers
from .enrich.terms import page_texts, weigh_terms
from .enrich.texts import render_texts, unknown_commands_note
from .enrich.topicmap import layout_map
from .enrich.tsne import import_tsne
from .errors import Problem, Report
from .incremental.cache import BuildCache, WarmCache
from .incremental.reuse import PlacedFiles, PreviousOutput
from .incremental.store import Store
from .inputs.authors import load_people
from .inputs.papers import count_paper_files, load_content
from .memory import release_free_memory
from .model import SiteConfig, Taxonomy
from .options import BuildOptions, BuildResult, check_strict
from .output import InterruptedAfterCommit, Staging, copy_plan
from .progress import Progress, StageClock
from .publish.exports import export_files, paper_records
from .publish.feeds import BASE_URL_NOTE, feed_files, sitemap_files
from .publish.search import bibtex_scripts, build_search_files
from .render.jinja import Renderer, make_environment
from .render.plan import plan_pages, site_chrome
from .render.specs import Spec
from .workers import Background, Standby, resolve_jobs


def run_stages(options: BuildOptions, config: SiteConfig | None, report: Report, cache: BuildCache, staging: Staging,
               progress: Progress, warm: WarmCache | None, started: float, keep: list | None = None,
               on_commit: Callable[[], None] | None = None) -> BuildResult:
    """The whole build, into `staging`. A stage that keeps something for the next build is given what
    the last one kept (`cache.previous(name)`) and hands back its new state (`new[name]`)."""
    # One BLAS thread: the build spreads its work over processes, and one thread also fixes the
    # summation order, so the map's coordinates never depend on the core count.
    with threadpool_limits(limits=1, user_api="blas"):
        return run_all(options, config, report, cache, staging, progress, warm, started, keep, on_commit)


def run_all(options: BuildOptions, config: SiteConfig | None, report: Report, cache: BuildCache, staging: Staging,
            progress: Progress, warm: WarmCache | None, started: float, keep: list | None = None,
            on_commit: Callable[[], None] | None = None) -> BuildResult:
    clock, new = StageClock(), {}
    with clock("cache load"):
        cache.load(warm)
    jobs = resolve_jobs(options.jobs)
    with ExitStack() as running:   # the workers started below are stopped if the build ends early
        # A first build lays the map out afresh (t-SNE: seconds at a conference's size): its worker
        # is forked now, while this process holds little, and imports openTSNE, then waits for the
        # papers' vectors and lays the map out while this process ranks related papers. Forked
        # once the texts were made, it held 845 MB of its own at 100,000 papers: copies of the
        # pages of the build's memory that its imports and input landed in (bench/README.md).
        # A later build keeps the points.
        layout = (running.enter_context(Standby(import_tsne, fresh_layout, jobs))
                  if tsne_ahead(cache.previous("projection"), partial(count_paper_files, options.content)) else None)
        progress.stage("reading content")
        with clock("content"):
            papers, taxonomy, new["papers"] = load_content(options.content, report, cache.file_digests, cache.previous("papers"),
                                                             jobs, cache.learn_digest)
            people = load_people(options.content, papers, report)
            # A collection's authors read afresh are read in a worker while the abstracts are converted
            # on workers of their own (converted in this process meanwhile, their leftovers kept it
            # 150-250 MB larger to the end at 100,000 papers: bench/README.md).
            identifying = running.enter_context(start_identifying(papers, people, report, cache.previous("authors"), jobs))
        check_lunr_js(options, report)
        if report.errors:
            identifying.result(report)   # its problems too: every error is reported at once
        report.raise_errors()
        env = make_environment(options.templates, cache.templates_dir, read_bytecode=not options.clean)
        progress.stage(f"preparing {len(papers)} papers")
        with clock("markdown and math"):
            texts, new["texts"] = render_texts(papers, report, jobs, cache.previous("texts"), progress.tick, config.math_macros)
        with clock("content"):
            authorship, new["authors"] = identifying.result(report)
        report.raise_errors()
        with clock("listings and author pages"):
            site = list_site(config, taxonomy, paper_pages(papers, texts, authorship))
            keys = bibtex_keys(papers)
            # Search and the exports need the papers' texts and their people, not the author pages,
            # the related papers or the pages: a worker makes them meanwhile (and writes them), with
            # a cache of its own. It starts before the author pages are made: at 100,000 papers an
            # edit waited for it. It judges the previous output's files by the survey (BuildCache.survey,
            # long done by now at that size), not by a stat each: 46,000 at 100,000 papers.
            cache.survey()
            side = running.enter_context(Background(partial(publish_side_files, site, authorship.people, keys, staging,
                                                            cache.output, cache.worker_path, cache.code, not options.clean), jobs))
        with clock("related papers"):
            # A text is named by the digest of the title and abstract it was made from (PaperText.version).
            terms, new["terms"] = weigh_terms(page_texts(site.papers), cache.previous("terms"), [text.version for text in texts])
            # The map's layout needs only these vectors: it starts before the author pages are made,
            # so that the build waits less for it (bench/README.md).
            if layout is not None:
                layout.start(terms.vectors)
        with clock("listings and author pages"):
            site, new["author pages"] = with_authors(site, authorship, cache.previous("author pages"))
        with clock("related papers"):
            related, new["related"] = relate_papers(site.papers, terms, cache.previous("related"))
        with clock("topic map"):
            ids = [page.paper.id for page in site.papers]
            coordinates, new["projection"] = project_2d(terms, ids, cache.previous("projection"),
                                                        layout.result if layout is not None else None)
            topic_map = layout_map(site.papers, coordinates, taxonomy, terms)
        # Nothing reads the TF-IDF matrix after the map (120 MB at 100,000 papers), and the related
        # papers' and the map's temporaries are freed: handed back, before the pages render beside
        # the search worker (bench/README.md).
        del terms
        release_free_memory()
        with clock("page plan"):
            plan = plan_pages(site, keys, related, topic_map)
        progress.stage("rendering pages")
        with clock("render"):
            chrome = site_chrome(site)
            renderer = Renderer(env, chrome)
            new["pages"] = cache.render_pages(plan, renderer.render, staging, options.templates, chrome,
                                              jobs, progress.tick, alongside=side)
        progress.stage("building the search index and exports")
        with clock("search and exports (waiting)"):
            cache.add_written(*side.result())
    check_strict(options, tuple(report.warnings))
    notes = () if config.base_url else (Problem(str(options.config), None, BASE_URL_NOTE),)
    if (commands := unknown_commands_note(report.warnings)) is not None:
        notes += (Problem(str(options.config), None, commands),)
    progress.stage("writing")
    with clock("write"):
        static = static_files(options)
        sitemaps, new["sitemaps"] = sitemap_files(config, plan, cache.previous("sitemaps"))
        cache.write(staging, {**sitemaps, **static})
        cache.commit(staging)   # Ctrl-C meanwhile waits for the site to be in place (output.interrupts_held)
    try:
        if on_commit is not None:   # (pipeline.build)
            on_commit()
        files = len(cache.digests) - len(static)
        with clock("cache"):
            cache.save(new, tuple(report.warnings), notes, len(plan), files, warm)
    except KeyboardInterrupt:
        raise InterruptedAfterCommit from None   # the site is the new one; only its cache is not saved
    if keep is not None:   # (pipeline.build)
        keep.append(Built(taxonomy, site, plan, renderer.render, (papers, texts, related, topic_map, new)))
    return BuildResult(len(plan), files, tuple(report.warnings), time.perf_counter() - started, notes,
                       rendered=len(plan) - len(cache.kept), reused=len(cache.kept), timings=tuple(clock.seconds.items()),
                       cache_note=cache.problem)


@dataclass(frozen=True)
class Built:
    """What a build made, left in its caller's `keep` list (pipeline.build): the dev server previews
    an edited paper's page with its plan and renderer (dev/preview.py)."""

    taxonomy: Taxonomy
    site: Site
    plan: tuple[Spec, ...]
    render: Callable[[Spec], str]
    rest: tuple   # the rest of what it made, freed with it


def check_lunr_js(options: BuildOptions, report: Report) -> None:
    if not options.lunr_js.is_file():
        report.error(options.lunr_js, None, "lunr.js is missing: run `npm ci` in the project first")


def publish_side_files(site: Site, people: Sequence[Person], keys: dict[str, str], staging: Staging, previous: PreviousOutput,
                       path: Path, code: bytes, read: bool) -> tuple[dict[str, bytes], set[str]]:
    """The search files, the exports and the feeds, written into `staging` by the worker that makes
    them, with a cache of its own that it reads and writes itself (the build process is spared
    loading and saving it, and the files' bytes never travel back); their digests, and those the
    previous output holds byte for byte. Those are not written: they stay where they are, as kept
    pages do; a large site's search and exports are 100,000 files at anthology scale, of which an
    edit changes a few dozen.

    Each kind of file is placed as soon as it is made, and not held after: at 100,000 papers the
    search files, the exports and the reading list's BibTeX held together until the end were
    hundreds of megabytes of this worker's peak (bench/README.md)."""
    store = Store.open(path, code, read=read)
    placed = PlacedFiles(staging, previous)
    # The search state as states of the cache: its terms, a dict of each paper's counts, then
    # changes entry by entry in the cache's delta (nested, 95 MB went into it at each edit at
    # 100,000 papers).
    counted = placed.place(*build_search_files(site, {"terms": store.previous("search terms"),
                                                      "chunks": store.previous("search chunks"),
                                                      "shards": store.previous("search shards")}))
    release_free_memory()   # the index's temporaries: 300 MB at 100,000 papers, else held to the end
    # The papers' records after the index, in what it freed: made first, they were held through it.
    records, record_memo = paper_records(site, keys, store.previous("records"))
    file_memo = {}
    for files, memo in export_files(site, people, records, keys, store.previous("exports")):
        file_memo.update(placed.place(files, memo))
    part_memo = placed.place(*bibtex_scripts([page.paper.slug for page in site.papers], records.entries,
                                             changed=records.changed, previous=store.previous("bibtex")))
    feed_memo = placed.place(*feed_files(site, store.previous("feeds")))
    store.save({"records": record_memo, "search terms": counted["terms"], "search chunks": counted["chunks"],
                "search shards": counted["shards"], "exports": file_memo, "bibtex": part_memo, "feeds": feed_memo}, {})
    return placed.digests, placed.unchanged


def static_files(options: BuildOptions) -> dict[str, bytes]:
    """Our CSS and JavaScript, and lunr.js from node_modules."""
    plan = copy_plan([(options.static, urls.ASSETS), (options.lunr_js, urls.LUNR_JS)])
    return {rel: source.read_bytes() for rel, source in plan.items()}


