"""The phrases of an abstract that could be its title: what the rules find, and spans of its first sentences.

A span is a run of words inside one sentence that a reader takes for a phrase on its own and
for a description of the paper: it starts where a phrase can start (the sentence's start, after
a preposition or a verb such as "propose"; not after "of", "and", a comma or "is the"), ends
where one can end (before punctuation or a function word, not on an adjective or an adverb),
and is whole (no cut bracket, quote or formula, no relative clause or "both ..." cut short, no
clause unless from its subject). Which candidate becomes the title is title_words' choice
(titles.choose_title).
"""

from __future__ import annotations

from dataclasses import dataclass

from .title_acronyms import spell_out
from .title_cleaning import split_math_spans
from .title_phrases import contribution_in
from .title_vocabulary import (ADJECTIVE_ENDINGS, AL_NOUNS, ARTICLES, COPULAS, DANGLING, DETERMINERS, EMPTY_HEADS,
                               FINDING_VERBS, FINITE_VERBS, MAX_WORD_LEN, NOT_OPENING, OTHERS_WORK, PAIRED_WORDS,
                               PREPOSITIONS, RELATIVES, SPAN_OPENERS, SUBJECT_WORDS)

# Titles come from the opening of an abstract, where it says what the paper is about.
SPAN_SENTENCES = 6
CONTRIBUTION_SENTENCES = 10
# Where spans may start in a sentence, and the longest span: a long title is cut anyway (TITLE_MAX).
SENTENCE_WORDS = 60
SPAN_WORDS = 14
ENDING_PUNCTUATION = ",;:.!?"
EDGE_CHARACTERS = ",.;:!?()[]\"“”'‘’"
# Words that point into the abstract: "our method", "this problem", "the proposed model".
ANAPHORIC_WORDS = SUBJECT_WORDS | {"them", "us", "itself", "themselves", "proposed", "aforementioned"}
SYMBOL_WORDS = frozenset("& – —".split())
MATH_SPACE = "\x00"   # clean_text removes control characters, so no text holds this one


def candidate_phrases(sentences: list[str], acronyms: dict[str, str]) -> list[str]:
    """The phrases, each also with its acronyms spelled out, for an abstract that names no method of its own."""
    phrases = []
    for sentence in sentences[:CONTRIBUTION_SENTENCES]:
        contribution = contribution_in(sentence)
        phrases.append(contribution[1] if contribution else "")
    phrases += phrase_spans(sentences)
    variants = [variant for phrase in phrases if phrase for variant in (phrase, spell_out(phrase, acronyms))]
    return [phrase for phrase in dict.fromkeys(variants) if stands_alone(phrase)]


def stands_alone(phrase: str) -> bool:
    """Whether a phrase means something without the abstract around it: no "we", "this", "the proposed"."""
    return not {bare(word) for word in phrase.split()} & ANAPHORIC_WORDS


@dataclass(frozen=True)
class Words:
    """A sentence's words as written, and the same lower-cased without edge punctuation."""

    raw: tuple[str, ...]
    bare: tuple[str, ...]


def phrase_spans(sentences: list[str]) -> list[str]:
    """Every span of the first sentences that reads as a phrase, in order."""
    spans = []
    for sentence in sentences[:SPAN_SENTENCES]:
        raw = sentence_words(sentence)
        words = Words(tuple(raw), tuple(bare(word) for word in raw))
        for start in range(min(len(raw), SENTENCE_WORDS)):
            if not opens_span(words, start):
                continue
            if after_finding(words, start):
                spans += spans_from(words, start, clause_allowed=True)
            elif start == 0:
                # A sentence's whole clause is a claim ("Reinforcement learning systems have countless
                # applications"), which few titles are (4% of the benchmark corpus's): its subject is kept.
                spans += [span for span in spans_from(words, 0, clause_allowed=True) if not has_finite_verb(span)]
            else:
                spans += spans_from(words, start, clause_allowed=False)
    return spans


def has_finite_verb(span: str) -> bool:
    return any(bare(word) in FINITE_VERBS for word in span.split())


def sentence_words(sentence: str) -> list[str]:
    """The sentence split at spaces, each formula one word however many spaces it holds."""
    parts = split_math_spans(sentence)
    joined = "".join(part.replace(" ", MATH_SPACE) if index % 2 else part for index, part in enumerate(parts))
    return [word.replace(MATH_SPACE, " ") for word in joined.split()]


def bare(word: str) -> str:
    return word.strip(EDGE_CHARACTERS).lower()


def opens_span(words: Words, start: int) -> bool:
    """Whether a span may start at word `start`: a word that opens a phrase, where one can start."""
    first, lower = words.raw[start], words.bare[start]
    if not lower or lower in NOT_OPENING or lower.endswith("ly") or first[0] in "($[\"":
        return False
    # "The standard ...", "the existing ...": a phrase about others' work.
    if lower in ARTICLES and start + 1 < len(words.raw) and words.bare[start + 1] in OTHERS_WORK:
        return False
    return starts_phrase(words, start)


