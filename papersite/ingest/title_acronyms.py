"""Acronyms an abstract defines ("sum-product networks (SPNs)"), and phrases with them spelled out.

Titles spell out what abstracts abbreviate: when an abstract defines an acronym, its paper's
title holds the expansion five times as often as the acronym (834 against 172 in the even half
of the benchmark corpus, bench/README.md). The title rules use the definitions twice: every use of
an acronym counts as a use of its words (title_words), and a candidate title says
"sum-product networks" where the abstract wrote "SPNs" (title_candidates).
"""

from __future__ import annotations

import re

from ..text.fold import strip_plural

# "(SPNs)", "(ERM)", "( GBI )": the acronym and a plural "s"; the expansion comes before it.
DEFINITION_RE = re.compile(r"\(\s*(?P<acronym>[A-Za-z][A-Za-z0-9\-]{1,14}?)(?P<plural>s?)\s*\)")
# Words an expansion may hold without their initial in the acronym: "Algorithm of Thoughts (AoT)".
UNLETTERED = frozenset("of and for the a an in on to with via by".split())
# How far before "(" an expansion may start: more words than any acronym has letters.
EXPANSION_WORDS = 10
INITIALS_RE = re.compile(r"[^\W_][^\W_]*")
CLOSING_PUNCTUATION = (",", ";", ":", ".", ")", "]")
EDGE_QUOTES = ",;:“”\"'‘’"


def find_acronyms(sentences: list[str]) -> dict[str, str]:
    """Each acronym the sentences define -> its expansion in the singular, in the order defined; the first wins."""
    found: dict[str, str] = {}
    for sentence in sentences:
        for match in DEFINITION_RE.finditer(sentence):
            acronym = match.group("acronym")
            capitals = [c.lower() for c in acronym if c.isupper()]
            if len(capitals) < 2 or acronym in found:
                continue
            words = sentence[:match.start()].split()
            start = expansion_start(words[-EXPANSION_WORDS:], capitals)
            if start is None:
                continue
            start += max(len(words) - EXPANSION_WORDS, 0)
            expansion = " ".join(word.strip(EDGE_QUOTES) for word in words[start:])
            # "Sum-product networks (SPNs) are ...": the capital is the sentence's, not the name's.
            if start == 0 and not any(c.isupper() for c in expansion[1:]):
                expansion = expansion[0].lower() + expansion[1:]
            # Kept singular, as the acronym is: "Sum-Product Networks (SPNs)" -> SPN, "Sum-Product Network".
            found[acronym] = strip_plural(expansion) if match.group("plural") else expansion
    return found


def expansion_start(words: list[str], capitals: list[str]) -> int | None:
    """Where the last words whose initials spell `capitals` start: "Sum-Product Networks" for S, P, N."""
    letters: list[str] = []
    for start in range(len(words) - 1, -1, -1):
        word = words[start].strip(EDGE_QUOTES)
        # A comma or a closing bracket ends the phrase the expansion belongs to.
        if start < len(words) - 1 and words[start].endswith(CLOSING_PUNCTUATION):
            return None
        if word.lower() in UNLETTERED and letters:
            continue
        initials = initials_of(word)
        if not initials:
            return None
        letters = initials + letters
        if len(letters) >= len(capitals):
            if letters[:len(capitals)] != capitals or word.lower() in UNLETTERED:
                return None
            return start
    return None


def initials_of(word: str) -> list[str]:
    """The letters a word gives an acronym: "Sum-Product" -> s, p; "MultiTask" -> m, t."""
    initials = []
    for part in INITIALS_RE.findall(word):
        initials.append(part[0].lower())
        initials += [c.lower() for c in part[1:] if c.isupper()]
    return initials


def spell_out(phrase: str, acronyms: dict[str, str]) -> str:
    """The phrase with each defined acronym replaced by its expansion, unless the expansion is there already."""
    for acronym, expansion in acronyms.items():
        if expansion.lower() in phrase.lower():
            continue
        plural = expansion + ("es" if expansion.endswith(("s", "x", "ch", "sh")) else "s")
        phrase = re.sub(
            rf"(?<![\w\-]){re.escape(acronym)}(s?)(?![\w\-])",
            lambda match, expansion=expansion, plural=plural: plural if match.group(1) else expansion,
            phrase,
        )
    return phrase
