"""Writing the site: beside the output directory, then swapped in atomically.

A build killed at any moment leaves the previous output whole: nothing touches `out`
until the new tree is complete, and the swap is one rename (renameat2 RENAME_EXCHANGE
where the kernel has it). Leftovers of killed builds are removed by the next build.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
from pathlib import Path

from . import urls
from .errors import SiteError

RENAME_EXCHANGE = 2
AT_FDCWD = -100
_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def check_output_target(out: Path, protected: list[Path]) -> None:
    """Refuse to replace anything that is not a previous papersite output."""
    restore_interrupted_swap(out.absolute())
    resolved = out.resolve()
    if resolved == Path(resolved.anchor) or resolved == Path.home().resolve():
        raise SiteError.at(str(out), None, "refusing to use the filesystem root or home directory as --out")
    for path in protected:
        path = path.resolve()
        if resolved == path or resolved in path.parents:
            raise SiteError.at(str(out), None, f"refusing to write the site over {path} (choose another --out)")
    if resolved.exists() and not resolved.is_dir():
        raise SiteError.at(str(out), None, "--out exists and is not a directory")
    if resolved.is_dir() and any(resolved.iterdir()) and not (resolved / urls.MARKER).is_file():
        raise SiteError.at(
            str(out), None,
            f"refusing to replace a non-empty directory that papersite did not build (no {urls.MARKER} file); "
            "remove it yourself or choose another --out",
        )


def temp_siblings(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.tmp-*")) + sorted(out.parent.glob(f".{out.name}.old-*"))


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


def make_parent(target: str, made: set[str]) -> None:
    """mkdir each directory once: thousands of pages share a handful of directories."""
    parent = os.path.dirname(target)
    if parent not in made:
        os.makedirs(parent, exist_ok=True)
        made.add(parent)


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    made: set[str] = set()
    prefix = os.path.join(root, "")   # string paths: a Path per file costs more than its syscalls
    for rel in sorted(files):
        target = prefix + rel
        make_parent(target, made)
        data = files[rel]
        with open(target, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)


def link_tree(root: Path, sources: dict[str, str]) -> set[str]:
    """Hard-link each file of the previous output into the new tree (a copy where links fail);
    the paths that had to be copied.

    The previous output is never written to, and the new tree replaces it whole, so a link
    is as good as a copy and costs no bytes."""
    made: set[str] = set()
    copied = set()
    prefix = os.path.join(root, "")
    for rel in sorted(sources):
        target = prefix + rel
        make_parent(target, made)
        try:
            os.link(sources[rel], target)
        except OSError:
            shutil.copyfile(sources[rel], target)
            copied.add(rel)
    return copied


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


def copy_tree(source: Path, dest: Path) -> None:
    """Copy contents only (no timestamps or modes), so identical inputs give identical outputs."""
    for path in sorted(source.rglob("*")):
        if path.is_file() and not path.name.startswith("."):
            target = dest / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


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
        shutil.rmtree(new)  # `new` now holds the previous site
        return
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    out.rename(old)
    new.rename(out)
    shutil.rmtree(old)


def write_site(out: Path, files: dict[str, str | bytes], copies: list[tuple[Path, str]],
               reuse: dict[str, str] | None = None) -> set[str]:
    """Write `files` and copy each (source dir or file, destination) into a fresh tree, then swap it in.

    `reuse` maps output paths to files of the previous output that are linked in unchanged
    (incremental builds; see incremental.py for when that is allowed); those that could not be
    linked, only copied, are returned."""
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temps(out)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    tmp.mkdir()
    try:
        for source, dest in copies:
            if source.is_dir():
                copy_tree(source, tmp / dest)
            else:
                (tmp / dest).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, tmp / dest)
        copied = link_tree(tmp, reuse) if reuse else set()
        write_tree(tmp, files)
        (tmp / urls.MARKER).write_text("This directory is written by papersite; the next build replaces it whole.\n")
        swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return copied
