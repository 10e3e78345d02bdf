"""Which parts of the whole site a page reads, recorded while it renders.

A paper page shows its own paper, but also the sidebar (every tag and its count) and its
BibTeX key (unique across all papers). To reuse a page from the previous build, the build
must know that nothing the page read has changed.

What every page reads (the site's *summary*: config, the tags with their names and paper
counts, the number of papers) is part of every page's key (see `site_summary`). Anything
more is recorded while the page renders, as a *facet*: templates get `site` as a
`TrackedSite`, which hands out the same data and notes each further part reached:

| facet                       | what was read                                   |
|-----------------------------|-------------------------------------------------|
| `papers:all`                | the papers themselves (iterating `site.papers`) |
| `tag:<slug>:all`            | the papers of a tag (iterating `listing.papers`) |
| `tag:<slug>:attr:<name>`    | any other field of a tag listing                |
| `site:<name>`               | any other site field (the topic map, ...)       |
| `derived:<table>:<key>`     | one entry of a table derived from the site (a paper's BibTeX key) |

`FacetValues` gives each facet's fingerprint for a site; a page is reused only when its own
inputs, the summary and every facet it read have the same fingerprints as last time.
Reading more than needed is safe (the page is rebuilt more often); reading something
untracked is not possible, because the only way to reach the site from a template is
through the proxy. The proxies are made once per build and write into the set of the page
being rendered (one page at a time per process), so tracking costs little.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import Callable

from .cache import DIGEST_SIZE, Unfingerprintable

_DERIVED: dict[str, Callable] = {}
_tables: dict[str, tuple[object, Mapping]] = {}
_recording: set | None = None      # the facets of the page being rendered
_tracked: tuple[object, "TrackedSite"] | None = None


def derived(name: str):
    """Register `func(site) -> Mapping` as a table templates may read one entry at a time."""

    def register(func):
        _DERIVED[name] = func
        return func

    return register


def unwrap(site):
    return site._site if isinstance(site, TrackedSite) else site


def note(facet: str) -> None:
    if _recording is not None:
        _recording.add(facet)


def derived_table(site, name: str) -> Mapping:
    """The table `name` for this site, computed once per site; entries read are tracked."""
    real = unwrap(site)
    hit = _tables.get(name)
    if hit is None or hit[0] is not real:
        hit = (real, _DERIVED[name](real))
        _tables[name] = hit
    if isinstance(site, TrackedSite):
        return TrackedMapping(hit[1], f"derived:{name}")
    return hit[1]


def site_summary(site) -> tuple:
    """What every page shows of the whole site (the sidebar): part of every page's key."""
    return (site.config, len(site.papers), tuple((listing.tag, len(listing.papers)) for listing in site.tags))


class TrackedTuple(tuple):
    """A tuple whose length is free (it is in the summary) and whose items are a facet."""

    def __new__(cls, items, name: str):
        self = super().__new__(cls, items)
        self._name = name
        return self

    def __iter__(self):
        note(self._name)
        return tuple.__iter__(self)

    def __getitem__(self, index):
        note(self._name)
        return tuple.__getitem__(self, index)

    def __contains__(self, item):
        note(self._name)
        return tuple.__contains__(self, item)

    def __reversed__(self):
        note(self._name)
        return reversed(tuple(tuple.__iter__(self)))

    def __eq__(self, other):
        note(self._name)
        return tuple.__eq__(self, other)

    __hash__ = tuple.__hash__

    def __repr__(self):
        note(self._name)
        return tuple.__repr__(self)


class TrackedMapping(Mapping):
    __slots__ = ("_table", "_name")

    def __init__(self, table: Mapping, name: str):
        self._table, self._name = table, name

    def __getitem__(self, key):
        note(f"{self._name}:{key}")
        return self._table[key]

    def __contains__(self, key):
        note(f"{self._name}:{key}")
        return key in self._table

    def get(self, key, default=None):
        note(f"{self._name}:{key}")
        return self._table.get(key, default)

    def __iter__(self):
        note(f"{self._name}:*")
        return iter(self._table)

    def __len__(self):
        note(f"{self._name}:*")
        return len(self._table)


class TrackedListing:
    """A TagListing: `tag` and the paper count are in the summary; its papers are a facet."""

    def __init__(self, listing):
        self._listing = listing
        self.tag = listing.tag
        self.papers = TrackedTuple(listing.papers, f"tag:{listing.tag.slug}:all")

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        note(f"tag:{self.tag.slug}:attr:{name}")
        return getattr(self._listing, name)

    def __repr__(self):
        note(f"tag:{self.tag.slug}:all")
        return repr(self._listing)


class TrackedSite:
    """SiteData as templates see it during an incremental build (see the module docstring)."""

    def __init__(self, site):
        self._site = site
        self.config = site.config
        self.papers = TrackedTuple(site.papers, "papers:all")
        self.tags = tuple(TrackedListing(listing) for listing in site.tags)
        self._fields = {f.name for f in fields(site)} if is_dataclass(site) else set()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        site = self._site
        if name not in self._fields:
            method = getattr(type(site), name, None)
            if callable(method) and hasattr(method, "__get__"):
                return method.__get__(self)  # runs against the proxy, so what it reads is tracked
        note(f"site:{name}")
        return getattr(site, name)

    def __repr__(self):
        note("site:*")
        return repr(self._site)


def tracked(site) -> TrackedSite:
    """The proxy of `site`, made once per site (forked workers inherit it)."""
    global _tracked
    if _tracked is None or _tracked[0] is not site:
        _tracked = (site, TrackedSite(site))
    return _tracked[1]


def track(value):
    """What a template gets for one context value: listings are tracked, the rest is as is."""
    from .render import TagListing  # the data classes live with the renderer

    return TrackedListing(value) if isinstance(value, TagListing) else value


class recording:
    """`with recording(facets):` notes what the page rendered inside reads into `facets`."""

    def __init__(self, facets: set | None):
        self.facets = facets

    def __enter__(self):
        global _recording
        self.previous, _recording = _recording, self.facets
        return self.facets

    def __exit__(self, *exc):
        global _recording
        _recording = self.previous


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
        if name == "papers:all":
            return site.papers
        if head == "tag":
            slug, _, what = rest.partition(":")
            listing = self._listings.get(slug)
            if listing is None:
                return ("no such tag", slug)
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
