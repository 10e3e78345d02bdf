"""content/ -> validated Papers (and the Taxonomy they are checked against), with every problem collected.

Every problem in every file goes into the caller's Report; the caller aborts once with all of them.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path

from .. import workers
from ..digests import digest, fingerprint, text_digest
from ..errors import Report, SiteError
from ..model import Paper, Taxonomy
from ..text.bounds import bounds_problem
from ..text.chars import is_safe_url
from .files import (
    decode_text,
    paper_pages_dir,
    read_regular,
    read_regular_with_stat,
    stat_identity,
)
from .links import LINK_KINDS, Links, link_problem
from .taxonomy import load_taxonomy, shown_taxonomy
from .values import date_value, describe, showable, slug_problem, text_list_problem, year_problem
from .yamlsrc import Located, parse_yaml, unknown_key_message

TITLE_SOURCES = ("derived", "given", "edited")
REQUIRED = ("id", "slug", "title", "venue", "year")
LIST_KEYS = ("tags", "code", "authors", "aliases")
ALLOWED_KEYS = ("id", "slug", "title", "title_source", "venue", "year", "added", *LIST_KEYS, "links", "import_digest")
# What `import` writes last in a page's front matter: the digest of the page as it wrote it, so that
# `import --update` can tell an untouched page from an edited one (ingest/pagetext.py). The build
# only checks its form.
IMPORT_DIGEST_RE = re.compile(r"[0-9a-f]{32}\Z")


# Each page file's Paper, by the digest of its name, its bytes and the taxonomy it was checked against.
PaperMemo = dict[bytes, Paper]


def load_content(content_dir: Path, report: Report, digests: Mapping[str, bytes] | None = None,
                 previous: PaperMemo | None = None, jobs: int = 1,
                 on_read: Callable[[str, tuple[int, int, int], bytes], None] | None = None,
                 ) -> tuple[list[Paper], Taxonomy, PaperMemo]:
    """tags.yml and every paper, sorted; problems go into `report` (errors abort later, all at once).

    `digests` gives the digest of a file's bytes where the caller already knows it: a file whose
    name and bytes the `previous` build loaded, with the same taxonomy, gives the same Paper
    without being read or parsed. The rest are parsed on `jobs` workers; `on_read` hears of each
    (its path, its stat identity before it was read, the digest of the bytes read). The memo
    returned keeps the files that loaded without a problem.
    """
    if not content_dir.is_dir():
        raise SiteError.at(str(content_dir), None, "content directory not found (pass --content DIR)")
    taxonomy = shown_taxonomy(load_taxonomy(content_dir / "tags.yml"))
    # What a page is checked against: the topics' slugs. Their names and descriptions are shown by
    # the pages that show them; in every paper's version, an edit to one rendered every page again.
    taxonomy_key = fingerprint(tuple(tag.slug for tag in taxonomy.tags))
    previous = previous or {}
    digests = digests or {}
    memo: PaperMemo = {}
    found: list[Paper | None] = []
    todo = []
    for name in find_paper_files(content_dir):
        key = paper_key(name, taxonomy_key, digests[name]) if name in digests else None
        paper = previous.get(key) if key is not None else None
        if paper is not None:
            if paper.path != name:   # the same file, named from elsewhere: its messages name it so
                paper = replace(paper, path=name)
            memo[key] = paper
        else:
            todo.append((len(found), Path(name)))
        found.append(paper)
    parsed = workers.ordered_map(partial(parse_page_file, taxonomy, taxonomy_key), [path for _, path in todo], jobs)
    for (i, path), (paper, problems, file_digest, identity) in zip(todo, parsed):
        if on_read is not None and identity is not None:
            on_read(str(path), identity, file_digest)
        report.errors.extend(problems.errors)
        report.warnings.extend(problems.warnings)
        found[i] = paper
        if paper is not None and not problems.errors and not problems.warnings:
            memo[paper.version] = paper
    papers = [paper for paper in found if paper is not None]
    check_unique(papers, report)
    return sort_papers(papers), taxonomy, memo


def parse_page_file(taxonomy: Taxonomy, taxonomy_key: bytes, path: Path) -> tuple[Paper | None, Report, bytes, tuple[int, int, int] | None]:
    """One page file, read now: its Paper (None when it has errors) with its versions
    (`paper_key`, and its title's and body's digest), its problems, the digest of the bytes read
    (the file may have changed since it was digested), and the file's stat identity before they
    were read (None when it could not be taken)."""
    problems = Report()
    data, identity = b"", None
    try:
        data, info = read_regular_with_stat(path)
        identity = stat_identity(info)
        paper = load_paper(path, taxonomy, problems, data)
    except SiteError as err:
        problems.absorb(err)
        paper = None
    file_digest = digest(data)
    if paper is not None:
        paper = replace(paper, version=paper_key(str(path), taxonomy_key, file_digest),
                        text_version=text_digest(paper.title, paper.body))
    return paper, problems, file_digest, identity


def paper_key(path: str, taxonomy_key: bytes, file_digest: bytes) -> bytes:
    """The file's name, not its path: the Paper is the same wherever the project is and however
    the build names it (the path is only in its messages), and so are the pages made from it."""
    name = os.path.basename(path)
    return digest(name.encode("utf-8", "surrogateescape") + b"\0" + taxonomy_key + file_digest)


def find_paper_files(content_dir: Path) -> list[str]:
    """The paths of the page files, sorted by name: as strings (an edit at 100,000 papers spent
    0.7 s making Path objects of files it never reads) and sorted as names (sorting 100,000
    paths compares their parts in Python)."""
    papers_dir = paper_pages_dir(content_dir)
    if not papers_dir.is_dir():
        raise SiteError.at(str(papers_dir), None, "no papers directory (import a corpus first: python build.py import SOURCE)")
    prefix = os.path.join(papers_dir, "")
    found = [prefix + name for name in sorted(filter(is_page_name, os.listdir(papers_dir)))]
    if not found:
        raise SiteError.at(str(papers_dir), None, "no pages (*.md) to build a site from (import a corpus first: python build.py import SOURCE)")
    return found


def is_page_name(name: str) -> bool:
    return name.endswith(".md") and not name.startswith(".")


def count_paper_files(content_dir: Path) -> int:
    """How many page files there are, before any is read (names counted, not sorted into paths as
    `find_paper_files` gives them: a first build reads them next); 0 when there is no folder of
    them to list, which reading the content then reports."""
    try:
        return sum(map(is_page_name, os.listdir(paper_pages_dir(content_dir))))
    except OSError:
        return 0


def sort_papers(papers: list[Paper]) -> list[Paper]:
    """Newest conference first, then source order (ids keep it)."""
    return sorted(papers, key=lambda p: (-p.year, p.venue.lower(), p.id))


def split_front_matter(text: str, shown: str) -> tuple[str, str, int]:
    """Return (yaml text, body, line where the body starts)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise SiteError.at(shown, 1, "missing front matter: the file must start with a '---' line")
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1:]), i + 2
    raise SiteError.at(shown, 1, "unterminated front matter: no closing '---' line")


