"""Writing the site: into a new tree beside the output directory, then swapped in atomically.

A build killed at any moment leaves the previous output whole: nothing touches `out` until the
new tree is complete, and the swap is one rename (renameat2 RENAME_EXCHANGE where the kernel has
it). Pages are written into the new tree as they are rendered, by the workers that render them,
so a build never holds the whole site in memory. Leftovers of killed builds are removed by the
next build. A write that fails (a full disk, a read-only folder) ends the build with a message and
the new tree discarded. Builds into one `out` take turns (`build_lock`): none can remove another's tree.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import multiprocessing
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import urls
from .digests import digest
from .errors import SiteError
from .locks import exclusive, held

RENAME_EXCHANGE = 2
AT_FDCWD = -100
_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


@dataclass(frozen=True)
class Deferred:
    """A file the previous build made from the same inputs: its digest is that build's, and `make()`
    makes its bytes (a text is written as UTF-8), for an output that lacks the file; the build links
    it from the last output otherwise (incremental/reuse.py `place_files`). An edit makes the few
    such files it changed, not all of them."""

    digest: bytes
    make: Callable[[], str | bytes]


# What a build records of such a file for the next: (the digest of what it was made from, its digest).
Made = tuple[bytes, bytes]


def made_once(make: Callable[[], str | bytes], made_from: bytes | None, last: Made | None,
              reusable: bool = True) -> tuple[str | bytes | Deferred, Made | None]:
    """The file `make()` makes from what `made_from` digests: Deferred, with the digest the last
    build recorded (`last`), when that build made it from the same and it is `reusable`; else made
    now. And what to record of it for the next build (nothing without a `made_from`)."""
    if reusable and made_from is not None and last is not None and last[0] == made_from:
        return Deferred(last[1], make), last
    data = make()
    return data, (made_from, file_digest(data)) if made_from is not None else None


def file_digest(data: str | bytes) -> bytes:
    """The digest of a file's bytes (a text is written as UTF-8)."""
    return digest(data.encode("utf-8") if isinstance(data, str) else data)


def output_path(out: Path) -> Path:
    """Where the site goes: `out`, absolute; a symbolic link's target, so the link stays a link
    (the new tree is written beside the target and swapped with it)."""
    return Path(os.path.realpath(out)) if out.is_symlink() else out.absolute()


def check_output_target(out: Path, protected: list[Path], inputs: list[Path] | tuple = ()) -> None:
    """Refuse to replace anything that is not a previous papersite output: `out` may be neither
    at nor above a `protected` folder (the project), nor at or inside an input folder (the build
    would read its own output as templates, or publish the site inside itself)."""
    resolved = out.resolve()
    if resolved == Path(resolved.anchor) or resolved == Path.home().resolve():
        raise SiteError.at(str(out), None, "refusing to use the filesystem root or home directory as --out")
    for path in [*protected, *inputs]:
        path = path.resolve()
        if resolved == path or resolved in path.parents:
            raise SiteError.at(str(out), None, f"refusing to write the site over {path} (choose another --out)")
    for path in inputs:
        path = path.resolve()
        if path in resolved.parents:
            raise SiteError.at(str(out), None, f"refusing to write the site inside {path}, which the build reads (choose another --out)")
    above = next(parent for parent in resolved.parents if parent.exists() or parent == Path(resolved.anchor))
    if not above.is_dir():
        raise SiteError.at(str(out), None, f"cannot write the site below {above}: it is a file, not a directory")
    if resolved.exists() and not resolved.is_dir():
        raise SiteError.at(str(out), None, "--out exists and is not a directory")
    if resolved.is_dir() and any(resolved.iterdir()) and not (resolved / urls.MARKER).is_file():
        raise SiteError.at(
            str(out), None,
            f"refusing to replace a non-empty directory that papersite did not build (no {urls.MARKER} file); "
            "remove it yourself or choose another --out",
        )


