"""Incremental output: which files of the previous build can be kept, and the proof that they can.

A file is reused only when both hold:

1. **Its inputs are unchanged.** A page's key is the fingerprint of the code, the templates,
   the config, the template name, the page and every value passed to the template; plus
   the fingerprints of the site facets the page read while it was last rendered (see
   tracking.py). The search index and the exports are made anew by every build that is not
   skipped whole (in a worker, beside the pages: see pipeline.py); only a changed file is
   written, an identical one is linked.
2. **The file on disk is the one that build wrote.** The manifest records each output
   file's content digest, inode, size and modification time; a file that was edited,
   replaced or deleted since does not match and is made again.

Kept files are hard-linked (copied where links are not possible) from the previous
output into the new tree, which is still swapped in whole. When every file would be
kept and the output holds nothing else, nothing is written at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import urls
from .cache import BuildCache, Unfingerprintable, digest, stat_identity, walk_files
from .tracking import FacetValues


class Reused:
    """Stands for an output file kept from the previous build (its bytes are on disk)."""

    __slots__ = ("digest",)

    def __init__(self, content_digest: bytes):
        self.digest = content_digest

    def __repr__(self) -> str:
        return f"Reused({self.digest.hex()[:8]})"


@dataclass
class PageJob:
    """One page to render: what `render_page` was asked for, and its key without facets."""

    path: str
    template: str
    page: object
    context: dict
    base: bytes | None        # None: some input cannot be fingerprinted, so never reused


@dataclass
class Session:
    """The previous build's records, this build's decisions, and the records for the next build."""

    cache: BuildCache
    out: Path
    site: object
    fingerprint: object
    global_key: bytes                     # code + templates + config: any change renders every page
    facets: FacetValues = field(init=False)
    rendered: int = 0
    reused: int = 0
    interned: dict = field(default_factory=dict)
    digests: "Digests" = field(default_factory=lambda: Digests())

    def __post_init__(self) -> None:
        self.facets = FacetValues(self.site, self.fingerprint)
        self.old_pages = self.cache.previous("pages")
        self.manifest = self.cache.previous("manifest")
        self._checked: dict[str, bool] = {}
        self._out_prefix = os.path.join(self.out, "")   # thousands of stats: no Path objects

    # --- pages ---------------------------------------------------------------------

    def page_key(self, template: str, page, context: dict) -> bytes | None:
        from .render import TagListing

        fp = self.fingerprint
        try:
            parts = [self.global_key, template.encode(), fp(page)]
            for name in sorted(context):
                value = context[name]
                # A listing passed in is tracked like the site's (tracking.track): only its tag is an input here.
                shown = ("tag listing", value.tag) if isinstance(value, TagListing) else value
                parts.append(name.encode() + b"=" + fp(shown))
        except Unfingerprintable:
            return None
        return digest(b"\0".join(parts))

    def reusable(self, job: PageJob) -> Reused | None:
        """The page from the previous output, when its record proves it is what this build would make.

        A record is (key, facets read, their fingerprint, digest of the HTML made); the file on
        disk must still have that digest (the manifest binds digest and inode, size, mtime)."""
        record = self.old_pages.get(job.path)
        if job.base is None or record is None or record[0] != job.base:
            return None
        facet_names, facet_digest = record[1], record[2]
        if facet_digest is None or self.facets.digest(facet_names) != facet_digest:
            return None
        kept = self.on_disk(job.path)
        return kept if kept is not None and kept.digest == record[3] else None

    def record_page(self, job: PageJob, facets: frozenset[str] | None, html: str) -> None:
        if job.base is None or facets is None:
            return
        names = tuple(sorted(facets))
        names = self.interned.setdefault(names, names)  # thousands of pages share a few facet sets
        made = self.digests.of({job.path: html})[job.path]
        self.cache.put("pages", job.path, (job.base, names, self.facets.digest(names), made))

    def keep_page_record(self, job: PageJob) -> None:
        self.cache.put("pages", job.path, self.old_pages[job.path])

    # --- the previous output -------------------------------------------------------------

    def on_disk(self, path: str) -> Reused | None:
        """The previous build's file at `path`, if it is still exactly what that build wrote."""
        entry = self.manifest.get(path)
        if entry is None:
            return None
        ok = self._checked.get(path)
        if ok is None:
            try:
                st = os.stat(self._out_prefix + path)
                ok = stat_identity(st) == tuple(entry[1:])
            except OSError:
                ok = False
            self._checked[path] = ok
        return Reused(entry[0]) if ok else None


def content_digest(value) -> bytes:
    if isinstance(value, Reused):
        return value.digest
    return digest(value.encode("utf-8") if isinstance(value, str) else value)


class Digests(dict):
    """path -> content digest of this build's files, each hashed once."""

    def of(self, files: Mapping) -> "Digests":
        for path, value in files.items():
            if path not in self:
                self[path] = content_digest(value)
        return self


def split_for_writing(files: Mapping, out: Path) -> tuple[dict, dict[str, str]]:
    """(files to write, files to link from the previous output)."""
    write, link = {}, {}
    prefix = os.path.join(out, "")
    for path, value in files.items():
        if isinstance(value, Reused):
            link[path] = prefix + path
        else:
            write[path] = value
    return write, link


def output_unchanged(session: Session, files: Mapping, digests: Digests) -> bool:
    """True when the output on disk already is, byte for byte, what this build would write."""
    if set(files) != set(session.manifest):
        return False
    for path, value in files.items():
        if not isinstance(value, Reused):
            kept = session.on_disk(path)
            if kept is None or kept.digest != digests.of({path: value})[path]:
                return False
    return output_matches(session.out, session.manifest, checked=session._checked)


def output_matches(out: Path, manifest: Mapping, checked: Mapping | None = None) -> bool:
    """True when `out` holds exactly the manifest's files (and the marker), each as recorded."""
    if not manifest or not (out / urls.MARKER).is_file():
        return False
    checked = checked or {}
    for path, entry in manifest.items():
        ok = checked.get(path)
        if ok is None:
            try:
                st = os.stat(out / path)
            except OSError:
                return False
            ok = stat_identity(st) == tuple(entry[1:])
        if not ok:
            return False
    try:
        present = set(walk_files(str(out)))
    except OSError:
        return False
    return present == set(manifest) | {urls.MARKER}


def record_manifest(cache: BuildCache, out: Path, files: Mapping, digests: Digests, previous: Mapping,
                    copied: set[str]) -> None:
    """What each output file is, for the next build to check its previous output against. A
    file linked from the previous output is the same inode: its `previous` entry still holds."""
    digests.of(files)
    for path, value in files.items():
        if isinstance(value, Reused) and path not in copied and path in previous:
            cache.put("manifest", path, previous[path])
            continue
        try:
            st = os.stat(out / path)
        except OSError:
            continue
        cache.put("manifest", path, (digests[path], *stat_identity(st)))


def judge_pages(session: Session, files: Mapping, judge: Callable[[str | bytes], bool], name: str) -> dict[str, bool]:
    """{HTML page: judge(its HTML)}. Verdicts are kept in the cache by content digest, so a page
    kept from the previous build is read back from disk only if its verdict is unknown."""
    verdicts = {}
    for path, value in files.items():
        if not path.endswith(".html"):
            continue
        key = name.encode() + b"\0" + session.digests.of({path: value})[path]
        verdict = session.cache.get("memo", key)
        if verdict is None:
            verdict = judge((session.out / path).read_bytes() if isinstance(value, Reused) else value)
            session.cache.put("memo", key, verdict)
        verdicts[path] = verdict
    return verdicts
