"""Writing the site: into a new tree beside the output directory, then put in place in one step.

A build killed at any moment leaves the previous output whole, or the new one once the next build
has started: nothing touches `out` until the new tree is complete. Pages are written into the new
tree as they are rendered, by the workers that render them, so a build never holds the whole site
in memory. The tree goes in place one of two ways:

- **swapped** (a first build, `--clean`): the tree holds the whole site and replaces `out` in one
  rename (renameat2 RENAME_EXCHANGE where the kernel has it);
- **patched** (a build with a previous output to keep): the tree holds only the files this build
  changed, with the list of those it deletes, and is renamed to a patch beside `out`; that rename
  is the commit. The patch's files are then renamed over their old ones, one by one. A build killed
  meanwhile leaves the patch, which the next build finishes before it reads anything
  (`recover_output`). An edit at 100,000 papers writes a few hundred files, where a swap linked
  400,000 into a new tree and deleted the old one: 11 s of the edit's 33 s of CPU (bench/README.md).

Leftovers of killed builds are removed by the next build. A write that fails (a full disk, a
read-only folder) ends the build with a message and the new tree discarded. Builds into one `out`
take turns (`build_lock`): none can remove another's tree.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import multiprocessing
import os
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
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
    makes its bytes (a text is written as UTF-8), for an output that lacks the file; the build keeps
    the last output's otherwise (incremental/reuse.py `place_files`). An edit makes the few
    such files it changed, not all of them."""

    digest: bytes
    make: Callable[[], str | bytes]


class MadeTogether:
    """Deferred files that one function makes (`make_many(names) -> {name: data}`, given `made`
    already) at a cost that does not fall with how few it is asked for: the search's shards, each
    encoded by a pass over the whole index; the sitemaps, all made from every page. For an output
    that lacks them, the first file asked for is made alone, and from the second every one of
    `names` not made yet at once. Made one at a time, an output deleted with its cache kept took
    an hour and a half to get back its 53,562 search files at 100,000 papers (bench/README.md)."""

    def __init__(self, make_many: Callable[[list[str]], Mapping[str, object]], names: Iterable[str],
                 made: dict[str, object] | None = None):
        self.make_many = make_many
        self.names = names
        self.made = made if made is not None else {}
        self.missed = 0   # files asked for that were not made yet

    def __call__(self, name: str) -> object:
        if name not in self.made:
            self.missed += 1
            self.made.update(self.make_many([name] if self.missed == 1 else [n for n in self.names if n not in self.made]))
        return self.made[name]


# What a build records of such a file for the next: (what it was made from: a digest of that, or
# plain values compared as they are; its digest).
Made = tuple[Hashable, bytes]


def made_once(make: Callable[[], str | bytes], made_from: Hashable | None, last: Made | None,
              reusable: bool = True) -> tuple[str | bytes | Deferred, Made | None]:
    """The file `make()` makes from what `made_from` names: Deferred, with the digest the last
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
    if resolved.is_dir() and os.path.ismount(resolved):
        # The new site is made beside `out` and renamed in: no rename crosses from one file system to another.
        raise SiteError.at(str(out), None, f"--out is a mount point (another file system than {resolved.parent}, where the "
                                           f"build makes the new site before it renames it in); choose a folder inside it, "
                                           f"such as {out / 'site'}")
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
    """Every byte of the site goes through here (tests inject a full disk into it). With os.open,
    not open(): no buffered file object and its checks around a single write, 5 us less a file,
    of 330,000 at 100,000 papers (bench/README.md)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        written = os.write(fd, data)
        while written < len(data):   # a write may be cut short (a signal, a nearly full disk)
            written += os.write(fd, memoryview(data)[written:])
    finally:
        os.close(fd)