def build_lock(out: Path, on_wait=None):
    """Held for a whole build into `out`: a lock file beside it (`.site.lock`), which a second build
    waits for. `out`'s parent is made here, when it is missing."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        return exclusive(out.with_name(f".{out.name}.lock"), on_wait)
    except OSError as exc:
        raise write_error(out, exc) from None


def write_error(out: Path, exc: OSError) -> SiteError:
    """A failed write as the user reads it: which file, why, and that the site is as it was."""
    where = f" ({exc.filename})" if exc.filename else ""
    return SiteError.at(str(out), None, f"cannot write the site: {exc.strerror or exc}{where}; "
                                        "the previous site is as it was")


def write_file(path: str, data: bytes) -> None:
    """Every byte of the site goes through here (tests inject a full disk into it)."""
    with open(path, "wb") as f:
        f.write(data)


def temp_siblings(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.tmp-*")) + sorted(out.parent.glob(f".{out.name}.old-*"))


def trash_siblings(out: Path) -> list[Path]:
    """Previous sites being deleted (`discard_tree`), or left half-deleted by a kill."""
    return sorted(out.parent.glob(f".{out.name}.trash-*"))


def restore_interrupted_swap(out: Path) -> None:
    """Where the kernel cannot exchange two directories, a build killed between its two renames
    leaves the previous site as `.out.old-*` and no `out`. That tree is complete: put it back."""
    old = sorted(out.parent.glob(f".{out.name}.old-*"))
    if old and not out.exists() and not out.is_symlink() and (old[-1] / urls.MARKER).is_file():
        old[-1].rename(out)


def remove_stale_temps(out: Path) -> None:
    """Killed builds leave their half-written trees beside `out`; they are never the live site."""
    restore_interrupted_swap(out)
    for path in temp_siblings(out):
        shutil.rmtree(path, ignore_errors=True)
    for path in trash_siblings(out):
        remove_abandoned(path)


def remove_abandoned(trash: Path) -> None:
    """Delete a previous site whose remover (`discard_tree`) was killed, in the background as it
    would have. A tree whose remover is still at it is left to it, which it shows by holding the
    tree's lock: deleting it here too would make this build wait for the whole tree, a second edit
    soon after the first, at 100,000 papers 400,000 files (bench/README.md)."""
    try:
        lock = held(trash, directory=True, wait=False)
    except OSError:
        return   # its remover finished meanwhile
    if lock is not None:
        remove_in_background(trash, lock)


class Staging:
    """The next output: a tree beside `out` that this process and its forked workers write into,
    swapped in whole by `commit`, removed by `discard`. Used as a context manager, a tree that
    was not committed is discarded, whatever ended the build."""

    def __init__(self, out: Path):
        self.out = out.absolute()
        self.root = self.out.with_name(f".{self.out.name}.tmp-{os.getpid()}")
        self.prefix = os.path.join(self.root, "")   # string paths: a Path per file costs more than its syscalls
        self.made: set[str] = set()
        # True once files of the previous output are being linked in while the build writes
        # (incremental/cache.py `link_previous`): a write must then replace a link, never write
        # through it into the previous output's file.
        self.shared = False
        self.committed = False

    def __enter__(self) -> "Staging":
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_temps(self.out)
            self.root.mkdir()
        except OSError as exc:
            raise write_error(self.out, exc) from None
        return self

    def __exit__(self, *exc) -> None:
        if not self.committed:
            self.discard()

    def write(self, rel: str, data: str | bytes) -> None:
        target = self.prefix + rel
        data = data.encode("utf-8") if isinstance(data, str) else data
        try:
            self.make_parent(target)
            if not self.shared:
                write_file(target, data)
                return
            # Written beside it and renamed over it: whichever of the link and this file comes
            # first, this file is what stays (a link made after it finds the name taken).
            folder, name = os.path.split(target)
            part = os.path.join(folder, f".{name}.part-{os.getpid()}")
            write_file(part, data)
            os.replace(part, target)
        except OSError as exc:   # raised in a worker too: a SiteError travels back as it is
            raise write_error(self.out, exc) from None

    def link(self, rel: str, source: str) -> bool:
        """Hard-link a file of the previous output into the tree (a copy where links fail); False
        when it had to be copied. The previous output is never written to, and the new tree
        replaces it whole, so a link is as good as a copy and costs no bytes. A file this build
        already wrote there stays (True)."""
        target = self.prefix + rel
        try:
            self.make_parent(target)
            try:
                os.link(source, target)
                return True
            except FileExistsError:
                return True
            except OSError:
                write_file(target, Path(source).read_bytes())
                return False
        except OSError as exc:
            raise write_error(self.out, exc) from None

    def remove(self, rel: str) -> None:
        """Take out a page linked in that this build does not make (after its last write), and the
        folders that leaves empty, as a build that never had it would have none (a listing's
        `page-N.html` folder)."""
        target = self.prefix + rel
        try:
            os.unlink(target)
            folder = os.path.dirname(target)
            while folder != str(self.root) and not os.listdir(folder):
                os.rmdir(folder)
                folder = os.path.dirname(folder)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise write_error(self.out, exc) from None

    def make_parent(self, target: str) -> None:
        """mkdir each directory once: thousands of pages share a handful of directories."""
        parent = os.path.dirname(target)
        if parent not in self.made:
            os.makedirs(parent, exist_ok=True)
            self.made.add(parent)

    def commit(self) -> None:
        try:
            write_file(str(self.root / urls.MARKER), b"This directory is written by papersite; the next build replaces it whole.\n")
            swap_in(self.root, self.out)
        except OSError as exc:
            raise write_error(self.out, exc) from None
        self.committed = True

    def discard(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def copy_plan(copies: list[tuple[Path, str]]) -> dict[str, Path]:
    """Output path -> source file of every file `copies` brings in (what copy_tree copies)."""
    plan: dict[str, Path] = {}
    for source, dest in copies:
        if source.is_dir():
            for path in sorted(source.rglob("*")):
                if path.is_file() and not path.name.startswith("."):
                    plan[f"{dest}/{path.relative_to(source).as_posix()}"] = path
        else:
            plan[dest] = source
    return plan


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directories; False where the kernel or filesystem cannot."""
    result = _libc.renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE)
    if result == 0:
        return True
    if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(b))


