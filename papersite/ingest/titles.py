"""Titles derived from an abstract, for sources that have no titles.

A reader should accept a derived title as a real paper title, not as a first
sentence cut short. The rules, in order of preference:

1. The abstract names what it introduces ("We introduce FastSVERL, a scalable
   method for ...") -> the name and its description ("FastSVERL: A scalable
   method for ..."), or the acronym and its expansion ("EAP-GP: Edge
   Attribution Patching with GradPath").
2. The abstract states its contribution ("We study realizable continual linear
   regression under random task orderings, a common ...") -> that phrase up to
   its first clause break ("Realizable continual linear regression under random
   task orderings").
3. Otherwise the first sentence, cleaned and shortened.

Every title is at most TITLE_MAX characters, is cut only between words and never
inside a formula, never ends on a function word ("for the", "and") or punctuation, keeps the sentence
case of the abstract and starts with a capital.

The steps live beside this module: title_cleaning (plain sentences, math kept),
title_phrases (what the abstract names or states), title_shaping (a phrase cut and
finished as a title), title_vocabulary (the words and patterns the rules use);
slugs makes page slugs from the titles. Everything in them is a pure function of its
arguments, uses only the standard library and never raises for any `str` input: an
import of a thousand abstracts must not stop on one odd paragraph.
"""

from __future__ import annotations

from .title_cleaning import clean_text, split_sentences
from .title_phrases import Named, find_contribution, find_named
from .title_shaping import capitalize_first, finish_phrase, finish_title, whole_formulas
from .title_vocabulary import (ARTICLES, FALLBACK_TITLE, MIN_TITLE_WORDS, OPENING_FILLER_RE, SUBORDINATE_RE,
                               TITLE_MAX)


def method_name(abstract: str) -> str | None:
    """The name of the method, system or benchmark the abstract introduces, if it names one."""
    found = find_named(split_sentences(clean_text(abstract)))
    return found[1].name if found else None


def derive_title(abstract: str) -> str:
    """A title a reader would accept for a paper that only has its abstract."""
    text = clean_text(abstract)
    sentences = split_sentences(text)
    found = find_named(sentences)
    phrase = None if found else find_contribution(sentences)
    if found:
        title = title_from_named(found[1], sentences, found[0])
    else:
        title = finish_title(phrase) if phrase else fallback_title(sentences)
    # Every formula whole: a title cut inside one is cut before it, or, with too little left,
    # made from the first sentence instead.
    kept = whole_formulas(title, text)
    if kept == title:
        return title
    if len(kept.split()) >= MIN_TITLE_WORDS:
        return capitalize_first(kept)
    fallback = whole_formulas(fallback_title(sentences), text)
    return capitalize_first(fallback) if len(fallback.split()) >= MIN_TITLE_WORDS else FALLBACK_TITLE


def title_from_named(named: Named, sentences: list[str], index: int) -> str:
    """`Name: Expansion`, `Name: Description`, or the name before the paper's other contribution."""
    lead = f"{named.name}: "
    room = TITLE_MAX - len(lead)
    topic = sentences[0] if index else ""
    for source in (named.long_form, named.description, find_contribution(sentences, skip=index), topic):
        body = finish_phrase(source or "", room)
        # "An approach" says nothing; "Batch and match" does.
        if len([word for word in body.split() if word.lower() not in ARTICLES]) >= 2:
            return lead + capitalize_first(body)
    return finish_title(named.name)


def fallback_title(sentences: list[str]) -> str:
    """The first sentence that makes a title, without an opening such as "Recently,"."""
    for sentence in sentences:
        sentence = SUBORDINATE_RE.sub("", OPENING_FILLER_RE.sub("", sentence))
        title = finish_title(sentence)
        if title != FALLBACK_TITLE:
            return title
    return FALLBACK_TITLE
