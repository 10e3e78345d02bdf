"""Character classes: which characters are controls, invisible or unusable, defined once for every stage.

Each class is a fragment of a regular-expression character class, named for what the characters
are; each compiled pattern below is named for what a stage does with them, and says which
classes it takes.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

C0 = "\x00-\x08\x0b\x0c\x0e-\x1f"          # C0 controls but tab, newline and carriage return
CR = "\r"
DEL = "\x7f"
C1 = "\x80-\x9f"
NEL = "\x85"                               # C1's next-line, which YAML reads as a line break
BIDI = "\u202a-\u202e\u2066-\u2069"        # embeddings, overrides and isolates: they reorder text
ZERO_WIDTH = "\u200b\u2060\ufeff"          # zero-width space, word joiner, BOM
JOINERS = "\u200c\u200d"                   # zero-width non-joiner and joiner
MARKS = "\u200e\u200f\u061c"               # left-to-right, right-to-left and Arabic letter marks
SOFT_HYPHEN = "\u00ad"
LINE_SEPARATORS = "\u2028\u2029"
NONCHARACTERS = "\ufffe\uffff"
SURROGATES = "\ud800-\udfff"

# Controls a rendered text drops (Markdown input, BibTeX fields, derived titles).
CONTROLS_RE = re.compile(f"[{C0}{DEL}]")
# What pages never show (front matter and abstracts, once YAML has read its escapes): controls,
# bidi overrides and marks, zero-width characters and joiners, line and paragraph separators
# (which end a line in JavaScript and in some viewers, not in HTML) and non-characters. They make
# equal-looking strings differ, reorder what follows them, or show as nothing at all; a title made
# only of them is empty (inputs/papers.py).
UNSHOWABLE_RE = re.compile(f"[{C0}{DEL}{C1}{ZERO_WIDTH}{JOINERS}{MARKS}{BIDI}{LINE_SEPARATORS}{NONCHARACTERS}]")
# What a slug or alias error names, when one holds it.
INVISIBLE_RE = re.compile(f"[{ZERO_WIDTH}{JOINERS}{MARKS}{BIDI}]")
# What a derived title drops besides controls.
TITLE_INVISIBLE_RE = re.compile(f"[{BIDI}\u200b{JOINERS}\ufeff{SOFT_HYPHEN}]")
# What YAML cannot hold (and no reader wants): controls but tab and newline, DEL, C1 but NEL,
# non-characters and lone surrogates. The importer drops them with a warning.
UNPRINTABLE_RE = re.compile(f"[{C0}{CR}{DEL}\x80-\x84\x86-\x9f{NONCHARACTERS}{SURROGATES}]")
# What XML 1.0 cannot carry (the sitemap and the feed).
XML_INVALID_RE = re.compile(f"[{C0}{SURROGATES}{NONCHARACTERS}]")
# What makes a URL ill-formed or deceptive: white space, controls, quotes, angle brackets,
# backslashes, backticks and the invisible characters, which browsers repair unseen.
URL_UNSAFE_RE = re.compile(
    f"[\\s\x00-\x1f{DEL}{C1}\"<>\\\\`\u200b{JOINERS}{MARKS}{LINE_SEPARATORS}\u202a-\u202e\u2060-\u2069\ufeff]")


SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


def is_safe_url(url: str) -> bool:
    """An http(s) or mailto URL that is also well formed: no spaces, controls, quotes, angle brackets or
    backslashes, which browsers repair in ways a reader cannot see (and the HTML checker rejects)."""
    url = url.strip()
    if not url or URL_UNSAFE_RE.search(url):
        return False
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return False
    return scheme in SAFE_SCHEMES
