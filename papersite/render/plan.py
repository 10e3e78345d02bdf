"""The page plan: every page of the site as a spec (path, template, context, kind, indexable), before any is rendered.

A page's template sees its spec's fields, its context and the site's chrome (`Chrome`: the config
and the topics) and nothing else: so the spec and the chrome are everything a page is made from,
and the sitemap is the plan's indexable pages.
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial

from markupsafe import Markup

from .. import urls
from ..digests import digest, fingerprint, leaf
from ..enrich.authors import IndexEntry, IndexLetter
from ..enrich.listings import PaperPage, Site, tag_bars
from ..enrich.related import RelatedList
from ..enrich.topicmap import TopicMap, topic_parts
from ..errors import Problem, SiteError
from ..model import SiteConfig, Tag
from . import notfound
from .pagination import Crumbs, Pagination, numbered_crumbs, paginate
from .specs import AUTHORS_CRUMBS, HOME_CRUMB, AuthorSpec, Download, EntryFile, PageSpec, PaperSpec, Spec


@dataclass(frozen=True)
class Recent:
    """The home page's news: the papers added on the latest day a page gives."""

    day: str                 # YYYY-MM-DD
    papers: tuple            # their page data (PaperPage), the first RECENT_SHOWN in site order
    count: int               # all the papers added that day


# The most papers the home page shows of the latest day's: a reading group adds a few a week.
RECENT_SHOWN = 10
# The most papers added.html lists, those added last: all of a reading group's or a lab's, an
# anthology's latest imports. Every dated paper of 100,000 was 2,000 pages and 61 MB that a
# reader would not page back through; the listing by year has them all.
ADDED_LISTED = 1000


@dataclass(frozen=True)
class AddedDay:
    """One day's papers on a page of added.html."""

    day: str                 # YYYY-MM-DD
    papers: tuple            # their page data (PaperPage), in site order
    continued: bool = False  # the day began on the page before


@dataclass(frozen=True)
class YearCount:
    year: int
    count: int
    percent: float = 100.0   # of the venue's largest year, for the chart


@dataclass(frozen=True)
class VenueSummary:
    """A venue as its page and the venue index show it: its years and their papers, no paper itself."""

    name: str
    slug: str
    count: int
    years: tuple[YearCount, ...]   # newest first


@dataclass(frozen=True)
class NavTag:
    """A topic as every page may show it: its name and its page. Its description is on its own page
    and the topic index, in their specs: in the chrome, which keys every page, an edit to it
    rendered every page again."""

    slug: str
    name: str
    used: bool             # some paper has it: the sidebar and the search's topic filter offer it


@dataclass(frozen=True)
class Chrome:
    """What pages show of the whole site besides their spec: the config and the topics. No count:
    every page is keyed by the chrome, and a count would change with any paper added or retagged
    (the pages that show counts have them in their specs: 19,649 pages at 5,000 papers were
    rendered again for one paper added, bench/README.md)."""

    config: SiteConfig
    tags: tuple[NavTag, ...]   # taxonomy order, every tag (unused ones too)
    author_bibtex_files: bool  # each author of several papers has a BibTeX file (urls.author_bibtex_files)

    @cached_property
    def tags_by_slug(self) -> dict[str, NavTag]:
        return {nav.slug: nav for nav in self.tags}

    def tag(self, slug: str) -> NavTag:
        """Called for each topic of every paper page's citation data: a dict, not a scan of the taxonomy."""
        return self.tags_by_slug[slug]


def site_chrome(site: Site) -> Chrome:
    return Chrome(site.config, tuple(NavTag(listing.tag.slug, listing.tag.name, bool(listing.papers)) for listing in site.tags),
                  urls.author_bibtex_files(len(site.papers)))


def plan_pages(site: Site, bibtex_keys: Mapping[str, str], related: Sequence[RelatedList],
               topic_map: TopicMap | None) -> tuple[Spec, ...]:
    """Every page of the site, in a fixed order; no two at one path."""
    latest = recently_added(site.papers)
    plan = (
        *plan_home(site, topic_map, latest),
        *plan_added(site, latest),
        *plan_papers(site, bibtex_keys, related),
        *plan_tags(site),
        plan_tag_index(site),
        *plan_authors(site),
        *plan_venues(site),
        plan_search(site),
        plan_downloads(site),
        *plan_maps(site, topic_map),
        plan_reading_list(),
        plan_not_found(site),
        *plan_redirects(site),
        *plan_author_redirects(site),
    )
    check_one_page_a_path(plan)
    return plan


