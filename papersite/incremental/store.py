"""The build cache on disk: the states one build keeps for the next, checksummed and tied to the code.

One cache per output directory, in `.papersite-cache/` beside the output (or `--cache-dir`):

- a main file of named states, each whatever its stage returned (the papers read, their texts,
  the word counts, the ranking of related papers, the page records, ...);
- a `.delta` file of what changed since the main file was written, so an edit does not rewrite
  tens of megabytes: a state that is a dict changes entry by entry, any other state whole (and
  the main file's copy of that one is then not unpickled);
- a small `.state` file (the input version, the output manifest, the warnings), read alone by
  a build with nothing to do.

A stage never sees this module: the pipeline hands each stage its previous state and saves the
new one. Never trusted blindly: each file starts with a format version and a checksum of the
rest, and carries the code version (every papersite module, the versions of the libraries that
shape the output, the Python version). A file that fails any check, or does not unpickle, is
ignored whole and the build runs cold, as is a delta written for another main file. Writes go
to a temporary file renamed into place, so a killed build leaves the old file or the new one.
"""

from __future__ import annotations

import gc
import glob
import mmap
import os
import pickle
import re
import shutil
import zlib
from collections.abc import Collection
from dataclasses import dataclass
from itertools import compress, repeat
from operator import is_, not_
from pathlib import Path

from ..digests import digest
from .inputs import file_identity

FORMAT = 6
MAGIC = b"papersite-cache\n"
# A file's seal: the CRC-32 of its payload (corruption and truncation; much faster than a
# cryptographic digest over tens of megabytes, and nothing here is adversarial), then random
# bytes that name this very write (a delta file names the main file it extends).
SEAL_SIZE = 16
CACHE_DIR_NAME = ".papersite-cache"
# A build writes the main file anew when more entries than this share of it changed since it was
# written, and otherwise only those changes, in `<cache>.delta`.
DELTA_SHARE = 0.1
MISSING = object()


class Store:
    """The states of one cache: as the previous build left them, and where this build saves its own."""

    def __init__(self, path: Path | None, code: bytes, states: dict | None = None, small: dict | None = None,
                 problem: str | None = None):
        self.path = path
        self.code = code
        self.problem = problem            # why the files on disk were not used, if they were not
        self.states: dict = states or {}  # the previous build's, by name
        self.small: dict = small or {}    # the previous build's state file
        self.base: dict | None = None     # the main file's states, as read (before the delta)
        self.base_seal = b""
        self.saved: tuple | None = None   # the state file's identity when this store last wrote it

    def previous(self, name: str):
        """The previous build's state `name`, or None."""
        return self.states.get(name)

    @classmethod
    def open(cls, path: Path | None, code: bytes, read: bool = True, state_file: StateFile | None = None) -> "Store":
        """The cache at `path`; `state_file`: its state file, if the caller has read it (at 100,000
        papers, 42 MB and a third of a second: the build reads it first, alone, to know whether
        anything changed)."""
        if path is None or not read:
            return cls(path, code)
        # The delta first: the main file's states that it replaces whole are not unpickled (at
        # 100,000 papers the word counts and the related papers' ranking, 77 MB that every edit
        # replaces, read back only to be dropped).
        delta, delta_problem = read_sealed(delta_path(path), code)
        data, problem = read_sealed(path, code, skip=replaced_states(delta))
        state_file = state_file or read_state_file(path, code)
        if data is None or state_file.data is None:
            # Half a cache is no cache: the files refer to each other.
            return cls(path, code, problem=problem or state_file.problem)
        base = data["states"]
        merged, delta_problem = apply_delta(base, data["seal"], delta, delta_problem)
        if merged is None:
            return cls(path, code, problem=delta_problem)
        store = cls(path, code, merged, state_file.data)
        store.base, store.base_seal = base, data["seal"]
        store.saved = state_file.identity
        return store

    @classmethod
    def reopen(cls, last: "Store", path: Path | None, code: bytes) -> "Store | None":
        """What `open` would read back from the files `last` wrote, without reading them (the dev
        server's next build); None if they may have changed since (another build, a deletion)."""
        if last.path != path or last.code != code or last.base is None or path is None:
            return None
        if file_identity(state_path(path)) != last.saved:
            return None
        store = cls(path, code, dict(last.states), dict(last.small))
        store.base, store.base_seal = last.base, last.base_seal
        store.saved = last.saved
        return store

    def save(self, states: dict, small: dict) -> None:
        """Keep `states` (exactly what this build used or made, so the cache never grows with old
        entries) in the main file or its delta, and `small` in the state file.

        The main file (tens of megabytes) is rewritten only when much changed since it was
        written; otherwise what changed since then goes into a small delta file beside it."""
        if self.path is None:
            return
        base = self.base if not self.problem and self.path.is_file() else None
        delta = changes_since(base, states) if base is not None else None
        if delta is None or delta_size(delta) > DELTA_SHARE * state_size(base):
            seal = write_sealed(self.path, self.code, {"states": states})
            delta_path(self.path).unlink(missing_ok=True)
            self.base, self.base_seal = (states, seal) if seal else (None, b"")
        elif delta_size(delta) or delta_path(self.path).is_file():
            write_sealed(delta_path(self.path), self.code, {"base": self.base_seal, **delta})
        write_sealed(state_path(self.path), self.code, small)
        self.states, self.small = states, small
        self.saved = file_identity(state_path(self.path))