def starts_phrase(words: Words, start: int) -> bool:
    """Whether what comes before word `start` lets a phrase start there."""
    if start == 0 or after_finding(words, start):
        return True
    previous = words.bare[start - 1]
    # "propose a | method", but not "enables the | combination": after an article, where the article could start.
    if previous in ARTICLES:
        return starts_phrase(words, start - 1)
    # "strategic behaviour of | project proposers": the phrase is about the noun before "of", unless that noun
    # only announces it ("the problem of | X").
    if previous == "of":
        return start > 1 and words.bare[start - 2] in EMPTY_HEADS
    if previous in COPULAS:
        return words.bare[start] in ("a", "an")
    # Not after a comma: there a span is the rest of a list or an appositive ("a hierarchical, | interpretable
    # structure", "..., a common setting for"), which describes what comes before it, not the paper.
    return previous in SPAN_OPENERS or words.raw[start - 1][-1] in ";:"


def after_finding(words: Words, start: int) -> bool:
    """`we show that | X ...`: a clause may start here."""
    return start > 1 and words.bare[start - 1] == "that" and words.bare[start - 2] in FINDING_VERBS


def spans_from(words: Words, start: int, clause_allowed: bool) -> list[str]:
    """The spans that start at word `start` and end where a phrase can end.

    `clause_allowed`: the span starts a clause (a sentence's start, "we show that | ..."), so it may hold a verb.
    """
    spans = []
    depth = quotes = 0
    relative = paired = False
    for end in range(start, min(start + SPAN_WORDS, len(words.raw))):
        word, lower = words.raw[end], words.bare[end]
        depth += word.count("(") + word.count("[") - word.count(")") - word.count("]")
        quotes += word.count('"')
        if depth < 0 or lower in SUBJECT_WORDS or (end > start and lower in FINITE_VERBS and not clause_allowed):
            break
        # "recover through arguments | a bound": an article after a word that is no function word starts the
        # object of a verb, outside a clause the end of the phrase; a gerund's object belongs to the phrase
        # ("a criterion for characterizing the overlap").
        previous = words.bare[end - 1]
        if end > start and not clause_allowed and lower in ARTICLES and not (previous in DANGLING or previous.endswith("ing")):
            break
        # "G = (V;E)" and 41-letter compounds: tidying drops them (title_shaping), leaving a phrase with a hole.
        if not (any(c.isalnum() for c in word) or word in SYMBOL_WORDS) or len(word) > MAX_WORD_LEN:
            break
        # A relative clause or a "both ..." ends only at punctuation: "an agent that excels | in" is a stub.
        relative |= end > start and lower in RELATIVES
        paired = (paired or lower in PAIRED_WORDS) and lower not in ("and", "or")
        at_break = end + 1 == len(words.raw) or word[-1] in ENDING_PUNCTUATION
        following = "" if at_break else words.bare[end + 1]
        breaks = at_break or (following in DANGLING and not (relative or paired))
        # From a sentence's start, a span is the whole clause or its subject ("Graph neural networks for
        # molecules | are ..."), not before a preposition, where its last word is too often a verb ("Today's
        # models depend | on"). A short subject names the field ("Hyperbolic deep learning | has become ..."),
        # which a title narrows down.
        if clause_allowed and not at_break and (following not in FINITE_VERBS | RELATIVES or end - start < 3):
            breaks = False
        whole = depth == 0 and quotes % 2 == 0
        if end > start and whole and breaks and ends_phrase(word, lower, words.bare[end - 1], following):
            spans.append(" ".join(words.raw[start:end + 1]))
        if word[-1] in ENDING_PUNCTUATION:
            break
    return spans


def ends_phrase(word: str, lower: str, previous: str, following: str) -> bool:
    """Whether a phrase can end on `word` (`lower` bare): not on a function word, an adverb, an adjective or a verb."""
    if not lower or lower in DANGLING or lower in NOT_OPENING or lower.endswith("ly"):
        return False
    # "-ed", "-ive", "-al" words are participles and adjectives ("neural", "trained") unless they are names.
    adjective = (lower.endswith(("ed", *ADJECTIVE_ENDINGS)) and not lower.endswith("eed")) or (
        lower.endswith("al") and lower not in AL_NOUNS)
    if adjective and not word[0].isupper():
        return False
    # "X possesses | a ...": right before an article the last word is a verb; "for characterizing | the ..." waits
    # for its object ("in budgeting." has none to wait for).
    return following not in DETERMINERS and not (lower.endswith("ing") and previous in PREPOSITIONS and following)