def check_one_page_a_path(plan: Sequence[Spec]) -> None:
    """The inputs' checks keep every name apart (slugs from aliases, tags from `index`); should one
    ever be missed, the build stops here rather than let a page silently replace another."""
    # Counted in C: at 100,000 papers, 274,000 paths (a loop adding each to a set took 0.16 s).
    clashes = sorted(path for path, n in Counter(spec.path for spec in plan).items() if n > 1)
    if clashes:
        raise SiteError([Problem(path, None, "two pages of the site would be written here; rename one of them")
                         for path in clashes])


def listing_version(papers: Sequence, *made_from) -> bytes:
    """A listing page's version (PageSpec.version): its papers' page data's versions and `made_from`,
    the plain values the rest of its spec is made from (its pagination by number and count, which
    give its paths); none when a paper has none."""
    versions = tuple(page.version for page in papers)
    return leaf((versions, *made_from)) if all(versions) else b""


def plan_home(site: Site, topic_map: TopicMap | None, latest: Recent | None) -> list[PageSpec]:
    config = site.config
    files = tuple(downloads(site).values())
    # Every page shows the one set of files' links, or a link to the downloads page: not the
    # proceedings' counts, which a paper moved to another year changes (at 100,000 papers, 2,000 pages).
    shown_files = files if len(files) == 1 else ()
    paper_count, topic_count = len(site.papers), sum(1 for listing in site.tags if listing.papers)
    specs = []
    for pagination, papers in paginate(site.papers, config.per_page, urls.home_path):
        number = pagination.number
        title = config.title if number == 1 else f"{config.title} — page {number}"
        crumbs: Crumbs = () if number == 1 else (HOME_CRUMB, (f"Page {number}", None))
        # Only the first page shows the map and the latest papers: the others do not depend on them.
        shown = topic_map if number == 1 and topic_map is not None and topic_map.count else None
        recent = latest if number == 1 else None
        map_version = shown.version if shown is not None else None   # b"": a map without one, digested whole
        news = (recent.day, recent.count, tuple(p.version for p in recent.papers)) if recent is not None else None
        version = b"" if map_version == b"" or (news and not all(news[2])) else listing_version(
            papers, config.title, config.description, number, pagination.count, shown_files, map_version, news, paper_count, topic_count)
        specs.append(PageSpec(pagination.paths[number - 1], "home", "home.html", title, config.description, crumbs,
                              {"papers": papers, "pagination": pagination, "topic_map": shown, "downloads": files,
                               "recent": recent, "paper_count": paper_count, "topic_count": topic_count}, version=version))
    return specs


def recently_added(papers: Sequence) -> Recent | None:
    """The papers added on the latest day the pages give (`added`), when not every paper came that
    day: a site imported at once, a conference's, has no news."""
    latest = max((p.paper.added for p in papers), default="")
    if not latest:
        return None
    newest = [p for p in papers if p.paper.added == latest]
    if len(newest) == len(papers):
        return None
    return Recent(latest, tuple(newest[:RECENT_SHOWN]), len(newest))


def plan_added(site: Site, latest: Recent | None) -> list[PageSpec]:
    """added.html: the ADDED_LISTED papers added last, of those that give the day they were added,
    newest day first (a day's papers in site order), in pages of `per_page` with a heading per day.
    Made when the home page has news (`latest`), whose box links it: a site whose papers all came
    on one day has no such page."""
    if latest is None:
        return []
    config = site.config
    dated = tuple(sorted((page for page in site.papers if page.paper.added), key=lambda page: page.paper.added, reverse=True))
    undated = len(site.papers) - len(dated)
    dated, earlier = dated[:ADDED_LISTED], max(0, len(dated) - ADDED_LISTED)
    specs = []
    last_day = None   # of the page before
    for pagination, papers in paginate(dated, config.per_page, urls.added_path):
        number = pagination.number
        days = tuple(AddedDay(day, tuple(group), continued=day == last_day)
                     for day, group in itertools.groupby(papers, key=lambda page: page.paper.added))
        last_day = days[-1].day
        crumbs = numbered_crumbs((HOME_CRUMB,), "Recently added", number, pagination.paths[0])
        specs.append(PageSpec(pagination.paths[number - 1], "added", "added.html",
                              "Recently added" + ("" if number == 1 else f" — page {number}"),
                              f"The papers of {config.title} by the day they were added, newest first.", crumbs,
                              {"days": days, "count": len(dated), "earlier": earlier, "undated": undated, "pagination": pagination},
                              # The days and their papers follow from the papers' versions (`added` is the paper's);
                              # whether the first day goes on from the page before does not.
                              version=listing_version(papers, config.title, len(dated), earlier, undated, number,
                                                      pagination.count, days[0].continued)))
    return specs


