"""The build cache: what one build keeps for the next, so an edit rebuilds only what it changes.

One cache per output directory, in `.papersite-cache/` beside the output (or `--cache-dir`):
a main file, a `.delta` file of what changed since the main file was written (so an edit
does not rewrite tens of megabytes), and a small `.state` file read alone by a build with
nothing to do. (The search index and the exports keep a cache of their own beside it: see
`search_exports_path`.) It holds plain results keyed by fingerprints of their inputs:

- `papers`: source file -> validated Paper, keyed by the file's bytes, its path and the taxonomy;
- `texts`: a paper's title and body -> rendered HTML, plain text and math warnings;
- `memo`: pure functions' results keyed by their arguments (the map projection), and what a
  stage keeps to start from next time (the last word counts and ranking of related papers, the
  stem of each word, each page's noindex verdict);
- `pages`, `manifest`: what each output file was made from and what it is on disk
  (see incremental.py), so an unchanged page is linked from the previous output, not re-rendered.

Never trusted blindly: the file starts with a format version and a checksum of the rest, and
carries the code version (every papersite module, the versions of the libraries that shape
the output, the Python version). A file that fails any check, or does not unpickle, is
ignored whole and the build runs cold, as is a delta written for another main file; `--clean`
ignores the cache without reading it. Writes go to a temporary file renamed into place, so a
killed build leaves the old file or the new one.
"""

from __future__ import annotations

import gc
import hashlib
import io
import os
import pickle
import sys
import time
import zlib
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import fields, is_dataclass
from functools import lru_cache, wraps
from importlib import metadata
from pathlib import Path

FORMAT = 3
MAGIC = b"papersite-cache\n"
DIGEST_SIZE = 16
# A file's seal: the CRC-32 of its payload (corruption and truncation; ~5x faster than a
# cryptographic digest over tens of megabytes, and nothing here is adversarial), then random
# bytes that name this very write (a delta file names the main file it extends).
SEAL_SIZE = 16
CACHE_DIR_NAME = ".papersite-cache"
# Libraries whose output ends up in the pages: a new version may change a byte anywhere.
LIBRARIES = ("Jinja2", "MarkupSafe", "Markdown", "PyYAML", "lunr", "latex2mathml", "numpy", "scipy")
PACKAGE_DIR = Path(__file__).resolve().parent
SECTIONS = ("papers", "texts", "memo", "pages", "manifest")
# Kept in a small second file, `<cache>.state`, read alone when nothing changed (see pipeline.py).
STATE_SECTIONS = ("manifest",)
# A build writes the main file anew when more entries than this share of it changed since it was
# written, and otherwise only those changes, in `<cache>.delta`.
DELTA_SHARE = 0.1
MISSING = object()


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=DIGEST_SIZE).digest()


def code_version() -> bytes:
    """Every module and bundled file of the package, the library versions, the Python version."""
    h = hashlib.blake2b(digest_size=DIGEST_SIZE)
    h.update(f"format {FORMAT}; python {sys.version}\n".encode())
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
        self.started = time.time_ns()

    def of(self, path: str, data: bytes | None = None) -> bytes:
        """The digest of the file at `path` (`data`: its bytes, if the caller has read them);
        asked again in the same build, the same answer (a build reads each input once)."""
        if data is None and path in self.done:
            return self.done[path]
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
        if st.st_mtime_ns < self.started - self.RACY_SECONDS * 1e9:
            self.seen[path] = (stamp, value)
        self.done[path] = value
        return value


def tree_version(*roots: Path, files: FileDigests | None = None) -> bytes:
    """Names and bytes of every file under each root (templates, content): any edit changes it."""
    files = files or FileDigests()
    h = hashlib.blake2b(digest_size=DIGEST_SIZE)
    for root in roots:
        h.update(os.fsencode(root) + b"\0")
        if root.is_file():
            h.update(b"file\0" + files.of(str(root)))
            continue
        for rel in sorted(walk_files(str(root))) if root.is_dir() else []:
            h.update(os.fsencode(rel) + b"\0" + files.of(os.path.join(root, rel)))
    return h.digest()


def walk_files(root: str, prefix: str = "") -> list[str]:
    """Relative paths of every file under `root` (os.scandir: several times faster than Path.rglob)."""
    found = []
    with os.scandir(root) as entries:
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_dir(follow_symlinks=True):
                found.extend(walk_files(entry.path, rel + "/"))
            elif entry.is_file(follow_symlinks=True):
                found.append(rel)
    return found


