#!/usr/bin/env python3
"""Related papers at scale (run by hand, not a test): see bench/README.md, "Related papers".

    .venv/bin/python bench/related.py quality [--sample-sizes 25000,100000] [--texts build|plain|raw] [--corpus PATTERN]
    .venv/bin/python bench/related.py scale [--sizes 5000,25000,50000,100000] [--runs 3] [--texts plain|raw] [--corpus PATTERN]

Texts: "build" is exactly what the build compares (the real corpus imported with `build.py import`,
loaded and converted as a build does, joined by `page_texts`; real corpus only); "plain" is each
record's title and abstract flattened to plain words as the build flattens a page's Markdown (math
as Unicode, as in the build's texts; fast enough for 100,000 records); "raw" is "title. abstract"
as stored, LaTeX math and all (`drop_math` then works on a third of the texts, which the build's
texts rarely need).

quality: the real corpus (bench/data/ml-abstracts.jsonl.gz, 5,876 abstracts), ranked by the build
(`related.rank_with_previous`) and exactly (every pair scored, below: the method before issue 13,
with its float32 products, rounding and ties): recall@5 (the share of the exact lists' pairs that
the build's lists hold; a list holds up to 5 pairs scoring >= 0.08) and how many papers' lists
differ at all. With --sample-sizes, the same on every (N // 2000)-th paper of grown corpora of N
papers ("plain" texts).

scale: for each N, in a fresh process: the cold stage (`weigh_terms`, then `relate_papers`) and
one-paper edits from the cold build's state, of two kinds: a sentence appended to one abstract (as
bench/build.py edits), and one abstract replaced by another paper's (every word's count moves);
seconds (wall and CPU, medians of --runs) and peak memory above the stage's start (Linux: VmHWM,
reset before each step), and the pickled size of the states the build cache keeps (TermCounts,
Ranking). N beyond the real corpus comes from bench/generate.py (or --corpus, a path with {n} for
N, e.g. /tmp/corpus-{n}.jsonl, JSON Lines records).
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from papersite.enrich import related
from papersite.enrich.candidates import Found, index_terms, keep_best
from papersite.enrich.listings import paper_pages
from papersite.enrich.terms import page_texts, weigh_terms
from papersite.enrich.texts import render_texts
from papersite.errors import Report
from papersite.inputs.papers import load_content
from papersite.text.markdown import one_line
from papersite.text.plain import flatten_markdown

CORPUS = REPO / "bench" / "data" / "ml-abstracts.jsonl.gz"
K, THRESHOLD = related.RELATED_COUNT, related.RELATED_THRESHOLD


def raw_text(record: dict) -> str:
    return f"{record['title']}. {record['abstract']}"


def plain_text(record: dict) -> str:
    """Close to the build's text: its title and abstract flattened to plain words as the build
    flattens a page's Markdown (math as Unicode: `drop_math` rarely has anything to drop)."""
    return f"{flatten_markdown(one_line(record['title']))}. {flatten_markdown(record['abstract'])}"


def load_texts(n: int | None, pattern: str | None, kind: str = "plain") -> list[str]:
    """The first `n` texts of the real corpus grown by bench/generate.py (or of `pattern` with {n}):
    "raw" ("title. abstract"), "plain" (`plain_text`) or, for the real corpus only, "build"."""
    if n is None and kind == "build":
        return build_texts()
    text = raw_text if kind == "raw" else plain_text
    if n is None:
        return [text(json.loads(line)) for line in gzip.decompress(CORPUS.read_bytes()).decode("utf-8").splitlines() if line.strip()]
    if pattern:
        with open(pattern.format(n=n), encoding="utf-8") as lines:
            return [text(json.loads(line)) for line in lines if line.strip()][:n]
    try:
        from generate import generate
    except ImportError:
        raise SystemExit("bench/generate.py is missing: pass --corpus PATTERN (JSON Lines files with {n} for N)") from None
    return [text(record) for record in generate(n)]


def build_texts() -> list[str]:
    """Exactly what the build compares: the real corpus imported with `python build.py import`,
    loaded and converted as a build does, joined by `page_texts` (in the site's order)."""
    with tempfile.TemporaryDirectory() as tmp:
        content = Path(tmp) / "content"
        (content / "papers").mkdir(parents=True)
        shutil.copyfile(REPO / "content" / "tags.yml", content / "tags.yml")
        source = Path(tmp) / "corpus.jsonl"
        source.write_bytes(gzip.decompress(CORPUS.read_bytes()))
        subprocess.run([sys.executable, str(REPO / "build.py"), "import", str(source), "--content", str(content)],
                       check=True, capture_output=True)
        report = Report()
        papers, _, _ = load_content(content, report)
        texts, _ = render_texts(papers, report, jobs=2)
        return page_texts(paper_pages(papers, texts))


