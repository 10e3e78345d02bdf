"""The lists a site repeats most, made in Python for the templates: a paper's byline and topics, and an
author's papers, co-authors, venues and topics. A Jinja loop spends ~5 us on each item (calls, escapes,
loop bookkeeping), and an anthology of 100,000 papers lists millions of them: 2.2 million
co-authors and 320,000 paper lines on the pages of its 43,000 authors of three papers or more,
which were most of its rendering time, and three names on each of the 50 cards of its 10,000
listing pages.

Templates reach these as `fragments.*` (a Jinja global). Every text is escaped here, as autoescape
would: names and link targets alike; a paper's title is its HTML, as `|safe` shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from markupsafe import Markup

from .. import urls
from ..enrich.authors import AuthorPaper, Tally
from ..enrich.people import Credit
from .escaping import escape_output as escape

if TYPE_CHECKING:
    from .plan import NavTag


def credit_links(credits: Sequence[Credit], url: Callable[[str], str], limit: int | None = None) -> Markup:
    """Author names, each a link to the author's page; with `limit`, that many and then "et al."."""
    shown = credits[:limit] if limit else credits
    parts = [f'<a href="{escape(url(urls.author_path(c.slug)))}">{escape(c.name)}</a>' if c.slug else escape(c.name)
             for c in shown]
    more = " et al." if limit and len(credits) > limit else ""
    return Markup(", ".join(parts) + more)


# A paper page shows the first BYLINE_SHOWN names of a byline longer than BYLINE_LONG, and the rest
# behind a disclosure: a collaboration's 71 names were 71 Tabs to pass, and a phone's first screen.
# The citation tags, JSON-LD and BibTeX keep every name.
BYLINE_LONG = 12
BYLINE_SHOWN = 10


def paper_byline(credits: Sequence[Credit], url: Callable[[str], str]) -> Markup:
    """A paper page's authors: every name as a link, the names after the first BYLINE_SHOWN of a
    long list in a `<details>` that says how many."""
    if len(credits) <= BYLINE_LONG:
        return Markup('<p class="paper-authors">') + credit_links(credits, url) + Markup("</p>")
    rest = credits[BYLINE_SHOWN:]
    return (Markup('<p class="paper-authors">') + credit_links(credits[:BYLINE_SHOWN], url)
            + Markup(f',&nbsp;…</p>\n<details class="more-authors"><summary>{len(rest)} more authors</summary>'
                     '<p class="paper-authors">') + credit_links(rest, url) + Markup("</p></details>"))


def tag_chips(slugs: Sequence[str], url: Callable[[str], str], tags: Mapping[str, NavTag]) -> Markup:
    """A paper's topics as chips, each a link to its topic's page (on its page and on each card of a
    listing: an include, with the context Jinja makes for it, cost more than the chips themselves)."""
    if not slugs:
        return Markup("")
    chips = "".join(f'<li><a class="chip" href="{escape(url(urls.tag_path(slug)))}">{escape(tags[slug].name)}</a></li>'
                    for slug in slugs)
    return Markup(f'<ul class="tag-chips" aria-label="Tags">\n{chips}</ul>\n')


def tally_links(tally: Iterable[Tally], path_of: Callable[[str], str], url: Callable[[str], str], counted: bool = True,
                tags: Mapping[str, NavTag] | None = None) -> Markup:
    """A count's items (co-authors, venues, topics), each a link to `path_of(slug)` and, when
    `counted`, followed by its number; with `tags` (a topics' count, which holds slugs only), an
    item's name is its tag's."""
    parts = []
    for slug, name, n in tally:
        shown = escape(tags[slug].name if tags is not None else name)
        link = f'<a href="{escape(url(path_of(slug)))}">{shown}</a>'
        parts.append(f"{link} ({n})" if counted else link)
    return Markup(", ".join(parts))


def author_paper_items(papers: Iterable[AuthorPaper], url: Callable[[str], str], tags: Mapping[str, NavTag],
                       linked: bool) -> Markup:
    """An author's papers of one year, an `<li>` each: the title as a link, then its venue and topics,
    themselves links when `linked` (the page of an author of one paper, which has no counts below)."""
    items = []
    for p in papers:
        if linked:
            about = f'<a href="{escape(url(urls.venue_path(p.venue_slug)))}">{escape(p.venue)}</a>' + "".join(
                f' · <a href="{escape(url(urls.tag_path(t)))}">{escape(tags[t].name)}</a>' for t in p.tags)
        else:
            about = escape(p.venue) + "".join(f" · {escape(tags[t].name)}" for t in p.tags)
        items.append(f'<li><a href="{escape(url(urls.paper_path(p.slug)))}">{p.title_html}</a><small>{about}</small></li>\n')
    return Markup("".join(items))
