#!/usr/bin/env python3
"""A corpus of N papers grown from the real one, for runs at anthology scale (run by hand, not a test).

    .venv/bin/python bench/generate.py 100000 > /tmp/corpus-100k.jsonl

The first 5,876 records are the real corpus (bench/data/ml-abstracts.jsonl.gz) as they are.
Every further record recombines real material, deterministically (a fixed seed; the same N
gives the same bytes):

- its abstract is 4 to 9 sentences taken from several real abstracts, in their order;
- its title joins the first half of one real title to the second half of another;
- its authors are drawn from two real author lists, and each name is, with probability
  NEWCOMER, someone the real corpus does not have: a new person (a real given name joined to
  another real family name) or one such person again. Names recur as people do, and the number
  of people grows with the papers as in an anthology (164,468 at 100,000 papers), where real
  names alone would stop at the corpus's 16,155 and make author pages look cheap at scale;
- its venue is a real record's venue, and its year that record's year moved back by whole
  rounds of the corpus (2016 becomes 2015, 2014, ...), so there are many proceedings;
- its keywords are a real record's (most are empty, as in the corpus).

No two records share a title or an abstract: a draw that repeats one is drawn again.
Records are JSON Lines in the corpus's own format (title, abstract, authors, keywords, venue,
year, source_id), which `python build.py import` reads.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "data" / "ml-abstracts.jsonl.gz"
SEED = 20251203
# The share of drawn author names that are people the real corpus does not have, and among them
# the share who are new rather than one of those already made up.
NEWCOMER = 0.6
NEW_PERSON = 0.6
# Sentence ends: a full stop, question or exclamation mark, then space and a capital (math and
# abbreviations rarely match, and a mismatch only makes a longer sentence).
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def read_corpus() -> list[dict]:
    return [json.loads(line) for line in gzip.decompress(CORPUS.read_bytes()).decode("utf-8").splitlines() if line.strip()]


def generate(n: int) -> Iterator[dict]:
    """The first `n` records of the grown corpus."""
    real = read_corpus()
    yield from real[:n]
    rng = random.Random(SEED)
    # Authors draw from a generator of their own: titles and abstracts are those of a run without newcomers.
    people = Newcomers(random.Random(SEED + 1), [record["authors"] for record in real])
    sentences = [SENTENCE_END.split(record["abstract"]) for record in real]
    titles = {record["title"] for record in real}
    abstracts = {record["abstract"] for record in real}
    for i in range(len(real), n):
        base = real[i % len(real)]
        shift = i // len(real)
        while True:
            title = join_halves(base["title"], rng.choice(real)["title"])
            abstract = " ".join(draw_sentences(rng, sentences))
            if title not in titles and abstract not in abstracts:
                break
        titles.add(title)
        abstracts.add(abstract)
        yield {
            "title": title,
            "abstract": abstract,
            "authors": people.recast(draw_authors(rng, base["authors"], rng.choice(real)["authors"])),
            "keywords": base["keywords"],
            "venue": base["venue"],
            "year": base["year"] - shift,
            "source_id": f"grown-{i:06d}",
        }


def join_halves(first: str, second: str) -> str:
    a, b = first.split(), second.split()
    return " ".join(a[: max(1, len(a) // 2)] + b[len(b) // 2:])


def draw_sentences(rng: random.Random, sentences: list[list[str]]) -> list[str]:
    """4 to 9 sentences, from at most three abstracts, each abstract's in its own order."""
    count = rng.randint(4, 9)
    sources = [rng.randrange(len(sentences)) for _ in range(3)]
    drawn: list[str] = []
    for source in sources:
        take = sentences[source][: max(1, count - len(drawn))]
        drawn.extend(take[: count // 3 + 1])
        if len(drawn) >= count:
            break
    return drawn[:count]


def draw_authors(rng: random.Random, first: list[str], second: list[str]) -> list[str]:
    names = list(dict.fromkeys(first[: rng.randint(1, len(first))] + second[: rng.randint(0, len(second))]))
    return names[:12]


class Newcomers:
    """People beyond the real corpus's: each drawn name is, with probability NEWCOMER, replaced by
    a new person or by one made up before."""

    def __init__(self, rng: random.Random, author_lists: list[list[str]]):
        self.rng = rng
        names = sorted({name for authors in author_lists for name in authors if len(name.split()) > 1})
        self.given = [name.rsplit(" ", 1)[0] for name in names]
        self.family = [name.rsplit(" ", 1)[1] for name in names]
        self.made: list[str] = []

    def recast(self, names: list[str]) -> list[str]:
        recast = [self.newcomer() if self.rng.random() < NEWCOMER else name for name in names]
        return list(dict.fromkeys(recast))

    def newcomer(self) -> str:
        if not self.made or self.rng.random() < NEW_PERSON:
            self.made.append(f"{self.rng.choice(self.given)} {self.rng.choice(self.family)}")
            return self.made[-1]
        return self.rng.choice(self.made)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, help="records to write")
    args = parser.parse_args(argv)
    out = sys.stdout
    for record in generate(args.n):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
