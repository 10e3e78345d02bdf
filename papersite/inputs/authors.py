"""content/authors.yml (optional) -> the people it names: which spellings are one person, the page's
slug, old slugs, homepage, ORCID iD and note, and which papers a name means when two people share it.

```yaml
authors:
  - name: Yoshua Bengio             # the name the page shows
    variants: [Y. Bengio]           # other spellings papers give: merged into this person
    homepage: https://yoshuabengio.org/
    orcid: 0000-0002-9322-3515
  - name: Wei Wang                  # two people with one name: this one wrote these papers,
    papers: [icml2019-4417]         # the name's other papers are the other's
    slug: wei-wang-ucla             # (required with `papers`: the other person has the name's slug)
    note: UCLA
```

Every problem is reported at its line, with the papers' problems, and the build stops; a person
whose names no paper gives is a warning (a misspelt variant would otherwise merge nothing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..errors import Report, SiteError
from ..model import Paper, PersonEntry
from .files import read_text
from .links import is_web_url
from .names import RESERVED_SLUGS, name_key, shown_name
from .values import SLUG_RE, describe, invisible_note, showable, text_list_problem
from .yamlsrc import Located, parse_yaml, unknown_key_message

PERSON_KEYS = ("name", "variants", "slug", "aliases", "homepage", "orcid", "note", "papers")
ORCID_RE = re.compile(r"(?:https?://orcid\.org/)?(\d{4}-\d{4}-\d{4}-\d{3}[\dX])\Z")


def load_people(content_dir: Path, papers: Sequence[Paper], report: Report) -> tuple[PersonEntry, ...]:
    """The entries of content_dir/authors.yml (none when there is no such file), checked on their own
    and against the papers; problems go into `report`."""
    path = content_dir / "authors.yml"
    if not path.is_file():
        return ()
    shown = str(path)
    try:
        doc = parse_yaml(read_text(path), shown)
    except SiteError as err:
        report.absorb(err)
        return ()
    data = doc.value
    if data is None:
        return ()
    if not isinstance(data, dict) or not isinstance(data.get("authors"), list):
        report.error(shown, 1, "authors.yml must be a mapping with an 'authors' list, like: authors: [{name: Ada Lovelace, variants: [A. Lovelace]}]")
        return ()
    for key in data:
        if key != "authors":
            report.error(shown, doc.key_line(str(key)), unknown_key_message(key, ("authors",), "authors.yml"))
    errors_before = len(report.errors)
    entries = [entry for item, node in zip(data["authors"], doc.value_node("authors").value)
               if (entry := read_entry(doc, item, node, report)) is not None]
    check_together(entries, report)
    if len(report.errors) == errors_before:
        check_against_papers(entries, papers, report)
    return tuple(entries)


def read_entry(doc: Located, item: object, node, report: Report) -> PersonEntry | None:
    """One person, or None when it has errors (each reported at its line)."""
    shown, line = doc.path, doc.line_of(node)
    if not isinstance(item, dict):
        report.error(shown, line, f"each author must be a mapping with a 'name', got {describe(item)}")
        return None
    errors_before = len(report.errors)

    def fail(key: str, message: str) -> None:
        report.error(shown, doc.key_line(key, node), f"'{key}' {message}")

    for key in item:
        if key not in PERSON_KEYS:
            report.error(shown, doc.key_line(str(key), node), unknown_key_message(key, PERSON_KEYS, "author"))
    texts = {}
    if "name" not in item:
        report.error(shown, line, "each author needs a 'name': the name their page shows")
    for key in ("name", "slug", "homepage", "orcid", "note"):
        value = item.get(key)
        if key not in item:
            continue
        if not isinstance(value, str) or not showable(value).strip():
            fail(key, f"must be non-empty text, got {describe(value)}")
        else:
            texts[key] = showable(value).strip()
    lists = {key: text_list(doc, item, node, key, report) for key in ("variants", "aliases", "papers")}
    key_lines = {}
    for key, value in [("name", texts.get("name")), *(("variants", v) for v in lists["variants"])]:
        if value is not None:
            if not name_key(value):
                fail(key, f"{value!r} has no letters or digits: it names nobody")
            key_lines.setdefault(name_key(value), item_line(doc, node, key, value))
    slug = item.get("slug")
    if isinstance(slug, str) and not SLUG_RE.match(slug):
        fail("slug", f"must be lower-case letters, digits and single hyphens, got {slug!r}{invisible_note(slug)}")
    elif slug in RESERVED_SLUGS:
        fail("slug", f"cannot be {slug!r}: authors/{slug}.html is the author index")
    for alias in lists["aliases"]:
        if not SLUG_RE.match(alias) or alias in RESERVED_SLUGS:
            report.error(shown, item_line(doc, node, "aliases", alias), f"'aliases' entry {alias!r} is not a slug an author page can have{invisible_note(alias)}")
    if "homepage" in texts and not is_web_url(texts["homepage"]):
        fail("homepage", f"must be an http(s) URL, got {texts['homepage']!r}")
    orcid = ORCID_RE.match(texts.get("orcid", ""))
    if "orcid" in texts and not (orcid and orcid_checksum_ok(orcid.group(1))):
        fail("orcid", f"must be an ORCID iD like 0000-0002-1825-0097 (its last digit a checksum), got {texts['orcid']!r}")
    if lists["papers"] and "slug" not in item:
        fail("papers", "needs a 'slug' beside it: this person shares a name with whoever wrote its other papers, who keeps the name's slug")
    if len(report.errors) > errors_before:
        return None
    return PersonEntry(
        name=shown_name(texts["name"]), variants=tuple(shown_name(v) for v in lists["variants"]), slug=slug,
        aliases=tuple(lists["aliases"]), homepage=texts.get("homepage"), orcid=orcid.group(1) if orcid else None,
        note=texts.get("note"), papers=tuple(lists["papers"]), keys=tuple(key_lines), path=shown, line=line,
        lines=tuple((key, doc.key_line(key, node)) for key in PERSON_KEYS if key in item), key_lines=tuple(key_lines.items()),
    )


def text_list(doc: Located, item: dict, node, key: str, report: Report) -> list[str]:
    value = item.get(key)
    if value is None:
        return []
    if (problem := text_list_problem(key, value)) is not None:
        report.error(doc.path, doc.key_line(key, node), problem)
        return []
    return [showable(v).strip() for v in value if showable(v).strip()]


def item_line(doc: Located, node, key: str, value: str) -> int:
    """The line of `value` in the entry's `key` (a list, or the text itself)."""
    found = doc.value_node(key, node)
    for child in getattr(found, "value", ()) if found is not None and not isinstance(found.value, str) else ():
        if getattr(child, "value", None) == value:
            return doc.line_of(child)
    return doc.key_line(key, node)


