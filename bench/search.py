#!/usr/bin/env python3
"""Search benchmark on the real corpus (run by hand, not a test): see bench/README.md.

    .venv/bin/python bench/search.py [--runs 3] [--corpus FILE] [--keep DIR]

Imports the corpus into a temporary content directory with `python build.py import`, builds
the site with `python build.py build`, then measures and prints:

- index build seconds: ours (papersite.lunr_index.build_index + the compact encoding, as the build
  runs it; and with the complete Python lunr.Index made too) against a plain `lunr()` call over
  the same documents with the same pipeline, and with lunr's default pipeline, measured in the
  same run, interleaved, medians of --runs;
- shipped bytes (index + store, raw and gzip) against the plain `Index.serialize()` JSON;
- headless Chromium: milliseconds from inserting the <script> elements to a ready search (index
  expanded and loaded, store in), over HTTP (median of max(--runs, 5)) and from file://, and
  median / 95th percentile milliseconds over QUERIES (the search alone, and search + popup DOM);
- Python/browser parity on the whole corpus: every distinct word stemmed by lunr.py and by
  search-core.js, and QUERIES run by lunr.py and by lunr.js in Node over the built files.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from lunr import lunr
from lunr.index import Index
from lunr.stemmer import porter_stemmer

from papersite.enrich.listings import list_site, paper_pages
from papersite.enrich.texts import render_texts
from papersite.errors import Report
from papersite.inputs.config import load_config
from papersite.inputs.papers import load_content
from papersite.publish import lunr_index, search, search_codec
from support import search_oracle as oracle

CORPORA = [REPO / "bench" / "data" / "ml-abstracts.jsonl.gz", REPO.parent / "shared" / "data" / "ml-abstracts.jsonl"]
CHROMIUM = "/usr/bin/chromium"

# A fixed list: topics, multi-word queries, half-typed words, typos, accents, -ay/-ey words and
# lunr syntax.
QUERIES = [
    "shapley", "diffusion", "reinforcement learning", "transformer", "graph neural network",
    "bandit", "regret bound", "adversarial robustness", "federated", "differential privacy",
    "causal inference", "language model", "contrastive", "variational inference", "gaussian process",
    "optimal transport", "meta-learning", "few-shot", "robot manipulation", "policy gradient",
    "convex optimization", "sparse", "kernel", "bayesian optimization", "monte carlo",
    "attention", "generative adversarial", "normalizing flow", "active learning", "clustering",
    "Rényi", "array", "delay", "key", "diffu",
    "reinf", "transf", "optim", "robst", "shaply",
    "gradeint", "title:diffusion", "+diffusion -video", "robust~1", "authors:bengio",
    "stochastic gradient descent", "lower bound", "matrix completion", "video", "neural tangent kernel",
]


def find_corpus(given: str | None) -> Path:
    if given:
        return Path(given)
    for path in CORPORA:
        if path.is_file():
            return path
    sys.exit("no corpus: expected one of " + ", ".join(map(str, CORPORA)))


def run(*args) -> None:
    subprocess.run([sys.executable, str(REPO / "build.py"), *map(str, args)], check=True, cwd=REPO,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def prepare(corpus: Path, work: Path) -> tuple[Path, Path]:
    content = work / "content"
    (content / "papers").mkdir(parents=True)
    shutil.copyfile(REPO / "content" / "tags.yml", content / "tags.yml")
    shutil.copyfile(REPO / "site.yml", work / "site.yml")
    source = corpus
    if corpus.suffix == ".gz":
        source = work / corpus.stem
        source.write_bytes(gzip.decompress(corpus.read_bytes()))
    started = time.perf_counter()
    run("import", source, "--content", content)
    print(f"import: {time.perf_counter() - started:.1f}s", file=sys.stderr)
    started = time.perf_counter()
    run("build", "--content", content, "--config", work / "site.yml", "--out", work / "site")
    print(f"build: {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return content, work / "site"


def site_documents(content: Path, config: Path):
    report = Report()
    papers, taxonomy, _ = load_content(content, report)
    site = list_site(load_config(config), taxonomy, paper_pages(papers, render_texts(papers, report)[0]))
    return site, search.search_documents(site)


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def time_builds(docs, runs: int) -> dict[str, list[float]]:
    fields = [{"field_name": n, "boost": b} for n, b in lunr_index.FIELDS]
    times = {"ours": [], "ours_full": [], "plain": [], "plain_default": []}
    for _ in range(runs):
        started = time.perf_counter()
        index = lunr_index.build_index(docs)
        search.js_global(search.INDEX_GLOBAL, search_codec.encode_index(index))
        times["ours"].append(time.perf_counter() - started)
        # what a complete lunr.Index in Python adds (the site does not need it)
        _ = index.inverted_index, index.field_vectors, index.token_set
        times["ours_full"].append(time.perf_counter() - started)
        started = time.perf_counter()
        oracle.plain_index(docs)
        times["plain"].append(time.perf_counter() - started)
        started = time.perf_counter()
        lunr(ref="ref", fields=fields, documents=docs)
        times["plain_default"].append(time.perf_counter() - started)
    return times


def serve(directory: Path):
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/favicon.ico":  # as papersite/serve.py: no 404 in the console
                self.send_response(204)
                self.end_headers()
                return
            super().do_GET()

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(directory)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser_figures(site: Path, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    out = {"ready": [], "index_ready": [], "loaded": [], "load": [], "first": [], "warm": [], "search": [], "popup": [],
           "errors": []}
    server = serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    first_query = QUERIES[2]  # "reinforcement learning": common words, many postings
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            for url in [base + "index.html"] * runs + [(site / "index.html").as_uri()]:
                context = browser.new_context()
                page = context.new_page()
                page.on("pageerror", lambda exc: out["errors"].append(str(exc)))
                page.on("console", lambda msg: msg.type == "error" and out["errors"].append(msg.text))
                page.goto(url)
                # what focusing the search box does, plus the first query the moment it is ready
                page.evaluate("""(q) => window.PapersiteSearch.whenReady(() => {
                    const t = performance.now();
                    window.PapersiteSearch.query(q);
                    window.firstQueryMs = performance.now() - t;
                })""", first_query)
                page.wait_for_function("() => window.firstQueryMs !== undefined && window.PapersiteSearch.timings.warm",
                                       timeout=60_000)
                t = page.evaluate("window.PapersiteSearch.timings")
                if url.startswith("http"):
                    out["ready"].append(t["ready"] - t["start"])
                    out["index_ready"].append(t["indexed"] - t["start"])
                    out["loaded"].append(t["loaded"] - t["start"])
                    out["load"].append(t["indexed"] - t["loaded"])
                    out["first"].append(page.evaluate("window.firstQueryMs"))
                    out["warm"].append(t["warm"] - t["ready"])
                else:
                    out["file_ready"] = t["ready"] - t["start"]
                context.close()
            # queries, on a fresh page: one warm-up pass, then timed passes
            context = browser.new_context()
            page = context.new_page()
            page.goto(base + "index.html")
            page.focus("#search-input")
            page.wait_for_function("() => window.PapersiteSearch.state() === 'ready'", timeout=60_000)
            timings = page.evaluate("""(queries) => {
                const api = window.PapersiteSearch, input = document.getElementById('search-input');
                const search = {}, popup = {}, hits = {};
                for (const q of queries) api.query(q);
                for (let pass = 0; pass < 3; pass++) {
                  for (const q of queries) {
                    let t0 = performance.now();
                    const outcome = api.query(q);
                    (search[q] = search[q] || []).push(performance.now() - t0);
                    hits[q] = outcome.results.length;
                    t0 = performance.now();
                    input.value = q;
                    input.dispatchEvent(new Event('input'));
                    (popup[q] = popup[q] || []).push(performance.now() - t0);
                  }
                }
                return {search, popup, hits};
            }""", QUERIES)
            context.close()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    out["search"] = [statistics.median(v) for v in timings["search"].values()]
    out["popup"] = [statistics.median(v) for v in timings["popup"].values()]
    out["hits"] = timings["hits"]
    return out


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def parity(site: Path, index: Index, docs, work: Path) -> dict:
    words = sorted({w for doc in docs for key in ("title", "tags", "authors", "body") for w in lunr_index.normalise_words(doc[key])})
    words_file = work / "words.json"
    words_file.write_text(json.dumps({"stem": words}), encoding="utf-8")
    js = json.loads(subprocess.run(["node", str(REPO / "tests" / "js" / "words.js"), str(site / "assets" / "search-core.js"), str(words_file)],
                                   check=True, capture_output=True, text=True).stdout)["stem"]
    stem_mismatches = [w for w, s in zip(words, js) if porter_stemmer.stem(w) != s]
    queries_file = work / "queries.json"
    queries_file.write_text(json.dumps(QUERIES), encoding="utf-8")
    node = json.loads(subprocess.run(["node", str(REPO / "tests" / "js" / "search_site.js"), str(site), str(queries_file)],
                                     check=True, capture_output=True, text=True).stdout)
    query_mismatches = [q for q in QUERIES
                        if [r["ref"] for r in oracle.search(index, q).results] != node["typed"][q]["refs"]]
    return {"words": len(words), "stem_mismatches": stem_mismatches, "query_mismatches": query_mismatches}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs per measurement (default 3)")
    parser.add_argument("--corpus", help="a .jsonl or .jsonl.gz file (default: bench/data, else ../shared/data)")
    parser.add_argument("--keep", help="work in this directory and keep it (default: a temporary one)")
    args = parser.parse_args()
    corpus = find_corpus(args.corpus)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="papersite-bench-"))
    if args.keep and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    try:
        content, site = prepare(corpus, work)
        _site, docs = site_documents(content, work / "site.yml")
        builds = time_builds(docs, args.runs)
        assets = site / "assets"
        index_js = (assets / "search-index.js").read_bytes()
        store_js = (assets / "search-store.js").read_bytes()
        loaded = Index.load(oracle.expand_index(oracle.read_js_global(index_js.decode("utf-8"))))
        plain = json.dumps(oracle.plain_index(docs).serialize(), separators=(",", ":")).encode()
        fields = [{"field_name": n, "boost": b} for n, b in lunr_index.FIELDS]
        plain_default = json.dumps(lunr(ref="ref", fields=fields, documents=docs).serialize(), separators=(",", ":")).encode()
        browser = browser_figures(site, max(args.runs, 5))
        same = parity(site, loaded, docs, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in builds.items()}
    ours_bytes, ours_gz = len(index_js) + len(store_js), gz(index_js) + gz(store_js)
    rows = [
        ("corpus", f"{corpus} ({len(docs)} papers, {len(loaded.inverted_index)} terms)", ""),
        (f"index build s (median of {args.runs})",
         f"ours {med['ours']:.2f}  (as a full Python lunr.Index {med['ours_full']:.2f})",
         f"plain lunr() same pipeline {med['plain']:.2f} -> {med['plain'] / med['ours']:.1f}x; "
         f"default pipeline {med['plain_default']:.2f}"),
        ("  all runs", "ours " + " ".join(f"{t:.2f}" for t in builds["ours"]),
         "plain " + " ".join(f"{t:.2f}" for t in builds["plain"])),
        ("index bytes", f"{len(index_js):,} raw / {gz(index_js):,} gzip", ""),
        ("store bytes", f"{len(store_js):,} raw / {gz(store_js):,} gzip", ""),
        ("index + store", f"{ours_bytes:,} raw / {ours_gz:,} gzip",
         f"plain serialize() {len(plain):,} raw / {gz(plain):,} gzip -> {ours_gz / gz(plain):.3f} of it "
         f"(default pipeline {gz(plain_default):,} gzip)"),
        ("ready ms (HTTP, median)", f"{statistics.median(browser['ready']):.0f} (index alone {statistics.median(browser['index_ready']):.0f})",
         f"lunr.js + index in {statistics.median(browser['loaded']):.0f}, decode + lunr.Index.load "
         f"{statistics.median(browser['load']):.0f}; runs " + " ".join(f"{t:.0f}" for t in browser["ready"])),
        ("first query ms, cold", f"{statistics.median(browser['first']):.1f}",
         f"{QUERIES[2]!r} the moment the index is ready (decodes postings it needs); "
         f"the rest is decoded {statistics.median(browser['warm']):.0f} ms after ready"),
        ("ready ms (file://)", f"{browser.get('file_ready', float('nan')):.0f}", ""),
        ("query ms, search (50)", f"median {statistics.median(browser['search']):.2f}  p95 {p95(browser['search']):.2f}",
         f"max {max(browser['search']):.2f}"),
        ("query ms, search + popup", f"median {statistics.median(browser['popup']):.2f}  p95 {p95(browser['popup']):.2f}",
         f"max {max(browser['popup']):.2f}"),
        ("stemmer parity", f"{same['words']:,} distinct words", f"{len(same['stem_mismatches'])} differ {same['stem_mismatches'][:5]}"),
        ("query parity (lunr.py vs Node)", f"{len(QUERIES)} queries", f"{len(same['query_mismatches'])} differ {same['query_mismatches'][:5]}"),
        ("browser errors", str(len(browser["errors"])), "; ".join(browser["errors"][:3])),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value}" + (f"   [{note}]" if note else ""))
    zero = [q for q, n in browser["hits"].items() if not n]
    if zero:
        print(f"queries with no results: {zero}")


if __name__ == "__main__":
    main()
