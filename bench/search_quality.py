"""The search quality set: 60 queries with known targets on the real corpus, and their MRR by class.

How the set was made (bench/README.md, "Search quality"): on the 5,876 real abstracts
(bench/data/ml-abstracts.jsonl.gz), 35 papers were drawn with a fixed seed
(`random.Random(60).sample(papers, 45)`, the first 35 of them); the first 20 give the
title-word queries (two to four words of the title, as one remembers it), the next 15 the typo
queries (title words with one slip: a dropped, doubled, swapped or wrong letter), plus the
issue's "differentiable provong". The 15 paraphrases describe well-known papers of the corpus
in other words than their titles (two of them are the issue's). The 10 symbol queries are
compounds spelt another way, symbols and acronyms, most of them from the issue.

A query's targets are slugs, or `~regex` for "any paper whose title matches" (a query such as
"kmeans" has many right answers). The score of a query is 1/rank of its first target in the
results (0 if none is found); MRR is the mean over a class, and over all 60.
"""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Callable, Iterable

CLASSES = ("title words", "typos", "paraphrases", "symbols")
PROBES = 300          # title-word probes (`title_probes`) ...
PROBE_SEED = 61       # ... drawn with this seed
PROBE_MIN_LETTERS = 5

QUERIES: list[tuple[str, str, tuple[str, ...]]] = [
    # title words: what one remembers of a title
    ("title words", "stochastic frame prediction", ("visual-representation-learning",)),
    ("title words", "anatomical structure detection ultrasound", ("unsupervised-domain-adaptation-2",)),
    ("title words", "perceptron halfspaces", ("revisiting-perceptron-efficient",)),
    ("title words", "concept bleeding", ("easing-concept-bleeding",)),
    ("title words", "proposal batch selection", ("training-greedy-policy",)),
    ("title words", "network depth width continual learning", ("bayesian-adaptation-network-depth",)),
    ("title words", "parallel optimization on manifolds", ("communication-efficient-parallel-algorithms",)),
    ("title words", "linearly constrained gaussian processes", ("algorithmic-linearly-constrained-gaussian",)),
    ("title words", "atari world of tokens", ("learning-play-atari",)),
    ("title words", "lie symmetry gaussian processes", ("physics-lie-symmetry-informed-gaussian-processes",)),
    ("title words", "decomposable denoising diffusion time series", ("probabilistic-time-series-modeling",)),
    ("title words", "smoothing conditional probability matrices", ("near-optimal-smoothing",)),
    ("title words", "LLMs can't plan", ("position-llms-cant-plan",)),
    ("title words", "feature selection without leakage", ("local-feature-selection",)),
    ("title words", "cooperative training discrete data", ("cot",)),
    ("title words", "structure-aware interaction index", ("explaining-graph-neural-networks",)),
    ("title words", "unsupervised debiasing latent space", ("discovering-bias-latent-space",)),
    ("title words", "neural discrete representation learning", ("neural-discrete-representation-learning",)),
    ("title words", "zero-shot labeling robot policy", ("scaling-robot-policy-learning",)),
    ("title words", "minkowski sums", ("projection-minkowski-sums",)),
    # typos: title words with one slip
    ("typos", "kernel regresion realistic assumptions", ("generalization-kernel-regression",)),
    ("typos", "memory-sharing backpropogation", ("reducing-fine-tuning-memory-overhead",)),
    ("typos", "calibrating vison-language models", ("empirical-study-matters",)),
    ("typos", "describe images natural langauge feedback", ("teaching-machines-describe-images",)),
    ("typos", "straggler mitigaton", ("straggler-mitigation-distributed-optimization",)),
    ("typos", "distributionally robust f-divergnces", ("stochastic-gradient-methods",)),
    ("typos", "domain-invariant temporal dynamcis", ("learning-causal-domain-invariant-temporal-dynamics",)),
    ("typos", "unconditional word generaton", ("deep-state-space-models-2",)),
    ("typos", "adversarialy robust features", ("spectral-view-adversarially-robust-features",)),
    ("typos", "conformal inferense adversarial attacks", ("pitfalls-promise-conformal-inference",)),
    ("typos", "lattice netwroks monotonic", ("deep-lattice-networks",)),
    ("typos", "strategic self-selecton", ("classification-strategic-self-selection",)),
    ("typos", "conditional stochastic gattes", ("contextual-feature-selection",)),
    ("typos", "differentiable provong", ("end-to-end-differentiable-proving",)),
    ("typos", "catastrophic forgeting pareto", ("mitigating-catastrophic-forgetting",)),
    # paraphrases: a well-known paper in other words than its title
    ("paraphrases", "generating the weights of neural networks with a GAN", ("hypergan",)),
    ("paraphrases", "node embeddings that generalize to unseen nodes by aggregating neighbor features",
     ("inductive-representation-learning",)),
    ("paraphrases", "sequence transduction with attention only, no recurrence or convolutions", ("attention-all-you-need",)),
    ("paraphrases", "continuous-depth models whose hidden state is integrated by an ODE solver",
     ("neural-ordinary-differential-equations",)),
    ("paraphrases", "exact log-likelihood image synthesis with reversible layers", ("glow-generative-flow",)),
    ("paraphrases", "activations that keep zero mean and unit variance through many layers",
     ("self-normalizing-neural-networks",)),
    ("paraphrases", "classify new classes from a few examples by distance to the class mean embedding",
     ("prototypical-networks-few-shot-learning",)),
    ("paraphrases", "functions on unordered sets invariant to permutation", ("deep-sets",)),
    ("paraphrases", "gradient penalty instead of weight clipping for the critic", ("improved-training-wasserstein-gans",)),
    ("paraphrases", "Shapley values to explain any model's output", ("unified-approach-interpreting-model-predictions",)),
    ("paraphrases", "fast gradient boosted trees with one-side sampling and exclusive feature bundling", ("lightgbm",)),
    ("paraphrases", "hierarchical network on point clouds that learns local features", ("pointnet",)),
    ("paraphrases", "averaging model weights over training steps as the teacher for semi-supervised learning",
     ("mean-teachers-better-role-models",)),
    ("paraphrases", "randomization tests show some attribution methods ignore the model", ("sanity-checks-saliency-maps",)),
    ("paraphrases", "replay episodes with the achieved state as the goal to learn from sparse binary rewards",
     ("hindsight-experience-replay",)),
    # symbols: compounds spelt another way, symbols, acronyms
    ("symbols", "offpolicy", ("~off-?policy",)),
    ("symbols", "preprocessing", ("~pre-?processing",)),
    ("symbols", "kmeans", ("~k-?means",)),
    ("symbols", "LoRA+", ("lora",)),
    ("symbols", "C++", ("elf", "stacksight")),
    ("symbols", "D^α seeding", ("analyzing-seeding-means",)),
    ("symbols", "k-means++", ("better-k-means-algorithm", "constant-factor-bi-criteria-approximation")),
    ("symbols", "VQ-VAE", ("neural-discrete-representation-learning",)),
    ("symbols", "M2-BERT", ("benchmarking-building-long-context-retrieval",)),
    ("symbols", "PINNs loss landscape", ("challenges-training-pinns",)),
]