def downloads(site: Site) -> dict[tuple[str, int] | None, Download]:
    """The exports publish/exports.py writes, as the pages link them: by (venue, year) when they are
    split per proceedings, else one set under None."""
    if not urls.exports_split(len(site.papers)):
        return {None: Download("Every paper", len(site.papers), urls.BIBTEX, urls.EXPORT_JSON)}
    return {(p.venue, p.year): Download(f"{p.venue} {p.year}", len(p.papers), urls.proceedings_export(p.venue_slug, p.year, "bib"),
                                        urls.proceedings_export(p.venue_slug, p.year, "json")) for p in site.proceedings}


def plan_downloads(site: Site) -> PageSpec:
    return PageSpec(urls.DOWNLOADS, "downloads", "downloads.html", "Downloads",
                    f"The papers of {site.config.title} as BibTeX and JSON.", (HOME_CRUMB, ("Downloads", None)),
                    {"downloads": tuple(downloads(site).values()), "split": urls.exports_split(len(site.papers))})


def plan_papers(site: Site, bibtex_keys: Mapping[str, str], related: Sequence[RelatedList]) -> list[PaperSpec]:
    venue_slugs = site.venue_slugs()
    # A paper page links the BibTeX file its entry is in: all papers', or its proceedings'.
    files = {key: EntryFile(file.label, file.bibtex) for key, file in downloads(site).items()}
    file_versions = {key: fingerprint(file) for key, file in files.items()}
    specs = []
    proceedings_crumbs: dict[tuple[str, int], Crumbs] = {}
    for item, links in zip(site.papers, related or [RelatedList()] * len(site.papers)):
        paper = item.paper
        venue = venue_slugs[paper.venue]
        above = proceedings_crumbs.get((venue, paper.year))
        if above is None:
            above = proceedings_crumbs[venue, paper.year] = (HOME_CRUMB, (paper.venue, urls.venue_path(venue)),
                                                             (str(paper.year), urls.proceedings_path(venue, paper.year)))
        file = (paper.venue, paper.year) if (paper.venue, paper.year) in files else None
        key = bibtex_keys[paper.slug]
        # Every field of the spec is the paper's page data's (its version), its related list's, or these.
        version = (leaf((item.version, links.version, key, venue, file_versions[file]))
                   if item.version and (links.version or not links.links) else b"")
        specs.append(paper_spec(item, links, key, venue, above, files[file], version))
    return specs


def paper_spec(item: PaperPage, links: RelatedList, bibtex_key: str, venue_slug: str, above: Crumbs,
               bibtex_file: EntryFile, version: bytes = b"") -> PaperSpec:
    """A paper's page: `above`, the crumbs to its proceedings; `bibtex_file`, the export its entry is in."""
    return PaperSpec(urls.paper_path(item.paper.slug), item, links, bibtex_key, venue_slug, above, bibtex_file, version)


def plan_tags(site: Site) -> list[PageSpec]:
    specs = []
    for listing in site.tags:
        if not listing.papers:
            continue  # no empty pages: the tag index lists the tag without a link
        tag = listing.tag
        for pagination, papers in paginate(listing.papers, site.config.per_page, partial(urls.tag_path, tag.slug)):
            title = tag.name if pagination.number == 1 else f"{tag.name} — page {pagination.number}"
            crumbs = (HOME_CRUMB, ("Tags", urls.TAG_INDEX), (tag.name, None))
            specs.append(PageSpec(pagination.paths[pagination.number - 1], "tag", "tag.html", title, tag.description, crumbs,
                                  {"tag": tag, "count": len(listing.papers), "papers": papers, "pagination": pagination},
                                  version=listing_version(papers, tag, len(listing.papers), pagination.number, pagination.count)))
    return specs


def plan_tag_index(site: Site) -> PageSpec:
    return PageSpec(urls.TAG_INDEX, "tags", "tags.html", "Tags", f"Every topic of {site.config.title}, with its number of papers.",
                    (HOME_CRUMB, ("Tags", None)), {"bars": tag_bars(site.tags), "topics": topic_counts(site)})


def topic_counts(site: Site) -> tuple[tuple[Tag, int], ...]:
    """Every topic with its number of papers, by name as Jinja's `sort` orders them (ignoring case)."""
    return tuple(sorted(((listing.tag, len(listing.papers)) for listing in site.tags), key=lambda item: item[0].name.lower()))