def swap_in(new: Path, out: Path) -> None:
    if not out.exists():
        new.rename(out)
        return
    if exchange(new, out):
        discard_tree(new, out)  # `new` now holds the previous site
        return
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    out.rename(old)
    new.rename(out)
    discard_tree(old, out)


def discard_tree(tree: Path, out: Path) -> None:
    """Remove the previous site, once it is no longer the live one: renamed out of the way at once,
    deleted by a process of its own where one can be forked (a large collection's tree takes
    seconds to delete, which no build needs to wait for). The remover holds the tree's lock (a flock
    on the directory) until it is done; a deletion cut short, its lock gone with its process, is
    handed to a remover of its own by the next build (`remove_stale_temps`)."""
    trash = out.with_name(f".{out.name}.trash-{os.getpid()}-{os.urandom(4).hex()}")
    tree.rename(trash)
    # Locked before the remover starts, so no build can find the tree unlocked meanwhile.
    remove_in_background(trash, held(trash, directory=True))


def remove_in_background(trash: Path, lock: int) -> None:
    """Delete `trash` in a process of its own, which keeps `lock` (this process's copy is closed) until it is done."""
    if "fork" not in multiprocessing.get_all_start_methods() or sys.platform == "darwin":
        shutil.rmtree(trash, ignore_errors=True)
        os.close(lock)
        return
    child = os.fork()
    if child == 0:   # the child forks the remover and leaves at once, so nobody has to reap it
        try:
            if os.fork() == 0:
                # The remover holds none of the build's files open but the lock: a caller reading
                # the build's output pipe sees it end with the build.
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.dup2(lock, 3)
                os.closerange(4, 65536)
                shutil.rmtree(trash, ignore_errors=True)
        finally:
            os._exit(0)
    os.close(lock)
    os.waitpid(child, 0)
