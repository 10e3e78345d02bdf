"""Finding what an abstract introduces (a named method) or states as its contribution."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .title_shaping import tidy_phrase, trim_phrase
from .title_vocabulary import (ACRONYM_RE, AIM_RE, ANAPHORIC_END_RE, APPOSITIVE_RE, ARTICLES, AS_DESCRIPTION_RE,
                               BY_MAKING_RE, CALLED_WORDS_RE, CONJUNCTIONS, CUT_BEFORE, DESCRIPTION_RE,
                               DESCRIPTOR_SUFFIXES, ENUMERATOR_RE, FIND_RE, GENERIC_HEADS, GERUND_RE,
                               LEADING_ADVERB_RE, LED_CALLED_RE, LED_COMMA_RE, MAKE_RE, MARKER_RE, MIN_TITLE_WORDS,
                               NAMED_RE, NOT_A_SUBJECT_RE, NOT_NAMES, OPENING_FILLER_RE, PAREN_RE, PASSIVE_RE,
                               PREPOSITIONS, RESULT_RE, STUDY_RE, SUBORDINATE_RE, TO_VERB_RE, UNCHANGED_BASE,
                               VAGUE_OBJECTS, WHICH_VERB_RE)


@dataclass(frozen=True)
class Named:
    """What an abstract introduces: a name, and the expansion or description it comes with."""

    name: str
    long_form: str = ""
    description: str = ""


def find_named(sentences: list[str]) -> tuple[int, Named] | None:
    """The first sentence that introduces a named method, and what it names."""
    for index, sentence in enumerate(sentences):
        match = MAKE_RE.search(sentence)
        if not match:
            continue
        rest = LEADING_ADVERB_RE.sub("", match.group("rest"))
        named = parse_acronym(rest) or parse_named(rest) or parse_led(rest)
        if named:
            return index, named
    return None


def parse_acronym(text: str) -> Named | None:
    """`Edge Attribution Patching with GradPath (EAP-GP)` -> the acronym and its expansion."""
    match = ACRONYM_RE.match(text)
    if not match:
        return None
    acronym, tail = match.group("acr"), match.group("tail")
    long_form = expansion_of(match.group("long"), acronym)
    if not is_acronym_of(acronym, long_form):
        return None
    # "a Markov chain Monte Carlo (MCMC) scheme" describes the contribution with a
    # known term; "a Runtime Neural Pruning (RNP) framework" coins a name.
    next_word = tail.split()[0] if tail.split() else ""
    generic_noun = next_word.islower() and next_word not in CUT_BEFORE
    if match.group("article") and generic_noun and not (is_coined(acronym) or is_title_case(long_form)):
        return None
    description = describe_tail(tail)[1]
    # A two-letter acronym (PG, RL) is ambiguous and makes a poor slug: the expansion is the
    # name, and without a description it is no better a title than the contribution phrase.
    if len(acronym) <= 2:
        return Named(long_form, "", description) if description else None
    return Named(acronym, long_form, description)


def expansion_of(text: str, acronym: str) -> str:
    """The expansion in `a method called Foo Bar (FB)` or `method Foo Bar (FB)`: from its first letter."""
    words = CALLED_WORDS_RE.split(text)[-1].strip(" “”\"").split()
    while len(words) > 1 and words[0] in GENERIC_HEADS and words[0][0] != acronym[0].lower():
        words.pop(0)
    return " ".join(words)


def parse_named(text: str, called: bool = False) -> Named | None:
    """`FastSVERL, a scalable method for ...` -> the name and its description.

    `called`: the text follows "called" or "named", which already says a name comes.
    """
    match = NAMED_RE.match(text)
    if not match:
        return None
    name, tail = match.group("name"), match.group("tail")
    # "Zeno, a technique ...", "Lightning Attention, the first ...": plain capitalised words
    # are a name only when an appositive or "called" says so.
    plain_name = is_capitalised(name) and (called or APPOSITIVE_RE.match(tail))
    if not (is_name(name) or plain_name):
        return None
    long_form, description = describe_tail(tail)
    if long_form and not is_acronym_of(name, long_form):
        long_form = ""
    return Named(name, long_form, description)


def parse_led(text: str) -> Named | None:
    """`a model merging algorithm, CCA Merge, ...` or `a benchmark named VisionGraph, used to ...`."""
    match = LED_CALLED_RE.match(text)
    called = bool(match)
    if not match:
        match = LED_COMMA_RE.match(text)
        if not match or match.group("lead").split()[-1].lower() not in GENERIC_HEADS:
            return None
    lead, tail = match.group("lead").strip(), match.group("tail")
    named = parse_acronym(tail) or parse_named(tail, called)
    if not named or named.long_form or named.description:
        return named
    # "federated adaptive asynchronous optimization, named FADAS": the lead is the expansion.
    if is_acronym_of(named.name, lead):
        return Named(named.name, lead, "")
    # What follows the name still describes the lead: "a benchmark named X, used to explore ...".
    after = tail.partition(named.name)[2].lstrip(" ,")
    return Named(named.name, "", f"{lead} {after}" if after[:1].islower() else lead)


def describe_tail(tail: str) -> tuple[str, str]:
    """(expansion, description) from what follows a name: `(Long Form)`, `, a ...`, `, which ...`."""
    long_form = ""
    paren = PAREN_RE.match(tail)
    if paren:
        long_form = paren.group("inner").strip()
        tail = tail[paren.end():]
    for pattern in (DESCRIPTION_RE, AS_DESCRIPTION_RE):
        match = pattern.match(tail)
        if match:
            return long_form, match.group("desc")
    which = WHICH_VERB_RE.match(tail)
    if which and which.group("verb").lower() not in UNCHANGED_BASE:
        adverb = which.group("adverb") or ""
        return long_form, f"{adverb}{gerund(base_form(which.group('verb')))} {which.group('object')}"
    return long_form, ""


def is_name(text: str) -> bool:
    """One name-like word (HYPRL), or a few capitalised words with a name-like one (CCA Merge)."""
    words = text.split()
    if words[0].lower() in NOT_NAMES:
        return False
    capitalised = all(word[0].isupper() or is_name_like(word) for word in words)
    return capitalised and any(is_name_like(word) for word in words)


def is_capitalised(text: str) -> bool:
    """One to three plain capitalised words: "Zeno", "Lightning Attention"."""
    words = text.split()
    return (
        len(words) <= 3
        and words[0].lower() not in NOT_NAMES
        and all(word[0].isupper() and word.replace("-", "").isalpha() and len(word) > 2 for word in words)
    )


def is_name_like(word: str) -> bool:
    """FastSVERL, HYPRL, Wan-Move, iFinder, GPT-4: a capital inside, or a digit after a capital."""
    word = word.strip(".,;:")
    if len(word) < 2 or not word[0].isalnum() or not any(c.isalpha() for c in word):
        return False
    parts = word.split("-")
    # "LLM-based", "GPT-style" describe; "LLMs", "GANs" are plurals of known terms.
    if len(parts) > 1 and parts[-1].lower() in DESCRIPTOR_SUFFIXES:
        return False
    if word.endswith("s") and word[:-1].isupper():
        return False
    inner_capital = any(c.isupper() for c in word[1:])
    return inner_capital or (word[0].isupper() and any(c.isdigit() for c in word))


def is_coined(acronym: str) -> bool:
    """FedCal, C3PO: lower-case letters or digits among capitals mark a name made for the paper."""
    return any(c.islower() or c.isdigit() for c in acronym[1:])


def is_title_case(text: str) -> bool:
    """Every word but the short function words starts with a capital: "Runtime Neural Pruning"."""
    words = [word for word in text.split() if word.lower() not in ARTICLES | PREPOSITIONS | CONJUNCTIONS]
    return bool(words) and all(word[0].isupper() for word in words)


def is_acronym_of(acronym: str, long_form: str) -> bool:
    """Whether ACR plausibly abbreviates the long form: two capitals, same first letter, a few words."""
    words = long_form.split()
    return (
        sum(c.isupper() for c in acronym) >= 2
        and 1 <= len(words) <= 8
        and long_form[0].lower() == acronym[0].lower()
        and words[0].lower() not in ARTICLES
    )


def find_contribution(sentences: list[str], skip: int = -1) -> str | None:
    """The phrase that states what the paper does, from the strongest sentence that has one."""
    ranked: list[tuple[tuple[bool, bool, int, int, bool, int], str]] = []
    for position, sentence in enumerate(sentences):
        if position == skip:
            continue
        found = contribution_in(sentence)
        if found:
            tier, phrase = found
            # "In this paper, we ..." is the author pointing at the contribution.
            marked = 0 if tier == 0 and MARKER_RE.search(sentence) else 1
            # "We present weight normalization" still beats the first sentence, but nothing else.
            short = len(tidy_phrase(phrase).split()) < MIN_TITLE_WORDS
            key = (short, is_anaphoric(phrase), marked, tier, "$" in phrase, position)
            ranked.append((key, phrase))
    return min(ranked)[1] if ranked else None


def contribution_in(sentence: str) -> tuple[int, str] | None:
    """(tier, phrase): what was made or studied (0) beats what was done (1) or found (2)."""
    for tier, pattern in ((0, MAKE_RE), (0, STUDY_RE), (1, GERUND_RE), (1, AIM_RE), (1, RESULT_RE), (2, FIND_RE)):
        match = pattern.search(sentence)
        if not match:
            continue
        verb = match.group("verb").lower() if pattern is GERUND_RE else ""
        # "we prove that for every class C, X holds": the main clause is the finding.
        rest = SUBORDINATE_RE.sub("", match.group("rest")) if pattern is FIND_RE else match.group("rest")
        phrase = subject_phrase(rest, verb)
        if phrase:
            return tier, phrase
    passive = PASSIVE_RE.match(OPENING_FILLER_RE.sub("", sentence))
    if passive and "proposed" not in passive.group("rest").lower():
        phrase = subject_phrase(passive.group("rest") + (passive.group("purpose") or ""))
        if phrase:
            return 0, phrase
    return None


def subject_phrase(rest: str, verb: str = "") -> str | None:
    """The object of a contribution verb, trimmed, or None when it is no noun phrase.

    With `verb`, the phrase is the verb's gerund and its object: "Extending TensorFlow with pfor".
    """
    rest = LEADING_ADVERB_RE.sub("", rest)
    by_making = BY_MAKING_RE.match(rest)
    if by_making:
        rest, verb = by_making.group("rest"), ""
    # "an extension, parameterized physics-informed neural networks": the second part says what.
    led = LED_COMMA_RE.match(rest)
    if led and len(led.group("lead").split()) <= 3 and led.group("lead").split()[-1].lower() in GENERIC_HEADS:
        rest = led.group("tail")
    rest = ENUMERATOR_RE.sub("", rest)
    if NOT_A_SUBJECT_RE.match(rest):
        return None
    to_verb = TO_VERB_RE.match(rest)
    # "we propose to normalize X" -> "Normalizing X".
    if to_verb:
        rest = f"{to_verb.group('adverb') or ''}{gerund(to_verb.group('verb'))} {to_verb.group('object')}"
    phrase = trim_phrase(f"{gerund(verb)} {rest}" if verb else rest)
    words = tidy_phrase(phrase).lower().split()
    # "We release related code": two words about the paper's by-products are no title.
    if len(words) < 2 or (len(words) < MIN_TITLE_WORDS and words[-1] in VAGUE_OBJECTS):
        return None
    return phrase


def is_anaphoric(phrase: str) -> bool:
    """Whether the phrase leans on an earlier sentence ("... to solve the problem")."""
    return bool(ANAPHORIC_END_RE.search(phrase))


def base_form(verb: str) -> str:
    """`learns` -> `learn`, `applies` -> `apply`, `matches` -> `match`."""
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("sses", "shes", "ches", "xes", "zes")):
        return verb[:-2]
    return verb[:-1]


def gerund(verb: str) -> str:
    """`use` -> `using`, `learn` -> `learning`, `run` -> `running`."""
    lower = verb.lower()
    if lower.endswith("ie"):
        return verb[:-2] + "ying"
    if lower.endswith("e") and not lower.endswith(("ee", "ye", "oe")) and len(lower) > 2:
        return verb[:-1] + "ing"
    # Short consonant-vowel-consonant verbs double the consonant: run, set, plan.
    if len(lower) <= 4 and re.fullmatch(r"[a-z]*[^aeiou][aeiou][^aeiouwxy]", lower):
        return verb + verb[-1] + "ing"
    return verb + "ing"
