"""What an import left in content/papers, as a user would look at it: each page's front matter and abstract."""

from __future__ import annotations

from pathlib import Path

import yaml

from papersite.inputs.papers import split_front_matter

SOURCES = Path(__file__).resolve().parent.parent / "fixtures" / "sources"


def read_page(path: Path) -> tuple[dict, str]:
    front, body, _ = split_front_matter(path.read_text(encoding="utf-8"), str(path))
    return yaml.safe_load(front), body.strip()


def pages_by_title(content: Path) -> dict[str, dict]:
    """title -> front matter, with the abstract under "body" and the file under "path"."""
    pages = {}
    for path in sorted((content / "papers").glob("*.md")):
        front, body = read_page(path)
        pages[front["title"]] = {**front, "body": body, "path": path}
    return pages
