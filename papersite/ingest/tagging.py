"""Assign taxonomy tags to a paper from its title, abstract and source keywords.

Each tag in content/tags.yml lists phrases. The taxonomy is compiled once into a
single regular expression shaped like a character trie, so one left-to-right scan
finds the phrases of every tag at once: the import tags thousands of papers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..model import Taxonomy

MAX_TAGS = 4
TITLE_WEIGHT = 3.0   # a title names what the paper is about; the abstract also mentions context
KEEP_RATIO = 0.2     # a tag below this share of the best tag's score is a passing mention
MIN_SUPPORT = 2.0    # nor is one abstract match, unless nothing scores higher

# Between the words of a phrase: white space, hyphens, dashes or nothing, so that
# "multi agent" matches "multi-agent", "multi agent", "multi–agent" and "multiagent".
_SEPARATOR = r"[\s\-\u2010-\u2015]*"
_WORD = re.compile(r"[a-z0-9]+")
_NON_WORD = re.compile(r"[^a-z0-9]+")
_END = ""            # trie key that marks where a phrase ends

Form = tuple[str, ...]   # one spelling of a phrase, as its words


@dataclass(frozen=True)
class CompiledTaxonomy:
    """A taxonomy ready for matching: the trie regex, and lookups from a match back to tags."""

    pattern: re.Pattern[str]
    tags_by_key: dict[str, tuple[int, ...]]   # a phrase's words run together -> tag indices
    tag_by_label: dict[str, int]               # a tag's name or slug run together -> tag index
    slugs: tuple[str, ...]
    fallback: str


def assign_tags(
    title: str,
    abstract: str,
    keywords: Sequence[str],
    taxonomy: Taxonomy,
    max_tags: int = MAX_TAGS,
) -> tuple[str, ...]:
    """1 to `max_tags` tag slugs for a paper, best first; the fallback tag when nothing matches."""
    if max_tags < 1:
        raise ValueError(f"max_tags must be at least 1, not {max_tags}")
    compiled = compile_taxonomy(taxonomy)
    scores = score_text(compiled, title, TITLE_WEIGHT)
    for index, score in score_text(compiled, abstract, 1.0).items():
        scores[index] = scores.get(index, 0.0) + score
    ranked = rank_keyword_tags(compiled, keywords, scores) + rank_text_tags(scores)
    slugs = tuple(dict.fromkeys(compiled.slugs[index] for index in ranked))
    return slugs[:max_tags] or (compiled.fallback,)


@functools.lru_cache(maxsize=8)
def compile_taxonomy(taxonomy: Taxonomy) -> CompiledTaxonomy:
    """Build the matcher once per taxonomy (a frozen dataclass, so it can key the cache)."""
    forms_by_tag = {
        index: [form for phrase in tag.phrases for form in spell_forms(phrase)]
        for index, tag in enumerate(taxonomy.tags)
        # The fallback means "nothing else matched", so nothing may match it.
        if tag.slug != taxonomy.fallback
    }
    return CompiledTaxonomy(
        pattern=re.compile(trie_pattern({form for forms in forms_by_tag.values() for form in forms})),
        tags_by_key=index_forms(forms_by_tag),
        tag_by_label={
            join_words(_WORD.findall(label.lower())): index
            for index in sorted(forms_by_tag, reverse=True)   # the first tag wins a shared label
            for label in (taxonomy.tags[index].name, taxonomy.tags[index].slug)
        },
        slugs=tuple(tag.slug for tag in taxonomy.tags),
        fallback=taxonomy.fallback,
    )


def spell_forms(phrase: str) -> list[Form]:
    """The phrase's words as written, and with the last word in the plural ("models")."""
    words = tuple(_WORD.findall(phrase.lower()))
    if not words:
        return []
    return [words, words[:-1] + (pluralize(words[-1]),)]


def pluralize(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


def join_words(words: Iterable[str]) -> str:
    """Words run together: what every spelling of a phrase has in common, whatever separates them."""
    return "".join(words)


def index_forms(forms_by_tag: dict[int, list[Form]]) -> dict[str, tuple[int, ...]]:
    """Which tags each spelling belongs to; a phrase may be listed under several tags."""
    tags_by_key: dict[str, tuple[int, ...]] = {}
    for index, forms in forms_by_tag.items():
        for key in dict.fromkeys(join_words(form) for form in forms):
            tags_by_key[key] = tags_by_key.get(key, ()) + (index,)
    return tags_by_key


def trie_pattern(forms: Iterable[Form]) -> str:
    """One regex for all phrase spellings. Shared prefixes are tested once, which keeps the
    scan fast, and longer continuations are tried first, so the longest phrase wins."""
    trie: dict = {}
    for form in sorted(forms):
        node = trie
        for char in " ".join(form):
            node = node.setdefault(char, {})
        node[_END] = {}
    if not trie:
        return r"(?!)"   # a taxonomy without phrases matches nothing
    return r"(?<![a-z0-9])" + trie_node_pattern(trie)


def trie_node_pattern(node: dict) -> str:
    branches = [
        (_SEPARATOR if char == " " else re.escape(char)) + trie_node_pattern(child)
        for char, child in sorted(node.items())
        if char != _END
    ]
    if _END in node:
        branches.append(r"(?![a-z0-9])")   # a phrase ends at a word boundary
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def score_text(compiled: CompiledTaxonomy, text: str, weight: float) -> dict[int, float]:
    """`weight` per phrase match, summed per tag index; repeated mentions all count."""
    scores: dict[int, float] = {}
    for index in match_tags(compiled, text):
        scores[index] = scores.get(index, 0.0) + weight
    return scores


def match_tags(compiled: CompiledTaxonomy, text: str) -> list[int]:
    """The tag index of every phrase match in `text`, once per match and tag."""
    return [
        index
        for match in compiled.pattern.finditer(text.lower())
        for index in compiled.tags_by_key[_NON_WORD.sub("", match.group())]
    ]


def rank_keyword_tags(compiled: CompiledTaxonomy, keywords: Sequence[str], scores: dict[int, float]) -> list[int]:
    """Tags the source's own keywords name, most named first: the authors' word beats our counts."""
    votes: dict[int, int] = {}
    for keyword in keywords:
        for index in match_keyword(compiled, keyword):
            votes[index] = votes.get(index, 0) + 1
    return sorted(votes, key=lambda index: (-votes[index], -scores.get(index, 0.0), index))


def match_keyword(compiled: CompiledTaxonomy, keyword: str) -> set[int]:
    """Tags whose phrase occurs in the keyword, or whose name or slug the keyword is."""
    found = set(match_tags(compiled, keyword))
    label = compiled.tag_by_label.get(join_words(_WORD.findall(keyword.lower())))
    return found if label is None else found | {label}


def rank_text_tags(scores: dict[int, float]) -> list[int]:
    """Tags that score a meaningful share of the best, best first, ties in taxonomy order."""
    if not scores:
        return []
    best = max(scores.values())
    floor = max(KEEP_RATIO * best, min(MIN_SUPPORT, best))
    return sorted((index for index, score in scores.items() if score >= floor),
                  key=lambda index: (-scores[index], index))
