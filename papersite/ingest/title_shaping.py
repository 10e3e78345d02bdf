"""A found phrase made into a title: trimmed at its first clause break, tidied, cut between words, capitalised."""

from __future__ import annotations

import re

from ..text.mathspans import find_math_spans
from .title_vocabulary import (ADJECTIVE_ENDINGS, AND_CLAUSE_RE, ARTICLES, ASIDE_DASH_RE, CLAUSE_COMMA_RE, CUT_BEFORE,
                               DANGLING, DEGREE_WORDS, DEMONSTRATIVE_RE, EMPTY_LEAD_RE, FALLBACK_TITLE, FIRST_RE,
                               HARD_END_RE, LEADING_JUNK_RE, MATH_LABEL_RE, MAX_WORD_LEN, MIN_TITLE_WORDS, NOVELTY_RE,
                               PAIRED_WORDS, PARENTHETICAL_RE, QUANTITY_NOUNS, RELATIVES, SPACE_BEFORE_PUNCT_RE,
                               TITLE_MAX, TRAILING_JUNK_RE)


def trim_phrase(phrase: str) -> str:
    """The phrase up to its first clause break: a sentence end, a clause comma, a second verb, an aside."""
    phrase = ASIDE_DASH_RE.sub("", phrase)
    phrase = PARENTHETICAL_RE.sub(drop_parenthetical, phrase)
    for pattern in (HARD_END_RE, CLAUSE_COMMA_RE, AND_CLAUSE_RE):
        match = pattern.search(phrase)
        if match:
            phrase = phrase[:match.start()]
    return phrase.strip()


def drop_parenthetical(match: re.Match[str]) -> str:
    """Remove an aside such as "(MARL)", but not a bracket that belongs to a formula."""
    return "" if match.group().count("$") % 2 == 0 else match.group()


def finish_title(phrase: str) -> str:
    """A raw phrase made into a title: tidied, cut to TITLE_MAX, capitalised."""
    body = finish_phrase(phrase, TITLE_MAX)
    return capitalize_first(body) if body else FALLBACK_TITLE


def finish_phrase(phrase: str, limit: int) -> str:
    phrase = tidy_phrase(trim_phrase(MATH_LABEL_RE.sub(drop_math_label, phrase)))
    return cut_phrase(avoid_math(phrase), limit)


def tidy_phrase(phrase: str) -> str:
    """Drop what a title never says: "the problem of", "novel", "the first", "these"."""
    phrase = EMPTY_LEAD_RE.sub("", phrase)
    phrase = FIRST_RE.sub("a ", phrase)
    phrase = NOVELTY_RE.sub(lambda m: m.group("article") + " ", phrase)
    phrase = DEMONSTRATIVE_RE.sub("", phrase)
    words = fix_articles([w for w in phrase.split() if len(w) <= MAX_WORD_LEN])
    return LEADING_JUNK_RE.sub("", SPACE_BEFORE_PUNCT_RE.sub(r"\1", " ".join(words)))


def fix_articles(words: list[str]) -> list[str]:
    """Re-pick a/an after a word was dropped ("a novel approach" -> "an approach")."""
    fixed = list(words)
    for index, word in enumerate(fixed[:-1]):
        if word.lower() in ("a", "an"):
            article = "an" if sounds_vowel(fixed[index + 1]) else "a"
            fixed[index] = article.capitalize() if word[0].isupper() else article
    return fixed


def sounds_vowel(word: str) -> bool:
    """Whether a word takes "an": by letter name for acronyms (an LLM), by spelling otherwise."""
    letters = word.lstrip("\"“'(")
    if not letters:
        return False
    head = letters.split("-")[0]
    if len(head) >= 2 and head.isupper():
        return head[0] in "AEFHILMNORSX"
    lower = letters.lower()
    if lower.startswith(("uni", "use", "usu", "uti", "one", "eu")):
        return False
    return lower[0] in "aeiou" or lower.startswith(("hour", "honest"))


def drop_math_label(match: re.Match[str]) -> str:
    """Drop a symbol that only labels the noun before it; "with $N$ agents" needs its symbol."""
    word = match.group("word")
    return word if word.lower() not in DANGLING and len(word) > 2 else match.group()


