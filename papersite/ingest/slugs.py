"""Slugs: short lower-case ASCII names for pages, from a method name or a title's leading words."""

from __future__ import annotations

import re

from ..text.fold import ascii_words
from .title_cleaning import clean_text, split_math_spans
from .title_phrases import is_name_like
from .title_vocabulary import ARTICLES, CONJUNCTIONS, PREPOSITIONS, RELATIVES

SLUG_MAX = 50
FALLBACK_SLUG = "paper"

# Words skipped when a slug is made from a title.
STOP_WORDS = ARTICLES | PREPOSITIONS | CONJUNCTIONS | RELATIVES | frozenset(
    """our its their this these those such is are be can do does we using based
    towards toward novel new first""".split()
)

POSSESSIVE_RE = re.compile(r"['’]s\b")
SLUG_JUNK_RE = re.compile(r"[^a-z0-9]+")


def slugify(text: str, max_len: int = 60) -> str:
    """Lower-case ASCII words joined by hyphens, at most `max_len` long, never empty."""
    max_len = max(max_len, 1)
    slug = "-".join(ascii_words(text))
    if len(slug) > max_len:
        cut = slug.rfind("-", 0, max_len + 1)
        # A single word longer than the limit: cutting it is the only way to fit.
        slug = slug[:cut] if cut > 0 else slug[:max_len]
    return slug.strip("-") or FALLBACK_SLUG[:max_len]


def derive_slug(title: str, method: str | None) -> str:
    """A short readable slug: the method name, else the leading significant words of the title."""
    method_slug = slugify(method or "", SLUG_MAX)
    if method_slug != FALLBACK_SLUG:
        return method_slug
    text = clean_text(title)
    head, colon, _ = text.partition(": ")
    # A given title "Name: what it is" is best known by its name.
    if colon and 1 <= len(head.split()) <= 2 and is_name_like(head.split()[-1]):
        return slugify(head, SLUG_MAX)
    return slugify("-".join(significant_words(text)), SLUG_MAX)


def unique_slug(base: str, taken: set[str] | frozenset[str]) -> str:
    """`base` if nobody has it yet, else the first free `base-2`, `base-3`, ..."""
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


def significant_words(title: str) -> list[str]:
    """The content words of the title's leading noun phrase: 3 to 6 of them, stop words skipped."""
    text = POSSESSIVE_RE.sub("", " ".join(split_math_spans(title)[::2]))
    words: list[str] = []
    parts = 0
    for raw in text.split():
        bare = raw.lower().strip(".,;:()“”\"'")
        if bare in STOP_WORDS:
            # The leading noun phrase ends at the first stop word after it.
            if parts >= 3:
                break
            continue
        word = SLUG_JUNK_RE.sub("-", slugify(raw, SLUG_MAX)).strip("-")
        if not SLUG_JUNK_RE.sub("", bare):
            continue
        size = word.count("-") + 1
        if parts + size > 6 or len("-".join([*words, word])) > SLUG_MAX:
            break
        words.append(word)
        parts += size
        if raw.endswith((",", ":", ";")) and parts >= 3:
            break
    return words
