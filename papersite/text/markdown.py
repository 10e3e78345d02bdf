"""Markdown to safe HTML: math as MathML, raw HTML escaped, only http(s)/mailto links, no images.

Abstracts are untrusted text. Raw HTML is shown as text, link schemes are allow-listed,
and images become their alt text because the site loads nothing from another host.
Headings in an abstract get an id and a link to themselves, like the page's own sections.
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET
from html import escape, unescape as unescape_entities

import markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor, UnescapeTreeprocessor
from markdown.util import HTML_PLACEHOLDER_RE, AtomicString

from .chars import CONTROLS_RE, is_safe_url
from .mathml import MathError, latex_to_mathml
from .mathspans import find_math_spans

# Bare URL up to whitespace or a bracket; trailing punctuation is trimmed afterwards.
BARE_URL_RE = r"(?<![\w/])https?://[^\s<>\[\]{}\"']+"
TRAILING_PUNCT = ".,;:!?'\")"
CITATION_RE = r"\[(?P<keys>@[^\]\s;]+(?:;\s*@[^\]\s;]+)*)\]"
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# What makes a line a block in Markdown where a one-line text (a title) starts: a heading (`#`, even
# without a space), a quote, a list item or a rule. "#Exploration: ..." is a NeurIPS 2017 title.
BLOCK_START_RE = re.compile(r"[#>]|[*+-](?=\s|$)|\d+(?=\.(?:\s|$))|[-*_](?=(?:\s*[-*_]){2,}\s*$)")
# Every id of an abstract heading starts with this, and no id the templates write does (paper.html:
# title, abstract, cite, bibtex, related, permalink; base.html: main, search-input, ...), so a heading
# named "Related" cannot take over the page's own #related.
HEADING_ID_PREFIX = "abstract-"
# For a heading with no letters or digits in it (only math, say).
EMPTY_HEADING_SLUG = "section"


def trim_url(url: str) -> str:
    """Strip trailing punctuation a sentence adds, keeping a closing parenthesis that is balanced."""
    while url and url[-1] in TRAILING_PUNCT:
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


class BareUrlProcessor(InlineProcessor):
    def handleMatch(self, m, data):
        url = trim_url(m.group(0))
        el = ET.Element("a", {"href": url})
        el.text = AtomicString(url)
        return el, m.start(0), m.start(0) + len(url)


class CitationProcessor(InlineProcessor):
    """`[@key]` (Pandoc syntax, what the importer writes for \\cite): a quiet marker, no dead link."""

    def handleMatch(self, m, data):
        keys = [k.strip().lstrip("@") for k in m.group("keys").split(";")]
        el = ET.Element("span", {"class": "citation", "title": "Reference in the original paper: " + ", ".join(keys)})
        el.text = AtomicString("[" + ", ".join(keys) + "]")
        return el, m.start(0), m.end(0)


class SanitiseTree(Treeprocessor):
    """Unsafe links lose their href, images become text, nested links flatten, headings step down."""

    def run(self, root):
        self.sanitise(root, inside_link=False)

    def sanitise(self, parent: ET.Element, inside_link: bool) -> None:
        for child in list(parent):
            if child.tag == "img":
                replace_with_text(parent, child, child.get("alt", ""))
                continue
            if child.tag == "a":
                href = child.get("href", "")
                if inside_link or not is_safe_url(href):
                    child.tag = "span"
                    child.attrib.clear()
                else:
                    child.attrib = {"href": href, "rel": "nofollow noopener"}
            if child.tag in HEADINGS:
                # The page owns h1 (title) and h2 (sections); body headings start at h3. Every level
                # steps down, so `####` and `#####` both land on h6 rather than changing places.
                child.tag = "h" + str(min(int(child.tag[1]) + 2, 6))
            self.sanitise(child, inside_link or child.tag == "a")


def replace_with_text(parent: ET.Element, child: ET.Element, text: str) -> None:
    index = list(parent).index(child)
    tail = text + (child.tail or "")
    parent.remove(child)
    if index == 0:
        parent.text = (parent.text or "") + tail
    else:
        prev = parent[index - 1]
        prev.tail = (prev.tail or "") + tail


def one_line(text: str) -> str:
    """A title's Markdown as inline text: on one line, and a start that would make it a block
    (`#`, `>`, `- `, `1. `, `---`) escaped, so the title reads as written."""
    text = text.replace("\n", " ").strip()
    match = BLOCK_START_RE.match(text)
    if match is None:
        return text
    at = match.end() if match.group().isdigit() else 0   # "1. " escapes its dot: "1\. "
    return text[:at] + "\\" + text[at:]


class HeadingAnchors(Treeprocessor):
    """Each heading gets an id from its text and becomes a link to itself, as the page's sections are
    (`<h2 id="abstract"><a class="anchor" href="#abstract">` in paper.html): `abstract-` + slug,
    `-2`, `-3` for a repeat. Runs after SanitiseTree, which would drop the `#` link as unsafe."""

    def __init__(self, md: markdown.Markdown):
        super().__init__(md)
        # Off for titles: a title is shown on every listing, and its id would repeat there.
        self.enabled = True
        self.restore_escapes = UnescapeTreeprocessor().unescape

    def run(self, root):
        if not self.enabled:
            return
        used: set[str] = set()
        counters: dict[str, int] = {}
        for heading in [el for el in root.iter() if el.tag in HEADINGS]:
            anchor_id = unique_id(HEADING_ID_PREFIX + (heading_slug(self.text_of(heading)) or EMPTY_HEADING_SLUG),
                                  used, counters)
            anchor = ET.Element("a", {"class": "anchor", "href": "#" + anchor_id})
            anchor.text, heading.text = heading.text, None
            for child in list(heading):
                heading.remove(child)
                anchor.append(child)
            for link in anchor.iter("a"):
                if link is not anchor:  # a link cannot hold another: one inside the heading becomes its text
                    link.tag = "span"
                    link.attrib.clear()
            heading.set("id", anchor_id)
            heading.append(anchor)

    def text_of(self, heading: ET.Element) -> str:
        """What a reader sees of the heading, less its math: backslash escapes and entities resolved,
        code as its characters (the tree holds it HTML-escaped), formulas dropped."""
        text = "".join(unescape_entities(piece) if isinstance(piece, AtomicString) else piece
                       for piece in heading.itertext())
        return self.restore_escapes(HTML_PLACEHOLDER_RE.sub(self.stashed_text, text))

    def stashed_text(self, match: re.Match) -> str:
        # The stash holds MathML (and math-error code) from MathStash and entities such as `&eacute;`.
        raw = self.md.htmlStash.rawHtmlBlocks[int(match.group(1))]
        return "" if raw.startswith("<") else unescape_entities(raw)


def heading_slug(text: str) -> str:
    """Lower-case words joined by `-`, punctuation dropped (as Python-Markdown's toc, which MkDocs uses).
    Case-folded (ß → ss), and a letter is folded to ASCII when it has an ASCII base (é → e) and kept
    otherwise (α, 学), so a heading in another script still gets a readable id instead of an empty one."""
    folded = []
    for char in unicodedata.normalize("NFKC", text).casefold():
        base = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
        folded.append(base if base.isascii() else char)
    words = re.sub(r"[^\w\s-]", "", "".join(folded))
    return re.sub(r"[\s-]+", "-", words).strip("-")


def unique_id(base: str, used: set[str], counters: dict[str, int]) -> str:
    """`base`, else `base-2`, `base-3`, ...: the first not in `used`, which it joins. `counters` remembers
    the last suffix of each base, so an abstract of many equal headings does not rescan from 2."""
    candidate, number = base, counters.get(base, 1)
    while candidate in used:
        number += 1
        candidate = f"{base}-{number}"
    counters[base] = number
    used.add(candidate)
    return candidate


class MathStash(Preprocessor):
    """Swap each $..$ / $$..$$ span for finished MathML before any Markdown rule runs, so `_` and `*`
    inside formulas are never read as emphasis. Spans are found by the same rule the importer uses."""

    def __init__(self, md: markdown.Markdown, warnings: list[str]):
        super().__init__(md)
        self.warnings = warnings

    def run(self, lines: list[str]) -> list[str]:
        text = "\n".join(lines)
        pieces, last = [], 0
        for start, end in find_math_spans(text):
            span = text[start:end]
            if not span.startswith("$"):
                continue  # in Markdown, \\( and \\[ are escaped brackets, not math
            pieces += [text[last:start], self.md.htmlStash.store(self.to_html(span))]
            last = end
        pieces.append(text[last:])
        return "".join(pieces).split("\n")

    def to_html(self, span: str) -> str:
        display = span.startswith("$$")
        try:
            return latex_to_mathml(span[2:-2] if display else span[1:-1], display)
        except MathError as exc:
            self.warnings.append(f"{exc}; shown as code")
            return f'<code class="math-error">{escape(span)}</code>'


class PapersiteExtension(Extension):
    def __init__(self, warnings: list[str]):
        super().__init__()
        self.warnings = warnings

    def extendMarkdown(self, md):
        md.ESCAPED_CHARS.append("$")  # so `\$5` is a literal dollar, not the start of math
        md.preprocessors.deregister("html_block")
        # After normalize_whitespace (30), which would strip the stash placeholders' marker bytes.
        md.preprocessors.register(MathStash(md, self.warnings), "math", 25)
        md.inlinePatterns.deregister("html")
        md.inlinePatterns.register(CitationProcessor(CITATION_RE, md), "citation", 175)
        md.inlinePatterns.register(BareUrlProcessor(BARE_URL_RE, md), "bare_url", 115)
        md.treeprocessors.register(SanitiseTree(md), "sanitise", 5)
        # Before unescape (0), so a heading's escaped characters are still told apart from its text.
        md.treeprocessors.register(HeadingAnchors(md), "heading_anchors", 4)


class MarkdownRenderer:
    """One configured Markdown instance, reused across pages (building one costs more than a page)."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self.md = markdown.Markdown(extensions=[PapersiteExtension(self.warnings)], output_format="html")

    def render(self, text: str, anchors: bool = True) -> tuple[str, list[str]]:
        """HTML for a Markdown text, and the warnings it raised (unconvertible math).
        With `anchors`, headings get ids and self-links (HeadingAnchors)."""
        plain = plain_paragraphs(text)
        if plain is not None:
            return plain, []
        return self.convert(text, anchors)

    def convert(self, text: str, anchors: bool = True) -> tuple[str, list[str]]:
        """`render` through Python-Markdown, whatever the text."""
        self.warnings.clear()
        self.md.reset()
        self.md.treeprocessors["heading_anchors"].enabled = anchors
        html = self.md.convert(CONTROLS_RE.sub("", text))
        return html, list(self.warnings)

    def render_inline(self, text: str) -> tuple[str, list[str]]:
        """A one-line text (a title): the same rules, without the paragraph wrapper or heading anchors."""
        html, warnings = self.render(one_line(text), anchors=False)
        if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
            html = html[3:-4]
        return html, warnings


# Text Markdown would print as it is: no character that starts markup, math, an entity, an
# escape or a table, no line that starts a block (list, quote, heading, code, rule, setext
# underline) or ends in a hard break, no bare URL, no control character.
PLAIN_TEXT_RE = re.compile(r"[^*_`\[\]!<>&\\#$|{}~\x00-\x09\x0b-\x1f\x7f]*")
BLOCK_LINE_RE = re.compile(r"(?m)^[^\S\n]|^(?:[-+*>#]|\d+[.)])|^[=-]+$|[^\S\n]$|https?:|www\.")
PARAGRAPH_BREAK_RE = re.compile(r"\n{2,}")


def plain_paragraphs(text: str) -> str | None:
    """The HTML Python-Markdown gives a text that is only plain paragraphs, or None for any other text.

    Most abstracts are plain prose, and Markdown's full parse costs far more than this check
    (bench/README.md); tests/test_markdown.py checks the two agree on every text this accepts."""
    text = text.strip("\n")
    if not text or not PLAIN_TEXT_RE.fullmatch(text) or BLOCK_LINE_RE.search(text):
        return None
    return "\n".join(f"<p>{paragraph}</p>" for paragraph in PARAGRAPH_BREAK_RE.split(text) if paragraph)
