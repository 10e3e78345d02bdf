"""Reading input files: regular files only, of a bounded size, as UTF-8 text (a BOM and CRLF line endings accepted).

Whatever a folder holds under an input's name (a directory, a FIFO, a socket, a device, a broken
or looping link, a file nobody may read) is reported as `path: message`, never read: a FIFO or
/dev/zero would block or never end.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from ..errors import SiteError

# More than any abstract, page or config needs: a bigger input file is a mistake (or an attack),
# and each parser is handed a bounded text (text/bounds.py): a page of this size takes seconds,
# whatever it holds.
MAX_INPUT_BYTES = 2 * 1024 * 1024
KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
         (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def paper_pages_dir(content_dir: Path) -> Path:
    """Where a project's paper pages are: `papers/*.md` in its content folder."""
    return content_dir / "papers"


def stat_identity(st: os.stat_result) -> tuple[int, int, int]:
    """What says a file is still the one seen before: its inode, size and modification time."""
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def read_text(path: Path, guess: Callable[[bytes], str | None] | None = None, limit: int | None = MAX_INPUT_BYTES) -> str:
    return decode_text(read_regular(path, limit), str(path), guess)


def read_regular(path: Path | str, limit: int | None = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file (a link to one is followed), at most `limit` of them; anything
    else raises SiteError naming the file. Opened without blocking and checked with one fstat,
    so a FIFO is never waited on and a file swapped after a check is still the one checked."""
    return read_regular_with_stat(path, limit)[0]


def read_regular_with_stat(path: Path | str, limit: int | None = MAX_INPUT_BYTES) -> tuple[bytes, os.stat_result]:
    """`read_regular`, and the file's fstat, taken before its bytes were read."""
    shown = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise SiteError.at(shown, None, open_problem(path, exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SiteError.at(shown, None, f"is {kind_of(info.st_mode)}, not a file: only regular files are read")
        if limit is not None and info.st_size > limit:
            raise SiteError.at(shown, None, f"is {info.st_size:,} bytes; an input file may have at most {limit:,}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            # Sized by the fstat (a read of `limit` bytes would allocate them every time); a file
            # that grew since is read on, up to the limit.
            data = f.read(info.st_size + 1)
            if len(data) > info.st_size:
                data += f.read(limit + 1 - len(data)) if limit is not None else f.read()
    except OSError as exc:
        raise SiteError.at(shown, None, f"cannot read it: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:   # it grew after the fstat
        raise SiteError.at(shown, None, f"is more than {limit:,} bytes; an input file may have at most {limit:,}")
    return data, info


def open_problem(path: Path | str, exc: OSError) -> str:
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return f"is a broken symbolic link (to {os.readlink(path)!r})"
    if exc.errno == errno.ELOOP:
        return "is a symbolic link that loops (it leads back to itself)"
    if exc.errno == errno.ENXIO:
        return "is a socket or a device, not a file: only regular files are read"
    return f"cannot read it: {exc.strerror or exc}"


def kind_of(mode: int) -> str:
    return next((name for test, name in KINDS if test(mode)), "not a regular file")


def decode_text(data: bytes, shown: str, guess: Callable[[bytes], str | None] | None = None) -> str:
    """The text of a UTF-8 file; `guess`, given the bytes of one that is not, names the encoding they seem to be in."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        encoding = guess(data) if guess is not None else None
        looks = f"; it looks like {encoding}" if encoding else ""
        raise SiteError.at(
            shown, line, f"not valid UTF-8 (byte 0x{data[exc.start]:02x}){looks}; save the file as UTF-8"
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
