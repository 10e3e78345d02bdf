"""Markdown to safe HTML: math as MathML, raw HTML escaped, only http(s)/mailto links, no images.

Abstracts are untrusted text. Raw HTML is shown as text, link schemes are allow-listed,
and images become their alt text because the site loads nothing from another host.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import escape
from urllib.parse import urlsplit

import markdown
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

from .latex import find_math_spans
from .mathml import MathError, latex_to_mathml

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
# Bare URL up to whitespace or a bracket; trailing punctuation is trimmed afterwards.
BARE_URL_RE = r"(?<![\w/])https?://[^\s<>\[\]{}\"']+"
TRAILING_PUNCT = ".,;:!?'\")"
CITATION_RE = r"\[(?P<keys>@[^\]\s;]+(?:;\s*@[^\]\s;]+)*)\]"
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
URL_UNSAFE_CHAR_RE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\"<>\\`\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def trim_url(url: str) -> str:
    """Strip trailing punctuation a sentence adds, keeping a closing parenthesis that is balanced."""
    while url and url[-1] in TRAILING_PUNCT:
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


def is_safe_url(url: str) -> bool:
    """An http(s) or mailto URL that is also well formed: no spaces, controls, quotes, angle brackets or
    backslashes, which browsers repair in ways a reader cannot see (and the HTML checker rejects)."""
    url = url.strip()
    if not url or URL_UNSAFE_CHAR_RE.search(url):
        return False
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return False
    return scheme in SAFE_SCHEMES


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
            if child.tag in ("h1", "h2", "h3", "h4"):
                # The page owns h1 (title) and h2 (sections); body headings start at h3.
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


class MarkdownRenderer:
    """One configured Markdown instance, reused across pages (building one costs more than a page)."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self.md = markdown.Markdown(extensions=[PapersiteExtension(self.warnings)], output_format="html")

    def render(self, text: str) -> tuple[str, list[str]]:
        """HTML for a Markdown text, and the warnings it raised (unconvertible math)."""
        self.warnings.clear()
        self.md.reset()
        html = self.md.convert(CONTROL_RE.sub("", text))
        return html, list(self.warnings)

    def render_inline(self, text: str) -> tuple[str, list[str]]:
        """A one-line text (a title): the same rules, without the paragraph wrapper."""
        html, warnings = self.render(text.replace("\n", " "))
        if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
            html = html[3:-4]
        return html, warnings
