#!/usr/bin/env python3
"""Derived titles against real ones: token F1 of the title `build.py import` derives for an
untitled abstract, over abstracts whose real titles are known (run by hand, not a test).

    .venv/bin/python bench/titles.py                  # both sets, with the baselines
    .venv/bin/python bench/titles.py --show 20        # and the first 20 derived titles of the orals

Sets (both in bench/data/, see its README):
- the 77 NeurIPS 2025 orals, imported as plain text would import them (LaTeX markup converted
  first, then `derive_title` on the body) — the set issue 18 measured;
- the 5,876 titled records of the benchmark corpus, titles dropped — a set the rules were not
  written against, so a rule that fits one paper and not the field shows here. Its halves are
  shown too: the word model of derived titles (papersite/ingest/title_words.json) is fitted on
  the even-indexed records by bench/fit_title_words.py, so the odd-indexed half is held out.

Token F1 per paper (lower-case runs of letters and digits, LaTeX commands dropped, each token
counted as often as it occurs), averaged over papers. Baselines beside it: the first sentence
cut to 100 characters at a word boundary, and an oracle, the best-scoring span of 4 to 14
consecutive words of the abstract (no method reaches it; it shows the room there is). Also:
how often a title names the method an abstract introduces first, as real titles do, the
longest title in characters, and two signs of titles that name a field rather than a paper: the
papers whose derived title another paper of the set has too (compared in lower case), and the
titles of three words or fewer.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papersite.ingest.latex import latex_to_markdown  # noqa: E402
from papersite.ingest.title_cleaning import clean_text, split_sentences  # noqa: E402
from papersite.ingest.titles import derive_title, method_name  # noqa: E402

DATA = ROOT / "bench" / "data"
SETS = {"NeurIPS 2025 orals": DATA / "neurips2025-orals.jsonl.gz", "benchmark corpus": DATA / "ml-abstracts.jsonl.gz"}
TOKEN_RE = re.compile(r"[a-z0-9]+")
LATEX_RE = re.compile(r"\\[A-Za-z]+")


def tokens(text: str) -> list[str]:
    return TOKEN_RE.findall(LATEX_RE.sub(" ", text).lower())


def f1(guess: str, truth: str) -> float:
    got, want = Counter(tokens(guess)), Counter(tokens(truth))
    common = sum((got & want).values())
    if not common:
        return 0.0
    precision, recall = common / sum(got.values()), common / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def first_sentence(body: str) -> str:
    sentences = split_sentences(clean_text(body)) or [""]
    words, title = sentences[0].split(), ""
    for word in words:
        if len(title) + len(word) + 1 > 100:
            break
        title = f"{title} {word}".strip()
    return title


def best_span(body: str, truth: str) -> float:
    words = clean_text(body).split()
    return max((f1(" ".join(words[i:i + n]), truth) for n in range(4, 15) for i in range(max(1, len(words) - n + 1))),
               default=0.0)


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines() if line.strip()]


def score(record: dict, oracle: bool) -> dict:
    """One paper's figures: the F1 of its derived title and of the baselines, and its named method."""
    body = latex_to_markdown(record["abstract"])[0]
    title = derive_title(body)
    name = method_name(body)
    return {"derived": f1(title, record["title"]), "first": f1(first_sentence(body), record["title"]),
            "oracle": best_span(body, record["title"]) if oracle else None, "named": bool(name),
            "leads": bool(name) and title.startswith(name), "title": title}


def summarize(scores: list[dict]) -> dict:
    oracle = [row["oracle"] for row in scores if row["oracle"] is not None]
    titles = Counter(row["title"].lower() for row in scores)
    return {"derived": statistics.mean(row["derived"] for row in scores),
            "first": statistics.mean(row["first"] for row in scores),
            "oracle": statistics.mean(oracle) if oracle else None, "named": sum(row["named"] for row in scores),
            "leads": sum(row["leads"] for row in scores), "longest": max(len(row["title"]) for row in scores),
            "shared": sum(count for count in titles.values() if count > 1),
            "short": sum(len(row["title"].split()) <= 3 for row in scores), "count": len(scores)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=0, help="print this many derived titles of the orals beside the real ones")
    parser.add_argument("--no-oracle", action="store_true", help="skip the best-span oracle on the large set (slow)")
    args = parser.parse_args()
    print(f"{'set':<22} {'papers':>7} {'derived F1':>11} {'first sentence':>15} {'best span':>10} {'named, leading':>15} {'longest':>8} "
          f"{'shared':>7} {'<= 3 words':>11}")
    for name, path in SETS.items():
        records = read(path)
        scores = [score(record, oracle=not (args.no_oracle and len(records) > 1000)) for record in records]
        halves = {"  even (fitted on)": scores[::2], "  odd (held out)": scores[1::2]} if len(records) > 1000 else {}
        for label, subset in {name: scores, **halves}.items():
            result = summarize(subset)
            oracle = f"{result['oracle']:.3f}" if result["oracle"] is not None else "-"
            print(f"{label:<22} {result['count']:>7,} {result['derived']:>11.3f} {result['first']:>15.3f} {oracle:>10} "
                  f"{result['leads']:>7} of {result['named']:<5} {result['longest']:>8} {result['shared']:>7} {result['short']:>11}")
    for record in read(SETS["NeurIPS 2025 orals"])[:args.show]:
        body = latex_to_markdown(record["abstract"])[0]
        title = derive_title(body)
        print(f"\n{f1(title, record['title']):.2f}  {title}\n      {record['title']}")


if __name__ == "__main__":
    main()
