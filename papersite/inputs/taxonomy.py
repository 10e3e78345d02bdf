"""content/tags.yml -> Taxonomy: the tags, each with a slug, a name, a description and the phrases that assign it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..errors import Report, SiteError
from ..model import Tag, Taxonomy
from .files import read_text
from .values import showable, slug_problem
from .yamlsrc import Located, parse_yaml, unknown_key_message

TAG_KEYS = ("slug", "name", "description", "phrases")
# tags/index.html lists the topics: a tag of that slug would lose its page to the list.
RESERVED_SLUGS = ("index",)


def load_taxonomy(path: Path) -> Taxonomy:
    shown = str(path)
    if not path.exists() and not path.is_symlink():
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
    first: dict[str, int] = {}   # slug -> line of the tag that defines it first
    for item, node in zip(data["tags"], tags_node.value):  # type: ignore[union-attr]
        tag = validate_tag(doc, item, node, report)
        if tag is None:
            continue
        line = doc.line_of(node)
        if tag.slug in first:
            report.error(shown, line, f"tag '{tag.slug}' is defined more than once (first at line {first[tag.slug]})")
            continue
        first[tag.slug] = line
        tags.append(tag)
    slugs = [t.slug for t in tags]
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
    if ok and (problem := slug_problem(item["slug"])) is not None:
        report.error(doc.path, doc.key_line("slug", node), f"tag slug {item['slug']!r} must be {problem}")
        ok = False
    elif ok and item["slug"] in RESERVED_SLUGS:
        report.error(doc.path, doc.key_line("slug", node),
                     f"tag slug {item['slug']!r} is taken by the list of topics (tags/{item['slug']}.html); choose another")
        ok = False
    phrases = item.get("phrases") or []
    if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
        report.error(doc.path, doc.key_line("phrases", node), "tag 'phrases' must be a list of text")
        ok = False
    if not ok:
        return None
    return Tag(item["slug"], showable(item["name"]).strip(), showable(item["description"]).strip(),
               tuple(p.strip().lower() for p in phrases))


def shown_taxonomy(taxonomy: Taxonomy) -> Taxonomy:
    """The taxonomy as the site has it: no tag's phrases, which only tag the papers `import` adds
    (ingest/tagging.py) and which no page shows. The build keys its papers and every page by the
    taxonomy: with the phrases in it, a phrase added for the next import rendered every page again."""
    return replace(taxonomy, tags=tuple(replace(tag, phrases=()) for tag in taxonomy.tags))
