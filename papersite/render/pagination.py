"""A listing's pages: which items each page shows, where the pages are, and the numbered
navigation between them (render/plan.py makes the listings' specs with it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Crumbs = tuple[tuple[str, str | None], ...]


# Pages a listing's navigation links on either side of the current one, besides the first and the last:
# linking every page put 2,000 links (106 KB) on each of the 2,000 pages of a 100,000-paper listing.
PAGINATION_WINDOW = 2


@dataclass(frozen=True)
class Pagination:
    number: int
    count: int
    paths: tuple[str, ...]

    @property
    def shown(self) -> tuple[tuple[int, str] | None, ...]:
        """(number, path) of each page the navigation links, in order, with None where it skips
        pages: the first, the last, and those within PAGINATION_WINDOW of this one. A skip of one
        page shows that page instead: "…" would take as much room."""
        near = range(max(1, self.number - PAGINATION_WINDOW), min(self.count, self.number + PAGINATION_WINDOW) + 1)
        numbers = sorted({1, self.count, *near})
        shown: list[tuple[int, str] | None] = []
        for before, number in zip([0, *numbers], numbers):
            if number - before == 2:
                shown.append((before + 1, self.paths[before]))
            elif number - before > 2:
                shown.append(None)
            shown.append((number, self.paths[number - 1]))
        return tuple(shown)

    @property
    def prev_path(self) -> str | None:
        return self.paths[self.number - 2] if self.number > 1 else None

    @property
    def next_path(self) -> str | None:
        return self.paths[self.number] if self.number < self.count else None


def paginate(items: tuple, per_page: int, path_of: Callable[[int], str]) -> list[tuple[Pagination, tuple]]:
    count = max(1, -(-len(items) // per_page))
    paths = tuple(path_of(n) for n in range(1, count + 1))
    return [(Pagination(n, count, paths), items[(n - 1) * per_page: n * per_page]) for n in range(1, count + 1)]


def numbered_crumbs(above: Crumbs, label: str, number: int, first: str, word: str = "Page") -> Crumbs:
    """`above`, then `label`: the current page on the first page of a numbered set, else a link to
    that first page (`first`) and "Page N"."""
    return above + (((label, None),) if number == 1 else ((label, first), (f"{word} {number}", None)))