def load_paper(path: Path, taxonomy: Taxonomy, report: Report, data: bytes | None = None) -> Paper | None:
    """One page (from `data`, its bytes, when the caller has read them); None when its problems were added to `report`."""
    shown = str(path)
    front, body, body_line = split_front_matter(decode_text(read_regular(path) if data is None else data, shown), shown)
    doc = parse_yaml(front, shown, first_line=2)
    if not isinstance(doc.value, dict):
        raise SiteError.at(shown, 2, "front matter must be a mapping of keys to values")
    errors_before = len(report.errors)
    fields = validate_front_matter(doc, taxonomy, report)
    # Emptiness is judged on what the page would show: an abstract of zero-width characters is empty.
    body = showable(body)
    if not body.strip():
        report.error(shown, body_line, "empty abstract: write the abstract below the front matter "
                                       "(control and invisible characters do not count)")
    elif (beyond := bounds_problem(body)) is not None:
        report.error(shown, body_line + beyond[0], f"the abstract {beyond[1]}")
    if len(report.errors) > errors_before:
        return None
    return Paper(**fields, body=body.strip("\n"), path=shown, body_line=body_line)


def validate_front_matter(doc: Located, taxonomy: Taxonomy, report: Report) -> dict:
    data: dict = doc.value  # type: ignore[assignment]
    shown = doc.path
    for key in data:
        if key not in ALLOWED_KEYS:
            report.error(shown, doc.key_line(str(key)), unknown_key_message(key, ALLOWED_KEYS, "front-matter"))
    for key in REQUIRED:
        if key not in data:
            report.error(shown, 2, f"missing required field '{key}'")

    def fail(key: str, message: str) -> None:
        report.error(shown, doc.key_line(key), f"'{key}' {message}")

    for key in ("id", "slug", "title", "venue"):
        if key in data and (not isinstance(data[key], str) or not data[key].strip()):
            fail(key, f"must be non-empty text, got {describe(data[key])}")
        elif key in ("title", "venue") and key in data and not showable(data[key]).strip():
            # What pages show is judged, after YAML's escapes: "\u200b" is as empty as "".
            fail(key, "must be text a reader can see: it holds only control or invisible characters")
        elif key == "title" and key in data and (beyond := bounds_problem(data[key])) is not None:
            fail(key, beyond[1])
    if isinstance(data.get("slug"), str) and data["slug"].strip() and (problem := slug_problem(data["slug"])) is not None:
        fail("slug", f"must be {problem}")
    year = data.get("year")
    if "year" in data and (problem := year_problem(year)) is not None:
        fail("year", f"must be {problem}")
    added = date_value(data["added"]) if "added" in data else ""
    if added is None:
        fail("added", f"must be the day the paper joined the site, written YYYY-MM-DD, got {describe(data['added'])}")
    title_source = data.get("title_source", "edited")
    if title_source not in TITLE_SOURCES:
        fail("title_source", f"must be one of {', '.join(TITLE_SOURCES)}, got {describe(title_source)}")
    lists = {key: validate_string_list(doc, key, report) for key in LIST_KEYS}
    known_tags = taxonomy.by_slug()
    for tag in lists["tags"]:
        if tag not in known_tags:
            fail("tags", f"names unknown tag '{tag}' (add it to tags.yml or fix the spelling)")
    for key in ("tags", "aliases"):
        # A tag listed twice would count the paper twice; an alias twice, write its redirect twice.
        for name in sorted(name for name, count in Counter(lists[key]).items() if count > 1):
            fail(key, f"lists {name!r} more than once")
    # A name twice on one paper is a slip of its source ("Xi Chen, Xi Chen"): shown as written, said once.
    names: set[str] = set()
    for name in lists["authors"]:
        if (folded := " ".join(name.casefold().split())) in names:
            report.warn(shown, doc.key_line("authors"), f"'authors' lists {name.strip()!r} twice; its author page counts the paper once")
        names.add(folded)
    for alias in lists["aliases"]:
        if (problem := slug_problem(alias)) is not None:
            fail("aliases", f"entry {alias!r} is not a valid slug: it must be {problem}")
        elif alias == data.get("slug"):
            # Its redirect would replace the paper's own page.
            fail("aliases", f"entry {alias!r} is the paper's own slug (an alias is an old slug that now redirects here)")
    # A code URL is shown as the page shows any text: what pages never show is dropped first.
    lists["code"] = [link for link in (showable(link).strip() for link in lists["code"]) if link]
    for link in lists["code"]:
        if not is_safe_url(link):
            report.warn(shown, doc.key_line("code"), f"'code' entry {link!r} is not a plain http(s) URL; shown as text, not linked")
    digest = data.get("import_digest")
    if "import_digest" in data and not (isinstance(digest, str) and IMPORT_DIGEST_RE.match(digest)):
        fail("import_digest", f"must be the 32 hex digits `import` wrote, got {describe(digest)} "
                              "(delete the line to keep `import --update` away from this page)")
    return {
        "id": str(data.get("id", "")).strip(),
        "slug": str(data.get("slug", "")),
        "title": showable(str(data.get("title", ""))).strip(),
        "title_source": title_source,
        "venue": showable(str(data.get("venue", ""))).strip(),
        "year": year if isinstance(year, int) else 0,
        "added": added or "",
        **{key: tuple(values) for key, values in lists.items()},
        "authors": tuple(a for a in (showable(a).strip() for a in lists["authors"]) if a),
        "links": validate_links(doc, report),
    }