def avoid_math(phrase: str) -> str:
    """Formulas left out where the words read on without them, else the phrase before the first."""
    position = phrase.find("$")
    if position < 0:
        return phrase
    before = phrase[:position].split()
    while before and before[-1].lower().strip(",") in CUT_BEFORE | ARTICLES:
        before.pop()
    qualifier_starts = len(before) < len(phrase[:position].split())
    return " ".join(before) if qualifier_starts and len(before) >= MIN_TITLE_WORDS + 1 else phrase


def cut_phrase(phrase: str, limit: int) -> str:
    """At most `limit` characters, cut between words, never ending on a function word."""
    words = phrase.split()
    if len(" ".join(words)) > limit:
        words = cut_words(words, limit)
    while words and (words[-1].lower().strip(",;:") in DANGLING or not words[-1].strip(",;:.")):
        words.pop()
    return TRAILING_JUNK_RE.sub("", balance_brackets(" ".join(words)))


def cut_words(words: list[str], limit: int) -> list[str]:
    """The longest prefix within `limit` that ends before a qualifier, else the longest that fits."""
    fits = 0
    length = -1
    for word in words:
        if length + 1 + len(word) > limit:
            break
        length += 1 + len(word)
        fits += 1
    for end in range(fits, MIN_TITLE_WORDS - 1, -1):
        if is_clean_cut(words, end):
            return words[:end]
    return words[:fits]


def is_clean_cut(words: list[str], end: int) -> bool:
    """Whether `words[:end]` ends a phrase: the next word starts a qualifier, no stub is left."""
    following = words[end].lower() if end < len(words) else ""
    last = words[end - 1].lower().strip(",")
    if not (following in CUT_BEFORE or ends_clause_comma(words, end)) or last in DANGLING:
        return False
    # "an optimal set | of keypoints" leaves the head noun without its content.
    if following == "of" and last in QUANTITY_NOUNS:
        return False
    # "richer | and more stable" strands an adjective, "both predictive | and fair" a "both".
    if following in ("and", "or"):
        after = words[end + 1].lower() if end + 1 < len(words) else ""
        if after in DEGREE_WORDS or PAIRED_WORDS & {word.lower() for word in words[max(end - 3, 0):end]}:
            return False
        # "immersive | and unrestricted exploration": an adjective waits for its noun.
        if last.endswith(ADJECTIVE_ENDINGS):
            return False
    # "an agent that excels | in ..." keeps a stub of a relative clause; "an agent" reads better.
    clause = [index for index, word in enumerate(words[:end]) if word.lower() in RELATIVES]
    return not clause or end - clause[-1] > 3


def ends_clause_comma(words: list[str], end: int) -> bool:
    """A comma before `words[end]` that closes a clause, not one inside "a, b, and c"."""
    if not words[end - 1].endswith(",") or end + 1 >= len(words):
        return False
    following = words[end].lower()
    # A clause opens with a function word or a participle; "richer, token-level" is a list.
    opens_clause = following in CUT_BEFORE | ARTICLES or following.endswith(("ing", "ed", "ly"))
    return opens_clause and not following.endswith(",") and following not in ("and", "or")


def balance_brackets(text: str) -> str:
    """Drop an opening bracket, quote or `$` whose closing partner was cut off."""
    for opening, closing in (("(", ")"), ("[", "]"), ("“", "”")):
        while text.count(opening) > text.count(closing):
            text = text[:text.rfind(opening)].rstrip()
    if text.count("$") % 2:
        text = text[:text.rfind("$")].rstrip()
    return text


def capitalize_first(text: str) -> str:
    """Upper-case the first letter, unless the first word is styled that way (iFinder, eBay)."""
    if not text or not text[0].isalpha() or text[0].isupper():
        return text
    # "ß".upper() is "SS": a capital that changes the length would break the length limit.
    if any(c.isupper() for c in text.split()[0][1:]) or len(text[0].upper()) != 1:
        return text
    return text[0].upper() + text[1:]


def whole_formulas(title: str, source: str) -> str:
    """The title cut before the first formula it does not hold whole: a `$` outside any span, or a
    span that is not one of the source's (a cut between words can fall inside `$...$`, whose
    formula may hold spaces). Spans are found as everywhere else (`text.mathspans`)."""
    if "$" not in title:
        return title
    whole = {source[start:end] for start, end in find_math_spans(source)}
    spans = find_math_spans(title)
    inside = set()
    for start, end in spans:
        inside.update(range(start, end))
    broken = [start for start, end in spans if title[start:end] not in whole]
    broken += [index for index, char in enumerate(title) if char == "$" and index not in inside]
    return cut_phrase(title[:min(broken)], TITLE_MAX) if broken else title
