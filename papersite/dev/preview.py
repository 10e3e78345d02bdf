"""The dev server's preview of an edited paper's page, served while the whole site is rebuilt.

At 100,000 papers a rebuild takes 15 s or more; most edits fix an abstract or a title, and the
writer is looking at that one page. As Hugo's fast render does, the server renders that page at
once from the last build's plan and serves it from memory until a rebuild that has the edit is in
place (serve.py; `site/` is written only by builds, so it stays byte-identical to a normal one).

The page is made as the build makes it: the paper read and validated, its texts converted, its
page data and spec made by the build's own functions, rendered by the last build's renderer. What
it takes from the last build is what other papers decide: its related papers, its neighbours,
its authors' pages, its BibTeX key. So a preview is offered only when the edit leaves the paper
where it was (same slug, venue, year, authors, tags): a page made anywhere else, or a broken one,
waits for the build, which reports any problem.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..enrich.listings import page_between
from ..enrich.texts import render_texts
from ..errors import Report, SiteError
from ..inputs.papers import load_paper
from ..model import Paper, Taxonomy
from ..render.plan import paper_spec
from ..render.specs import PaperSpec, Spec

# What must be as the last build read it for the preview to be the page the build will make.
PLACE_FIELDS = ("id", "slug", "venue", "year", "tags", "authors", "aliases", "added")


@dataclass(frozen=True)
class PreviewBase:
    """From the last build: its paper pages' specs, by their source files' names (the pages are
    the files of one folder, inputs/papers.py), its renderer and what reading a page needs. The
    rest of the build's data is not held: the server frees it once idle."""

    by_name: Mapping[str, PaperSpec]
    render: Callable[[Spec], str]
    taxonomy: Taxonomy
    macros: tuple

    def spec_of(self, path: str) -> PaperSpec | None:
        """The spec of the paper page made from the file at `path`, if it is one."""
        spec = self.by_name.get(os.path.basename(path))
        if spec is None or not os.path.samefile(os.path.dirname(path), os.path.dirname(spec.item.paper.path)):
            return None
        return spec


def preview_base(taxonomy: Taxonomy, plan: Sequence[Spec], render: Callable[[Spec], str], macros: tuple) -> PreviewBase:
    """Made once a build is served, while its pages reload (0.14 s at 100,000 papers: made at the
    first preview instead, it was most of the time that preview took)."""
    by_name = {os.path.basename(spec.item.paper.path): spec for spec in plan if isinstance(spec, PaperSpec)}
    return PreviewBase(by_name, render, taxonomy, macros)


def preview_page(base: PreviewBase, path: str) -> tuple[str, str] | None:
    """(the page's path in the site, its HTML) for the paper page read from `path` as it is now,
    or None when the build must make it: not a paper of the last build, moved, or not valid."""
    try:
        spec = base.spec_of(path)
        if spec is None:
            return None
        last = spec.item
        report = Report()
        paper = load_paper(Path(last.paper.path), base.taxonomy, report)
    except (SiteError, OSError):
        return None
    if paper is None or report.errors or not same_place(paper, last.paper):
        return None
    texts, _ = render_texts([paper], Report(), macros=base.macros)
    item = page_between(paper, texts[0], last.credits, last.prev_slug, last.next_slug)
    new = paper_spec(item, spec.related, spec.bibtex_key, spec.venue_slug, spec.above, spec.bibtex_file)
    return new.path, base.render(new)


def same_place(paper: Paper, last: Paper) -> bool:
    return all(getattr(paper, name) == getattr(last, name) for name in PLACE_FIELDS)
