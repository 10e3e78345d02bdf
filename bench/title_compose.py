#!/usr/bin/env python3
"""Composed title candidates, "<topic> via <technique>", against the spans derived titles choose among (run by hand).

    .venv/bin/python bench/title_compose.py [--strict] [--all-connectors] [--show N]   # 1.5-2.5 minutes; writes nothing

Real titles often join two phrases an abstract states apart: the task of its opening sentences and
the technique of its "we propose ...". This builds such candidates from whole phrases the abstract
gives and the existing guards pass, joined by a connector chosen by a rule, and measures, for the
abstracts that name no method (a named method's title is not chosen among candidates; it is
counted as derived), the best candidate by real F1 (the ceiling any chooser of them has) with and
without the composed ones, and what expected F1 (title_words) chooses among them.

- topic: a span of the first TOPIC_SENTENCES sentences that is not a technique, or what the
  paper says it studies ("we study <...>");
- technique: what the paper says it makes ("we propose <...>"), or a span after "via", "by",
  "through", "with" or a verb such as "propose";
- each part finished as a title (tidied, not cut: a part that does not fit whole is left out), the
  technique without its leading article, no content word in both, the whole at most TITLE_MAX
  characters and allowed by `titles.allowed_titles` together with the spans.

Connectors: "<topic> via <technique>"; "<topic> by <technique>" when the technique is a gerund
("by aligning ..."); and, for the ceiling only, also "<technique> for <topic>" and "<topic> with
<technique>" (--all-connectors). --strict keeps only the parts a reader is likeliest to accept:
sentence subjects and "we study <...>" as topics, "we propose <...>" as techniques. --show prints
chosen titles that are composed, at random, beside the real ones. Not shipped: bench/README.md,
"Derived titles", has the figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from titles import SETS, f1, read  # noqa: E402

from papersite.ingest.latex import latex_to_markdown  # noqa: E402
from papersite.ingest.title_acronyms import find_acronyms, spell_out  # noqa: E402
from papersite.ingest.title_candidates import (CONTRIBUTION_SENTENCES, bare, candidate_phrases,  # noqa: E402
                                               phrase_spans, stands_alone)
from papersite.ingest.title_cleaning import clean_text, split_math_spans, split_sentences  # noqa: E402
from papersite.ingest.title_phrases import find_named, subject_phrase  # noqa: E402
from papersite.ingest.title_shaping import capitalize_first, finish_phrase  # noqa: E402
from papersite.ingest.title_vocabulary import ARTICLES, MAKE_RE, STUDY_RE, TITLE_MAX  # noqa: E402
from papersite.ingest.title_words import GLUE_WORDS, WORD_RE, expected_f1, title_odds, word_key  # noqa: E402
from papersite.ingest.titles import allowed_titles, derive_title, finished_titles  # noqa: E402

TOPIC_SENTENCES = 3
TECHNIQUE_OPENERS = frozenset(
    """via by through with propose proposes proposed introduce introduces introduced present presents presented
    develop develops developed""".split()
)


@dataclass(frozen=True)
class Paper:
    """One paper's figures: the derived title's F1, and for an abstract without a named method its candidates."""

    truth: str
    derived: float
    spans: tuple[str, ...] = ()
    composed: tuple[str, ...] = ()
    odds: tuple[tuple[str, float], ...] = ()


def read_papers(records: list[dict], all_connectors: bool, strict: bool) -> list[Paper]:
    papers = []
    for record in records:
        body = latex_to_markdown(record["abstract"])[0]
        sentences = split_sentences(clean_text(body))
        derived = f1(derive_title(body), record["title"])
        if find_named(sentences):
            papers.append(Paper(record["title"], derived))
            continue
        acronyms = find_acronyms(sentences)
        spans = span_titles(sentences, acronyms)
        composed = composed_titles(sentences, acronyms, all_connectors, strict)
        allowed = allowed_titles(spans + composed)
        odds = title_odds(sentences, acronyms)
        papers.append(Paper(record["title"], derived, tuple(title for title in spans if title in allowed),
                            tuple(title for title in composed if title in allowed), tuple(odds.items())))
    return papers


def span_titles(sentences: list[str], acronyms: dict[str, str]) -> list[str]:
    """Every candidate the derived title is chosen among today, finished as a title: every phrase, not only the promising ones."""
    return list(finished_titles(sentences, candidate_phrases(sentences, acronyms)))


def composed_titles(sentences: list[str], acronyms: dict[str, str], all_connectors: bool, strict: bool) -> list[str]:
    topics, techniques = topic_phrases(sentences, strict), technique_phrases(sentences, strict)
    parts = [(whole_part(topic, acronyms), whole_part(technique, acronyms)) for topic in topics for technique in techniques]
    titles = []
    for topic, technique in parts:
        if not (topic and technique) or shares_content(topic, technique):
            continue
        technique = drop_article(technique)
        titles += [title for title in joined(topic, technique, all_connectors) if len(title) <= TITLE_MAX]
    return list(dict.fromkeys(titles))


def joined(topic: str, technique: str, all_connectors: bool) -> list[str]:
    """The titles a topic and a technique make: "via", or "by" before a gerund; all four for the ceiling."""
    connector = "by" if technique.split()[0].lower().endswith("ing") else "via"
    titles = [f"{capitalize_first(topic)} {connector} {technique}"]
    if all_connectors:
        titles += [f"{capitalize_first(topic)} with {technique}", f"{capitalize_first(technique)} for {lower_first(topic)}"]
    return titles


def lower_first(text: str) -> str:
    """A part that no longer leads in lower case, unless its first word is a name ("GPT-4", "Bayesian")."""
    first = text.split()[0]
    named = any(c.isupper() for c in first[1:]) or (first[:1].isupper() and first.lower() not in ARTICLES)
    return text if named else text[:1].lower() + text[1:]


def topic_phrases(sentences: list[str], strict: bool) -> list[str]:
    """What the opening sentences are about: their spans not after a technique's opener (`strict`: their subjects
    only), and "we study <...>"."""
    found = [phrase for sentence in sentences[:TOPIC_SENTENCES] for phrase, before in spans_with_opener(sentence)
             if (before == "" and sentence.startswith(phrase)) or not (strict or before in TECHNIQUE_OPENERS)]
    found += [phrase for sentence in sentences[:CONTRIBUTION_SENTENCES] for phrase in [object_of(STUDY_RE, sentence)] if phrase]
    return [phrase for phrase in dict.fromkeys(found) if stands_alone(phrase)]


def technique_phrases(sentences: list[str], strict: bool) -> list[str]:
    """What the paper makes or uses: "we propose <...>", and (unless `strict`) spans after "via", "by", "propose" ..."""
    found = [phrase for sentence in sentences[:CONTRIBUTION_SENTENCES] for phrase in [object_of(MAKE_RE, sentence)] if phrase]
    found += [phrase for sentence in sentences[:CONTRIBUTION_SENTENCES] for phrase, before in spans_with_opener(sentence)
              if before in TECHNIQUE_OPENERS and not strict]
    return [phrase for phrase in dict.fromkeys(found) if stands_alone(phrase)]


def object_of(pattern, sentence: str) -> str | None:
    match = pattern.search(sentence)
    return subject_phrase(match.group("rest")) if match else None


def spans_with_opener(sentence: str) -> list[tuple[str, str]]:
    """The sentence's spans (title_candidates), each with the bare word before it ("" at the sentence's start)."""
    found = []
    for span in phrase_spans([sentence]):
        before = sentence[:sentence.find(span)].split()
        found.append((span, bare(before[-1]) if before else ""))
    return found


def whole_part(phrase: str, acronyms: dict[str, str]) -> str | None:
    """The phrase finished as a title with its acronyms spelled out, or None when it does not fit whole."""
    body = finish_phrase(spell_out(phrase, acronyms), 10 * TITLE_MAX)
    return body if body and len(body) <= TITLE_MAX and body == finish_phrase(body, TITLE_MAX) else None


def drop_article(phrase: str) -> str:
    words = phrase.split()
    return " ".join(words[1:]) if len(words) > 2 and words[0].lower() in ARTICLES else phrase


def shares_content(first: str, second: str) -> bool:
    """Whether two parts repeat a content word ("graph learning via graph kernels")."""
    return bool(content_keys(first) & content_keys(second))


def content_keys(text: str) -> set[str]:
    return {word_key(word) for index, part in enumerate(split_math_spans(text)) if not index % 2
            for word in WORD_RE.findall(part)} - GLUE_WORDS


def best(papers: list[Paper], with_composed: bool) -> float:
    """Mean over all papers of the best candidate's real F1 (a named method's title as derived)."""
    return statistics.mean(max(f1(title, paper.truth) for title in candidates(paper, with_composed))
                           if paper.spans or paper.composed else paper.derived for paper in papers)


def chosen(papers: list[Paper], with_composed: bool) -> float:
    """Mean F1 of the candidate with the highest expected F1 (a named method's title as derived)."""
    return statistics.mean(f1(choice(paper, with_composed), paper.truth) if paper.spans or paper.composed
                           else paper.derived for paper in papers)


def choice(paper: Paper, with_composed: bool) -> str:
    odds = dict(paper.odds)
    return max(candidates(paper, with_composed), key=lambda title: expected_f1(title, odds))


def candidates(paper: Paper, with_composed: bool) -> tuple[str, ...]:
    return (paper.spans + paper.composed if with_composed else paper.spans) or paper.composed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=0, help="print this many chosen composed titles beside the real ones")
    parser.add_argument("--all-connectors", action="store_true", help="also '<technique> for <topic>', '<topic> with ...'")
    parser.add_argument("--strict", action="store_true", help="topics: sentence subjects and 'we study'; techniques: 'we propose'")
    parser.add_argument("--orals-only", action="store_true", help="skip the benchmark corpus (a second, not minutes)")
    args = parser.parse_args()
    sets = {"NeurIPS 2025 orals": read_papers(read(SETS["NeurIPS 2025 orals"]), args.all_connectors, args.strict)}
    if not args.orals_only:
        corpus = read_papers(read(SETS["benchmark corpus"]), args.all_connectors, args.strict)
        sets |= {"even half": corpus[::2], "odd half": corpus[1::2]}
    print(f"{'set':<20} {'papers':>7} {'derived':>8} {'composed/paper':>15} {'best span':>10} {'best of all':>12} "
          f"{'chosen spans':>13} {'chosen all':>11}")
    for label, papers in sets.items():
        open_papers = [paper for paper in papers if paper.spans or paper.composed]
        per_paper = statistics.mean(len(paper.composed) for paper in open_papers)
        print(f"{label:<20} {len(papers):>7,} {statistics.mean(paper.derived for paper in papers):>8.3f} {per_paper:>15.1f} "
              f"{best(papers, False):>10.3f} {best(papers, True):>12.3f} {chosen(papers, False):>13.3f} {chosen(papers, True):>11.3f}")
    # What a reader would see: the chosen titles that are composed ones, in a random order.
    pool = [(choice(paper, True), paper.truth) for papers in sets.values() for paper in papers if paper.composed
            and choice(paper, True) in paper.composed]
    print(f"\ncomposed titles chosen: {len(pool):,} of {sum(len(papers) for papers in sets.values()):,} papers")
    for title, truth in random.Random(18).sample(pool, min(args.show, len(pool))):
        print(f"\n{f1(title, truth):.2f}  {title}\n      {truth}")


if __name__ == "__main__":
    main()
