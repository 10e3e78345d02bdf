#!/usr/bin/env python3
"""Lighthouse on every kind of page, as a phone and as a desktop reader get them (run by hand, not a test).

    .venv/bin/python bench/lighthouse.py [--sizes 19,5876] [--runs 3] [--readme] [--json FILE] [--keep DIR]

Builds the shipped 19-paper site and the real corpus (bench/data/ml-abstracts.jsonl.gz, 5,876 papers,
imported with `python build.py import`), serves each under a sub-path of a local HTTP server, as
GitHub Pages serves a project site, with the server's address as base_url (so canonical links,
the sitemap and the feed are made), and runs Lighthouse (npm `lighthouse`, pinned in
package.json) with Debian's Chromium (CHROME_PATH, default /usr/bin/chromium) on the home page,
a paper page, a tag page, the topics page, the search page with a query, the topic map and the
reading list, once with Lighthouse's default mobile settings (a simulated mid-range phone on a
slow 4G network) and once with `--preset=desktop`.

Prints, and with --readme writes into README.md between the `lighthouse:start` and
`lighthouse:end` markers, a table of the four category scores (performance / accessibility /
best practices / SEO; medians of --runs runs) per page kind, form factor and site. Below the
table it lists every audit that cost a point outside performance, and the performance metrics
of any page under 95, so a drop says where it came from.
"""

from __future__ import annotations