def plan_authors(site: Site) -> list[Spec]:
    """A page per author, the author index (its letters and the most prolific authors) and each
    letter's pages. An author page is given that author's data alone (enrich/authors.py). The index
    is made even when no paper names its authors: every page's footer links it."""
    title = site.config.title
    titled = fingerprint(title)
    # Every field of an author's spec is the author's page data's (its version) or the site's title.
    specs: list[Spec] = [AuthorSpec(urls.author_path(author.slug), author, title,
                                    digest(titled + author.version) if author.version else b"") for author in site.authors]
    letters = site.author_index
    nav = tuple((letter.letter, urls.author_letter_path(letter.letter), len(letter.entries)) for letter in letters)
    # The first few of 164,000 at 100,000 papers: not a sort of them all (0.2 s of an edit).
    prolific = heapq.nsmallest(TOP_AUTHORS, enumerate(site.authors), key=lambda item: (-item[1].count, item[0]))
    specs.append(PageSpec(urls.AUTHOR_INDEX, "authors", "authors.html", "Authors",
                          f"The {len(site.authors)} authors of {title}, from A to Z, with their numbers of papers.",
                          (HOME_CRUMB, ("Authors", None)),
                          {"letters": nav, "count": len(site.authors),
                           "prolific": tuple(IndexEntry(a.slug, a.name, a.count) for _, a in prolific)}))
    for letter in letters:
        label = letter_label(letter.letter)
        for pagination, entries in paginate(letter.entries, urls.AUTHORS_PER_PAGE, partial(urls.author_letter_path, letter.letter)):
            crumbs = numbered_crumbs(AUTHORS_CRUMBS, label, pagination.number, pagination.paths[0])
            specs.append(PageSpec(pagination.paths[pagination.number - 1], "authors", "author_letter.html",
                                  f"Authors: {label}" + ("" if pagination.number == 1 else f", page {pagination.number}"),
                                  f"The authors of {title} whose family names start with {label}.", crumbs,
                                  {"letter": label, "letters": nav, "count": len(letter.entries), "pagination": pagination,
                                   "letter_page": letter_page(letter, entries, pagination)}))
    return specs


def letter_page(letter: IndexLetter, entries: tuple[IndexEntry, ...], pagination: Pagination) -> IndexLetter:
    """One page of a letter's authors, versioned by its letter: a page's key does not digest its ~1,000 entries."""
    return IndexLetter(letter.letter, entries, version=fingerprint((letter.version, pagination)))


# How many of the most prolific authors the author index lists above its letters.
TOP_AUTHORS = 24


def letter_label(letter: str) -> str:
    return letter.upper() if len(letter) == 1 else "Other"


def plan_venues(site: Site) -> list[PageSpec]:
    """venues/index.html, a page per venue (its years at a glance) and per proceedings (its papers,
    as a table of contents, in pages of `per_page`)."""
    title = site.config.title
    summaries = tuple(venue_summary(venue) for venue in site.venues)
    specs = [PageSpec(urls.VENUE_INDEX, "venues", "venues.html", "Venues",
                      f"Every venue of {title}, with its years and their numbers of papers.",
                      (HOME_CRUMB, ("Venues", None)), {"venues": summaries})]
    for venue, summary in zip(site.venues, summaries):
        specs.append(PageSpec(urls.venue_path(venue.slug), "venue", "venue.html", venue.name,
                              f"The papers of {venue.name} in {title}, year by year.",
                              (HOME_CRUMB, ("Venues", urls.VENUE_INDEX), (venue.name, None)), {"venue": summary}))
        for proceedings in venue.proceedings:
            year = str(proceedings.year)
            count = len(proceedings.papers)
            for pagination, papers in paginate(proceedings.papers, site.config.per_page,
                                               partial(urls.proceedings_path, venue.slug, proceedings.year)):
                crumbs = numbered_crumbs((HOME_CRUMB, (venue.name, urls.venue_path(venue.slug))), year, pagination.number,
                                         pagination.paths[0])
                specs.append(PageSpec(pagination.paths[pagination.number - 1], "proceedings", "proceedings.html",
                                      f"{venue.name} {year}" + ("" if pagination.number == 1 else f" — page {pagination.number}"),
                                      f"The {count} papers of {venue.name} {year} in {title}.", crumbs,
                                      {"venue": venue.name, "venue_slug": venue.slug, "year": proceedings.year, "count": count,
                                       "papers": papers, "pagination": pagination},
                                      version=listing_version(papers, title, venue.name, venue.slug, proceedings.year, count,
                                                              pagination.number, pagination.count)))
    return specs


def venue_summary(venue) -> VenueSummary:
    counts = [(p.year, len(p.papers)) for p in venue.proceedings]
    largest = max(count for _, count in counts)
    return VenueSummary(venue.name, venue.slug, sum(count for _, count in counts),
                        tuple(YearCount(year, count, round(100.0 * count / largest, 2)) for year, count in counts))