@dataclass(frozen=True)
class StateFile:
    """A cache's state file as read: what it holds (None if it cannot be used, and why not), and
    its identity, taken before it was read."""

    data: dict | None
    problem: str | None
    identity: tuple[int, int, int] | None


def read_state_file(path: Path, code: bytes) -> StateFile:
    identity = file_identity(state_path(path))
    return StateFile(*read_sealed(state_path(path), code), identity)


def by_entry(state: object) -> bool:
    """Whether a state changes entry by entry in a delta (a dict); any other is replaced whole, and
    written apart in the main file (`dump_entries`)."""
    return type(state) is dict


def changes_since(base: dict, states: dict) -> dict:
    """{"entries": {name: ({key: value}, [removed key])}, "whole": {name: value}, "gone": [name]}
    from `base` to `states`. A state that is a dict in both changes entry by entry, any other
    whole; values are compared by identity: what a stage carried over is the object it was given."""
    entries, whole = {}, {}
    for name, value in states.items():
        old = base.get(name, MISSING)
        if by_entry(value) and by_entry(old):
            # Compared in C (map, compress): at 100,000 papers the dict states hold 575,000 entries,
            # 0.5 s of an edit compared in a Python loop.
            same = map(is_, value.values(), map(old.get, value, repeat(MISSING)))
            changed = dict(compress(value.items(), map(not_, same)))
            removed = [] if old.keys() <= value.keys() else [k for k in old if k not in value]
            if changed or removed:
                entries[name] = (changed, removed)
        elif value is not old:
            whole[name] = value
    return {"entries": entries, "whole": whole, "gone": [name for name in base if name not in states]}


def delta_size(delta: dict) -> int:
    return (sum(len(changed) + len(removed) for changed, removed in delta["entries"].values())
            + len(delta["whole"]) + len(delta["gone"]))


def state_size(states: dict) -> int:
    """Entries of a dict state, one for any other."""
    return sum(len(value) if by_entry(value) else 1 for value in states.values())


def replaced_states(delta: dict | None) -> set[str]:
    """The states a delta file replaces whole or drops: its main file's are not read back."""
    try:
        return set(delta["whole"]) | set(delta["gone"]) if delta is not None else set()
    except (KeyError, TypeError):   # malformed: apply_delta says so
        return set()


