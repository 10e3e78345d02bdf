"""The real corpus (bench/data/ml-abstracts.jsonl.gz, all 5,876 papers) as readers' tools take it: every
plain-text title (the tab's title, link previews, Google Scholar, JSON-LD, the feed) with no LaTeX left in
it, and papers.bib read without an error by bibtexparser, pybtex, BibTeX with plain.bst and biber, with
every title's capitals kept through a style's lower-casing and every topic one keyword; and every kind
of page as a phone shows it (tests/support/phone.py), since the widest names and longest lists are here.

The corpus is imported and built once for the session (conftest.real_corpus). BibTeX and biber are
Debian's (`.ci/run` installs them); without them those two checks are skipped, except under CI=true.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import REAL_BASE_URL, served, tool
from support.phone import phone_problems

pytestmark = pytest.mark.slow

BASE = REAL_BASE_URL
ATOM = "{http://www.w3.org/2005/Atom}"
# Macros that mark up a formula; none may be left as a word in a plain title (`\bf{\Phi}` was "bfΦ").
MARKUP_MACROS = frozenset("""bf rm it cal sf tt text textrm textbf textit texttt textsf emph mathrm mathbf mathit mathsf
    mathtt mathcal mathbb mathfrak mathscr boldsymbol bm operatorname mbox frac sqrt left right big Big hat tilde bar
    vec widetilde widehat overline""".split())


@pytest.fixture(scope="module")
def corpus(real_corpus) -> Path:
    return real_corpus / "site"


@pytest.fixture(scope="module")
def papers(corpus) -> list[dict]:
    return json.loads((corpus / "papers.json").read_text(encoding="utf-8"))["papers"]


def entries_of(bib: str) -> dict[str, str]:
    """papers.bib's entries by key (the file: a comment line, then the entries with a blank line before each)."""
    return {re.match(r"@\w+\{([^,]+),", entry)[1]: entry for entry in bib.split("\n\n")[1:]}


def unbraced(text: str) -> str:
    return " ".join(text.replace("{", "").replace("}", "").split())


# --- plain titles --------------------------------------------------------------------------------

def page_titles(page: str) -> dict[str, str]:
    """The plain title as each reader of a paper page gets it."""
    def meta(attr: str, name: str) -> str:
        return html.unescape(re.search(rf'<meta {attr}="{name}" content="([^"]*)">', page)[1])

    jsonld = json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)[1])
    return {"title": html.unescape(re.search(r"<title>(.*?) · ", page)[1]), "og:title": meta("property", "og:title"),
            "citation_title": meta("name", "citation_title"), "headline": jsonld["headline"]}


def residue(markdown: str, plain: str) -> list[str]:
    """What of the title's LaTeX is left in its plain text: backslashes, braces, `_(`, and macro names that
    are not words of the title itself."""
    found = [mark for mark in ("\\", "{", "}", "_(") if mark in plain]
    words = re.sub(r"\\[A-Za-z]+", " ", markdown)
    for name in set(re.findall(r"\\([A-Za-z]+)", markdown)) & MARKUP_MACROS:
        if plain.count(name) > words.count(name):
            found.append(name)
    return found


def test_every_plain_title_is_free_of_latex(corpus, papers):
    left = {}
    for paper in papers:
        titles = page_titles((corpus / paper["path"]).read_text(encoding="utf-8"))
        assert len(set(titles.values())) == 1, titles   # one plain title, whoever reads the page
        plain = titles["citation_title"]
        if found := residue(paper["title_markdown"], plain):
            left[paper["title_markdown"]] = (plain, found)
    assert left == {}
    assert len(papers) == 5876


@pytest.mark.parametrize("source, shown", [
    (r"$\bf{\Phi}_\textrm{Flow}$: Differentiable", "ΦFlow: Differentiable"),
    (r"${\rm E}(3)$-Equivariant", "E(3)-Equivariant"),
    (r"AdamW: $\ell_\infty$-Norm", "AdamW: ℓ∞-Norm"),
    (r"Breaking the $\mathcal{O}(\sqrt{T})$ Barrier", "Breaking the 𝒪(√T) Barrier"),
    (r"D$^3$RoMa:", "D³RoMa:"),
    (r"QuIP$\#$:", "QuIP#:"),
    (r"with only $\sqrtT$ Regret", "with only √T Regret"),
])
def test_titles_with_formulas_read_as_a_reader_types_them(corpus, papers, source, shown):
    paper = next(p for p in papers if source in p["title_markdown"])
    page = (corpus / paper["path"]).read_text(encoding="utf-8")
    assert shown in page_titles(page)["citation_title"]


def test_the_feed_titles_are_the_plain_titles(corpus, papers):
    plain = {BASE + p["path"]: page_titles((corpus / p["path"]).read_text(encoding="utf-8"))["title"] for p in papers}
    entries = ET.parse(corpus / "feed.xml").getroot().findall(f"{ATOM}entry")
    assert len(entries) == 100
    for entry in entries:
        assert entry.find(f"{ATOM}title").text == plain[entry.find(f"{ATOM}link").get("href")]


# --- papers.bib ----------------------------------------------------------------------------------

def test_papers_bib_parses_with_bibtexparser_without_an_error(corpus, papers):
    import bibtexparser

    library = bibtexparser.parse_string((corpus / "papers.bib").read_text(encoding="utf-8"))
    assert library.failed_blocks == []
    keys = [entry.key for entry in library.entries]
    assert len(keys) == len(set(keys)) == len(papers)
    assert {p["bibtex_key"] for p in papers} == set(keys)