def plan_search(site: Site) -> PageSpec:
    """search.html, whose filters offer each venue and each year (newest first)."""
    years = sorted({p.year for p in site.proceedings}, reverse=True)
    return PageSpec(urls.SEARCH, "search", "search.html", "Search", f"Search the papers of {site.config.title}.",
                    (HOME_CRUMB, ("Search", None)), {"venues": [v.name for v in site.venues], "years": years})


def plan_maps(site: Site, topic_map: TopicMap | None) -> list[PageSpec]:
    """map.html; above MAP_PAGE_POINTS papers also each topic's own map, in parts where it is large (topicmap.py)."""
    shown = topic_map if topic_map is not None and topic_map.count else None
    title = site.config.title
    specs = [PageSpec(urls.MAP, "map", "map.html", "Topic map",
                      f"Every paper of {title} on one map, placed by abstract similarity.",
                      (HOME_CRUMB, ("Topic map", None)), {"topic_map": shown, "group": None},
                      version=map_page_version(shown, title))]
    if topic_map is None or not topic_map.overview:
        return specs
    topics = topic_parts(topic_map)
    for group in topic_map.groups:
        parts = topics[group.key]
        paths = tuple(urls.map_topic_path(group.key, n) for n in range(1, len(parts) + 1))
        for number, part in enumerate(parts, start=1):
            crumbs = numbered_crumbs((HOME_CRUMB, ("Topic map", urls.MAP)), group.name, number, paths[0], "Part")
            heading = f"Topic map: {group.name}" + ("" if number == 1 else f", part {number}")
            specs.append(PageSpec(paths[number - 1], "map", "map.html", heading,
                                  f"The papers of {title} whose first topic is {group.name}, on the topic map.",
                                  crumbs, {"topic_map": shown, "group": group, "part": part,
                                           "pagination": Pagination(number, len(parts), paths)},
                                  version=map_page_version(shown, title, group.key, number)))
    return specs


def map_page_version(topic_map: TopicMap | None, *made_from) -> bytes:
    """A map page's version (PageSpec.version): the map's and `made_from`, the plain values the
    rest of its spec is made from (its group and part follow from the map and the group's key and
    the part's number); none without a map."""
    return leaf((topic_map.version, *made_from)) if topic_map is not None and topic_map.version else b""


def plan_reading_list() -> PageSpec:
    # The list is personal, but the page says what the reading list is, which a search engine may show:
    # indexable, like every page a reader can reach (a noindex page costs it Lighthouse's SEO audit).
    return PageSpec(urls.READING_LIST, "reading-list", "reading-list.html", "Reading list",
                    "The papers you saved, kept in this browser only.", (HOME_CRUMB, ("Reading list", None)))


def plan_not_found(site: Site) -> PageSpec:
    base_url = site.config.base_url
    # Served at any depth: see notfound.py for how its links find the site root.
    return PageSpec(urls.NOT_FOUND, "404", "404.html", "Page not found", "This page does not exist.",
                    context={"root_script": Markup(notfound.ROOT_SCRIPT), "root_script_hash": notfound.script_hash(),
                             "base_origin": notfound.origin(base_url) if base_url else None},
                    indexable=False)


def plan_redirects(site: Site) -> list[PageSpec]:
    """Old slugs (aliases) keep working: each gets a page that forwards to the paper."""
    base_url = site.config.base_url
    specs = []
    for item in site.papers:
        target = urls.paper_path(item.paper.slug)
        for alias in item.paper.aliases:
            specs.append(PageSpec(urls.paper_path(alias), "redirect", "redirect.html", item.title_text,
                                  f"This paper moved to {target}.",
                                  context={"heading": "This paper has moved", "label": item.title_text, "target": target,
                                           "target_canonical": urls.absolute_url(base_url, target) if base_url else None},
                                  indexable=False))
    return specs


def plan_author_redirects(site: Site) -> list[PageSpec]:
    """The old addresses of author pages (a merged name's, a renamed person's, `aliases`) forward to the page."""
    base_url = site.config.base_url
    specs = []
    for redirect in site.author_redirects:
        target = urls.author_path(redirect.slug)
        specs.append(PageSpec(urls.author_path(redirect.old), "redirect", "redirect.html", redirect.name,
                              f"This author page moved to {target}.",
                              context={"heading": "This author page has moved", "label": redirect.name, "target": target,
                                       "target_canonical": urls.absolute_url(base_url, target) if base_url else None},
                              indexable=False))
    return specs
