"""Which parts of the whole site a page reads, recorded while it renders.

A paper page shows its own paper, but also the sidebar (every tag and its count) and its
BibTeX key (unique across all papers). To reuse a page from the previous build, the
build must know that nothing the page read has changed. Templates get `site` wrapped in
a `TrackedSite`, which hands out the same data and notes each part reached, as a *facet*:

| facet                       | what was read                              |
|-----------------------------|--------------------------------------------|
| `config`                    | the site config                            |
| `tags:meta`                 | the tags (slugs, names, descriptions), in order |
| `papers:count`, `papers:all`| how many papers; the papers themselves     |
| `tag:<slug>:count`, `:all`  | how many papers a tag has; those papers    |
| `site:<name>`               | any other site field (the topic map, ...)  |
| `derived:<table>:<key>`     | one entry of a table derived from the site (a paper's BibTeX key) |

`FacetValues` gives each facet's fingerprint for a site; a page is reused only when its
own inputs and every facet it read have the same fingerprints as last time. Reading more
than needed is safe (the page is rebuilt more often); reading something untracked is not
possible, because the only way to reach the site from a template is through the proxy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass
from typing import Callable

from .cache import DIGEST_SIZE, Unfingerprintable

_DERIVED: dict[str, Callable] = {}
_tables: dict[str, tuple[object, Mapping]] = {}


def derived(name: str):
    """Register `func(site) -> Mapping` as a table templates may read one entry at a time."""

    def register(func):
        _DERIVED[name] = func
        return func

    return register


def unwrap(site):
    return site._site if isinstance(site, TrackedSite) else site


def derived_table(site, name: str) -> Mapping:
    """The table `name` for this site, computed once per site; entries read are tracked."""
    real = unwrap(site)
    hit = _tables.get(name)
    if hit is None or hit[0] is not real:
        hit = (real, _DERIVED[name](real))
        _tables[name] = hit
    if isinstance(site, TrackedSite):
        return TrackedMapping(hit[1], site._facets, f"derived:{name}")
    return hit[1]


class TrackedSeq(Sequence):
    """A tuple that notes whether its length or its items were read."""

    __slots__ = ("_items", "_facets", "_name")

    def __init__(self, items: Sequence, facets: set, name: str):
        self._items, self._facets, self._name = items, facets, name

    def _all(self):
        self._facets.add(self._name + ":all")
        return self._items

    def __len__(self):
        self._facets.add(self._name + ":count")
        return len(self._items)

    def __getitem__(self, index):
        return self._all()[index]

    def __iter__(self):
        return iter(self._all())

    def __reversed__(self):
        return reversed(self._all())

    def __contains__(self, item):
        return item in self._all()

    def __eq__(self, other):
        return self._all() == (other._all() if isinstance(other, TrackedSeq) else other)

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other):
        return tuple(self._all()) + tuple(other)

    def __repr__(self):
        return repr(self._all())


class TrackedMapping(Mapping):
    __slots__ = ("_table", "_facets", "_name")

    def __init__(self, table: Mapping, facets: set, name: str):
        self._table, self._facets, self._name = table, facets, name

    def __getitem__(self, key):
        self._facets.add(f"{self._name}:{key}")
        return self._table[key]

    def __contains__(self, key):
        self._facets.add(f"{self._name}:{key}")
        return key in self._table

    def get(self, key, default=None):
        self._facets.add(f"{self._name}:{key}")
        return self._table.get(key, default)

    def __iter__(self):
        self._facets.add(f"{self._name}:*")
        return iter(self._table)

    def __len__(self):
        self._facets.add(f"{self._name}:*")
        return len(self._table)


class TrackedListing:
    """A TagListing: `tag` is free (the caller already depends on the tags), `papers` is tracked."""

    __slots__ = ("_listing", "_facets", "_slug")

    def __init__(self, listing, facets: set):
        self._listing, self._facets, self._slug = listing, facets, listing.tag.slug

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self._listing, name)
        if name == "tag":
            return value
        if name == "papers":
            return TrackedSeq(value, self._facets, f"tag:{self._slug}")
        self._facets.add(f"tag:{self._slug}:attr:{name}")
        return value

    def __repr__(self):
        self._facets.add(f"tag:{self._slug}:all")
        return repr(self._listing)


class TrackedSite:
    """SiteData as templates see it during an incremental build (see the module docstring)."""

    def __init__(self, site, facets: set):
        self._site = site
        self._facets = facets
        self._papers = TrackedSeq(site.papers, facets, "papers")
        self._tags = tuple(TrackedListing(listing, facets) for listing in site.tags)
        self._fields = {f.name for f in fields(site)} if is_dataclass(site) else set()

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        site = self._site
        if name == "papers":
            return self._papers
        if name == "tags":
            self._facets.add("tags:meta")
            return self._tags
        if name == "config":
            self._facets.add("config")
            return site.config
        if name not in self._fields:
            method = getattr(type(site), name, None)
            if callable(method) and hasattr(method, "__get__"):
                return method.__get__(self)  # runs against the proxy, so what it reads is tracked
        self._facets.add(f"site:{name}")
        return getattr(site, name)

    def __repr__(self):
        self._facets.add("site:*")
        return repr(self._site)


def track(value, facets: set):
    """What a template gets for one context value: listings are tracked, the rest is as is."""
    from .render import TagListing  # the data classes live with the renderer

    return TrackedListing(value, facets) if isinstance(value, TagListing) else value


class FacetValues:
    """Fingerprints of facets over one site, each computed once per build."""

    def __init__(self, site, fingerprint):
        self.site = site
        self.fp = fingerprint
        self.values: dict[str, bytes] = {}
        self.sets: dict[tuple[str, ...], bytes | None] = {}
        self._listings = {listing.tag.slug: listing for listing in site.tags}

    def value(self, name: str) -> bytes:
        found = self.values.get(name)
        if found is None:
            found = self.values[name] = self.fp(self.compute(name))
        return found

    def compute(self, name: str):
        site = self.site
        head, _, rest = name.partition(":")
        if name == "config":
            return site.config
        if name == "tags:meta":
            return tuple(listing.tag for listing in site.tags)
        if name == "papers:count":
            return len(site.papers)
        if name == "papers:all":
            return site.papers
        if head == "tag":
            slug, _, what = rest.partition(":")
            listing = self._listings.get(slug)
            if listing is None:
                return ("no such tag", slug)
            if what == "count":
                return len(listing.papers)
            if what == "all":
                return listing
            if what.startswith("attr:"):
                return getattr(listing, what[5:], ("no such field",))
        if head == "site":
            return site if rest == "*" else getattr(site, rest, ("no such field",))
        if head == "derived":
            table_name, _, key = rest.partition(":")
            if table_name in _DERIVED:
                table = derived_table(site, table_name)
                return tuple(table.items()) if key == "*" else table.get(key, ("no such entry",))
        raise Unfingerprintable(f"unknown facet {name!r}")

    def digest(self, names: tuple[str, ...]) -> bytes | None:
        """One fingerprint for a set of facets (None when one cannot be computed: never reuse)."""
        if names in self.sets:
            return self.sets[names]
        h = hashlib.blake2b(digest_size=DIGEST_SIZE)
        try:
            for name in names:
                h.update(name.encode() + b"\0" + self.value(name))
            result: bytes | None = h.digest()
        except (Unfingerprintable, LookupError, TypeError, AttributeError):
            result = None
        self.sets[names] = result
        return result
