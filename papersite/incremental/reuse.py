"""Reuse of the previous output: which files of the last build can be kept, and the proof that they can.

A page is kept only when both hold:

1. **Its inputs are unchanged.** A page's key is the fingerprint of its spec (path, template,
   title, breadcrumbs and every value its template is given) and of what every page shows (the
   code, the templates, the chrome). A template sees nothing else (render/plan.py), so equal
   keys mean equal pages. The search index and the exports are made anew by every build that is
   not skipped whole; only a changed file is written, an identical one is kept.
2. **The file on disk is the one that build wrote.** The manifest records each output file's
   content digest, inode, size and modification time; a file that was edited, replaced or
   deleted since does not match and is made again.

A worker surveys the previous output as the build starts (`PreviousOutput.survey`, on another
core while the build imports its stages and runs them): which of its files are still as recorded,
and which files it holds that the manifest does not name. A kept file stays where it is; the build
writes only the files it makes anew with other bytes, and the patch it commits (output.py) puts
them in place and deletes the files it no longer makes and those it never made.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import urls
from ..digests import DIGEST_SIZE, Fingerprints, Unfingerprintable, digest, leaf
from ..inputs.files import stat_identity
from ..output import Deferred, Staging, file_digest

# path -> (page key, digest of the HTML made), for the next build
PageRecords = dict[str, tuple[bytes, bytes]]
# An output file's record in the manifest: its content digest, inode, size and time (ns).
RECORD = struct.Struct(f"<{DIGEST_SIZE}sQQQ")


class Manifest:
    """What each output file is, by path, for the next build to check (`PreviousOutput`): its
    content digest, inode, size and modification time, as written.

    Kept as two columns, the paths and their records packed side by side (`RECORD`), not as a dict
    of tuples: at 100,000 papers the state file names 407,000 files, and their 1.6 million objects
    took 0.31-0.47 s to unpickle at every build and 0.36-0.53 s to pickle at every edit (bench/README.md)."""

    __slots__ = ("index", "records")

    def __init__(self, paths: Sequence[str] = (), records: bytes = b""):
        self.index = dict(zip(paths, range(len(paths))))   # path -> its record's position
        self.records = records

    def __reduce__(self):
        return read_manifest, ("\0".join(self.index), self.records)   # no path holds a NUL

    def __len__(self) -> int:
        return len(self.index)

    def keys(self):
        return self.index.keys()

    def digest(self, path: str) -> bytes | None:
        """The recorded digest of the file at `path`; None if the manifest does not name it."""
        at = self.index.get(path)
        return None if at is None else self.records[at * RECORD.size:at * RECORD.size + DIGEST_SIZE]

    def record(self, path: str) -> bytes:
        at = self.index[path] * RECORD.size
        return self.records[at:at + RECORD.size]

    def entries(self):
        """(path, (digest, inode, size, mtime)) for every file, unpacked in C."""
        return zip(self.index, RECORD.iter_unpack(self.records))


def read_manifest(paths: str, records: bytes) -> Manifest:
    return Manifest(paths.split("\0") if paths else (), records)


def place_files(staging: Staging, previous: PreviousOutput, files: Mapping[str, str | bytes | Deferred]) -> tuple[dict[str, bytes], set[str]]:
    """Each file's digest, and which of them the `previous` output holds byte for byte: those are
    not written (they stay where they are), the others are, into `staging`, a Deferred one made
    only now."""
    digests, unchanged = {}, set()
    for name, data in files.items():
        if isinstance(data, str):
            data = data.encode("utf-8")   # once, for the file and its digest
        digests[name] = data.digest if isinstance(data, Deferred) else file_digest(data)
        if previous.on_disk(name) != digests[name]:
            staging.write(name, data.make() if isinstance(data, Deferred) else data)
        else:
            unchanged.add(name)
    return digests, unchanged


class PlacedFiles:
    """Files placed (`place_files`) a batch at a time as they are made, so that none of a batch is
    held once it is written: their digests, and those the previous output holds byte for byte."""

    def __init__(self, staging: Staging, previous: PreviousOutput):
        self.staging, self.previous = staging, previous
        self.digests: dict[str, bytes] = {}
        self.unchanged: set[str] = set()

    def place(self, files: Mapping[str, str | bytes | Deferred], memo=None):
        """Place `files`; hand back `memo`, what the stage that made them keeps for the next build."""
        digests, unchanged = place_files(self.staging, self.previous, files)
        self.digests.update(digests)
        self.unchanged |= unchanged
        return memo


def page_keys(plan: Sequence, shared: bytes) -> list[bytes | None]:
    """Each page's key: `shared` (what every page shows) and the spec's version, or else the
    fingerprint of the spec; None for a page whose spec holds something that cannot be
    fingerprinted (it is never kept).

    A spec's own fields are plain text, digested together; its context is fingerprinted value by
    value, so the papers a listing shares with other pages are digested once, and a value that
    carries its own `version` (an author page's data) is not walked at all (digests.Fingerprints)."""
    fingerprints = Fingerprints()
    return [page_key(fingerprints, shared, spec) for spec in plan]


# A page whose spec has a version is keyed by `shared`, this and the version, side by side: two
# digests are already as unique as a digest of them, and an edit at 100,000 papers keys 270,000
# such pages. (A fingerprint's key is a digest, shorter: the two kinds never meet.)
VERSIONED = b"v"


def page_key(fingerprints: Fingerprints, shared: bytes, spec) -> bytes | None:
    if spec.version:   # the digest of what the planner made the spec from (render/specs.py PageSpec)
        return shared + VERSIONED + spec.version
    head = (spec.path, spec.kind, spec.template, spec.title, spec.description, spec.breadcrumbs, spec.indexable)
    try:
        return digest(shared + leaf(head) + fingerprints.mapping(spec.context))
    except Unfingerprintable:
        return None


@dataclass(frozen=True)
class Survey:
    """The previous output as found on disk, against its manifest."""

    missing: frozenset[str]   # files of the manifest not as recorded: edited, replaced or deleted since
    moved: frozenset[str]     # files with the recorded bytes under another inode or time
    strays: frozenset[str]    # what the manifest does not name: files, links, empty folders (with a final /)
    marked: bool              # the marker is there

    @property
    def exact(self) -> bool:
        """The output holds exactly the files of the manifest (and the marker), each as recorded."""
        return self.marked and not self.missing and not self.strays


class PreviousOutput:
    """The output directory as the previous build wrote it (its manifest), judged file by file by
    its survey (`survey`, which a worker makes as the build starts: BuildCache.survey)."""

    def __init__(self, out: Path, manifest: Manifest | None):
        self.out = out
        self.manifest: Manifest = manifest or Manifest()
        self.prefix = os.path.join(out, "")   # thousands of stats: no Path objects
        self.surveyed: Survey | None = None

    def on_disk(self, path: str) -> bytes | None:
        """The digest of the previous build's file at `path`, if the survey found it exactly what that
        build wrote (nothing is, unsurveyed)."""
        recorded = self.manifest.digest(path)
        if recorded is None or self.surveyed is None or path in self.surveyed.missing:
            return None
        return recorded

    @property
    def moved(self) -> frozenset[str]:
        """Files with the recorded bytes under another inode or time: their manifest entries are stale."""
        return self.surveyed.moved if self.surveyed is not None else frozenset()

    def survey(self) -> Survey:
        """Every file of the manifest checked, and everything else the output holds. Inode, size and
        time say a file is as recorded at the cost of a stat (400,000 at 100,000 papers, inline:
        a call each cost more than the stats); a file with the recorded size but another inode or
        time (an output restored from a CI cache, copied, or touched) is read and judged by its
        digest. A file is the previous build's only where that build put it: in a folder, not
        through a link (a link to a folder is a stray, deleted as a link)."""
        manifest, found, empty = self.manifest, [], []
        try:
            walk_output(self.prefix, "", found, empty)
        except OSError:
            found.clear()
        named = manifest.index
        strays = {path for path in found if path not in named}
        # Every path found is found once: when as many of them as the manifest has are in it, none
        # of its files is missing from the folders (the common case, without a set of them all).
        missing = set() if len(found) - len(strays) == len(manifest) else manifest.keys() - set(found)
        moved = set()
        stat, prefix = os.stat, self.prefix
        for path, (recorded, inode, size, mtime) in manifest.entries():
            try:
                st = stat(prefix + path)
            except OSError:
                missing.add(path)
                continue
            if st.st_mtime_ns != mtime or st.st_ino != inode or st.st_size != size:
                (moved if st.st_size == size and self.holds(path, recorded) else missing).add(path)
        marked = urls.MARKER in strays and os.path.isfile(prefix + urls.MARKER)
        strays.discard(urls.MARKER)
        return Survey(frozenset(missing), frozenset(moved - missing), frozenset(strays.union(empty)), marked)

    def holds(self, path: str, recorded: bytes) -> bool:
        """The file at `path` has the bytes whose digest is `recorded`."""
        try:
            with open(self.prefix + path, "rb") as f:
                return digest(f.read()) == recorded
        except OSError:
            return False


def walk_output(prefix: str, rel: str, found: list[str], empty: list[str]) -> None:
    """Everything under the folder `prefix` + `rel` but folders, relative to `prefix` (links not
    followed), into `found`; the folders with nothing in them (with a final /) into `empty`."""
    nothing = True
    with os.scandir(prefix + rel) as entries:
        for entry in entries:
            nothing = False
            if entry.is_dir(follow_symlinks=False):
                walk_output(prefix, rel + entry.name + "/", found, empty)
            else:
                found.append(rel + entry.name)
    if nothing and rel:
        empty.append(rel)


def kept_pages(paths: Sequence[str], keys: Sequence[bytes | None], records: PageRecords | None,
               output: PreviousOutput) -> dict[str, bytes]:
    """The pages whose key is the one the previous build recorded, and whose file is still what it
    wrote, each with the digest of its bytes."""
    if not records:
        return {}
    on_disk = output.on_disk
    kept = {}
    for path, key in zip(paths, keys):
        record = records.get(path)
        if key is not None and record is not None and record[0] == key and on_disk(path) == record[1]:
            kept[path] = record[1]
    return kept


def record_pages(paths: Sequence[str], keys: Sequence[bytes | None], digests: Mapping[str, bytes],
                 previous: PageRecords | None) -> PageRecords:
    """The records for the next build: a kept page keeps its record (the same object), a rendered one gets a new one."""
    previous = previous or {}
    records: PageRecords = {}
    for path, key in zip(paths, keys):
        if key is None:
            continue
        old = previous.get(path)
        records[path] = old if old is not None and old == (key, digests[path]) else (key, digests[path])
    return records


def output_manifest(out: Path, digests: Mapping[str, bytes], previous: Manifest, kept: set[str]) -> Manifest:
    """What each output file is, for the next build to check its previous output against. A
    file kept from the previous output is the same inode: its `previous` entry still holds
    (`kept` leaves out files whose entry was stale)."""
    paths, records = [], []
    prefix = os.path.join(out, "")
    for path, known in digests.items():
        if path in kept and path in previous.index:
            record = previous.record(path)
        else:
            try:
                record = RECORD.pack(known, *stat_identity(os.stat(prefix + path)))
            except OSError:
                continue
        paths.append(path)
        records.append(record)
    return Manifest(paths, b"".join(records))