def apply_delta(base: dict, seal: bytes, delta: dict | None, problem: str | None) -> tuple[dict | None, str | None]:
    """The main file's states with the delta file (if any: `read_sealed`'s answer) applied."""
    if problem:
        return None, f"delta: {problem}"
    states = dict(base)
    if delta is None:
        return states, None
    if delta.get("base") != seal:
        return None, "delta: written for another main cache file"
    try:
        for name, (changed, removed) in delta["entries"].items():
            entries = dict(states.get(name) or {})
            for key in removed:
                entries.pop(key, None)
            entries.update(changed)
            states[name] = entries
        states.update(delta["whole"])
        for name in delta["gone"]:
            states.pop(name, None)
    except (KeyError, TypeError, ValueError):
        return None, "delta: malformed"
    return states, None


def delta_path(path: Path) -> Path:
    return path.with_name(path.name + ".delta")


def state_path(path: Path) -> Path:
    return path.with_name(path.name + ".state")


def templates_path(path: Path) -> Path:
    """Jinja's compiled templates, beside the cache (render/jinja.py)."""
    return path.with_name(path.name + ".templates")


def worker_path(path: Path) -> Path:
    """The cache of the search index and exports worker, which reads and writes it itself (pipeline.py)."""
    return path.with_name(path.name + ".search-exports")


def default_cache_path(out: Path, cache_dir: Path | None = None) -> Path:
    """One file per output directory: `.papersite-cache/<its name>.cache` beside it, a name no
    other output there has. Nothing absolute is in it, so a project moved or renamed keeps its
    cache (named by the output's absolute path, a moved project built cold and left its old cache
    behind, 600 MB at 100,000 papers). In a `cache_dir` given, which outputs of any name and place
    may share, the name adds a digest of the output's path relative to that folder: a project
    that holds both keeps it too."""
    out = out.absolute()
    name = out.name or "site"
    if cache_dir is None:
        return out.parent / CACHE_DIR_NAME / f"{name}.cache"
    where = os.path.relpath(out, cache_dir.absolute())
    return cache_dir / f"{name}-{digest(where.encode()).hex()[:12]}.cache"


# Until 2026-12-07 a cache's name held a digest of the output's absolute path
# (`site-1a2b3c4d5e6f.cache`), so every place a project had been built in left one behind.
OLD_NAME = re.compile(r"-[0-9a-f]{12}\.cache(\.[a-z.-]+)?")


def remove_old_caches(path: Path) -> None:
    """The files and folders of an output's caches named the old way, beside its cache at `path`
    (named the new way: the same output, wherever it was built)."""
    stem = path.name.removesuffix(".cache")
    for old in path.parent.glob(f"{glob.escape(stem)}-*.cache*"):
        if OLD_NAME.fullmatch(old.name, len(stem)):
            if old.is_dir() and not old.is_symlink():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.unlink(missing_ok=True)


def read_sealed(path: Path, code: bytes, skip: Collection[str] = ()) -> tuple[dict | None, str | None]:
    """The dict stored at `path`, or None and why it cannot be used (missing is no problem); its
    states named in `skip` are left out (`unpickle`).

    The file is checked whole before anything in it is unpickled. It is mapped, not read: a cache
    of a large collection is hundreds of megabytes, never held as one bytes object, and the check
    and the unpickling both read its pages where they are (read in chunks for the check, then by
    the unpickler, 620 MB cost 0.2-0.3 s more at 100,000 papers). No file is ever changed in place
    (`write_sealed` writes a new one and renames it over the old), so a mapping never sees one shrink."""
    head = len(MAGIC) + 4 + SEAL_SIZE
    try:
        with open(path, "rb") as f:
            header = f.read(head)
            if len(header) < head or not header.startswith(MAGIC):
                return None, "not a papersite cache file"
            if int.from_bytes(header[len(MAGIC):len(MAGIC) + 4], "big") != FORMAT:
                return None, "written by another cache format"
            if names_other_code(f, code):
                return None, OTHER_CODE
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                with memoryview(mapped)[head:] as payload:
                    crc = zlib.crc32(payload)
                if crc.to_bytes(4, "big") != header[len(MAGIC) + 4:len(MAGIC) + 8]:
                    return None, "checksum mismatch (corrupt or truncated)"
                mapped.seek(head)
                data = unpickle(mapped, skip)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"unreadable ({exc.strerror})"
    except ValueError:   # emptied since its header was read: nothing to map
        return None, "checksum mismatch (corrupt or truncated)"
    if data is None:
        return None, "does not unpickle"
    if not isinstance(data, dict) or data.get("code") != code:
        return None, OTHER_CODE
    if not isinstance(data.get("states", {}), dict):
        return None, "malformed"
    data["seal"] = header[len(MAGIC) + 4:]   # names this file: a delta file says which main file it extends
    return data, None