def test_papers_bib_parses_with_pybtex_and_a_style_keeps_every_capital(corpus, papers):
    """pybtex in strict mode raises on any error. Its styles lower-case a title as BibTeX's do (all but
    the first character, braces protecting): every capital of every title must come through."""
    from pybtex.database import parse_string
    from pybtex.richtext import Text

    bib = parse_string((corpus / "papers.bib").read_text(encoding="utf-8"), "bibtex")
    assert len(bib.entries) == len(papers)
    lost = {}
    for key, entry in bib.entries.items():
        title = Text.from_latex(entry.fields["title"])
        as_written, as_styled = title.render_as("text"), title.capitalize().render_as("text")
        if as_written[1:] != as_styled[1:]:
            lost[key] = (as_written, as_styled)
    assert lost == {}


def test_papers_bib_through_bibtex_and_plain_bst_warns_of_nothing_and_keeps_every_capital(corpus, papers, tmp_path):
    bibtex = tool("bibtex")
    shutil.copyfile(corpus / "papers.bib", tmp_path / "papers.bib")
    (tmp_path / "check.aux").write_text("\\citation{*}\n\\bibstyle{plain}\n\\bibdata{papers}\n", encoding="utf-8")
    done = subprocess.run([bibtex, "check"], cwd=tmp_path, capture_output=True, text=True)
    log = (tmp_path / "check.blg").read_text(encoding="utf-8", errors="replace")
    warnings = [line for line in log.splitlines() if line.startswith("Warning--")
                and not line.startswith(("Warning--empty author in ", "Warning--to sort, need author or key in "))]
    assert done.returncode in (0, 1) and "error message" not in log and warnings == []
    # Each \bibitem: the authors (when there are any), then \newblock the title, as plain.bst lower-cased it.
    written = entries_of((corpus / "papers.bib").read_text(encoding="utf-8"))
    authors = {p["bibtex_key"]: p["authors"] for p in papers}
    bbl = (tmp_path / "check.bbl").read_text(encoding="utf-8")
    items = re.findall(r"\\bibitem\{([^}]+)\}\n(.*?)(?=\n\n\\bibitem|\n\n\\end\{thebibliography\})", bbl, re.S)
    assert len(items) == len(papers)
    lost = {}
    for key, item in items:
        blocks = item.split("\\newblock ")
        styled = unbraced(blocks[1 if authors[key] else 0]).removesuffix(".")
        title = unbraced(re.search(r"^  title     = \{(.*)\},$", written[key], re.M)[1])
        if styled[1:] != title[1:].removesuffix("."):
            lost[key] = (title, styled)
    assert lost == {}


def test_biber_validates_papers_bib_and_keeps_each_topic_one_keyword(corpus, papers, tmp_path):
    """biber is slow (a minute and a half of CPU for all 5,876 entries), so it reads every entry whose title
    has a formula or whose topics have a comma in their names, and every fifth of the others."""
    biber = tool("biber")
    written = entries_of((corpus / "papers.bib").read_text(encoding="utf-8"))
    chosen = [key for n, (key, entry) in enumerate(written.items())
              if n % 5 == 0 or "$" in entry.split("\n")[1] or re.search(r"keywords  = \{.*\{", entry)]
    assert any(re.search(r"keywords  = \{.*\{", written[key]) for key in chosen)
    (tmp_path / "chosen.bib").write_text("\n".join(written[key] for key in chosen), encoding="utf-8")
    done = subprocess.run([biber, "--tool", "--validate-datamodel", "--output-file=out.bib", "chosen.bib"],
                          cwd=tmp_path, capture_output=True, text=True)
    problems = [line for line in done.stdout.splitlines() if line.startswith(("WARN", "ERROR"))
                and "Missing mandatory field 'author'" not in line]
    assert done.returncode == 0 and problems == []
    # biber writes each entry back with its keywords as it split them, one per top-level comma.
    names = {p["bibtex_key"]: p["tags"] for p in papers}
    tag_names = {t["slug"]: t["name"] for t in json.loads((corpus / "papers.json").read_text(encoding="utf-8"))["tags"]}
    out = (tmp_path / "out.bib").read_text(encoding="utf-8")
    split = {}
    for key, keywords in re.findall(r"@INPROCEEDINGS\{([^,]+),\n(?:  (?!KEYWORDS).*\n)*  KEYWORDS = \{(.*)\},\n", out):
        split[key] = [unbraced(k).replace(",", ", ") for k in top_level_items(keywords)]
    assert len(split) == len(chosen)
    assert all(split[key] == [tag_names[t] for t in names[key]] for key in chosen)


def top_level_items(field: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, char in enumerate(field):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(field[start:i])
            start = i + 1
    return items + [field[start:]]


# --- a phone -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus_base(corpus):
    """The corpus site served over HTTP under a sub-path, as GitHub Pages serves a project site."""
    with served(corpus.parent) as base:
        yield base + corpus.name + "/"


@pytest.mark.parametrize("kind", ["home", "paper", "tag", "topics", "search", "map", "topic map", "reading list"])
def test_a_phone_sees_every_kind_of_page_first_and_unmoving(corpus, corpus_base, papers, browser, kind):
    tags = json.loads((corpus / "papers.json").read_text(encoding="utf-8"))["tags"]
    widest = max((t for t in tags if t["papers"]), key=lambda t: len(t["name"]))
    topic_map = re.search(r'href="(map/[^"]+\.html)"', (corpus / "map.html").read_text(encoding="utf-8"))[1]
    path = {"home": "index.html", "paper": papers[0]["path"], "tag": f"tags/{widest['slug']}.html",
            "topics": "tags/index.html", "search": "search.html?q=graph+neural+network", "map": "map.html",
            "topic map": topic_map, "reading list": "reading-list.html"}[kind]
    assert phone_problems(browser, corpus_base + path, results=kind == "search") == []
