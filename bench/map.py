#!/usr/bin/env python3
"""The topic map's layout: how well it keeps neighbourhoods, what it costs, and what an edit does
(run by hand, not a test).

    .venv/bin/python bench/map.py                      # kNN preservation on the real corpus, then 5,000 and 100,000
    .venv/bin/python bench/map.py --sizes 5000 --runs 3

kNN preservation (issue 18): for each paper, its 10 nearest papers by TF-IDF cosine of title and
abstract (as the build weighs them); on the map, its 10 nearest points (viewBox coordinates, as
the map pages give them). The share of the first found among the second, over all papers.
Random placement gives about 10 / n; the PCA layout this replaced is measured beside it.

Timing: each size runs in a child process of its own (so peak memory is the layout's), with the
build's one BLAS thread: the texts (title + ". " + abstract of `bench/generate.py`'s records)
weighed by `weigh_terms` first, untimed; then a cold layout (`project_2d` without a previous
state), one edited abstract, and one added paper, each timed; peak memory is the process's
highest resident set during the cold layout (Linux's VmHWM, reset just before it), less what it
held before.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

K = 10


def texts_of(records: list[dict]) -> list[str]:
    return [record["title"] + ". " + record["abstract"] for record in records]


def view_points(unit: list[tuple[float, float]]) -> np.ndarray:
    """Unit-square points as the map pages place them (viewBox units, one decimal)."""
    from papersite.enrich.topicmap import MAP_MARGIN, radius_for, view_point

    margin = MAP_MARGIN + radius_for(len(unit))
    return np.array([view_point(x, y, margin) for x, y in unit])


def preservation(vectors, points: np.ndarray, k: int = K) -> float:
    """The share of each paper's k nearest papers by text that are among its k nearest points."""
    from scipy.spatial import cKDTree

    from papersite.enrich.tsne import top_k

    n = vectors.shape[0]
    tree = cKDTree(points)
    hits = 0
    for start in range(0, n, 1000):
        block = (vectors[start:start + 1000] @ vectors.T).toarray()
        rows = np.arange(len(block))
        block[rows, start + rows] = -np.inf
        truth, _ = top_k(block, k)
        # k + 1 nearest points: the paper itself is one of them (or ties with it).
        _, near = tree.query(points[start:start + len(block)], k=k + 1)
        for row, (found, expected) in enumerate(zip(near.tolist(), truth.tolist())):
            found = [j for j in found if j != start + row][:k]
            hits += len(set(found) & set(expected))
    return hits / (n * k)


def quality() -> None:
    from threadpoolctl import threadpool_limits

    from generate import read_corpus
    from papersite.enrich import projection
    from papersite.enrich.terms import weigh_terms
    from papersite.enrich.tsne import unit_square

    records = read_corpus()
    terms = weigh_terms(texts_of(records))[0]
    with threadpool_limits(limits=1, user_api="blas"):
        started = time.perf_counter()
        unit, _ = projection.project_2d(terms, [r["source_id"] for r in records])
        seconds = time.perf_counter() - started
        pca = unit_square(projection.score_components(terms.vectors, components=2)).tolist()
    n = len(records)
    print(f"kNN preservation at {K} neighbours, {n:,} real papers (map coordinates as on the pages):")
    print(f"  t-SNE layout (this build):  {preservation(terms.vectors, view_points(unit)):.3f}   ({seconds:.1f} s, one process)")
    print(f"  PCA layout (before):        {preservation(terms.vectors, view_points(pca)):.3f}")
    print(f"  random placement:           {K / (n - 1):.4f}")


def child(size: int) -> dict:
    """One size's timings, in this (child) process, with the cycle collector off as in a build."""
    import gc

    gc.disable()
    from threadpoolctl import threadpool_limits

    from generate import generate
    from papersite.enrich import projection
    from papersite.enrich.terms import weigh_terms

    records = list(generate(size))
    texts = texts_of(records)
    ids = [r["source_id"] for r in records]
    terms, counts = weigh_terms(texts)
    held = reset_peak()
    with threadpool_limits(limits=1, user_api="blas"):
        started = time.perf_counter()
        points, state = projection.project_2d(terms, ids)
        cold = time.perf_counter() - started
        peak = peak_kb()
        # An edit: one abstract gets a closing sentence, as bench/build.py's edit does.
        edited = list(texts)
        edited[size // 2] += " We also release an implementation of the method."
        terms_edited, _ = weigh_terms(edited, counts)
        started = time.perf_counter()
        after, _ = projection.project_2d(terms_edited, ids, state)
        edit = time.perf_counter() - started
        moved_by_edit = sum(a != b for a, b in zip(points, after))
        # An added paper: a real abstract again, under a new id.
        added_terms, _ = weigh_terms(texts + [texts[7]], counts)
        started = time.perf_counter()
        grown, _ = projection.project_2d(added_terms, ids + ["added"], state)
        add = time.perf_counter() - started
        moved_by_add = sum(a != b for a, b in zip(points, grown))
    return {"size": size, "cold": cold, "edit": edit, "add": add, "peak_mb": (peak - held) / 1024,
            "process_mb": peak / 1024, "moved_by_edit": moved_by_edit, "moved_by_add": moved_by_add}


def reset_peak() -> int:
    """Forget the process's peak resident set so far (Linux), and return what it holds now, in KB."""
    Path("/proc/self/clear_refs").write_text("5")
    return status_kb("VmRSS")


def peak_kb() -> int:
    return status_kb("VmHWM")


def status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,100000", help="comma-separated numbers of papers to time")
    parser.add_argument("--runs", type=int, default=1, help="runs per size (medians reported)")
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    if not args.skip_quality:
        quality()
    print("\nLayout cost (medians of runs; peak MB over what the process held before the layout):")
    print(f"{'papers':>8} {'cold s':>8} {'edit s':>8} {'add s':>8} {'peak MB':>8} {'process MB':>11} {'moved by edit':>14} {'moved by add':>13}")
    for size in (int(s) for s in args.sizes.split(",")):
        runs = [json.loads(subprocess.run([sys.executable, __file__, "--child", str(size)], check=True,
                                          capture_output=True, text=True).stdout) for _ in range(args.runs)]
        med = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
        print(f"{size:>8,} {med['cold']:>8.2f} {med['edit']:>8.3f} {med['add']:>8.3f} {med['peak_mb']:>8.0f} "
              f"{med['process_mb']:>11.0f} {med['moved_by_edit']:>14.0f} {med['moved_by_add']:>13.0f}")


if __name__ == "__main__":
    main()
