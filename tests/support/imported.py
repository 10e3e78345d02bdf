"""What an import left in content/papers, as a user would look at it: each page's front matter and abstract."""

from __future__ import annotations

from pathlib import Path

import yaml

from papersite.errors import SiteError
from papersite.inputs.files import read_text
from papersite.inputs.papers import split_front_matter

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SOURCES = FIXTURES / "sources"


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


def front_matters(papers: Path) -> list[str]:
    """The front matter of every page in `papers` and of every page fixture, broken ones included,
    but those with no front matter to split off."""
    texts = []
    for path in sorted(papers.glob("*.md")) + sorted(FIXTURES.rglob("*.md")):
        try:
            texts.append(split_front_matter(read_text(path), str(path))[0])
        except (SiteError, UnicodeDecodeError):
            continue
    return texts