def validate_string_list(doc: Located, key: str, report: Report) -> list[str]:
    value = doc.value.get(key, [])  # type: ignore[union-attr]
    if value is None:
        return []
    if (problem := text_list_problem(key, value)) is not None:
        report.error(doc.path, doc.key_line(key), problem)
        return []
    return [v.strip() for v in value if v.strip()]


def validate_links(doc: Located, report: Report) -> Links:
    """`links: {doi: 10.5555/12345678, pdf: https://...}`: the five kinds, each a valid address, in LINK_KINDS order."""
    value = doc.value.get("links")  # type: ignore[union-attr]
    if value is None:
        return ()
    if not isinstance(value, dict):
        report.error(doc.path, doc.key_line("links"),
                     f"'links' must be a mapping like {{doi: 10.5555/12345678, pdf: https://...}}, got {describe(value)}")
        return ()

    def line(kind: object) -> int:
        # Asked for only with a message: the node of every page's `links: {}`, asked for at once,
        # parsed again with YAML each page read without it (yamlsrc.Located.node).
        return doc.key_line(str(kind), doc.value_node("links"))

    found = {}
    for kind, link in value.items():
        if kind not in LINK_KINDS:
            report.error(doc.path, line(kind), unknown_key_message(kind, LINK_KINDS, "links"))
        elif not isinstance(link, str):
            # An unquoted arXiv id reads as a number (2401.10 is 2401.1): the hint says what keeps it whole.
            report.error(doc.path, line(kind), f"'links.{kind}' must be text, got {describe(link)} (put it in quotes)")
        elif (problem := link_problem(kind, link.strip())) is not None:
            report.error(doc.path, line(kind), f"'links.{kind}' {problem}")
        else:
            found[kind] = link.strip()
    return tuple((kind, found[kind]) for kind in LINK_KINDS if kind in found)