def orcid_checksum_ok(orcid: str) -> bool:
    """ISO 7064 MOD 11-2, as ORCID computes its last character."""
    total = 0
    for digit in orcid.replace("-", "")[:-1]:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    return orcid[-1] == ("X" if check == 10 else str(check))


def check_together(entries: list[PersonEntry], report: Report) -> None:
    """No name is two people's (unless `papers` says which papers are whose), no slug two pages'."""
    owner: dict[str, PersonEntry] = {}
    claimed: dict[tuple[str, str], PersonEntry] = {}
    slugs: dict[str, PersonEntry] = {}
    for entry in entries:
        for key in entry.keys:
            if entry.papers:
                for paper_id in entry.papers:
                    other = claimed.setdefault((key, paper_id), entry)
                    if other is not entry:
                        report.error(entry.path, entry.line_of("papers"),
                                     f"paper '{paper_id}' is already {other.name}'s (line {other.line}): one name on one paper is one person")
            elif owner.setdefault(key, entry) is not entry:
                other = owner[key]
                report.error(entry.path, entry.key_line(key),
                             f"the name {key!r} is already {other.name}'s (line {other.line}); "
                             "two people who share a name each list their papers under 'papers'")
        for slug, where in [(entry.slug, "slug"), *((alias, "aliases") for alias in entry.aliases)]:
            if slug is None:
                continue
            if slugs.setdefault(slug, entry) is not entry:
                report.error(entry.path, entry.line_of(where), f"the slug '{slug}' is already {slugs[slug].name}'s (line {slugs[slug].line})")


def check_against_papers(entries: list[PersonEntry], papers: Sequence[Paper], report: Report) -> None:
    """`papers` names papers that exist and give the name; a person no paper names is a warning."""
    by_id = {paper.id: paper for paper in papers}
    named: set[str] = set()
    for paper in papers:
        named.update(name_key(author) for author in paper.authors)
    for entry in entries:
        keys = set(entry.keys)
        for paper_id in entry.papers:
            paper = by_id.get(paper_id)
            if paper is None:
                report.error(entry.path, entry.line_of("papers"), f"'papers' names unknown paper id '{paper_id}'")
            elif not keys & {name_key(author) for author in paper.authors}:
                report.error(entry.path, entry.line_of("papers"), f"paper '{paper_id}' ({paper.path}) has no author named {entry.name}")
        if not entry.papers and not keys & named:
            report.warn(entry.path, entry.line, f"no paper has an author named {entry.name}"
                        + (" or " + ", ".join(entry.variants) if entry.variants else "") + ": this entry merges nothing")