def temp_siblings(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.tmp-*")) + sorted(out.parent.glob(f".{out.name}.old-*"))


def patch_siblings(out: Path) -> list[Path]:
    """Committed patches a kill kept from being put in place (`Staging.commit`)."""
    return sorted(out.parent.glob(f".{out.name}.patch-*"))


def trash_siblings(out: Path) -> list[Path]:
    """Previous sites being deleted (`discard_tree`), or left half-deleted by a kill."""
    return sorted(out.parent.glob(f".{out.name}.trash-*"))


def restore_interrupted_swap(out: Path) -> None:
    """Where the kernel cannot exchange two directories, a build killed between its two renames
    leaves the previous site as `.out.old-*` and no `out`. That tree is complete: put it back."""
    old = sorted(out.parent.glob(f".{out.name}.old-*"))
    if old and not out.exists() and not out.is_symlink() and (old[-1] / urls.MARKER).is_file():
        old[-1].rename(out)


def recover_output(out: Path) -> None:
    """Finish what a killed build committed but did not put in place: the swap of a whole tree, or
    a patch. Every build starts with this, once it holds the lock, before it reads `out`."""
    restore_interrupted_swap(out)
    for patch in patch_siblings(out):
        try:
            apply_patch(patch, out)
        except OSError as exc:
            raise SiteError.at(str(out), None, f"cannot finish the update a stopped build began ({patch.name}): "
                                               f"{exc.strerror or exc}; once that is fixed the next build finishes it, "
                                               f"or delete {patch} and build with --clean") from None


def remove_stale_temps(out: Path) -> None:
    """Killed builds leave their half-written trees beside `out`; they are never the live site."""
    recover_output(out)
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
    put in place by `commit`, removed by `discard`. Used as a context manager, a tree that
    was not committed is discarded, whatever ended the build."""

    def __init__(self, out: Path):
        self.out = out.absolute()
        self.root = self.out.with_name(f".{self.out.name}.tmp-{os.getpid()}")
        self.prefix = os.path.join(self.root, "")   # string paths: a Path per file costs more than its syscalls
        self.made: set[str] = set()
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
        try:
            self.make_parent(target)
            write_file(target, data.encode("utf-8") if isinstance(data, str) else data)
        except OSError as exc:   # raised in a worker too: a SiteError travels back as it is
            raise write_error(self.out, exc) from None

    def make_parent(self, target: str) -> None:
        """mkdir each directory once: thousands of pages share a handful of directories."""
        parent = os.path.dirname(target)
        if parent not in self.made:
            os.makedirs(parent, exist_ok=True)
            self.made.add(parent)

    def commit(self, removed: Collection[str] | None = None) -> None:
        """Put the tree in place: swapped for `out` whole; or, given the files of `out` this build
        deletes (`removed`), as a patch of `out`, when there is an `out` to patch (the tree then
        holds the files this build changed, and `out` holds every other). Ctrl-C meanwhile waits
        until the site is the new one, whole (`interrupts_held`)."""
        with interrupts_held():
            self.put_in_place(removed)

    def put_in_place(self, removed: Collection[str] | None) -> None:
        try:
            write_file(self.prefix + urls.MARKER, MARKER_TEXT)
            if removed is None:
                swap_in(self.root, self.out)
                self.committed = True
                return
            if not self.out.is_dir():   # the tree holds only what changed: it is no site of its own
                raise SiteError.at(str(self.out), None, "the site was deleted while this build ran; nothing was written: "
                                                        "build again to write it whole")
            write_file(self.prefix + PATCH_REMOVALS, b"\0".join(os.fsencode(rel) for rel in sorted(removed)))
            patch = self.out.with_name(f".{self.out.name}.patch-{os.getpid()}")
            self.root.rename(patch)   # the commit: from here on, the next build finishes what this one does not
        except OSError as exc:
            raise write_error(self.out, exc) from None
        self.committed = True
        try:
            apply_patch(patch, self.out)
        except OSError as exc:
            raise SiteError.at(str(self.out), None, f"cannot finish updating the site: {exc.strerror or exc}"
                                                    f"{f' ({exc.filename})' if exc.filename else ''}; "
                                                    "the next build finishes it") from None

    def discard(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class InterruptedAfterCommit(KeyboardInterrupt):
    """Ctrl-C that came while a build put its site in place: let finish, then raised."""


@contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C waits while the new site is put in place, then interrupts (InterruptedAfterCommit): a
    patch that touches every page (the site's title changed) takes a second or two at 5,000 papers,
    and a site half old and half new until the next build is worse than that wait. Signals are only
    the main thread's to handle (the dev server's later builds run in a thread of their own); one
    that ignores Ctrl-C (started by nohup, say) goes on ignoring it."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield
        return
    caught: list[int] = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
    if caught:
        raise InterruptedAfterCommit


MARKER_TEXT = b"This directory is written by papersite; the next build replaces what it holds.\n"
# In a patch: the files of `out` it deletes, NUL-separated (a static file's name may hold a newline).
PATCH_REMOVALS = ".papersite-removed"


def apply_patch(patch: Path, out: Path) -> None:
    """Put a committed patch in place: the files it deletes first (a folder may take a deleted
    file's name), then each of its files renamed over its old one. Each step can be done twice, so
    a build killed halfway through is finished by the next one. A patch for an `out` deleted since
    has nothing left to patch and is dropped (the next build makes the whole site)."""
    if not out.is_dir():
        shutil.rmtree(patch, ignore_errors=True)
        return
    removals = patch / PATCH_REMOVALS
    if removals.exists():
        for rel in removals.read_bytes().split(b"\0"):
            if rel:
                remove_file(out, os.fsdecode(rel))
        removals.unlink()
    for folder, _, names in os.walk(patch):
        target_folder = os.path.normpath(os.path.join(out, os.path.relpath(folder, patch)))
        if names:
            os.makedirs(target_folder, exist_ok=True)
        for name in names:
            os.replace(os.path.join(folder, name), os.path.join(target_folder, name))
    shutil.rmtree(patch)


def remove_file(out: Path, rel: str) -> None:
    """Delete a file of `out` (an empty folder, named with a final /), and the folders that leaves
    empty, as a site that never had it would have none (a listing's `page-N.html` folder)."""
    target = os.path.join(out, rel).rstrip("/")
    if not removed(target, os.rmdir if rel.endswith("/") else os.unlink):
        return
    # Each folder above is removed if empty, and the first that is not ends the climb. Asked of
    # rmdir, not by listing the folder: a listing reads all of it, and removing a proceedings
    # volume at 100,000 papers listed papers/ and authors/ (100,000 and 164,000 files) once
    # for each of their thousands of deleted pages, 174 s of a 232 s build.
    folder = os.path.dirname(target)
    while folder != str(out) and removed(folder, os.rmdir):
        folder = os.path.dirname(folder)


def removed(path: str, remove: Callable[[str], None]) -> bool:
    """`remove(path)`; False when there is nothing there, or a folder that is not empty (it holds
    other files, or a file was put in it since: a stray the next build deletes)."""
    try:
        remove(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
        return False
    return True


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
