"""Author names: as pages show them, as they are compared, sorted and indexed, and the slug each gives.

Two spellings are one name when they have the same words once Unicode NFC, case folding and
white space are set aside. Words are split at white space and at punctuation, so "Michael A.
Osborne" and "Michael A Osborne", "Abbasi-Yadkori" and "Abbasi Yadkori", "Zhongfei (Mark) Zhang"
and "Zhongfei Mark Zhang" are one name; apostrophes join ("O'Connor", "O’Connor", "OConnor"; so do
"Xi'an Li" and "Xian Li", whom content/authors.yml tells apart when they are two people). "Family, Given"
is read as "Given Family". Accents count: "José" and "Jose" are two names (content/authors.yml
merges them when they are one person).

A slug is a function of the name alone, so it never changes when papers are added: the name's
words, accents folded, joined by hyphens ("Yoshua Bengio" -> `yoshua-bengio`), when that spells
the name exactly; otherwise (accents or letters folding cannot keep, a name longer than
SLUG_MAX, the reserved `index`) the same followed by six hex digits of the name's digest
(`sebastien-bubeck-1f0c3a` for "Sébastien Bubeck"), so "Jose Garcia" and "José García" never
compete for one address.
"""

from __future__ import annotations

import re
import unicodedata

from ..digests import text_digest
from ..text.fold import ascii_fold

# Generational suffixes: kept after the family name ("Hal Daumé III" is indexed as "Daumé III, Hal").
SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
# Lower-case particles that belong to the family name shown ("Mihaela van der Schaar" is indexed
# as "van der Schaar, Mihaela", under S). Capitalised, they are read as names: "Le Song", "Vo Nguyen Le Duy".
PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "des", "dos", "das", "la", "le", "ter", "ten"})
APOSTROPHE_RE = re.compile("['\u2019\u02bc]")
ASCII_WORD_RE = re.compile(r"[a-z0-9]+")
NOT_SLUG_RE = re.compile(r"[^a-z0-9]+")
LEADING_PUNCTUATION_RE = re.compile(r"^[\W_]+")
SLUG_MAX = 60
# authors/index.html is the author index.
RESERVED_SLUGS = frozenset({"index"})
OTHER_LETTER = "other"


def shown_name(raw: str) -> str:
    """A name as pages show it: NFC, white space collapsed, "Family, Given" turned round."""
    text = " ".join(unicodedata.normalize("NFC", raw).split())
    if "," not in text:
        return text
    parts = [part.strip() for part in text.split(",")]
    if not all(parts) or len(parts) > 3:
        return text
    if len(parts) == 2:
        # "John Smith, Jr." is given-first already; "Smith, John" is not.
        return text.replace(",", "") if is_suffix(parts[1]) else f"{parts[1]} {parts[0]}"
    if is_suffix(parts[1]):          # BibTeX's "von Last, Jr, First"
        family, suffix, given = parts
    elif is_suffix(parts[2]):        # "Last, First, Jr."
        family, given, suffix = parts
    else:
        return text
    return f"{given} {family} {suffix}"


def is_suffix(word: str) -> bool:
    return word.rstrip(".").lower() in SUFFIXES


def family_first(name: str) -> bool:
    """Whether "X, Y" is one name, family first: X is a family name ("Lovelace", "van der Schaar",
    "Daumé III"), not a given-first name ("Tim Dettmers")."""
    words = name.partition(",")[0].split()
    while len(words) > 1 and is_suffix(words[-1]):
        words.pop()
    return bool(words) and all(word in PARTICLES for word in words[:-1])


def name_words(shown: str) -> list[str]:
    """The words that make a name what it is (see the module's docstring)."""
    text = APOSTROPHE_RE.sub("", unicodedata.normalize("NFC", shown.casefold()))
    if text.isascii():
        return ASCII_WORD_RE.findall(text)
    words, current = [], []
    for char in text:
        # Letters, digits and combining marks (an accent NFC cannot compose, as on a dotless i) make words.
        if unicodedata.category(char)[0] in "LMN":
            current.append(char)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words


def name_key(raw: str) -> str:
    """What two spellings of one name share: their words, space-separated ("" for a name without any)."""
    return " ".join(name_words(shown_name(raw)))


def name_slug(key: str) -> str:
    """The slug of the name whose key this is (see the module's docstring)."""
    base = "-".join(word for word in (NOT_SLUG_RE.sub("", ascii_fold(w).lower()) for w in key.split()) if word)
    if base == key.replace(" ", "-") and len(base) <= SLUG_MAX and base not in RESERVED_SLUGS and base:
        return base
    if len(base) > SLUG_MAX:
        base = base[:SLUG_MAX].rsplit("-", 1)[0]
    return f"{base or 'author'}-{text_digest(key).hex()[:6]}"


def name_parts(shown: str) -> tuple[list[str], list[str], list[str]]:
    """The words of a shown name as (given names, family name with its particles, suffixes):
    "Hal Daumé III" -> (["Hal"], ["Daumé"], ["III"]); "Mihaela van der Schaar" -> (["Mihaela"], ["van", "der", "Schaar"], [])."""
    words = shown.split()
    end = len(words)
    while end > 1 and is_suffix(words[end - 1]):
        end -= 1
    if end == 0:
        return [], [], []
    start = end - 1
    while start > 1 and words[start - 1] in PARTICLES:
        start -= 1
    return words[:start], words[start:end], words[end:]


def family_and_given(shown: str) -> tuple[str, str, str]:
    """(family name as shown in the index, given names, the family name it is sorted by):
    "Hal Daumé III" -> ("Daumé III", "Hal", "Daumé"); "Mihaela van der Schaar" -> ("van der Schaar", "Mihaela", "Schaar")."""
    given, family, suffixes = name_parts(shown)
    if not family:
        return shown, "", shown
    return " ".join(family + suffixes), " ".join(given), family[-1]


def bibtex_name(raw: str) -> str:
    """A name as BibTeX reads it right: given names first, but "Family, Suffix, Given" for a name with a
    generational suffix, the one form in which BibTeX takes it for one ("Hal Daumé III" read as
    given-first is first "Hal", von "Daumé", last "III"): "Hal Daumé III" -> "Daumé, III, Hal"."""
    words = raw.split()
    if "," not in raw and not (words and is_suffix(words[-1])):
        return " ".join(words)   # nearly every name: given-first already, and read right as it is
    shown = shown_name(raw)
    given, family, suffixes = name_parts(shown)
    if not suffixes or not given:
        return shown
    return f"{' '.join(family)}, {' '.join(suffixes)}, {' '.join(given)}"


def index_name(shown: str) -> str:
    """The name as the author index lists it: "Bengio, Yoshua"."""
    family, given, _ = family_and_given(shown)
    return f"{family}, {given}" if given else family


def sort_key(shown: str) -> tuple[str, str, str, str]:
    """By family name, then given names, accents, case and leading punctuation aside ("Sharifi
    -Malvajerdi" under M); exact ties by the name itself."""
    _, given, family = family_and_given(shown)
    return (LEADING_PUNCTUATION_RE.sub("", ascii_fold(family).lower()), ascii_fold(given).lower(), shown.casefold(), shown)


def index_letter(shown: str) -> str:
    """The author index page a name is on: its family name's first letter, a-z, else OTHER_LETTER."""
    first = sort_key(shown)[0][:1]
    return first if "a" <= first <= "z" else OTHER_LETTER