# --- the exact ranking -------------------------------------------------------------------


def exact_ranking(vectors, rows: np.ndarray, k: int = K, threshold: float = THRESHOLD, block: int = 128):
    """Each of `rows`' top k over every other row, as ranking every pair gives it (float32 products,
    rounded to 4 decimals, ties to the lower index): (row, col, score) in rank order."""
    vectors = vectors.astype(np.float32)
    transposed = vectors.T.tocsr()
    found = Found([], [], [])
    for start in range(0, len(rows), block):
        ids = rows[start : start + block]
        scores = (vectors[ids] @ transposed).toarray()
        scores[np.arange(len(ids)), ids] = -np.inf
        keep_best(found, scores, ids, np.arange(vectors.shape[0]), k, threshold)
    return related.best_pairs(*related.rounded(found.arrays()), k, threshold)


def lists_of(rows: np.ndarray, cols: np.ndarray, only: np.ndarray) -> dict[int, tuple[int, ...]]:
    found: dict[int, list[int]] = {int(row): [] for row in only}
    for row, col in zip(rows.tolist(), cols.tolist()):
        if row in found:
            found[row].append(col)
    return {row: tuple(cols) for row, cols in found.items()}


def compare(exact: tuple, built: tuple, rows: np.ndarray) -> dict:
    """recall@k of the built lists against the exact ones, over `rows`, and how many lists differ."""
    truth, got = lists_of(exact[0], exact[1], rows), lists_of(built[0], built[1], rows)
    pairs = sum(len(cols) for cols in truth.values())
    held = sum(len(set(truth[row]) & set(got[row])) for row in truth)
    exact_scores = dict(zip(zip(exact[0].tolist(), exact[1].tolist()), exact[2].tolist()))
    built_scores = dict(zip(zip(built[0].tolist(), built[1].tolist()), built[2].tolist()))
    missed = [score for pair, score in exact_scores.items() if pair[0] in truth and pair not in built_scores]
    return {"papers": len(rows), "pairs": pairs, "recall": held / max(1, pairs),
            "changed_lists": sum(truth[row] != got[row] for row in truth),
            "changed_sets": sum(set(truth[row]) != set(got[row]) for row in truth),
            "missed_median_score": statistics.median(missed) if missed else None}


