"""BibTeX for the papers: stable keys, one entry each, LaTeX-safe text. papers.bib, the paper pages'
Cite boxes and the reading list's export all give the entries `bibtex_entry` writes.

A conference paper is an `@inproceedings` whose `booktitle` is its proceedings' title, a journal's
an `@article` with its `journal`, a preprint (venue arXiv) a `@misc` (enrich/venues.py): a
well-known venue by its full name, "Advances in Neural Information Processing Systems", as
reference managers and bibliography styles expect; any other venue as the page gives it.

Keys are `<slug><year>` (`fastsverl2025`). A slug never changes once written and is
unique across the site, and the year is the last four characters, so the key of a
paper does not depend on which other papers exist; only if two keys still collide
(a year that is not four digits) does a letter suffix tell them apart, in id order.

Entries carry no abstract, as arXiv, DBLP and the ACL Anthology give them: an entry is for
citing, and the abstract is on the paper page (its `url`), just above the Cite box. A paper's
`links` add `doi`, `eprint` with `archivePrefix = {arXiv}`, and its own web page as the `url`
(in place of the site's page); a paper without links gets no such field.

The title is its Markdown flattened to plain words, with LaTeX's special characters
escaped and math spans kept as `$...$`. BibTeX counts every brace, even `\\{`, so
literal braces become `\\textbraceleft{}` and `\\textbraceright{}` (`\\lbrace`/`\\rbrace`
in math); a field is always balanced.
Non-ASCII text stays as UTF-8 (biber, and bibtex with inputenc, read it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .. import urls
from ..inputs.links import arxiv_id_of, doi_of
from ..inputs.names import bibtex_name
from ..model import Paper
from ..text.chars import CONTROLS_RE
from ..text.macros import CONTROL_WORD
from ..text.mathspans import hide_math_spans
from ..text.plain import flatten_markdown
from .venues import ARTICLE, INPROCEEDINGS, cited_venue

TEXT_ESCAPES = {
    "\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}
_TEXT_SPECIAL = re.compile(r"[\\{}&%$#_~^]")
_BRACE = re.compile(r"[{}]")
# Placeholders for math while the Markdown is flattened (private-use code points).
_MATH_OPEN, _MATH_CLOSE = "\ue020", "\ue021"
_PLACEHOLDER = re.compile(f"{_MATH_OPEN}(\\d+){_MATH_CLOSE}")
_MATH_DELIMITERS = re.compile(
    r"^(?:\$\$(?P<a>.*)\$\$|\$(?P<b>.*)\$|\\\((?P<c>.*)\\\)|\\\[(?P<d>.*)\\\]"
    r"|\\begin\{(?P<env>[a-z]+\*?)\}(?P<e>.*)\\end\{(?P=env)\})$",
    re.DOTALL,
)
_MATH_TOKEN = re.compile(rf"{CONTROL_WORD}|\\[\s\S]|[\s\S]")
FIELD_ORDER = ("title", "author", "booktitle", "journal", "year", "doi", "eprint", "archivePrefix", "url", "keywords")


def escape_text(text: str) -> str:
    """Plain text as LaTeX text: the ten special characters escaped, everything else kept."""
    return _TEXT_SPECIAL.sub(lambda m: TEXT_ESCAPES[m.group()], CONTROLS_RE.sub("", text))


def balanced(text: str) -> bool:
    """Braces as BibTeX counts them: every `{` and `}`, backslash or not."""
    depth = 0
    for char in _BRACE.findall(text):  # a few braces, not every character, go through the loop
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def escape_math(span: str) -> str | None:
    """A math span as inline `$...$` safe inside a BibTeX field, or None when it cannot be kept."""
    m = _MATH_DELIMITERS.match(span)
    if not m:
        return None
    body = next(g for g in (m.group("a"), m.group("b"), m.group("c"), m.group("d"), m.group("e")) if g is not None)
    out = []
    for token in _MATH_TOKEN.findall(CONTROLS_RE.sub("", body)):
        if token == "\\{":
            out.append(r"\lbrace ")
        elif token == "\\}":
            out.append(r"\rbrace ")
        elif token in ("%", "#", "&"):
            out.append("\\" + token)   # a comment, a parameter, an alignment tab: errors in inline math
        else:
            out.append(token)
    inner = " ".join("".join(out).split())
    if not inner or "$" in inner or not balanced(inner):
        return None
    return f"${inner}$"


def markdown_to_latex(markdown: str, protect_case: bool = False) -> str:
    """Markdown (with $math$) as one line of LaTeX text for a BibTeX field."""
    hidden, maths = hide_math_spans(markdown, _MATH_OPEN, _MATH_CLOSE)
    flat = flatten_markdown(hidden)
    text = escape_text(flat)
    if protect_case:
        text = protect_capitals(text, maths)

    def math(m: re.Match) -> str:
        span = maths[int(m.group(1))]
        return escape_math(span) or escape_text(" ".join(span.split()))

    text = _PLACEHOLDER.sub(math, text)
    # Placeholders a flattening step might have mangled must not leak into the output.
    text = text.replace(_MATH_OPEN, "").replace(_MATH_CLOSE, "")
    return text if balanced(text) else escape_text(flatten_markdown(markdown))


def protect_capitals(title: str, maths: Sequence[str] = ()) -> str:
    """Brace words with capitals so bibliography styles that lower-case titles keep `GPU`, `Shapley`.

    `title` is escaped text in which `maths[n]` stands where its placeholder is. A style lower-cases
    every letter outside braces, in math too (`$\\Phi$` would become `$\\phi$`), so a word is braced
    whole, its math with it, when its text or its math has a capital: `{D$^3$RoMa:}`, `{$\\mathcal{O}(1)$}`.
    The first word is left alone when its first character is its only capital (styles keep it).
    """
    words = title.split(" ")
    out = []
    for i, word in enumerate(words):
        math = "".join(maths[int(n)] for n in _PLACEHOLDER.findall(word))
        letters = [c for c in _PLACEHOLDER.sub("", word) if c.isalpha()]
        has_capital = any(c.isupper() for c in letters) or any(c.isupper() for c in math)
        # Styles keep the title's first character, not its first letter: `3D`, `(Probably)` need braces.
        initial_only = i == 0 and not math and word[:1].isupper() and not any(c.isupper() for c in letters[1:])
        if not has_capital or initial_only:
            out.append(word)
        elif word.startswith("\\"):
            # `{\\#Exploration}` would be a BibTeX "special character", whose letters styles do lower-case.
            out.append("{{" + word + "}}")
        else:
            out.append("{" + word + "}")
    return " ".join(out)


# A name with the word "and" in it (in any case), which BibTeX would split there.
AND_WORD_RE = re.compile(r"\band\b", re.IGNORECASE)


def author_list(authors: Iterable[str]) -> str:
    """`A and B and C`, each name in the form BibTeX reads right (inputs/names.py `bibtex_name`); a
    name that itself contains ` and ` is braced so it stays one name."""
    names = []
    for name in authors:
        escaped = escape_text(bibtex_name(name))
        names.append("{" + escaped + "}" if AND_WORD_RE.search(escaped) else escaped)
    return " and ".join(names)


def keyword_list(names: Iterable[str]) -> str:
    """`A, B, C`; a name that itself has a comma (`Geometry, symmetry and optimal transport`) is braced
    so that biber, biblatex and reference managers, which split the field at commas, keep it one keyword."""
    return ", ".join("{" + escaped + "}" if "," in escaped else escaped
                     for escaped in (escape_text(" ".join(name.split())) for name in names))


def bibtex_keys(papers: Sequence[Paper]) -> dict[str, str]:
    """slug -> key, unique; a key depends only on its own paper unless two would collide."""
    wanted: dict[str, list[Paper]] = {}
    for paper in papers:
        wanted.setdefault(f"{paper.slug}{paper.year}", []).append(paper)
    keys: dict[str, str] = {}
    taken = set(wanted)
    for key, owners in wanted.items():
        if len(owners) == 1:   # nearly every key: no sort to make (an edit makes 100,000 keys)
            keys[owners[0].slug] = key
            continue
        owners = sorted(owners, key=lambda p: p.id)
        keys[owners[0].slug] = key
        suffix = ord("a")
        for paper in owners[1:]:
            while f"{key}{chr(suffix)}" in taken:
                suffix += 1
            keys[paper.slug] = f"{key}{chr(suffix)}"
            taken.add(keys[paper.slug])
    return keys


def safe_url(url: str) -> str:
    return url.replace("{", "%7B").replace("}", "%7D").replace(" ", "%20")


def bibtex_entry(paper: Paper, key: str, title_latex: str, base_url: str | None, keywords: tuple[str, ...]) -> str:
    """`title_latex`: the title as `markdown_to_latex(..., protect_case=True)` gives it; `keywords`: the names of the paper's tags."""
    links = dict(paper.links)
    doi = doi_of(links.get("doi", ""))
    eprint = arxiv_id_of(links.get("arxiv", ""))
    page = urls.absolute_url(base_url, urls.paper_path(paper.slug)) if base_url else ""
    venue = cited_venue(paper.venue)
    fields = {
        "title": title_latex,
        "author": author_list(paper.authors),
        "booktitle": escape_text(venue.title) if venue.kind == INPROCEEDINGS else "",
        "journal": escape_text(venue.title) if venue.kind == ARTICLE else "",
        "year": str(paper.year),
        # DOIs and URLs are read verbatim by biblatex and the url package: only braces and spaces,
        # which would end the field, are percent-encoded.
        "doi": safe_url(doi) if doi else "",
        "eprint": eprint or "",
        "archivePrefix": "arXiv" if eprint else "",
        "url": safe_url(links.get("url") or page),
        "keywords": keyword_list(keywords),
    }
    lines = [f"  {name:<9} = {{{fields[name]}}}" for name in FIELD_ORDER if fields[name]]
    return f"@{venue.kind}{{{key},\n" + ",\n".join(lines) + "\n}\n"


def bibtex_file(title: str, entries: Sequence[str]) -> bytes:
    """papers.bib: the entries, in site order, under a comment line. UTF-8, joined as bytes: a str of
    the whole file would take up to 4 bytes a character."""
    # BibTeX reads an entry wherever it meets "@", comments included: the title goes in without it.
    title = " ".join(title.replace("@", " ").split())
    head = f"% {len(entries)} paper{'' if len(entries) == 1 else 's'} from {title}, one entry each, UTF-8.\n"
    return b"\n".join([head.encode(), *(entry.encode("utf-8") for entry in entries)])