OTHER_CODE = "written by another version of papersite or its libraries"


def names_other_code(f, code: bytes) -> bool:
    """Whether the file's first entry (`dump_entries` writes the code version first) is another
    code version's: such a file is refused before it is checked and unpickled whole (at 100,000
    papers the first build after an upgrade spent 3.9-4.3 s on its three files, to refuse them).
    Read before the checksum: a damaged entry can only make the file look like another version's,
    unused either way."""
    try:
        key, value = pickle.load(f)
    except Exception:   # not a pickle of ours: the checksum says what is wrong
        return False
    return key == "code" and value != code


def unpickle(f, skip: Collection[str] = ()) -> dict | None:
    """The dict `dump_entries` wrote, without the states named in `skip` (those it pickled apart,
    as bytes, are dropped without being unpickled)."""
    enabled = gc.isenabled()
    gc.disable()  # unpickling a build's objects: no point scanning them for cycles as they arrive
    try:
        data = {}
        while True:
            try:
                key, value = pickle.load(f)
            except EOFError:   # (the checksum has vouched for the whole file: this is its end)
                return data
            if key == "states":
                states = {}
                for name, apart in value:
                    state = pickle.load(f)
                    if name not in skip:
                        states[name] = pickle.loads(state) if apart else state
                value = states
            data[key] = value
    except Exception:  # a checksum-valid file from a build with other classes: not ours to trust
        return None
    finally:
        if enabled:
            gc.enable()


def dump_entries(data: dict, f) -> None:
    """`data` as a pickle per entry, and a "states" dict as a pickle per state. A pickle holds
    every object it has written until it ends (its memo, to write each only once): written whole,
    a large collection's cache held all of its objects' at the end of the build (at 100,000
    papers, the build's peak memory; bench/README.md). The states share little."""
    for key, value in data.items():
        if key == "states":
            # A state a delta replaces whole is pickled apart, as bytes, so that a reader can pass it
            # over without unpickling it (`unpickle`).
            apart = [not by_entry(state) for state in value.values()]
            pickle.dump((key, list(zip(value, apart))), f, protocol=5)
            for state, whole in zip(value.values(), apart):
                pickle.dump(pickle.dumps(state, protocol=5) if whole else state, f, protocol=5)
        else:
            pickle.dump((key, value), f, protocol=5)


class ChecksummedWriter:
    """A file that keeps the CRC-32 of what is written to it, so a pickle streams straight to disk."""

    def __init__(self, f):
        self.f, self.crc = f, 0

    def write(self, data) -> int:
        self.crc = zlib.crc32(data, self.crc)
        return self.f.write(data)


def write_sealed(path: Path, code: bytes, data: dict) -> bytes | None:
    """Write `data`; its seal (checksum and name of this write), or None if it could not be written."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(MAGIC + FORMAT.to_bytes(4, "big") + bytes(SEAL_SIZE))
            writer = ChecksummedWriter(f)
            dump_entries({"code": code, **data}, writer)
            seal = writer.crc.to_bytes(4, "big") + os.urandom(SEAL_SIZE - 4)
            f.seek(len(MAGIC) + 4)
            f.write(seal)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)  # a cache that cannot be written costs speed, never the build
        return None
    return seal
