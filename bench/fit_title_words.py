#!/usr/bin/env python3
"""Fit the word model of derived titles (papersite/ingest/title_words.json) on half of the benchmark corpus.

    .venv/bin/python bench/fit_title_words.py      # rewrites papersite/ingest/title_words.json

The model says how likely a word of an abstract is to be in the paper's title (title_words.py
has the features). It is fitted on the even-indexed records of bench/data/ml-abstracts.jsonl.gz
(2,938 abstracts with their real titles), so that bench/titles.py can report the odd-indexed
half as held out. What is fitted:

- `weights`, `intercept`: a logistic regression of "the word is in the title" on the features
  of each topic word of each abstract (Newton's method, an L2 penalty of 1 on the weights, to
  convergence: the same data give the same numbers), rounded to 4 decimals;
- `glue_rates`: for each glue word ("for", "of", "via"), the share of abstracts using it whose
  title has it too;
- `title_words`: the mean length of a title in words (a formula is one word).

Everything is read as `build.py import` reads it: the abstract converted from LaTeX, then
cleaned as derived titles clean it.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papersite.ingest.latex import latex_to_markdown  # noqa: E402
from papersite.ingest.title_acronyms import find_acronyms  # noqa: E402
from papersite.ingest.title_cleaning import clean_text, split_math_spans, split_sentences  # noqa: E402
from papersite.ingest.title_words import (GLUE_WORDS, MODEL_FILE, WORD_FEATURES, prose_words, word_features,  # noqa: E402
                                          word_key)

CORPUS = ROOT / "bench" / "data" / "ml-abstracts.jsonl.gz"
PENALTY = 1.0
# A glue word's rate is kept when this many abstracts use it; rarer ones count for nothing.
MIN_GLUE_USES = 20


def training_records() -> list[dict]:
    lines = gzip.decompress(CORPUS.read_bytes()).decode("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()][::2]


def title_keys(title: str) -> tuple[set[str], int]:
    """The words of a title (by key) and its length in words, a formula counting as one."""
    text = clean_text(title)
    formulas = len(split_math_spans(text)) // 2
    words = [word for word, _ in prose_words(text)]
    return {word_key(word) for word in words}, len(words) + formulas


def collect(records: list[dict]) -> tuple[np.ndarray, np.ndarray, dict[str, float], float]:
    rows, labels, lengths = [], [], []
    glue_seen: dict[str, int] = {}
    glue_kept: dict[str, int] = {}
    for record in records:
        text = clean_text(latex_to_markdown(record["abstract"])[0])
        sentences = split_sentences(text)
        keys, length = title_keys(record["title"])
        lengths.append(length)
        for key, features in word_features(sentences, find_acronyms(sentences)).items():
            rows.append(features)
            labels.append(key in keys)
        for key in {word_key(word) for word, _ in prose_words(text)} & GLUE_WORDS:
            glue_seen[key] = glue_seen.get(key, 0) + 1
            glue_kept[key] = glue_kept.get(key, 0) + (key in keys)
    rates = {key: round(glue_kept[key] / glue_seen[key], 3) for key in sorted(glue_seen)
             if glue_seen[key] >= MIN_GLUE_USES and glue_kept[key]}
    return np.array(rows), np.array(labels, dtype=float), rates, float(np.mean(lengths))


def fit_logistic(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, float]:
    """Weights and intercept maximising the penalised log-likelihood, by Newton's method."""
    design = np.hstack([features, np.ones((len(features), 1))])
    penalty = np.diag([PENALTY] * features.shape[1] + [0.0])
    beta = np.zeros(design.shape[1])
    for _ in range(50):
        chance = 1 / (1 + np.exp(-design @ beta))
        gradient = design.T @ (labels - chance) - penalty @ beta
        hessian = design.T @ (design * (chance * (1 - chance))[:, None]) + penalty
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.max(np.abs(step)) < 1e-9:
            break
    return beta[:-1], float(beta[-1])


def main() -> None:
    records = training_records()
    features, labels, glue_rates, title_words = collect(records)
    weights, intercept = fit_logistic(features, labels)
    model = {
        "fitted_on": f"the {len(records):,} even-indexed records of bench/data/ml-abstracts.jsonl.gz, by bench/fit_title_words.py",
        "features": list(WORD_FEATURES),
        "weights": [round(float(w), 4) for w in weights],
        "intercept": round(intercept, 4),
        "glue_rates": glue_rates,
        "title_words": round(title_words, 2),
    }
    MODEL_FILE.write_text(json.dumps(model, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{MODEL_FILE.relative_to(ROOT)}: {len(labels):,} words of {len(records):,} abstracts, "
          f"{int(labels.sum()):,} of them in the title")
    for name, weight in zip(WORD_FEATURES, model["weights"]):
        print(f"  {weight:+.4f}  {name}")


if __name__ == "__main__":
    main()