def quality(args) -> None:
    sizes = [None] + [int(n) for n in args.sample_sizes.split(",") if n]
    print("| papers | compared | terms per paper | pairs scored per paper | recall@5 | lists that differ (order or members) | lists with other members | median exact score of a missed pair |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        texts = load_texts(n, args.corpus, args.texts if n is None else "plain" if args.texts == "build" else args.texts)
        terms, _ = weigh_terms(texts)
        ranking = related.rank_with_previous(terms, K, THRESHOLD)
        count = terms.vectors.shape[0]
        rows = np.arange(count) if n is None else np.arange(0, count, max(1, count // 2000))
        exact = exact_ranking(terms.vectors, rows)
        result = compare(exact, (ranking.rows, ranking.cols, ranking.scores), rows)
        index = index_terms(terms.vectors.astype(np.float32))
        cells = int((np.diff(index.term_indptr).astype(np.int64) ** 2).sum())
        label = f"{count:,} ({'real' if n is None else 'grown'})"
        missed = result["missed_median_score"]
        print(f"| {label} | {'all' if n is None else f'every {count // len(rows)}th: {len(rows):,}'} | {index.terms} | {cells / count:,.0f} "
              f"| **{result['recall']:.4f}** ({result['pairs']:,} pairs) | {result['changed_lists']:,} ({result['changed_lists'] / len(rows):.1%}) "
              f"| {result['changed_sets']:,} | {'-' if missed is None else f'{missed:.4f}'} |", flush=True)


# --- time and memory ------------------------------------------------------------------------


def status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measured(step):
    """(result, wall seconds, CPU seconds, peak MB above the resident size at the start)."""
    gc.collect()
    start = status_mb("VmRSS")
    try:
        Path("/proc/self/clear_refs").write_text("5")   # reset VmHWM to the current size
    except OSError:
        pass
    wall, cpu = time.perf_counter(), time.process_time()
    result = step()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return result, wall, cpu, status_mb("VmHWM") - start


def pages_for(count: int) -> list:
    return [SimpleNamespace(paper=SimpleNamespace(slug=f"paper-{i}"), title_html=f"Paper {i}", version=b"%d" % i)
            for i in range(count)]


def child(args) -> None:
    n, runs = args.n, args.runs
    texts = load_texts(n, args.corpus, args.texts)
    pages = pages_for(len(texts))
    out: dict = {"n": len(texts), "cold": [], "sentence": [], "rewrite": []}
    gc.disable()   # as in a build (pipeline.collector_paused)
    for _ in range(runs):
        (terms, counts), w1, c1, m1 = measured(partial(weigh_terms, texts))
        (lists, ranking), w2, c2, m2 = measured(partial(related.relate_papers, pages, terms))
        out["cold"].append({"terms": [w1, c1, m1], "related": [w2, c2, m2]})
        del lists
    out["terms_per_paper"] = ranking.terms_per_paper
    out["pairs"] = len(ranking.rows)
    out["state_mb"] = {"TermCounts": len(pickle.dumps(counts, protocol=5)) / 2**20,
                       "Ranking": len(pickle.dumps(ranking, protocol=5)) / 2**20}
    for kind in ("sentence", "rewrite"):
        for run in range(runs):
            paper = (2 * run + 1) * len(texts) // (2 * runs)
            edited = list(texts)
            if kind == "sentence":
                edited[paper] += f" An added sentence, edit number {run}, about benchmark results."
            else:
                edited[paper] = texts[(paper + len(texts) // 2) % len(texts)] + " (rewritten)"
            (terms2, _), w1, c1, m1 = measured(partial(weigh_terms, edited, counts))
            changed = int(related.changed_rows(ranking, terms2).sum())
            (lists, _), w2, c2, m2 = measured(partial(related.relate_papers, pages, terms2, ranking))
            out[kind].append({"terms": [w1, c1, m1], "related": [w2, c2, m2], "changed_rows": changed})
            del lists, terms2
    print(json.dumps(out))


def scale(args) -> None:
    print("| papers | step | terms: wall / CPU s | terms: peak MB | related: wall / CPU s | related: peak MB | both: wall s |")
    print("|---|---|---|---|---|---|---|")
    notes = []
    for n in (int(n) for n in args.sizes.split(",")):
        cmd = [sys.executable, __file__, "child", "--n", str(n), "--runs", str(args.runs), "--texts", args.texts]
        cmd += ["--corpus", args.corpus] if args.corpus else []
        result = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
        for step in ("cold", "sentence", "rewrite"):
            runs = result[step]
            med = {part: [statistics.median(run[part][i] for run in runs) for i in range(3)] for part in ("terms", "related")}
            peak = {part: max(run[part][2] for run in runs) for part in ("terms", "related")}
            both = statistics.median(run["terms"][0] + run["related"][0] for run in runs)
            print(f"| {result['n']:,} | {step} | {med['terms'][0]:.2f} / {med['terms'][1]:.2f} | {peak['terms']:.0f} "
                  f"| {med['related'][0]:.2f} / {med['related'][1]:.2f} | {peak['related']:.0f} | **{both:.2f}** |", flush=True)
        changed = {kind: [run["changed_rows"] for run in result[kind]] for kind in ("sentence", "rewrite")}
        notes.append(f"{result['n']:,}: {result['terms_per_paper']} terms per paper, {result['pairs']:,} pairs ranked; "
                     f"cache states TermCounts {result['state_mb']['TermCounts']:.1f} MB, Ranking {result['state_mb']['Ranking']:.1f} MB; "
                     f"vectors changed by the edits: {changed}")
    print()
    print("\n".join(notes))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--sample-sizes", default="")
    q.add_argument("--corpus")
    q.add_argument("--texts", choices=("build", "plain", "raw"), default="build")
    s = sub.add_parser("scale")
    s.add_argument("--sizes", default="5000,25000,50000,100000")
    s.add_argument("--runs", type=int, default=3)
    s.add_argument("--corpus")
    s.add_argument("--texts", choices=("plain", "raw"), default="plain")
    c = sub.add_parser("child")
    c.add_argument("--n", type=int, required=True)
    c.add_argument("--runs", type=int, default=3)
    c.add_argument("--corpus")
    c.add_argument("--texts", choices=("plain", "raw"), default="plain")
    args = parser.parse_args(argv)
    {"quality": quality, "scale": scale, "child": child}[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
