"""Reading source files as text: UTF-8 only, a BOM and CRLF line endings accepted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import SiteError


def read_text(path: Path, guess: Callable[[bytes], str | None] | None = None) -> str:
    return decode_text(path.read_bytes(), str(path), guess)


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