def title_probes(titles: dict[str, str], n: int = PROBES, seed: int = PROBE_SEED) -> list[tuple[str, str, tuple[str, ...]]]:
    """One-word queries, each a title's rarest word among the titles (letters only, at least
    PROBE_MIN_LETTERS, no stop word), whose targets are every paper with that word in its title:
    what one types to find a paper by the one unusual word one remembers ("linearization"). A
    word that stems like common ones ("linearization" and "linear", "generalization" and
    "generative") is where a stemmed index ranks worst."""
    from lunr.stop_word_filter import WORDS as stop_words

    words_of = {slug: {w.lower() for w in re.findall(r"[A-Za-z]+", title)} for slug, title in titles.items()}
    frequency: dict[str, int] = {}
    for words in words_of.values():
        for word in words:
            frequency[word] = frequency.get(word, 0) + 1
    probes = []
    for slug in random.Random(seed).sample(sorted(titles), min(n, len(titles))):
        candidates = sorted(w for w in words_of[slug] if len(w) >= PROBE_MIN_LETTERS and w not in stop_words)
        if candidates:
            word = min(candidates, key=lambda w: (frequency[w], w))
            probes.append(("title probes", word, (rf"~(?<![A-Za-z]){word}(?![A-Za-z])",)))
    return probes


def targets_of(targets: tuple[str, ...], titles: dict[str, str]) -> set[str]:
    """The slugs a query's targets name (`titles`: slug -> title, for the `~regex` ones)."""
    found = set()
    for target in targets:
        if target.startswith("~"):
            pattern = re.compile(target[1:], re.IGNORECASE)
            found.update(slug for slug, title in titles.items() if pattern.search(title))
        else:
            found.add(target)
    return found


def reciprocal_rank(results: list[str], wanted: set[str]) -> float:
    for rank, ref in enumerate(results, 1):
        if ref in wanted:
            return 1 / rank
    return 0.0


def evaluate(search: Callable[[str], list[str]], titles: dict[str, str],
             queries: Iterable[tuple[str, str, tuple[str, ...]]] = QUERIES) -> dict:
    """{"by class": {class: MRR}, "all": MRR, "ranks": {query: rank or None}} for `search` (query -> refs)."""
    scores: dict[str, list[float]] = {name: [] for name in CLASSES}
    ranks = {}
    for name, query, targets in queries:
        wanted = targets_of(targets, titles)
        missing = [t for t in targets if not t.startswith("~") and t not in titles]
        if missing or not wanted:
            raise ValueError(f"{query!r}: no such paper {missing or targets}")
        score = reciprocal_rank(search(query), wanted)
        scores.setdefault(name, []).append(score)
        ranks[query] = round(1 / score) if score else None
    every = [s for values in scores.values() for s in values]
    return {"by class": {name: statistics.mean(v) for name, v in scores.items() if v},
            "all": statistics.mean(every), "ranks": ranks}
