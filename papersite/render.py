"""Stage 4: the enriched site through Jinja templates (autoescape on) into HTML pages.

Rendering only reads the SiteData built before it; each page gets its own context.
"""

from __future__ import annotations

import itertools
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path

import jinja2
from markupsafe import Markup

from . import citation, notfound, parallel, progress, tracking, urls
from .cache import digest
from .enrich import PaperPage, RelatedList
from .errors import Problem, SiteError
from .markup import is_safe_url
from .model import SiteConfig, Tag, Taxonomy
from .incremental import PageJob, Reused, Session, content_digest
from .topicmap import TopicMap, build_topic_map, tag_bars, topic_parts
from .tracking import recording, track, tracked


@dataclass(frozen=True)
class TagListing:
    tag: Tag
    papers: tuple[PaperPage, ...]


@dataclass(frozen=True)
class SiteData:
    """Everything the templates may show, gathered before anything is written."""

    config: SiteConfig
    papers: tuple[PaperPage, ...]
    tags: tuple[TagListing, ...]          # taxonomy order, every tag (empty ones too)
    topic_map: TopicMap | None = None     # laid out once per build (topicmap.py); None draws no map
    related: tuple[RelatedList, ...] = ()   # each paper's, in `papers` order; () before they are ranked

    @cached_property
    def tags_by_slug(self) -> dict[str, Tag]:
        return {listing.tag.slug: listing.tag for listing in self.tags}

    def tag(self, slug: str) -> Tag:
        """Called for every tag chip of every listing: a dict, not a scan of the taxonomy."""
        return self.tags_by_slug[slug]


@dataclass(frozen=True)
class Page:
    path: str
    kind: str              # home, paper, tag, tags, search, map, reading-list, 404, redirect
    title: str             # plain text for <title> and previews
    description: str
    breadcrumbs: tuple[tuple[str, str | None], ...] = ()
    # A digest of what the page was made from, when that is one paper (cache.Fingerprinter's shortcut).
    source_key: bytes = field(default=b"", compare=False, repr=False)


@dataclass(frozen=True)
class Pagination:
    number: int
    count: int
    paths: tuple[str, ...]

    @property
    def prev_path(self) -> str | None:
        return self.paths[self.number - 2] if self.number > 1 else None

    @property
    def next_path(self) -> str | None:
        return self.paths[self.number] if self.number < self.count else None


def build_site_data(config: SiteConfig, papers: list[PaperPage], taxonomy: Taxonomy,
                    related: tuple[RelatedList, ...] = (), layout_map: bool = True) -> SiteData:
    by_tag: dict[str, list[PaperPage]] = {t.slug: [] for t in taxonomy.tags}
    for page in papers:
        for slug in page.paper.tags:
            by_tag[slug].append(page)
    return SiteData(
        config=config,
        papers=tuple(papers),
        tags=tuple(TagListing(t, tuple(by_tag[t.slug])) for t in taxonomy.tags),
        topic_map=build_topic_map(papers, taxonomy) if layout_map else None,
        related=related,
    )


def make_environment(templates_dir: Path, bytecode_dir: Path | None = None) -> jinja2.Environment:
    """A Jinja environment with every template compiled, so syntax errors surface before any output.

    With `bytecode_dir`, compiled templates are kept there (Jinja checks each against its
    template's source) and the next build loads them instead of compiling again."""
    if not templates_dir.is_dir():
        raise SiteError.at(str(templates_dir), None, "templates directory not found")
    if bytecode_dir is not None:
        bytecode_dir.mkdir(parents=True, exist_ok=True)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        bytecode_cache=jinja2.FileSystemBytecodeCache(str(bytecode_dir)) if bytecode_dir is not None else None,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # one environment per build: no need to stat every template for every page
    )
    env.globals["urls"] = urls
    env.globals["cite"] = citation
    env.globals["cached"] = FragmentCache()
    env.tests["safe_url"] = is_safe_url
    env.filters["display_url"] = display_url
    problems = []
    for name in sorted(env.list_templates(extensions=["html", "xml", "txt"])):
        try:
            env.get_template(name)
        except jinja2.TemplateSyntaxError as exc:
            problems.append(Problem(str(templates_dir / name), exc.lineno, f"template syntax error: {exc.message}"))
    if problems:
        raise SiteError(problems)
    return env