# --- fingerprints ------------------------------------------------------------------------


class Unfingerprintable(TypeError):
    """A value whose content cannot be captured (a lambda, an open file): never cached."""


class Fingerprinter:
    """Content digests of plain build data (dataclasses, tuples, strings, numbers, numpy arrays).

    A value is pickled without the pickle memo, so the bytes depend on what the value
    contains and never on which objects happen to be shared; two values with the same
    digest are equal. Large containers are walked so each dataclass in them is digested
    once per build (the site holds every paper several times: in `papers`, in each tag).
    """

    def __init__(self) -> None:
        self.memo: dict[int, tuple[object, bytes]] = {}

    def __call__(self, value: object) -> bytes:
        kind = type(value)
        if kind is str:
            return digest(b"s" + value.encode("utf-8", "surrogatepass"))
        if kind is int or value is None:   # "i"/"n" never start a pickle (b"\x80"): no clash with leaf()
            return digest(b"n" if value is None else b"i%d" % value)
        if kind is tuple or kind is list:
            if len(value) <= 8:
                return self.leaf(value)
            h = hashlib.blake2b(b"t" if kind is tuple else b"l", digest_size=DIGEST_SIZE)
            for item in value:
                h.update(self(item))
            return h.digest()
        names = _dataclass_fields(kind)
        if names is not None:
            hit = self.memo.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
            source_key = getattr(value, "source_key", b"")
            if source_key:   # a digest of everything the value was made from (model.Paper)
                result = digest(b"k" + _class_name(kind) + source_key)
            elif any(type(v) in (tuple, list) and len(v) > 8 for v in map(value.__getattribute__, names)):
                h = hashlib.blake2b(b"d" + _class_name(kind), digest_size=DIGEST_SIZE)
                for name in names:
                    h.update(name.encode() + b"=" + self(getattr(value, name)))
                result = h.digest()
            else:
                result = self.leaf(value)
            self.memo[id(value)] = (value, result)
            return result
        return self.leaf(value)

    @staticmethod
    def leaf(value: object) -> bytes:
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=5)
        pickler.fast = True  # no memo: equal values give equal bytes, however they share objects
        try:
            pickler.dump(value)
        except Exception as exc:  # lambdas, modules, open files, cycles
            raise Unfingerprintable(f"cannot fingerprint a {type(value).__name__}: {exc}") from None
        return digest(buffer.getvalue())


@lru_cache(maxsize=None)
def _dataclass_fields(kind: type) -> tuple[str, ...] | None:
    """The field names of a dataclass type (None for other types), looked up once per type."""
    return tuple(f.name for f in fields(kind)) if is_dataclass(kind) else None


@lru_cache(maxsize=None)
def _class_name(kind: type) -> bytes:
    return f"{kind.__module__}.{kind.__qualname__}".encode()


_fingerprinter: ContextVar[Fingerprinter | None] = ContextVar("papersite_fingerprinter", default=None)


def fingerprint(value: object) -> bytes:
    """The digest of `value` (memoised for the current build when one is active)."""
    return (_fingerprinter.get() or Fingerprinter())(value)


# --- the cache file ----------------------------------------------------------------------


