#!/usr/bin/env python3
"""Search benchmark at a given size (run by hand, not a test): see bench/README.md, "Search".

    .venv/bin/python bench/search.py [--n N | --corpus FILE] [--runs 5] [--search-only] [--keep DIR]

Imports N papers (the real corpus evenly spread up to its 5,876; beyond, bench/generate.py N) or
a JSON Lines file into a temporary project with `python build.py import`, builds the site
(`--search-only`: the shipped papers' pages as a shell, with the search files of the N papers
written into it, for sizes the full build cannot reach on this machine), then prints:

- the search files: how many, their bytes, the seconds and peak memory `build_search_files`
  takes (cold, again with nothing changed, after an edit to one abstract), in a child process;
- the first query, on a fresh page in headless Chromium, for each of FIRST_QUERIES: the gzip
  bytes of every search file it loads (search-core.js, the index and store files, and the shards,
  postings and store chunks; search.js is on every page and not counted), and the milliseconds
  from typing the query (focus, then the whole query in one input event, nothing loaded yet)
  to the first results in the popup, from file:// and over HTTP, medians of --runs;
- as-you-type: milliseconds per query of QUERIES on a page that has searched before (the search
  alone, files it still needs included), median and 95th percentile;
- quality: MRR on bench/search_quality.py's 60 queries by class (when the corpus holds the real
  papers, as every size does), and on its 300 title-word probes (a title's rarest word, alone),
  with the Python mirror of the browser's query over the built files;
- parity (up to 6,000 papers): the 60 queries and QUERIES run by search-core.js in Node and by the
  Python mirror over the built files, compared result for result.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

import search_quality  # noqa: E402

CORPUS = REPO / "bench" / "data" / "ml-abstracts.jsonl.gz"
REAL = 5876
CHROMIUM = "/usr/bin/chromium"
SEARCH_FILES = ("search-core.js", "search-index.js", "search-store.js", "search-shards.js", "vendor/lunr.js")
FIRST_QUERIES = ["reinforcement learning", "graph neural network", "shapley values", "diffusion models for video generation",
                 "differentiable provong"]
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


# --- the project ------------------------------------------------------------------------------

def corpus_file(args, work: Path) -> Path:
    if args.corpus:
        path = Path(args.corpus)
        if path.suffix == ".gz":
            (work / "corpus.jsonl").write_bytes(gzip.decompress(path.read_bytes()))
            return work / "corpus.jsonl"
        return path
    out = work / "corpus.jsonl"
    if args.n <= REAL:
        lines = [line for line in gzip.decompress(CORPUS.read_bytes()).decode("utf-8").split("\n") if line.strip()]
        out.write_text("\n".join(lines[i * len(lines) // args.n] for i in range(args.n)) + "\n", encoding="utf-8")
        return out
    generator = REPO / "bench" / "generate.py"
    if not generator.is_file():
        sys.exit(f"{generator} is missing: write the corpus yourself and pass --corpus FILE")
    with out.open("w", encoding="utf-8") as sink:
        subprocess.run([sys.executable, str(generator), str(args.n)], check=True, stdout=sink)
    return out


def build_py(*args) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, str(REPO / "build.py"), *map(str, args)], check=True, cwd=REPO,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def new_project(root: Path) -> Path:
    (root / "content" / "papers").mkdir(parents=True)
    shutil.copyfile(REPO / "content" / "tags.yml", root / "content" / "tags.yml")
    shutil.copyfile(REPO / "site.yml", root / "site.yml")
    return root


def prepare(args, work: Path) -> tuple[Path, Path, dict]:
    """(content of the N papers, a built site whose search is theirs, the child's figures)."""
    project = new_project(work / "project")
    seconds = build_py("import", corpus_file(args, work), "--content", project / "content")
    print(f"import: {seconds:.0f} s", file=sys.stderr)
    if args.search_only:
        shell = new_project(work / "shell")
        for path in sorted((REPO / "content" / "papers").glob("*.md")):
            shutil.copyfile(path, shell / "content" / "papers" / path.name)
        build_py("build", "--content", shell / "content", "--config", shell / "site.yml", "--out", shell / "site")
        site = shell / "site"
    else:
        seconds = build_py("build", "--content", project / "content", "--config", project / "site.yml", "--out", project / "site")
        print(f"build: {seconds:.0f} s", file=sys.stderr)
        site = project / "site"
    out = work / "figures.json"
    write = ["--write", str(site)] if args.search_only else []
    subprocess.run([sys.executable, __file__, "child", str(project), str(out), *write], check=True)
    return project / "content", site, json.loads(out.read_text())


def child(project: Path, out: Path, write: Path | None) -> None:
    """In a process of its own: load the site, then build its search files as the worker does."""
    from papersite.enrich.listings import list_site, paper_pages
    from papersite.enrich.texts import render_texts
    from papersite.errors import Report
    from papersite.inputs.config import load_config
    from papersite.inputs.papers import load_content
    from papersite.output import Deferred
    from papersite.publish import search
    from papersite.workers import resolve_jobs

    report = Report()
    papers, taxonomy, _ = load_content(project / "content", report)
    texts = render_texts(papers, report, resolve_jobs(None))[0]
    site = list_site(load_config(project / "site.yml"), taxonomy, paper_pages(papers, texts))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    files, state = search.build_search_files(site)
    figures = {"cold": time.perf_counter() - started,
               "peak_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024}
    started = time.perf_counter()
    search.build_search_files(site, state)
    figures["unchanged"] = time.perf_counter() - started
    edited = list(site.papers)
    middle = edited[len(edited) // 2]
    # (A new version, as listings.paper_page gives an edited page: the search counts a page's terms by it.)
    edited[len(edited) // 2] = type(middle)(**{**middle.__dict__, "text": middle.text + " quixotic", "version": b"edited " + middle.version})
    started = time.perf_counter()
    after, _ = search.build_search_files(type(site)(site.config, tuple(edited), site.tags), state)
    figures["edit"] = time.perf_counter() - started
    figures["edit_files"] = sum(1 for name in files if not isinstance(after.get(name), Deferred) and after.get(name) != files[name])
    figures["files"] = len(files)
    figures["bytes"] = sum(len(text.encode("utf-8")) for name, text in files.items() if name != "assets/search-bibtex.js")
    if write:
        shutil.rmtree(write / "assets" / "search", ignore_errors=True)
        for name, text in files.items():
            path = write / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    out.write_text(json.dumps(figures))


# --- the browser ------------------------------------------------------------------------------

class Quiet(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive, as any static host; HTTP/1.0 opens a connection per file

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/favicon.ico":  # as papersite/dev/serve.py: no 404 in the console
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


def gz(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9))


FIRST_RESULTS_JS = """(q) => new Promise((resolve) => {
  const input = document.getElementById('search-input');
  const t0 = performance.now();
  input.focus();
  input.value = q;
  input.dispatchEvent(new Event('input'));
  const check = () => document.querySelector('#search-popup [role=option]') ? resolve(performance.now() - t0)
                      : performance.now() - t0 > 30000 ? resolve(NaN) : requestAnimationFrame(check);
  check();
})"""

TIMED_QUERIES_JS = """(queries) => new Promise((resolve) => {
  const api = window.PapersiteSearch, out = {};
  let i = 0;
  const next = () => {
    if (i === queries.length) { resolve(out); return; }
    const q = queries[i++], t0 = performance.now();
    api.search(api.source, q, (outcome) => {
      const docs = outcome ? outcome.results.slice(0, 8).map((r) => r.doc) : [];
      api.entries(api.source, docs, () => { out[q] = [performance.now() - t0, outcome ? outcome.results.length : -1]; next(); });
    });
  };
  next();
})"""


def browser_figures(site: Path, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    # The server in a process of its own: in this one it would wait for the GIL behind Playwright.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, __file__, "serve", str(site), str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/"
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    out = {"first": {}, "errors": []}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            for q in FIRST_QUERIES:
                row = {"file": [], "http": [], "files": []}
                for where, url in [("http", base + "index.html")] * runs + [("file", (site / "index.html").as_uri())] * runs:
                    context = browser.new_context()
                    page = context.new_page()
                    requested = []
                    page.on("request", lambda r, requested=requested: requested.append(r.url))
                    page.on("pageerror", lambda exc: out["errors"].append(str(exc)))
                    page.on("console", lambda msg: msg.type == "error" and out["errors"].append(msg.text))
                    page.goto(url)
                    row[where].append(page.evaluate(FIRST_RESULTS_JS, q))
                    page.wait_for_timeout(50)
                    loaded = sorted({u.split("/assets/", 1)[1] for u in requested if "/assets/" in u
                                     and (u.endswith(SEARCH_FILES) or "/assets/search/" in u)})
                    row["files"] = loaded
                    context.close()
                row["gzip"] = sum(gz(site / "assets" / name) for name in row["files"])
                out["first"][q] = row
            context = browser.new_context()
            page = context.new_page()
            page.goto(base + "index.html")
            page.evaluate(FIRST_RESULTS_JS, "graph")
            timed = page.evaluate(TIMED_QUERIES_JS, QUERIES)       # the first time: files loaded as needed
            again = page.evaluate(TIMED_QUERIES_JS, QUERIES)       # then everything is in
            out["queries"] = {q: t for q, (t, _) in timed.items()}
            out["queries_again"] = {q: t for q, (t, _) in again.items()}
            out["hits"] = {q: n for q, (_, n) in timed.items()}
            context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait()
    return out


# --- quality and parity -----------------------------------------------------------------------

def source_of(site: Path):
    from lunr.index import Index
    from support import search_oracle as oracle
    from support.shard_oracle import ShardSource

    from papersite import urls

    index = oracle.read_js_global((site / urls.SEARCH_INDEX).read_text(encoding="utf-8"))
    if "shards" in index:
        return lambda: ShardSource(site)
    single = oracle.IndexSource(Index.load(oracle.expand_index(index)))
    return lambda: single


def quality(site: Path, content: Path) -> dict | None:
    from support import search_query

    titles = {}
    for path in (content / "papers").glob("*.md"):
        head = path.read_text(encoding="utf-8").split("\n---\n", 1)[0]
        title = next((line[6:].strip().strip("'\"") for line in head.splitlines() if line.startswith("title:")), "")
        titles[path.stem] = title
    if not all(t.startswith("~") or t in titles for _, _, targets in search_quality.QUERIES for t in targets):
        return None
    make = source_of(site)

    def search(q: str) -> list[str]:
        return [r["ref"] for r in search_query.search(make(), q, limit=1000).results[:1000]]

    scores = search_quality.evaluate(search, titles)
    scores["probes"] = search_quality.evaluate(search, titles, search_quality.title_probes(titles))
    return scores


def parity(site: Path, work: Path) -> list[str]:
    from support import search_query

    queries = [q for _, q, _ in search_quality.QUERIES] + QUERIES
    (work / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    node = json.loads(subprocess.run(["node", str(REPO / "tests" / "js" / "search_site.js"), str(site), str(work / "queries.json")],
                                     check=True, capture_output=True, text=True).stdout)
    make, differ = source_of(site), []
    for q in queries:
        outcome = search_query.search(make(), q)
        js = node["typed"][q]
        if ([r["ref"] for r in outcome.results], [r["score"] for r in outcome.results], outcome.mode) != (js["refs"], js["scores"], js["mode"]):
            differ.append(q)
    return differ


# --- the report -------------------------------------------------------------------------------

def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        ThreadingHTTPServer(("127.0.0.1", int(sys.argv[3])), functools.partial(Quiet, directory=sys.argv[2])).serve_forever()
        return
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        child(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[5]) if len(sys.argv) > 5 else None)
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=REAL, help=f"papers (default {REAL}, the real corpus)")
    parser.add_argument("--corpus", help="a .jsonl or .jsonl.gz file to import instead")
    parser.add_argument("--runs", type=int, default=5, help="page loads per first query and place (default 5)")
    parser.add_argument("--search-only", action="store_true", help="build the search files, not the site's pages")
    parser.add_argument("--keep", help="work in this directory and keep it (default: a temporary one)")
    parser.add_argument("--site", help="measure this built site (and --content) instead of building one")
    parser.add_argument("--content", help="with --site: the content directory it was built from")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="papersite-search-bench-"))
    if args.keep and work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    try:
        if args.site:
            content, site = Path(args.content), Path(args.site)
            names = [p for p in (site / "assets" / "search").rglob("*.js")] if (site / "assets" / "search").is_dir() else []
            built = {"files": len(names) + 2, "bytes": sum(p.stat().st_size for p in names), "cold": float("nan"),
                     "unchanged": float("nan"), "edit": float("nan"), "peak_mb": float("nan"), "edit_files": 0}
        else:
            content, site, built = prepare(args, work)
        browser = browser_figures(site, args.runs)
        scores = quality(site, content)
        differ = parity(site, work) if built["files"] < 20_000 else None
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    papers = len(list((content / "papers").glob("*.md"))) if content.exists() else args.n
    rows = [
        ("papers", f"{papers:,}", "sharded" if built["files"] > 3 else "one index"),
        ("search files", f"{built['files']:,} files, {built['bytes']:,} bytes", ""),
        ("build_search_files s", f"cold {built['cold']:.1f}, unchanged {built['unchanged']:.1f}, one edit {built['edit']:.1f}",
         f"peak +{built['peak_mb']:.0f} MB; the edit changed {built['edit_files']} files"),
    ]
    first = browser["first"]
    for q, row in first.items():
        rows.append((f"first query {q!r}", f"{row['gzip']:,} B gzip, {len(row['files'])} files",
                     f"file:// {statistics.median(row['file']):.0f} ms, http {statistics.median(row['http']):.0f} ms (medians of {args.runs})"))
    rows.append(("first query, worst", f"{max(r['gzip'] for r in first.values()):,} B gzip",
                 f"file:// {max(statistics.median(r['file']) for r in first.values()):.0f} ms, "
                 f"http {max(statistics.median(r['http']) for r in first.values()):.0f} ms"))
    timed, again = list(browser["queries"].values()), list(browser["queries_again"].values())
    rows.append((f"as you type ({len(QUERIES)} queries)", f"median {statistics.median(timed):.1f} ms, p95 {p95(timed):.1f}, max {max(timed):.1f}",
                 f"files loaded as needed; again, all in: median {statistics.median(again):.1f}, p95 {p95(again):.1f}"))
    if scores:
        rows.append(("MRR (60 queries)", f"{scores['all']:.3f}", "  ".join(f"{k} {v:.2f}" for k, v in scores["by class"].items())))
        missed = {q: r for q, r in scores["ranks"].items() if r != 1}
        rows.append(("  not first", str(len(missed)), "; ".join(f"{q!r}: {r}" for q, r in missed.items())))
        probes = scores["probes"]["ranks"]
        late = {q: r for q, r in probes.items() if r is None or r > 10}
        rows.append((f"title-word probes ({len(probes)})", f"MRR {scores['probes']['all']:.3f}",
                     f"first {sum(r == 1 for r in probes.values())}, after 10th {len(late)}, "
                     f"after 50th {sum(r is None or r > 50 for r in probes.values())}: "
                     + "; ".join(f"{q!r}: {r}" for q, r in sorted(late.items(), key=lambda x: -(x[1] or 10**6))[:8])))
    if differ is not None:
        rows.append(("parity (Node vs Python)", f"{len(differ)} of {len(QUERIES) + len(search_quality.QUERIES)} differ", str(differ[:5])))
    rows.append(("browser errors", str(len(browser["errors"])), "; ".join(browser["errors"][:3])))
    zero = [q for q, n in browser["hits"].items() if not n]
    if zero:
        rows.append(("queries with no results", str(len(zero)), str(zero)))
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value}" + (f"   [{note}]" if note else ""))


if __name__ == "__main__":
    main()