def check_unique(papers: list[Paper], report: Report) -> None:
    """Slugs and aliases share one URL space; ids must never be reused."""
    owners: dict[str, Paper] = {}
    ids: dict[str, Paper] = {}
    for paper in papers:
        if paper.id in ids:
            report.error(paper.path, front_line(paper.path, "id"), f"duplicate id '{paper.id}' (also in {ids[paper.id].path})")
        ids.setdefault(paper.id, paper)
        for name, kind in [(paper.slug, "slug"), *((a, "alias") for a in paper.aliases)]:
            if name in owners and owners[name] is not paper:
                line = front_line(paper.path, "slug" if kind == "slug" else "aliases", None if kind == "slug" else name)
                report.error(paper.path, line, f"duplicate {kind} '{name}': the URL papers/{name}.html is already taken by {owners[name].path}")
            owners.setdefault(name, paper)


def front_line(path: str, key: str, item: str | None = None) -> int:
    """The line where a page's front matter writes `key` (or `item` of its list), for a clash found
    once every page is loaded: a Paper keeps no lines, and clashes are rare enough to read the page again."""
    try:
        front, _, _ = split_front_matter(decode_text(read_regular(Path(path)), path), path)
        doc = parse_yaml(front, path, first_line=2)
    except (OSError, SiteError):
        return 2
    if not isinstance(doc.value, dict):
        return 2
    node = doc.value_node(key)
    if item is not None and node is not None and isinstance(node.value, list):
        return next((doc.line_of(n) for n in node.value if n.value == item), doc.key_line(key))
    return doc.key_line(key)