class FragmentCache:
    """`{% call cached("name", key...) %}...{% endcall %}`: the block is rendered once per key and build.

    For parts every page repeats (the sidebar's topic list): the key must name everything the
    block reads except the site, e.g. the page's directory (via any relative url) and the
    current page where the block marks it. What the block reads of the site is noted again
    for each page that uses the cached copy (tracking.py), so incremental builds stay exact.
    """

    def __init__(self) -> None:
        self.blocks: dict[tuple, tuple[str, frozenset]] = {}
        self.site: object = None

    def clear(self) -> None:
        self.blocks.clear()

    def use_site(self, site) -> None:
        """Blocks are kept for one site: rendering another one starts afresh."""
        if site is not self.site:
            self.blocks.clear()
            self.site = site

    def __call__(self, *key, caller):
        hit = self.blocks.get(key)
        if hit is None:
            facets: set = set()
            with recording(facets):
                html = caller()
            hit = self.blocks[key] = (html, frozenset(facets))
        if tracking._recording is not None:
            tracking._recording.update(hit[1])
        return hit[0]


def display_url(url: str) -> str:
    """A link as people read it: no scheme, no trailing slash."""
    return url.split("://", 1)[-1].rstrip("/")


def paginate(items: tuple, per_page: int, path_of) -> list[tuple[Pagination, tuple]]:
    count = max(1, -(-len(items) // per_page))
    paths = tuple(path_of(n) for n in range(1, count + 1))
    return [(Pagination(n, count, paths), items[(n - 1) * per_page: n * per_page]) for n in range(1, count + 1)]


# Set while render_site collects its pages: render_page then returns a PageJob to run later.
_collecting: ContextVar[bool] = ContextVar("papersite_collecting_pages", default=False)


def render_page(env: jinja2.Environment, template: str, site: SiteData, page: Page, **context) -> str:
    """The HTML of one page. Inside `render_site` it returns a PageJob instead, which
    render_site renders (on every core, or not at all when the previous output has it):
    so the render_* functions must only put what this returns into their dict."""
    if _collecting.get():
        return PageJob(page.path, template, page, context, None)  # type: ignore[return-value]
    progress.tick()
    return render_template(env, template, site, page, context)


def render_template(env: jinja2.Environment, template: str, site: SiteData, page: Page, context: dict,
                    facets: set | None = None) -> str:
    """Render; with `facets`, the site is handed out through tracking proxies that note what is read."""
    config = site.config
    fragments = env.globals.get("cached")
    if isinstance(fragments, FragmentCache):
        fragments.use_site(site)
    if facets is not None:
        site = tracked(site)  # type: ignore[assignment]
        context = {name: track(value) for name, value in context.items()}
    try:
        with recording(facets):
            return env.get_template(template).render(
                site=site, config=config, page=page,
                url=urls.linker(page.path),
                root=urls.root_prefix(page.path),
                canonical=urls.absolute_url(config.base_url, page.path) if config.base_url else None,
                **context,
            )
    except jinja2.TemplateError as exc:
        raise SiteError.at(f"templates/{template}", getattr(exc, "lineno", None),
                           f"template error while rendering {page.path}: {exc}") from None


def render_site(env: jinja2.Environment, site: SiteData, jobs: int = 1, session: Session | None = None) -> dict[str, str]:
    """Every HTML page, keyed by output path.

    Pages render on `jobs` forked workers (parallel.py), in a fixed order, so the bytes do
    not depend on `jobs`. With an incremental `session`, a page whose inputs are unchanged
    maps to a `Reused` marker instead of its HTML (incremental.py).
    """
    fragments = env.globals.get("cached")
    if isinstance(fragments, FragmentCache):
        fragments.clear()  # a new site: nothing rendered for another one may be reused
    token = _collecting.set(True)
    try:
        files: dict = {}
        for render in (render_home, render_papers, render_tags, render_tag_index, render_search, render_map, render_reading_list, render_not_found, render_redirects):
            files.update(render(env, site))
    finally:
        _collecting.reset(token)
    # With nothing to reuse (a cold build), page keys are only recorded: the workers compute them.
    keys_in_workers = session is not None and not session.old_pages
    todo = []
    for path, job in files.items():
        if not isinstance(job, PageJob):
            continue
        if session is not None and not keys_in_workers:
            job.base = session.page_key(job.template, job.page, job.context)
            kept = session.reusable(job)
            if kept is not None:
                files[path] = kept
                session.keep_page_record(job)
                continue
        todo.append(job)
    results = parallel.ordered_map(partial(run_job, env, site, session, keys_in_workers), todo, jobs)
    for job, (html, facets, base, made) in zip(todo, results):
        files[job.path] = html
        if session is not None:
            if keys_in_workers:
                job.base = base
            session.digests[job.path] = made
            session.record_page(job, facets, html)
    if session is not None:
        session.rendered += len(todo)
        session.reused += sum(1 for value in files.values() if isinstance(value, Reused))
    return files


def run_job(env: jinja2.Environment, site: SiteData, session: Session | None, key_here: bool, job: PageJob):
    """(HTML, facets read, page key if asked for, digest of the bytes): the per-page work, in a worker."""
    if session is None:
        return render_template(env, job.template, site, job.page, job.context), None, None, None
    facets: set = set()
    html = render_template(env, job.template, site, job.page, job.context, facets)
    base = session.page_key(job.template, job.page, job.context) if key_here else None
    return html, frozenset(facets), base, content_digest(html)


def render_home(env, site: SiteData) -> dict[str, str]:
    files = {}
    for pagination, papers in paginate(site.papers, site.config.per_page, urls.home_path):
        path = pagination.paths[pagination.number - 1]
        title = site.config.title if pagination.number == 1 else f"{site.config.title} — page {pagination.number}"
        crumbs = () if pagination.number == 1 else (("Home", urls.HOME), (f"Page {pagination.number}", None))
        page = Page(path, "home", title, site.config.description, crumbs)
        files[path] = render_page(env, "home.html", site, page, papers=papers, pagination=pagination)
    return files


def render_papers(env, site: SiteData) -> dict[str, str]:
    files = {}
    for paper_page, related in zip(site.papers, site.related or itertools.repeat(RelatedList())):
        paper = paper_page.paper
        path = urls.paper_path(paper.slug)
        first_tag = site.tag(paper.tags[0]) if paper.tags else None
        crumbs = (("Home", urls.HOME),)
        if first_tag:
            crumbs += ((first_tag.name, urls.tag_path(first_tag.slug)),)
        # All of it comes from the paper (its first tag's name too: the taxonomy is in the paper's key).
        key = digest(b"paper page\0" + paper_page.source_key) if paper_page.source_key else b""
        page = Page(path, "paper", paper_page.title_text, paper_page.summary, crumbs + ((paper_page.title_text, None),), key)
        files[path] = render_page(env, "paper.html", site, page, item=paper_page, related=related)
    return files


def render_tags(env, site: SiteData) -> dict[str, str]:
    files = {}
    for listing in site.tags:
        if not listing.papers:
            continue  # no empty pages: the tag index lists the tag without a link
        for pagination, papers in paginate(listing.papers, site.config.per_page, partial(urls.tag_path, listing.tag.slug)):
            path = pagination.paths[pagination.number - 1]
            title = listing.tag.name if pagination.number == 1 else f"{listing.tag.name} — page {pagination.number}"
            crumbs = (("Home", urls.HOME), ("Tags", urls.TAG_INDEX), (listing.tag.name, None))
            page = Page(path, "tag", title, listing.tag.description, crumbs)
            files[path] = render_page(env, "tag.html", site, page, listing=listing, papers=papers, pagination=pagination)
    return files


def render_tag_index(env, site: SiteData) -> dict[str, str]:
    page = Page(urls.TAG_INDEX, "tags", "Tags", f"Every topic of {site.config.title}, with its number of papers.",
                (("Home", urls.HOME), ("Tags", None)))
    return {page.path: render_page(env, "tags.html", site, page, bars=tag_bars(site.tags))}


def render_search(env, site: SiteData) -> dict[str, str]:
    page = Page(urls.SEARCH, "search", "Search", f"Search the papers of {site.config.title}.",
                (("Home", urls.HOME), ("Search", None)))
    return {page.path: render_page(env, "search.html", site, page)}


def render_map(env, site: SiteData) -> dict[str, str]:
    """map.html; above MAP_PAGE_POINTS papers also each topic's own map, in parts where it is large (topicmap.py)."""
    page = Page(urls.MAP, "map", "Topic map", f"Every paper of {site.config.title} on one map, placed by abstract similarity.",
                (("Home", urls.HOME), ("Topic map", None)))
    files = {page.path: render_page(env, "map.html", site, page, group=None)}
    if site.topic_map is None or not site.topic_map.overview:
        return files
    topics = topic_parts(site.topic_map)
    for group in site.topic_map.groups:
        parts = topics[group.key]
        paths = tuple(urls.map_topic_path(group.key, n) for n in range(1, len(parts) + 1))
        for number, part in enumerate(parts, start=1):
            crumbs = (("Home", urls.HOME), ("Topic map", urls.MAP))
            crumbs += ((group.name, None),) if number == 1 else ((group.name, paths[0]), (f"Part {number}", None))
            title = f"Topic map: {group.name}" + ("" if number == 1 else f", part {number}")
            page = Page(paths[number - 1], "map", title,
                        f"The papers of {site.config.title} whose first topic is {group.name}, on the topic map.", crumbs)
            files[page.path] = render_page(env, "map.html", site, page, group=group, part=part,
                                           pagination=Pagination(number, len(parts), paths))
    return files


def render_reading_list(env, site: SiteData) -> dict[str, str]:
    page = Page(urls.READING_LIST, "reading-list", "Reading list",
                "The papers you saved, kept in this browser only.", (("Home", urls.HOME), ("Reading list", None)))
    return {page.path: render_page(env, "reading-list.html", site, page)}


def render_not_found(env, site: SiteData) -> dict[str, str]:
    page = Page(urls.NOT_FOUND, "404", "Page not found", "This page does not exist.")
    # Served at any depth: see notfound.py for how its links find the site root.
    return {page.path: render_page(env, "404.html", site, page, root_script=Markup(notfound.ROOT_SCRIPT),
                                   root_script_hash=notfound.script_hash(),
                                   base_origin=notfound.origin(site.config.base_url) if site.config.base_url else None)}


def render_redirects(env, site: SiteData) -> dict[str, str]:
    """Old slugs (aliases) keep working: each gets a page that forwards to the paper."""
    files = {}
    for paper_page in site.papers:
        for alias in paper_page.paper.aliases:
            path = urls.paper_path(alias)
            page = Page(path, "redirect", paper_page.title_text, f"This paper moved to {urls.paper_path(paper_page.paper.slug)}.")
            target = urls.paper_path(paper_page.paper.slug)
            files[path] = render_page(env, "redirect.html", site, page, item=paper_page, target=target,
                                      target_canonical=urls.absolute_url(site.config.base_url, target) if site.config.base_url else None)
    return files
