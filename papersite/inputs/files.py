"""Reading source files as text: UTF-8 only, a BOM and CRLF line endings accepted."""

from __future__ import annotations

from pathlib import Path

from ..errors import SiteError


def read_text(path: Path) -> str:
    return decode_text(path.read_bytes(), str(path))


def decode_text(data: bytes, shown: str) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SiteError.at(
            shown, line, f"not valid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8"
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
