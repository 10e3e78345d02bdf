"""Text folded to lower-case ASCII words: for slugs (papers, venues, authors) and for comparing titles;
words folded to the singular, for terms and acronyms' expansions."""

from __future__ import annotations

import re
import unicodedata

from .chars import TITLE_INVISIBLE_RE

# Letters NFKD leaves alone because they are not a base letter plus an accent.
TRANSLITERATIONS = str.maketrans(
    {"ß": "ss", "ẞ": "SS", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
     "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D", "ı": "i"}
)
NOT_ASCII_WORD_RE = re.compile(r"[^a-z0-9]+")


def ascii_fold(text: str) -> str:
    """The text in ASCII: accents dropped, ß as ss, ø as o; letters with no ASCII form (CJK, Greek, ...) dropped."""
    return unicodedata.normalize("NFKD", text.translate(TRANSLITERATIONS)).encode("ascii", "ignore").decode("ascii")


def ascii_words(text: str) -> list[str]:
    """The text's words in lower-case ASCII: accents dropped, ß as ss, punctuation and invisible characters gone."""
    return NOT_ASCII_WORD_RE.sub(" ", ascii_fold(TITLE_INVISIBLE_RE.sub("", text)).lower()).split()


def strip_plural(word: str) -> str:
    """"policies" -> "policy", "approaches" -> "approach", "networks" -> "network"."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    # "-ss", "-us", "-is", "-ias" are singulars: "loss", "corpus", "analysis", "bias".
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "ias")):
        return word[:-1]
    return word
