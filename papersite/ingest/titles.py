"""Titles derived from an abstract, for sources that have no titles.

A reader should accept a derived title as a real paper title, not as a first
sentence cut short.

When the abstract names a method, the name leads ("Name: ..."), as it does in most
real titles, followed by its expansion if the abstract gives one, else by its
description, whole where it fits: a phrase from elsewhere might misstate what it
is, and a start of the description may drop what the method does.

Otherwise the title is the candidate phrase whose words a real title most likely
shares (title_words: the token F1 it can expect), among:

- what the rules find: the phrase that states the contribution ("We study
  realizable continual linear regression under random task orderings, a common
  ..." -> "Realizable continual linear regression under random task orderings"),
  else the first sentence, cleaned and shortened;
- spans of the first sentences that read as phrases (title_candidates), with the
  acronyms the abstract defines spelled out (title_acronyms);

and of at least SPECIFIC_TITLE_WORDS words where any is: a shorter one names a
field ("Large language models"), not the paper.

Every title is at most TITLE_MAX characters, is cut only between words and never
inside a formula, never ends on a function word ("for the", "and") or punctuation, keeps the sentence
case of the abstract and starts with a capital.

The steps live beside this module: title_cleaning (plain sentences, math kept),
title_phrases (what the abstract names or states), title_candidates (phrases that could
be the title), title_words (how likely each word is to be in the title), title_shaping
(a phrase cut and finished as a title), title_vocabulary (the words and patterns the
rules use); slugs makes page slugs from the titles. Everything in them is a pure function
of its arguments (and of the fitted title_words.json), uses only the standard library and
never raises for any `str` input: an import of a thousand abstracts must not stop on one
odd paragraph.
"""

from __future__ import annotations

from .title_acronyms import find_acronyms
from .title_candidates import bare, candidate_phrases, ends_phrase
from .title_cleaning import clean_text, split_sentences
from .title_phrases import Named, find_contribution, find_named
from .title_shaping import capitalize_first, finish_phrase, finish_title, whole_formulas
from .title_vocabulary import (ARTICLES, FALLBACK_TITLE, MIN_TITLE_WORDS, OPENING_FILLER_RE, SPECIFIC_TITLE_WORDS,
                               SUBORDINATE_RE, TITLE_MAX)
from .title_words import expected_f1, title_odds

# Finishing a phrase (cut, tidied) is the slow step: only the most promising raw phrases are finished.
FINISHED_CANDIDATES = 6


def method_name(abstract: str) -> str | None:
    """The name of the method, system or benchmark the abstract introduces, if it names one."""
    found = find_named(split_sentences(clean_text(abstract)))
    return found[1].name if found else None


def derive_title(abstract: str) -> str:
    """A title a reader would accept for a paper that only has its abstract."""
    text = clean_text(abstract)
    sentences = split_sentences(text)
    title = choose_title(sentences)
    # Every formula whole: a title cut inside one is cut before it, or, with too little left,
    # made from the first sentence instead.
    kept = whole_formulas(title, text)
    if kept == title:
        return title
    if len(kept.split()) >= MIN_TITLE_WORDS:
        return capitalize_first(kept)
    fallback = whole_formulas(fallback_title(sentences), text)
    return capitalize_first(fallback) if len(fallback.split()) >= MIN_TITLE_WORDS else FALLBACK_TITLE


def choose_title(sentences: list[str]) -> str:
    """The method's name and what it is; else the candidate that can expect the highest token F1 against
    the real title (the rules' own on a tie)."""
    found = find_named(sentences)
    if found:
        return title_from_named(found[1], sentences, found[0])
    acronyms = find_acronyms(sentences)
    odds = title_odds(sentences, acronyms)
    phrases = candidate_phrases(sentences, acronyms)
    # sorted() is stable and max() keeps the first of equals: the same abstract always gets the same title.
    promising = sorted(phrases, key=lambda phrase: -expected_f1(phrase, odds))[:FINISHED_CANDIDATES]
    return max(allowed_titles(list(finished_titles(sentences, promising))), key=lambda title: expected_f1(title, odds))


def finished_titles(sentences: list[str], phrases: list[str]) -> dict[str, str | None]:
    """The rules' own title and each phrase finished as a title, in that order and each once, with the
    phrase it was finished from (None: the rules')."""
    rules = rule_title(sentences)
    finished: dict[str, str | None] = {rules: None} if rules else {}
    for phrase in phrases:
        if title := finish_candidate("", phrase):
            finished.setdefault(title, phrase)
    return finished


def allowed_titles(titles: list[str]) -> list[str]:
    """The titles a choice may take: a phrase cut to fit may end on an adjective ("robustness to structured |
    and ..."), and a short one names a field, not the paper: any other title is better."""
    whole = [title for title in titles if ends_whole(title)] or titles
    return [title for title in whole if len(title.split()) >= SPECIFIC_TITLE_WORDS] or whole


def ends_whole(title: str) -> bool:
    """Whether the title's last word ends a phrase (title_candidates.ends_phrase), as a cut title's may not."""
    words = title.split()
    return len(words) < 2 or ends_phrase(words[-1], bare(words[-1]), bare(words[-2]), "")


def rule_title(sentences: list[str]) -> str:
    """The title the rules alone make of an abstract that names no method: the contribution, else the first sentence."""
    phrase = find_contribution(sentences)
    return finish_title(phrase) if phrase else fallback_title(sentences)


def finish_candidate(lead: str, phrase: str) -> str | None:
    """`lead` and the phrase finished as a title, or None when too little of it is left."""
    body = finish_phrase(phrase, TITLE_MAX - len(lead))
    # "An approach" says nothing; "Batch and match" or "Counterfactual fairness" does.
    if len([word for word in body.split() if word.lower() not in ARTICLES]) < 2:
        return None
    return lead + capitalize_first(body)


def title_from_named(named: Named, sentences: list[str], index: int) -> str:
    """`Name: Expansion`, `Name: Description`, or the name before the paper's other contribution."""
    lead = f"{named.name}: "
    topic = sentences[0] if index else ""
    for source in (named.long_form, named.description, find_contribution(sentences, skip=index), topic):
        title = finish_candidate(lead, source or "")
        if title:
            return title
    return finish_title(named.name)


def fallback_title(sentences: list[str]) -> str:
    """The first sentence that makes a title, without an opening such as "Recently,"."""
    for sentence in sentences:
        sentence = SUBORDINATE_RE.sub("", OPENING_FILLER_RE.sub("", sentence))
        title = finish_title(sentence)
        if title != FALLBACK_TITLE:
            return title
    return FALLBACK_TITLE