class BuildCache:
    """The sections of one cache file, plus bookkeeping of what this build used."""

    def __init__(self, path: Path | None, code: bytes, data: dict | None = None, problem: str | None = None):
        self.path = path
        self.code = code
        self.problem = problem            # why the file on disk was not used, if it was not
        data = data or {}
        self.old = {name: data.get(name, {}) for name in SECTIONS}
        self.new: dict[str, dict] = {name: {} for name in SECTIONS}
        self.base: dict | None = None     # the main file's sections, as read (before the delta)
        self.base_seal = b""
        # What the cache files hold (as last read or written) and the identity of the state file
        # then: the dev server's next build starts from it (`reopen`).
        self.on_disk: dict | None = None
        self.saved: tuple | None = None
        self.hits = {name: 0 for name in SECTIONS}
        self.misses = {name: 0 for name in SECTIONS}

    @property
    def loaded(self) -> bool:
        return any(self.old.values())

    def get(self, section: str, key, default=None):
        """A value from the previous build; what is read is kept for the next one."""
        value = self.old[section].get(key, MISSING)
        if value is MISSING:
            self.misses[section] += 1
            return default
        self.hits[section] += 1
        self.new[section][key] = value
        return value

    def put(self, section: str, key, value) -> None:
        self.new[section][key] = value

    def previous(self, section: str) -> dict:
        return self.old[section]

    @classmethod
    def open(cls, path: Path | None, code: bytes, read: bool = True) -> "BuildCache":
        if path is None or not read:
            return cls(path, code)
        data, problem = read_sealed(path, code)
        state, state_problem = read_sealed(state_path(path), code)
        if data is None or state is None:
            # Half a cache is no cache: the sections refer to each other.
            return cls(path, code, problem=problem or state_problem)
        base = {name: data.get(name, {}) for name in SECTIONS if name not in STATE_SECTIONS}
        merged, delta_problem = apply_delta(base, data["seal"], delta_path(path), code)
        if merged is None:
            return cls(path, code, problem=delta_problem)
        merged.update({name: state.get(name, {}) for name in STATE_SECTIONS})
        cache = cls(path, code, merged)
        cache.base, cache.base_seal = base, data["seal"]
        cache.on_disk, cache.saved = cache.old, file_identity(state_path(path))
        return cache

    def save(self, **state) -> None:
        """Keep exactly what this build used or made (so the cache never grows with old entries);
        `state` (the input digest, the warnings) goes into the small state file with the manifest.

        The main file (tens of megabytes) is rewritten only when much changed since it was
        written; otherwise what changed since then goes into a small delta file beside it."""
        if self.path is None:
            return
        main = {name: self.new[name] for name in SECTIONS if name not in STATE_SECTIONS}
        base = self.base if not self.problem and self.path.is_file() else None
        delta = changes_since(base, main) if base is not None else None
        if delta is None or delta_size(delta) > DELTA_SHARE * sum(map(len, base.values())):
            seal = write_sealed(self.path, self.code, main)
            delta_path(self.path).unlink(missing_ok=True)
            self.base, self.base_seal = (main, seal) if seal else (None, b"")
        elif delta_size(delta) or delta_path(self.path).is_file():
            write_sealed(delta_path(self.path), self.code, {"base": self.base_seal, **delta})
        write_sealed(state_path(self.path), self.code, {**state, **{name: self.new[name] for name in STATE_SECTIONS}})
        self.on_disk, self.saved = self.new, file_identity(state_path(self.path))

    @classmethod
    def reopen(cls, saved: "BuildCache", path: Path | None, code: bytes) -> "BuildCache | None":
        """What `open` would read back from the files `saved` wrote, without reading them (the dev
        server's next build); None if they may have changed since (another build, a deletion)."""
        if saved.path != path or saved.code != code or saved.base is None or saved.on_disk is None:
            return None
        if path is None or file_identity(state_path(path)) != saved.saved:
            return None
        cache = cls(path, code, {name: dict(saved.on_disk[name]) for name in SECTIONS})
        cache.base, cache.base_seal = saved.base, saved.base_seal
        return cache

    @contextmanager
    def active(self):
        """Make this cache the one `memoize`d functions use, with one fingerprint memo per build."""
        token = _active.set(self)
        fp_token = _fingerprinter.set(Fingerprinter())
        try:
            yield self
        finally:
            _active.reset(token)
            _fingerprinter.reset(fp_token)


def stat_identity(st: os.stat_result) -> tuple[int, int, int]:
    """What says a file is still the one seen before: its inode, size and modification time."""
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def file_identity(path: Path) -> tuple[int, int, int] | None:
    try:
        return stat_identity(os.stat(path))
    except OSError:
        return None


def delta_path(path: Path) -> Path:
    return path.with_name(path.name + ".delta")


def templates_path(path: Path) -> Path:
    """Jinja's compiled templates, beside the cache (render.make_environment)."""
    return path.with_name(path.name + ".templates")


def search_exports_path(path: Path) -> Path:
    """The search index's and exports' own cache (pipeline.make_search_and_exports)."""
    return path.with_name(path.name + ".search-exports")


def changes_since(base: dict, sections: dict) -> dict:
    """{"changed": {section: {key: value}}, "removed": {section: [key]}} from `base` to `sections`.
    Values are compared by identity: an entry carried over from the main file is that object."""
    changed = {name: {k: v for k, v in entries.items() if base[name].get(k, MISSING) is not v}
               for name, entries in sections.items()}
    removed = {name: [k for k in base[name] if k not in entries] for name, entries in sections.items()}
    return {"changed": changed, "removed": removed}


def delta_size(delta: dict) -> int:
    return sum(map(len, delta["changed"].values())) + sum(map(len, delta["removed"].values()))


