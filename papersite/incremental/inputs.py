"""What a build reads, digested: every input file (remembered between builds by inode, size and time) and the code."""

from __future__ import annotations

import hashlib
import os
import sys
import time
from importlib import metadata
from itertools import islice
from pathlib import Path

from ..digests import DIGEST_SIZE, digest
from ..inputs.files import stat_identity

# Libraries whose output ends up in the pages: a new version may change a byte anywhere.
LIBRARIES = ("Jinja2", "MarkupSafe", "Markdown", "PyYAML", "lunr", "latex2mathml", "numpy", "scipy", "openTSNE", "scikit-learn")
PACKAGE_DIR = Path(__file__).resolve().parent.parent


def code_version() -> bytes:
    """Every module and bundled file of the package, the library versions, the Python version."""
    h = hashlib.blake2b(digest_size=DIGEST_SIZE)
    h.update(f"python {sys.version}\n".encode())
    for name in LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        h.update(f"{name}=={version}\n".encode())
    for path in sorted(PACKAGE_DIR.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".js", ".css", ".html", ".json", ".txt") and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(PACKAGE_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.digest()


class FileDigests:
    """Content digests of input files, remembered between builds by each file's inode, size and
    modification time (as git's index does), so an unchanged file is not read again.

    A file modified within RACY_SECONDS of the build is never remembered: a second edit in the
    same timestamp tick could keep its size and time, and would then go unseen."""

    RACY_SECONDS = 2.0

    def __init__(self, known: dict | None = None):
        self.known = known if isinstance(known, dict) else {}
        self.seen: dict[str, tuple] = {}     # what the next build may trust
        self.done: dict[str, bytes] = {}     # what this build has read
        self.stamps: dict[str, tuple] = {}   # ... each file's identity as it was read
        self.trusted_before = time.time_ns() - int(self.RACY_SECONDS * 1e9)   # an mtime before this is remembered

    def of(self, path: str, data: bytes | None = None) -> bytes:
        """The digest of the file at `path` (`data`: its bytes, if the caller has read them);
        asked again in the same build, the same answer (a build reads each input once)."""
        if data is None and path in self.done:
            return self.done[path]
        try:
            return self.read(path, data)
        except OSError as exc:
            # Unreadable now (an I/O error, a file gone or swapped meanwhile): a digest that matches
            # no file, so nothing is reused; the stage that reads it says what is wrong.
            self.done[path] = digest(f"unreadable: {exc.errno}".encode())
            return self.done[path]

    def read(self, path: str, data: bytes | None) -> bytes:
        st = os.stat(path)
        stamp = stat_identity(st)
        entry = self.known.get(path)
        if data is None and entry is not None and entry[0] == stamp:
            value = entry[1]
        else:
            if data is None:
                with open(path, "rb") as f:
                    data = f.read()
            value = digest(data)
        if st.st_mtime_ns < self.trusted_before:
            self.seen[path] = (stamp, value)
        self.done[path] = value
        self.stamps[path] = stamp
        return value

    def learn(self, path: str, identity: tuple[int, int, int], value: bytes) -> None:
        """The digest of a file another process read (a stage's worker), `identity` taken before it
        read it; the first digest of a file in a build stays its digest, as `of` gives it."""
        if path in self.done:
            return
        if identity[2] < self.trusted_before:
            self.seen[path] = (identity, value)
        self.done[path] = value
        self.stamps[path] = identity

    def changed_since_read(self) -> bool:
        """True when a file this build read is no longer what it read: edited, replaced or deleted
        since. A stat each; a file modified within RACY_SECONDS is read again, as its time may not
        show a second edit. (A file added since is not in the input version a build takes as it
        starts, so the next build finds it; a first build's, see `modified_since_start`.)"""
        for path, stamp in self.stamps.items():
            try:
                if stat_identity(os.stat(path)) != stamp:
                    return True
                if path not in self.seen:
                    with open(path, "rb") as f:
                        if digest(f.read()) != self.done[path]:
                            return True
            except OSError:
                return True
        return False

    def modified_since_start(self, first: int) -> bool:
        """True when a file this build read only after the `first` ones it read was modified since
        the build started (or just before). A first build takes its input version at its end: a
        page added after its pages were listed is then in that version, not in its output."""
        return any(stamp[2] >= self.trusted_before for stamp in islice(self.stamps.values(), first, None))


def read_inputs(paths: list[Path], files: FileDigests, later: Path) -> None:
    """Digest every input file under `paths` now, except those under `later`: a stage's workers
    read those and digest them as they do (`FileDigests.learn`), so a first build reads each once."""
    skip = os.path.join(later, "")
    for root in paths:
        if root.is_file():
            files.of(str(root))
        elif root.is_dir():
            prefix = os.path.join(root, "")
            for rel in walk_files(str(root)):
                if not (prefix + rel).startswith(skip):
                    files.of(prefix + rel)


def tree_version(root: Path, files: FileDigests | None = None) -> bytes:
    """Names and bytes of every file under `root` (templates, content), or of the file `root`: any
    edit changes it. Where the root is does not (`input_version` adds it): the pages' keys take
    the templates' version, and a project moved or named from another folder keeps its pages."""
    files = files or FileDigests()
    h = hashlib.blake2b(digest_size=DIGEST_SIZE)
    if root.is_file():
        h.update(b"file\0" + files.of(str(root)))
        return h.digest()
    others: list[str] = []
    prefix = os.path.join(root, "")
    for rel in sorted(walk_files(str(root), others=others)) if root.is_dir() else []:
        h.update(os.fsencode(rel) + b"\0" + files.of(prefix + rel))
    # A FIFO, socket or broken link is never read, but it is there: the stage that would read
    # it reports it, so the build must not be skipped as unchanged.
    for rel in sorted(others):
        h.update(os.fsencode(rel) + b"\0not a file\0")
    return h.digest()


def walk_files(root: str, prefix: str = "", others: list[str] | None = None) -> list[str]:
    """Relative paths of every regular file under `root` (os.scandir: several times faster than
    Path.rglob); `others` collects every other entry (a folder, a FIFO, a socket, a broken or looping link)."""
    found = []
    with os.scandir(root) as entries:
        for entry in entries:
            rel = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=True):
                    found.extend(walk_files(entry.path, rel + "/", others))
                    if others is not None:   # a folder named like a page (`x.md/`) is there too
                        others.append(rel + "/")
                    continue
                regular = entry.is_file(follow_symlinks=True)
            except OSError:   # a link that loops
                regular = False
            if regular:
                found.append(rel)
            elif others is not None:
                others.append(rel)
    return found


def file_identity(path: Path) -> tuple[int, int, int] | None:
    try:
        return stat_identity(os.stat(path))
    except OSError:
        return None


def input_version(paths: list[Path], base_url: str | None, code: bytes, files: FileDigests) -> bytes:
    """Everything a build reads: the code, the base URL it was given, and every file under `paths`,
    each named as given (its problems are reported under that name, and a build that finds
    nothing changed repeats the last build's)."""
    parts = [code, repr(base_url).encode()]
    for path in paths:
        parts.append(os.fsencode(path) + b"\0" + tree_version(path, files=files))
    return digest(b"\0".join(parts))
