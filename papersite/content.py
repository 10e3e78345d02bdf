"""Stage 2: read content/ into validated Papers and the tag Taxonomy.

Every problem in every file is collected; the caller aborts once with all of them.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from .cache import BuildCache, FileDigests, digest, fingerprint
from .errors import Report, SiteError
from .markup import is_safe_url
from .model import Paper, Tag, Taxonomy
from .sources import decode_text, read_text
from .yamlsrc import Located, parse_yaml, unknown_key_message

# \Z, not $: "$" also matches before a final newline, and `slug: "x\n"` must not pass.
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
# Bidi embeddings, overrides and isolates reorder how text around them displays, and zero-width
# characters make equal-looking strings differ; with controls, none has a place in shown text.
INVISIBLE_RE = re.compile("[\u200b\u2060\ufeff\u202a-\u202e\u2066-\u2069]")
UNSHOWABLE_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b\u2060\ufeff\u202a-\u202e\u2066-\u2069]")
TITLE_SOURCES = ("derived", "given", "edited")
REQUIRED = ("id", "slug", "title", "venue", "year")
LIST_KEYS = ("tags", "code", "authors", "aliases")
ALLOWED_KEYS = ("id", "slug", "title", "title_source", "venue", "year", *LIST_KEYS)
TAG_KEYS = ("slug", "name", "description", "phrases")


def load_content(content_dir: Path, report: Report, cache: BuildCache | None = None,
                 files: FileDigests | None = None) -> tuple[list[Paper], Taxonomy]:
    """Load tags.yml and every paper; problems go into `report` (errors abort later, all at once).

    With a `cache`, a file whose bytes, path and taxonomy are unchanged since the last build
    gives the same Paper without parsing (nor reading, when `files` knows its digest); only
    files that loaded without any problem are kept.
    """
    files = files or FileDigests()
    if not content_dir.is_dir():
        raise SiteError.at(str(content_dir), None, "content directory not found (pass --content DIR)")
    taxonomy = load_taxonomy(content_dir / "tags.yml")
    taxonomy_key = fingerprint(taxonomy) if cache is not None else b""
    papers = []
    for path in find_paper_files(content_dir):
        data = key = None
        if cache is not None:
            key = paper_key(path, taxonomy_key, files.of(str(path)))
            paper = cache.get("papers", key)
            if paper is not None:
                papers.append(paper)
                continue
            # Parsed from the bytes read now, kept under their digest (the file may have changed since stat).
            data = path.read_bytes()
            key = paper_key(path, taxonomy_key, files.of(str(path), data))
        problems_before = len(report.errors) + len(report.warnings)
        try:
            paper = load_paper(path, taxonomy, report, data)
        except SiteError as err:
            report.absorb(err)
            continue
        if paper is not None:
            if key is not None:
                paper = replace(paper, source_key=key)
            papers.append(paper)
            if cache is not None and len(report.errors) + len(report.warnings) == problems_before:
                cache.put("papers", key, paper)
    check_unique(papers, report)
    return sort_papers(papers), taxonomy


def paper_key(path: Path, taxonomy_key: bytes, file_digest: bytes) -> bytes:
    return digest(str(path).encode("utf-8", "surrogateescape") + b"\0" + taxonomy_key + file_digest)


def find_paper_files(content_dir: Path) -> list[Path]:
    papers_dir = content_dir / "papers"
    if not papers_dir.is_dir():
        raise SiteError.at(str(papers_dir), None, "no papers directory (import a corpus first: python build.py import SOURCE)")
    return sorted(p for p in papers_dir.glob("*.md") if not p.name.startswith("."))


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
    front, body, body_line = split_front_matter(read_text(path) if data is None else decode_text(data, shown), shown)
    doc = parse_yaml(front, shown, first_line=2)
    if not isinstance(doc.value, dict):
        raise SiteError.at(shown, 2, "front matter must be a mapping of keys to values")
    errors_before = len(report.errors)
    fields = validate_front_matter(doc, taxonomy, report)
    if not body.strip():
        report.error(shown, body_line, "empty abstract: write the abstract below the front matter")
    if len(report.errors) > errors_before:
        return None
    return Paper(**fields, body=showable(body).strip("\n"), path=shown, body_line=body_line)


def showable(text: str) -> str:
    """Text as pages show it: no control characters, no bidi overrides, no zero-width characters."""
    return UNSHOWABLE_RE.sub("", text)


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
    if isinstance(data.get("slug"), str) and not SLUG_RE.match(data["slug"]):
        fail("slug", f"must be lower-case letters, digits and single hyphens (no '/', '..' or spaces), got {data['slug']!r}"
                     + invisible_note(data["slug"]))
    year = data.get("year")
    if "year" in data and (not isinstance(year, int) or isinstance(year, bool) or not 1900 <= year <= 2100):
        fail("year", f"must be a four-digit year, got {describe(year)}")
    title_source = data.get("title_source", "edited")
    if title_source not in TITLE_SOURCES:
        fail("title_source", f"must be one of {', '.join(TITLE_SOURCES)}, got {describe(title_source)}")
    lists = {key: validate_string_list(doc, key, report) for key in LIST_KEYS}
    known_tags = taxonomy.by_slug()
    for tag in lists["tags"]:
        if tag not in known_tags:
            fail("tags", f"names unknown tag '{tag}' (add it to tags.yml or fix the spelling)")
    for alias in lists["aliases"]:
        if not SLUG_RE.match(alias):
            fail("aliases", f"entry {alias!r} is not a valid slug{invisible_note(alias)}")
    for link in lists["code"]:
        if not is_safe_url(link):
            report.warn(shown, doc.key_line("code"), f"'code' entry {link!r} is not a plain http(s) URL; shown as text, not linked")
    return {
        "id": str(data.get("id", "")).strip(),
        "slug": str(data.get("slug", "")),
        "title": showable(str(data.get("title", ""))).strip(),
        "title_source": title_source,
        "venue": showable(str(data.get("venue", ""))).strip(),
        "year": year if isinstance(year, int) else 0,
        **{key: tuple(values) for key, values in lists.items()},
        "authors": tuple(a for a in (showable(a).strip() for a in lists["authors"]) if a),
    }


def validate_string_list(doc: Located, key: str, report: Report) -> list[str]:
    value = doc.value.get(key, [])  # type: ignore[union-attr]
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        report.error(doc.path, doc.key_line(key), f"'{key}' must be a list of text items, like [a, b], got {describe(value)}")
        return []
    return [v.strip() for v in value if v.strip()]


def invisible_note(text: str) -> str:
    found = sorted({f"U+{ord(c):04X}" for c in INVISIBLE_RE.findall(text)})
    return f" (it holds invisible characters: {', '.join(found)})" if found else ""


def describe(value: object) -> str:
    kind = {str: "text", int: "a number", float: "a number", bool: "true/false", list: "a list",
            dict: "a mapping", type(None): "nothing"}.get(type(value), type(value).__name__)
    return f"{kind} {value!r}" if not isinstance(value, (list, dict)) else kind


def check_unique(papers: list[Paper], report: Report) -> None:
    """Slugs and aliases share one URL space; ids must never be reused."""
    owners: dict[str, Paper] = {}
    ids: dict[str, Paper] = {}
    for paper in papers:
        if paper.id in ids:
            report.error(paper.path, 2, f"duplicate id '{paper.id}' (also in {ids[paper.id].path})")
        ids.setdefault(paper.id, paper)
        for name, kind in [(paper.slug, "slug"), *((a, "alias") for a in paper.aliases)]:
            if name in owners and owners[name] is not paper:
                report.error(paper.path, 2, f"duplicate {kind} '{name}': the URL papers/{name}.html is already taken by {owners[name].path}")
            owners.setdefault(name, paper)


def load_taxonomy(path: Path) -> Taxonomy:
    shown = str(path)
    if not path.is_file():
        raise SiteError.at(shown, None, "tag taxonomy not found (content/tags.yml lists the tags)")
    doc = parse_yaml(read_text(path), shown)
    data = doc.value
    if not isinstance(data, dict) or not isinstance(data.get("tags"), list):
        raise SiteError.at(shown, 1, "tags.yml must be a mapping with a 'tags' list (and a 'fallback' tag slug)")
    report = Report()
    for key in data:
        if key not in ("fallback", "tags"):
            report.error(shown, doc.key_line(str(key)), unknown_key_message(key, ("fallback", "tags"), "tags.yml"))
    tags_node = doc.value_node("tags")
    tags = []
    for item, node in zip(data["tags"], tags_node.value):  # type: ignore[union-attr]
        tag = validate_tag(doc, item, node, report)
        if tag is not None:
            tags.append(tag)
    slugs = [t.slug for t in tags]
    for slug in sorted({s for s in slugs if slugs.count(s) > 1}):
        report.error(shown, 1, f"tag '{slug}' is defined more than once")
    fallback = data.get("fallback")
    # Against every slug written, valid tag or not: a tag with another mistake is reported once, for that.
    written = slugs + [item.get("slug") for item in data["tags"] if isinstance(item, dict)]
    if fallback not in written:
        report.error(shown, doc.key_line("fallback"), f"'fallback' must name one of the tags, got {fallback!r}")
    report.raise_errors()
    return Taxonomy(tags=tuple(tags), fallback=fallback)


def validate_tag(doc: Located, item: object, node, report: Report) -> Tag | None:
    line = doc.line_of(node)
    if not isinstance(item, dict):
        report.error(doc.path, line, "each tag must be a mapping with slug, name, description, phrases")
        return None
    ok = True
    for key in item:
        if key not in TAG_KEYS:
            report.error(doc.path, doc.key_line(str(key), node), unknown_key_message(key, TAG_KEYS, "tag"))
            ok = False
    for key in ("slug", "name", "description"):
        if not isinstance(item.get(key), str) or not item[key].strip():
            report.error(doc.path, doc.key_line(key, node) if key in item else line, f"tag '{key}' is required text")
            ok = False
    if ok and not SLUG_RE.match(item["slug"]):
        report.error(doc.path, doc.key_line("slug", node),
                     f"tag slug {item['slug']!r} must be lower-case letters, digits and hyphens{invisible_note(item['slug'])}")
        ok = False
    phrases = item.get("phrases") or []
    if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
        report.error(doc.path, doc.key_line("phrases", node), "tag 'phrases' must be a list of text")
        ok = False
    if not ok:
        return None
    return Tag(item["slug"], showable(item["name"]).strip(), showable(item["description"]).strip(),
               tuple(p.strip().lower() for p in phrases))