def apply_delta(base: dict, seal: bytes, path: Path, code: bytes) -> tuple[dict | None, str | None]:
    """The main file's sections with the delta file at `path` (if any) applied."""
    delta, problem = read_sealed(path, code)
    if problem:
        return None, f"delta: {problem}"
    sections = {name: dict(entries) for name, entries in base.items()}
    if delta is None:
        return sections, None
    if delta.get("base") != seal or set(delta.get("changed", ())) != set(base) or set(delta.get("removed", ())) != set(base):
        return None, "delta: written for another main cache file"
    for name, entries in sections.items():
        for key in delta["removed"][name]:
            entries.pop(key, None)
        entries.update(delta["changed"][name])
    return sections, None


def state_path(path: Path) -> Path:
    return path.with_name(path.name + ".state")


def read_sealed(path: Path, code: bytes) -> tuple[dict | None, str | None]:
    """The dict stored at `path`, or None and why it cannot be used (missing is no problem)."""
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"unreadable ({exc.strerror})"
    return decode(blob, code)


def write_sealed(path: Path, code: bytes, data: dict) -> bytes | None:
    """Write `data`; its seal (checksum and name of this write), or None if it could not be written."""
    payload = pickle.dumps({"code": code, **data}, protocol=5)
    seal = zlib.crc32(payload).to_bytes(4, "big") + os.urandom(SEAL_SIZE - 4)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(MAGIC + FORMAT.to_bytes(4, "big") + seal)
            f.write(payload)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)  # a cache that cannot be written costs speed, never the build
        return None
    return seal


def decode(blob: bytes, code: bytes) -> tuple[dict | None, str | None]:
    """The sections of a cache file, or None and why it cannot be trusted."""
    head = len(MAGIC) + 4 + SEAL_SIZE
    if len(blob) < head or not blob.startswith(MAGIC):
        return None, "not a papersite cache file"
    if int.from_bytes(blob[len(MAGIC):len(MAGIC) + 4], "big") != FORMAT:
        return None, "written by another cache format"
    payload = memoryview(blob)[head:]
    if zlib.crc32(payload).to_bytes(4, "big") != blob[len(MAGIC) + 4:len(MAGIC) + 8]:
        return None, "checksum mismatch (corrupt or truncated)"
    enabled = gc.isenabled()
    gc.disable()  # unpickling ~100,000 objects: no point scanning them for cycles as they arrive
    try:
        data = pickle.loads(payload)
    except Exception:  # a checksum-valid file from a build with other classes: not ours to trust
        return None, "does not unpickle"
    finally:
        if enabled:
            gc.enable()
    if not isinstance(data, dict) or data.get("code") != code:
        return None, "written by another version of papersite or its libraries"
    if not all(isinstance(data.get(name, {}), dict) for name in SECTIONS + STATE_SECTIONS):
        return None, "malformed"
    data["seal"] = blob[len(MAGIC) + 4:head]   # names this file: a delta file says which main file it extends
    return data, None


def default_cache_path(out: Path, cache_dir: Path | None = None) -> Path:
    """`.papersite-cache/` beside the output directory; one file per output directory."""
    out = out.absolute()
    where = cache_dir if cache_dir is not None else out.parent / CACHE_DIR_NAME
    return where / f"{out.name or 'site'}-{digest(str(out).encode()).hex()[:12]}.cache"


# --- memoised pure functions -------------------------------------------------------------

_active: ContextVar[BuildCache | None] = ContextVar("papersite_cache", default=None)


def current() -> BuildCache | None:
    return _active.get()


def memoize(name: str):
    """Cache a pure function's result in the active build cache, keyed by its arguments.

    Outside a build (tests, other callers) the function simply runs. Lists come back as
    fresh lists so a caller can never change the cached value.
    """

    def decorate(func):
        named = Fingerprinter()(name)

        @wraps(func)
        def wrapper(*args, **kwargs):
            cache = _active.get()
            if cache is None:
                return func(*args, **kwargs)
            try:
                # Argument by argument, so a dataclass already fingerprinted in this build (a
                # paper, the site config) costs a lookup, not another pickle.
                fp = _fingerprinter.get() or Fingerprinter()
                keywords = fp(tuple(sorted(kwargs.items()))) if kwargs else b""
                key = digest(b"".join([named, *map(fp, args), keywords]))
            except Unfingerprintable:
                return func(*args, **kwargs)
            value = cache.get("memo", key, MISSING)
            if value is MISSING:
                value = func(*args, **kwargs)
                cache.put("memo", key, value)
            return list(value) if isinstance(value, list) else value

        return wrapper

    return decorate