import argparse
import collections
import functools
import gzip
import http.server
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "bench" / "data" / "ml-abstracts.jsonl.gz"
LIGHTHOUSE = REPO / "node_modules" / "lighthouse" / "cli" / "index.js"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
FORM_FACTORS = ("mobile", "desktop")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update"
QUERY = "graph neural network"
README_START, README_END = "<!-- lighthouse:start -->", "<!-- lighthouse:end -->"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_site(work: Path, size: int, base_url: str) -> Path:
    """A project of `size` papers (19: the shipped content; else the real corpus) built into work/<size>/site."""
    root = work / str(size)
    shutil.rmtree(root, ignore_errors=True)
    (root / "content" / "papers").mkdir(parents=True)
    shutil.copyfile(REPO / "content" / "tags.yml", root / "content" / "tags.yml")
    config = (REPO / "site.yml").read_text(encoding="utf-8")
    (root / "site.yml").write_text(re.sub(r"(?m)^# base_url: .*$", f"base_url: {base_url}", config), encoding="utf-8")
    python = sys.executable
    if size == 19:
        for page in sorted((REPO / "content" / "papers").glob("*.md")):
            shutil.copyfile(page, root / "content" / "papers" / page.name)
    else:
        lines = [line for line in gzip.decompress(CORPUS.read_bytes()).decode("utf-8").split("\n") if line.strip()]
        if size > len(lines):
            raise SystemExit(f"the corpus has {len(lines)} papers, fewer than {size}")
        source = root / "corpus.jsonl"
        source.write_text("\n".join(lines[i * len(lines) // size] for i in range(size)) + "\n", encoding="utf-8")
        subprocess.run([python, str(REPO / "build.py"), "import", str(source), "--content", str(root / "content")],
                       cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([python, str(REPO / "build.py"), "build", "--content", str(root / "content"),
                    "--config", str(root / "site.yml"), "--out", str(root / "site")], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL)
    return root / "site"


def pages_of(site: Path) -> dict[str, str]:
    """Page kind -> path (with query) relative to the site: the first paper, the first topic with papers,
    the first author of one paper (three authors in four; the shipped papers name none)."""
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))
    first_paper = papers["papers"][0]["path"]
    first_tag = next(t["slug"] for t in papers["tags"] if t["papers"])
    counts = collections.Counter(slug for p in papers["papers"] for slug in p["author_slugs"] if slug)
    once = next((slug for slug, n in counts.items() if n == 1), None)
    return {
        "home": "index.html",
        "paper": first_paper,
        "tag": f"tags/{first_tag}.html",
        "topics": "tags/index.html",
        "search (?q=)": "search.html?q=" + QUERY.replace(" ", "+"),
        "map": "map.html",
        "reading list": "reading-list.html",
        **({"author": f"authors/{once}.html"} if once else {}),
    }


def serve(directory: Path, port: int) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def lighthouse(url: str, form_factor: str) -> dict:
    """One Lighthouse run: the report as JSON."""
    cmd = ["node", str(LIGHTHOUSE), url, "--quiet", "--output=json", "--output-path=stdout",
           f"--chrome-flags={CHROME_FLAGS}", "--only-categories=" + ",".join(CATEGORIES)]
    if form_factor == "desktop":
        cmd.append("--preset=desktop")
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"lighthouse failed on {url} ({form_factor}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def summarise(reports: list[dict]) -> dict:
    """Median scores of the runs; the lost audits and the metrics of the median-performance run."""
    scores = {c: round(statistics.median(r["categories"][c]["score"] * 100 for r in reports)) for c in CATEGORIES}
    middle = sorted(reports, key=lambda r: r["categories"]["performance"]["score"])[len(reports) // 2]
    lost = sorted({f"{c}: {middle['audits'][ref['id']]['title']}" for c in CATEGORIES[1:]
                   for ref in middle["categories"][c]["auditRefs"]
                   if ref["weight"] and (middle["audits"][ref["id"]]["score"] or 0) < 1
                   and middle["audits"][ref["id"]]["scoreDisplayMode"] in ("binary", "numeric")})
    metrics = {name: middle["audits"][name]["displayValue"] for name in (
        "first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift", "speed-index")}
    return {"scores": scores, "lost": lost, "metrics": metrics}


def table(results: dict) -> str:
    """Markdown: a row per page kind, a column per site and form factor."""
    columns = [(size, ff) for size in results for ff in FORM_FACTORS]
    head = "| page | " + " | ".join(f"{int(size):,} papers, {ff}" for size, ff in columns) + " |"
    lines = [head, "|---|" + "---|" * len(columns)]
    kinds = dict.fromkeys(kind for by_kind in results.values() for kind in by_kind)
    for kind in kinds:
        cells = []
        for size, ff in columns:
            s = results[size][kind][ff]["scores"] if kind in results[size] else None
            cells.append(" / ".join(str(s[c]) for c in CATEGORIES) if s else "–")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def notes(results: dict) -> list[str]:
    out = []
    for size, kinds in results.items():
        for kind, by_ff in kinds.items():
            for ff, result in by_ff.items():
                where = f"{int(size):,} papers, {kind}, {ff}"
                out += [f"- {where}: {item}" for item in result["lost"]]
                if result["scores"]["performance"] < 95:
                    out.append(f"- {where}: performance {result['scores']['performance']} ("
                               + ", ".join(f"{k} {v}" for k, v in result["metrics"].items()) + ")")
    return out


def write_readme(text: str) -> None:
    readme = REPO / "README.md"
    current = readme.read_text(encoding="utf-8")
    start, end = current.index(README_START) + len(README_START), current.index(README_END)
    readme.write_text(current[:start] + "\n" + text + "\n" + current[end:], encoding="utf-8")


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--sizes", default="19,5876", help="comma-separated numbers of papers (19 is the shipped site)")
    args.add_argument("--runs", type=int, default=3, help="runs per page and form factor; the table gives medians")
    args.add_argument("--readme", action="store_true", help="write the table into README.md")
    args.add_argument("--json", type=Path, help="write every result to this file")
    args.add_argument("--keep", type=Path, help="build the sites here and keep them")
    ns = args.parse_args()
    if not LIGHTHOUSE.exists():
        raise SystemExit("npm ci first: node_modules/lighthouse is missing")
    work = ns.keep or Path(tempfile.mkdtemp(prefix="papersite-lighthouse-"))
    port = free_port()
    results: dict[str, dict] = {}
    try:
        for size in (int(s) for s in ns.sizes.split(",")):
            base = f"http://127.0.0.1:{port}/{size}/site/"
            print(f"building {size} papers ...", file=sys.stderr, flush=True)
            site = make_site(work, size, base)
            server = serve(work, port)
            try:
                results[str(size)] = {}
                for kind, path in pages_of(site).items():
                    results[str(size)][kind] = {}
                    for ff in FORM_FACTORS:
                        reports = [lighthouse(base + path, ff) for _ in range(ns.runs)]
                        results[str(size)][kind][ff] = summary = summarise(reports)
                        print(f"{size:>6} {kind:<14} {ff:<8} " + " / ".join(str(summary["scores"][c]) for c in CATEGORIES),
                              file=sys.stderr, flush=True)
            finally:
                server.shutdown()
                server.server_close()
    finally:
        if ns.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    text = table(results)
    print(text)
    lost = notes(results)
    if lost:
        print("\n".join(["", *lost]))
    if ns.json:
        ns.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    if ns.readme:
        write_readme(text)


if __name__ == "__main__":
    main()
