#!/usr/bin/env python3
"""Build benchmark on the real corpus (run by hand, not a test): see bench/README.md.

    .venv/bin/python bench/build.py [--n 5000] [--runs 3] [--jobs N] [--growth 1000] [--no-mkdocs]
                                    [--mkdocs-default-nav] [--no-memory] [--keep DIR] [--json FILE]

Imports N papers of bench/data/ml-abstracts.jsonl.gz (every k-th record, so all venues and years
are in) into a temporary project with `python build.py import`, then, as medians of --runs runs,
each build a fresh `python build.py build` process:

The project has a base_url, as a site on GitHub Pages has, so the sitemap, feed and canonical
links are built too.

- cold build (no cache, no previous output; search index included), seconds;
- no-change rebuild and one-paper-edit rebuild (one abstract gets a new sentence), seconds;
- the CPU of the cold build and of the edit, user and system, of the build and its workers (from
  wait4): near the wall time times the cores, the build waits for the machine, not for one of its
  processes;
- the same edit in the dev server (`python build.py serve` on the project): seconds from saving
  the file to the open page's long poll for the next build being answered (then the page reloads)
  with the edit shown, by a preview of the page where the server makes one (dev/preview.py), and
  to the rebuilt site's answer;
- peak memory, two ways: the largest resident set of any one process of the build (from wait4, in
  the timed runs), and the whole build's, the most the build and its workers held at once (their
  proportional set sizes summed, sampled every 0.25 s (every 0.01 s in its first 2 s) in a run of each kind of its own, since
  sampling a large process's memory takes tens of milliseconds of a core). The second is what the
  machine must have: the workers are forked, and each comes to hold its own copy of every part of
  the build's memory that it touches, so the largest process is far from the whole;
- per-stage seconds of the cold build (related papers among them), from the build itself;
- output size, file count and the largest HTML page;
- the GitHub Pages artifact the site makes: the tar actions/upload-pages-artifact packs, and that
  tar deflated at level 6 as actions/upload-artifact@v4 uploads it, which is the size
  actions/deploy-pages compares with its 1 GB limit (the tar itself must stay under 10 GB);
- the same N pages built by MkDocs (pinned, built-in `mkdocs` theme and `search` plugin,
  `use_directory_urls: false`, one Markdown page per paper with its title as H1), installed by
  this script into its own virtual environment under bench/.work/ and timed in the same run,
  with a nav of the home page only; with --mkdocs-default-nav also once with MkDocs' default
  nav (every page in the nav of every page: minutes at 5,000 pages);
- with --growth M, the cold build of M papers too, to show how the time grows with N.

No output is deleted before a timed build: each is moved aside and deleted once every run is
done. What a new file costs on the disk just before each tool's builds is printed beside them
(bench/README.md, "Cold builds and the file system").
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path
from urllib.request import urlopen

REPO = Path(__file__).resolve().parent.parent
SERVE_WAIT_SECONDS = 600
CORPUS = REPO / "bench" / "data" / "ml-abstracts.jsonl.gz"
WORK = REPO / "bench" / ".work"
MKDOCS_VERSION = "1.6.1"
BASE_URL = "https://example.org/papers/"
PYTHON = sys.executable
# Timed processes run as on a default Python, which keeps modules' compiled bytecode: a machine
# with PYTHONDONTWRITEBYTECODE set (this one) would otherwise recompile papersite's modules in
# every build (~60 ms), a cost no user's build pays twice. MkDocs runs under the same.
TIMED_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
CHILD = Path(__file__).resolve().parent / "build_child.py"


# --- one build, in a process of its own ----------------------------------------------------


def timed_process(cmd: list[str], cwd: Path | None = None) -> tuple[float, resource.struct_rusage, str]:
    """(wall seconds, the resource usage of the process and the children it waited for, stdout):
    `ru_maxrss`, their largest peak RSS in KB; `ru_utime` and `ru_stime`, their CPU. A process that
    outlives the build (the remover of its old output tree) is in neither."""
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL, env=TIMED_ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{text[-2000:]}")
    return wall, usage, text


def build_once(root: Path, clean: bool, jobs: int | None) -> dict:
    wall, usage, text = timed_process(child_command(root, clean, jobs))
    result = json.loads(text.strip().splitlines()[-1])
    result.update(wall=wall, rss_kb=usage.ru_maxrss, cpu_user=usage.ru_utime, cpu_system=usage.ru_stime)
    return result


def child_command(root: Path, clean: bool, jobs: int | None) -> list[str]:
    return [PYTHON, str(CHILD), str(root), *(["--clean"] if clean else []), *(["--jobs", str(jobs)] if jobs else [])]


# --- the whole build's memory ------------------------------------------------------------------

MEMORY_SAMPLE_SECONDS = 0.25


def build_memory(root: Path, clean: bool, jobs: int | None) -> dict:
    """One build (not timed) with the memory of it and its workers sampled: the peak of their
    proportional set sizes summed (a page shared by k processes counts 1/k in each), when it came
    (seconds into the build), and the build process's and each worker's resident and private MB
    at that moment (the workers largest first)."""
    proc = subprocess.Popen(child_command(root, clean, jobs), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=TIMED_ENV)
    started = time.perf_counter()
    peak: dict = {"total_mb": 0, "at_seconds": 0.0, "build_process": [0, 0], "processes": []}
    while proc.poll() is None:
        found = {pid: memory_of(pid) for pid in process_tree(proc.pid)}
        found = {pid: m for pid, m in found.items() if m is not None}
        total = sum(m["pss"] for m in found.values())
        if total > peak["total_mb"]:
            own = found.get(proc.pid) or {"rss": 0, "private": 0}
            peak = {"total_mb": total, "at_seconds": round(time.perf_counter() - started, 1),
                    "build_process": [own["rss"], own["private"]],
                    "processes": sorted(([m["rss"], m["private"]] for pid, m in found.items() if pid != proc.pid), reverse=True)}
        # Often at first: a no-change rebuild of a small site is over in a fraction of a second.
        time.sleep(MEMORY_SAMPLE_SECONDS if time.perf_counter() - started > 2 else 0.01)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): a build of {root} for its memory")
    return peak


def process_tree(root: int) -> list[int]:
    """`root` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


def memory_of(pid: int) -> dict | None:
    """MB of one process: resident, proportional (Pss) and private; None once it has ended."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    kb = {name: int(value.split()[0]) for name, _, value in (line.partition(":") for line in text.splitlines()[1:])}
    return {"rss": kb.get("Rss", 0) // 1024, "pss": kb.get("Pss", 0) // 1024,
            "private": (kb.get("Private_Clean", 0) + kb.get("Private_Dirty", 0)) // 1024}


# --- the project -----------------------------------------------------------------------------


def corpus_lines(n: int) -> list[str]:
    """N records: evenly spread over the real corpus up to its size (every venue and year), the
    corpus grown by bench/generate.py beyond it."""
    lines = [line for line in gzip.decompress(CORPUS.read_bytes()).decode("utf-8").split("\n") if line.strip()]
    if n <= len(lines):
        return [lines[i * len(lines) // n] for i in range(n)]
    from generate import generate

    return [json.dumps(record, ensure_ascii=False) for record in generate(n)]


def make_project(root: Path, n: int) -> tuple[Path, float | None]:
    """The project of `n` papers under `root`, imported (its import's seconds), or kept from an
    earlier run with --keep (None: an import at 100,000 papers takes minutes)."""
    lines = corpus_lines(n)
    source = root / "corpus.jsonl"
    if (root / "content" / "papers").is_dir() and source.is_file() and source.read_text(encoding="utf-8") == "\n".join(lines) + "\n":
        return root, None
    shutil.rmtree(root, ignore_errors=True)
    (root / "content" / "papers").mkdir(parents=True)
    shutil.copyfile(REPO / "content" / "tags.yml", root / "content" / "tags.yml")
    # A base_url, as a site published on GitHub Pages has: the sitemap, feed and canonical links are made too.
    config = (REPO / "site.yml").read_text(encoding="utf-8")
    (root / "site.yml").write_text(re.sub(r"(?m)^# base_url: .*$", f"base_url: {BASE_URL}", config), encoding="utf-8")
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    wall, _, _ = timed_process([PYTHON, str(REPO / "build.py"), "import", str(source), "--content", str(root / "content")], cwd=REPO)
    return root, wall


def reset_output(root: Path) -> None:
    for path in (root / "site", root / ".papersite-cache"):
        set_aside(path)


# Outputs replaced between runs are moved aside, and deleted only once every run is done. On ext4
# without a journal (this machine's disk), the inode allocator passes over inodes freed in the last
# minutes, so creating files soon after deleting tens of thousands costs up to 20 times the system
# time (bench/README.md, "Cold builds and the file system"): deleting an output before each timed
# build would charge that to whichever tool writes the most files.
SET_ASIDE: list[Path] = []


def set_aside(path: Path) -> None:
    if path.exists():
        trash = Path(tempfile.mkdtemp(prefix=".bench-old-", dir=path.parent))
        path.rename(trash / path.name)
        SET_ASIDE.append(trash)


# Empty files created to time the disk's cost of a new file (`new_file_cost`).
PROBE_FILES = 2000


def new_file_cost(where: Path) -> float:
    """Microseconds to create an empty file in a new folder under `where`, as a build creates its
    output. On ext4 without a journal (this machine's disk) it is several times higher for minutes
    after many files were deleted nearby (bench/README.md, "Cold builds and the file system"), and
    papersite creates more files than MkDocs or Hugo: printed beside the results, it tells a slow
    disk from a slow build. The folder is deleted with the outputs set aside."""
    probe = Path(tempfile.mkdtemp(prefix=".bench-probe-", dir=where))
    SET_ASIDE.append(probe)
    started = time.perf_counter()
    for i in range(PROBE_FILES):
        with open(probe / f"{i}.html", "wb"):
            pass
    return (time.perf_counter() - started) / PROBE_FILES * 1e6


def delete_set_aside() -> None:
    for trash in SET_ASIDE:
        shutil.rmtree(trash, ignore_errors=True)
    SET_ASIDE.clear()


def edit_one_paper(root: Path, run: int) -> tuple[str, str]:
    """Append a sentence to one abstract: (the paper's slug, the sentence)."""
    return append_sentence(paper_to_edit(root), run)


def paper_to_edit(root: Path) -> Path:
    papers = sorted((root / "content" / "papers").glob("*.md"))
    return papers[len(papers) // 3]


def append_sentence(path: Path, run: int) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8").rstrip("\n")
    sentence = f"An added sentence, edit number {run}, about benchmark results."
    path.write_text(f"{text} {sentence}\n", encoding="utf-8")
    return path.stem, sentence


# --- the dev server ------------------------------------------------------------------------------


def serve_latency(root: Path, runs: int) -> dict:
    """Seconds from saving an edit to one abstract until the dev server answers an open page's
    request for the next build (livereload.js's long poll) with that page showing the edit (a
    preview of it, where the server makes one: dev/preview.py), and until it answers with the
    rebuilt site; how many of the edits were previewed."""
    out = root / "serve-site"
    proc = subprocess.Popen([PYTHON, str(REPO / "build.py"), "serve", "--content", str(root / "content"),
                             "--config", str(root / "site.yml"), "--out", str(out), "--port", "0"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    try:
        url = next(m.group(1) for line in proc.stdout if (m := re.search(r"serving .* at (http://\S+/)", line)))
        threading.Thread(target=read_lines, args=(proc.stdout, lines), daemon=True).start()   # keep its pipe drained
        first, rebuilt, previewed = [], [], 0
        for run in range(runs):
            time.sleep(1.0)   # the watcher's snapshot is taken after the previous build
            current = urlopen(url + "__papersite/build-id").read().decode()
            seen, path = len(lines), paper_to_edit(root)
            answers: list[tuple[float, str, str]] = []
            done = threading.Event()
            # The open page's request for the next build is waiting before the save, as a page's is.
            threading.Thread(target=follow_builds, args=(url, current, answers, f"papers/{path.stem}.html", done),
                             daemon=True).start()
            time.sleep(0.2)
            saved = time.perf_counter()
            slug, sentence = append_sentence(path, 1000 + run)
            while not any(line.startswith("serve: rebuilt") for line in lines[seen:]):
                if time.perf_counter() - saved > SERVE_WAIT_SECONDS:
                    raise SystemExit("the dev server did not rebuild after an edit")
                time.sleep(0.01)
            last = urlopen(url + "__papersite/build-id").read().decode()
            while not answers or answers[-1][1] != last:   # (the rebuild is announced before its line is printed)
                if time.perf_counter() - saved > SERVE_WAIT_SECONDS:
                    raise SystemExit("the dev server did not answer the open page's request for the rebuild")
                time.sleep(0.01)
            if sentence not in answers[0][2] or sentence not in urlopen(f"{url}papers/{slug}.html").read().decode():
                raise SystemExit("the dev server did not serve the edit")
            done.set()
            previewed += any(line.startswith("serve: previewed") for line in lines[seen:])
            first.append(answers[0][0] - saved)
            rebuilt.append(answers[-1][0] - saved)
        return {"first": first, "rebuilt": rebuilt, "previewed": previewed}
    finally:
        proc.terminate()   # SIGTERM: SIGINT is ignored when this script runs in the background
        proc.wait(timeout=60)


def follow_builds(url: str, since: str, answers: list, page: str, done: threading.Event) -> None:
    """As livereload.js does: wait for the build after `since`, and again after that, each time
    noting when it was answered, the build and the page as then served; until `done` (or the
    server ends), so that a round's requests do not load the next."""
    while not done.is_set():
        try:
            answer = urlopen(f"{url}__papersite/build-id?since={since}", timeout=120).read().decode()
            if answer != since:
                answers.append((time.perf_counter(), answer, urlopen(url + page).read().decode()))
                since = answer
        except OSError:
            return


def read_lines(stream, lines: list[str]) -> None:
    lines.extend(stream)   # (each line is in `lines` as soon as it is read)


def output_stats(site: Path) -> dict:
    files = [p for p in site.rglob("*") if p.is_file()]
    html = [p for p in files if p.suffix == ".html"]
    largest = max(html, key=lambda p: p.stat().st_size)
    listings = [p for p in html if p.parent.name in ("tags", "browse") or p.name == "index.html" or p.parent.parent.name == "tags"]
    largest_listing = max(listings, key=lambda p: p.stat().st_size)
    papers = [p for p in html if p.parent.name == "papers"]
    kinds: dict[str, int] = {}
    for path in files:
        kind = output_kind(path.relative_to(site).as_posix())
        kinds[kind] = kinds.get(kind, 0) + path.stat().st_size
    return {
        "files": len(files),
        "bytes": sum(p.stat().st_size for p in files),
        "bytes_by_kind": kinds,
        "html_pages": len(html),
        "largest_html": (str(largest.relative_to(site)), largest.stat().st_size),
        "largest_listing": (str(largest_listing.relative_to(site)), largest_listing.stat().st_size),
        "median_paper_page": statistics.median(p.stat().st_size for p in papers),
        "pages_artifact": pages_artifact(site),
    }


def pages_artifact(site: Path) -> dict:
    """Bytes of the site as GitHub Pages receives it: upload-pages-artifact's tar (the same command),
    and that tar deflated at level 6, upload-artifact@v4's default, which is the artifact size
    deploy-pages checks ("Uploaded artifact size of ... exceeds the allowed size of 1 GB")."""
    tar = subprocess.Popen(["tar", "--dereference", "--hard-dereference", "--directory", str(site), "-cf", "-",
                            "--exclude=.git", "--exclude=.github", "."], stdout=subprocess.PIPE)
    deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    tar_bytes = deflated = 0
    while chunk := tar.stdout.read(1 << 20):
        tar_bytes += len(chunk)
        deflated += len(deflate.compress(chunk))
    deflated += len(deflate.flush())
    if tar.wait() != 0:
        raise SystemExit(f"tar failed on {site}")
    return {"tar": tar_bytes, "deflated": deflated}


def output_kind(rel: str) -> str:
    """What an output file is, for the bytes-per-paper table."""
    top = rel.split("/")[0]
    # Every XML file: the sitemap (split into sitemaps/ from 50,000 URLs), the feed and each topic's feed.
    if rel.endswith(".xml") or rel == "robots.txt":
        return "sitemaps and feeds"
    if top == "papers":
        return "paper pages"
    if top == "authors":
        return "author pages"   # and the author index
    if top == "venues":
        return "venue pages"
    if top in ("browse", "tags") or rel == "index.html":
        return "listings"
    if top == "map" or rel == "map.html":
        return "topic maps"
    if rel.startswith(("assets/search", "assets/vendor")):
        return "search"
    if top in ("exports",) or rel.startswith("papers."):
        return "exports"
    if rel.startswith("assets/bibtex"):
        return "reading list's BibTeX"
    return "other"


# --- MkDocs ------------------------------------------------------------------------------------


def mkdocs_venv() -> Path:
    venv = WORK / f"mkdocs-{MKDOCS_VERSION}"
    exe = venv / "bin" / "mkdocs"
    if not exe.exists():
        subprocess.run([PYTHON, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", f"mkdocs=={MKDOCS_VERSION}"], check=True)
    return exe


def mkdocs_project(root: Path, content: Path, default_nav: bool = False) -> Path:
    """The same papers as MkDocs pages: title as H1, the abstract (our Markdown) below it."""
    sys.path.insert(0, str(REPO))
    from papersite.inputs.files import read_text
    from papersite.inputs.papers import split_front_matter
    import yaml

    set_aside(root)   # made anew from the content as it is now (the edits of earlier runs included)
    docs = root / "docs"
    (docs / "papers").mkdir(parents=True)
    rows = []
    for path in sorted((content / "papers").glob("*.md")):
        front, body, _ = split_front_matter(read_text(path), str(path))
        data = yaml.safe_load(front)
        (docs / "papers" / path.name).write_text(f"# {data['title']}\n\n{body.strip()}\n", encoding="utf-8")
        rows.append(data["title"])
    (docs / "index.md").write_text(f"# Papers\n\n{len(rows)} paper abstracts.\n", encoding="utf-8")
    # By default a nav of the home page only: MkDocs' default nav lists every page on every page,
    # at 5,000 pages 5,000 links per page (see README); the light setting is the demanding comparison.
    nav = "" if default_nav else "nav:\n  - index.md\n"
    (root / "mkdocs.yml").write_text(
        "site_name: Papers\nuse_directory_urls: false\ntheme:\n  name: mkdocs\nplugins:\n  - search\n" + nav,
        encoding="utf-8")
    return root


def mkdocs_build(exe: Path, root: Path) -> tuple[float, int]:
    set_aside(root / "site")
    wall, usage, _ = timed_process([str(exe), "build", "--quiet", "--clean"], cwd=root)
    return wall, usage.ru_maxrss


# --- Hugo ----------------------------------------------------------------------------------------

HUGO_LAYOUTS = {
    # A minimal theme: a page per paper (title, the abstract as Hugo renders the Markdown) and one
    # list of every paper, with no search index, taxonomy pages, math or related papers of its own.
    "_default/baseof.html": "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{{ .Title }}</title>"
                            "</head><body>{{ block \"main\" . }}{{ end }}</body></html>\n",
    "_default/single.html": "{{ define \"main\" }}<article><h1>{{ .Title }}</h1>{{ .Content }}</article>{{ end }}\n",
    "_default/list.html": "{{ define \"main\" }}<h1>{{ .Title }}</h1><ul>{{ range .Pages }}<li><a href=\"{{ .RelPermalink }}\">"
                          "{{ .Title }}</a></li>{{ end }}</ul>{{ end }}\n",
}


def hugo_project(root: Path, content: Path) -> Path:
    """The same papers as Hugo pages (the title in front matter, our Markdown below), with a minimal theme."""
    sys.path.insert(0, str(REPO))
    from papersite.inputs.files import read_text
    from papersite.inputs.papers import split_front_matter
    import yaml

    set_aside(root)
    pages = root / "content" / "papers"
    pages.mkdir(parents=True)
    for path in sorted((content / "papers").glob("*.md")):
        front, body, _ = split_front_matter(read_text(path), str(path))
        title = yaml.safe_load(front)["title"]
        (pages / path.name).write_text(f"---\ntitle: {json.dumps(title, ensure_ascii=False)}\n---\n{body.strip()}\n", encoding="utf-8")
    for name, text in HUGO_LAYOUTS.items():
        (root / "layouts" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "layouts" / name).write_text(text, encoding="utf-8")
    (root / "hugo.toml").write_text(f'baseURL = "{BASE_URL}"\ntitle = "Papers"\n'
                                     'disableKinds = ["taxonomy", "term", "RSS", "sitemap"]\n', encoding="utf-8")
    return root


def hugo_build(root: Path) -> tuple[float, int]:
    set_aside(root / "public")
    wall, usage, _ = timed_process(["hugo", "--quiet", "--source", str(root)], cwd=root)
    return wall, usage.ru_maxrss


# --- the run -----------------------------------------------------------------------------------


def median(values) -> float:
    return statistics.median(values)


def bench(n: int, runs: int, jobs: int | None, keep: Path | None, mkdocs: bool, mkdocs_default_nav: bool = False,
          hugo: bool = True, memory: bool = True) -> dict:
    base = Path(tempfile.mkdtemp(prefix="papersite-bench-")) if keep is None else keep
    root, import_seconds = make_project(base / f"n{n}", n)
    papers = len(list((root / "content" / "papers").glob("*.md")))
    new_file_us = {"papersite": new_file_cost(root)}
    cold, nochange, edit = [], [], []
    for run in range(runs):
        reset_output(root)
        cold.append(build_once(root, clean=True, jobs=jobs))
        nochange.append(build_once(root, clean=False, jobs=jobs))
        edit_one_paper(root, run)
        edit.append(build_once(root, clean=False, jobs=jobs))
    stats = output_stats(root / "site")
    live = serve_latency(root, runs)
    whole = whole_build_memory(root, jobs) if memory else None
    result = {
        "n": papers, "runs": runs, "jobs": jobs, "import_seconds": import_seconds,
        "cold": median(r["wall"] for r in cold), "cold_build_seconds": median(r["seconds"] for r in cold),
        "nochange": median(r["wall"] for r in nochange), "nochange_build_seconds": median(r["seconds"] for r in nochange),
        "edit": median(r["wall"] for r in edit), "edit_build_seconds": median(r["seconds"] for r in edit),
        "edit_rendered": median(r["rendered"] for r in edit),
        "cpu": {kind: (median(r["cpu_user"] for r in runs_of), median(r["cpu_system"] for r in runs_of))
                for kind, runs_of in (("cold", cold), ("edit", edit))},
        "serve_edit": median(live["first"]), "serve_edit_runs": live["first"],
        "serve_rebuilt": median(live["rebuilt"]), "serve_rebuilt_runs": live["rebuilt"], "serve_previewed": live["previewed"],
        "peak_rss_mb": max(r["rss_kb"] for r in cold + nochange + edit) / 1024,
        "peak_rss_by_build_mb": {kind: max(r["rss_kb"] for r in runs_of) / 1024
                                 for kind, runs_of in (("cold", cold), ("no-change", nochange), ("edit", edit))},
        "whole_build_memory": whole,
        "stages_cold": {k: median(r["timings"].get(k, 0.0) for r in cold) for k in cold[0]["timings"]},
        "stages_edit": {k: median(r["timings"].get(k, 0.0) for r in edit) for k in edit[0]["timings"]},
        "pages": cold[0]["pages"], "output": stats, "raw": {"cold": cold, "nochange": nochange, "edit": edit},
        "new_file_us": new_file_us,
    }
    if mkdocs:
        exe = mkdocs_venv()
        project = mkdocs_project(base / f"mkdocs-n{n}", root / "content")
        new_file_us["MkDocs"] = new_file_cost(project)
        times = [mkdocs_build(exe, project) for _ in range(runs)]
        result["mkdocs"] = median(t for t, _ in times)
        result["mkdocs_rss_mb"] = max(r for _, r in times) / 1024
        result["mkdocs_ratio"] = result["mkdocs"] / result["cold"]
        result["mkdocs_version"] = MKDOCS_VERSION
        if mkdocs_default_nav:
            full = mkdocs_project(base / f"mkdocs-full-n{n}", root / "content", default_nav=True)
            result["mkdocs_default_nav"], _ = mkdocs_build(exe, full)
    if hugo and shutil.which("hugo"):
        project = hugo_project(base / f"hugo-n{n}", root / "content")
        new_file_us["Hugo"] = new_file_cost(project)
        times = [hugo_build(project) for _ in range(runs)]
        result["hugo"] = median(t for t, _ in times)
        result["hugo_rss_mb"] = max(r for _, r in times) / 1024
        result["hugo_version"] = subprocess.run(["hugo", "version"], capture_output=True, text=True).stdout.split()[1]
    if keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return result


def whole_build_memory(root: Path, jobs: int | None) -> dict:
    """The whole build's peak memory (build_memory) in a cold build, a no-change rebuild and an edit,
    run after the timed ones."""
    reset_output(root)
    cold = build_memory(root, True, jobs)
    nochange = build_memory(root, False, jobs)
    edit_one_paper(root, 2000)
    return {"cold": cold, "no-change": nochange, "edit": build_memory(root, False, jobs)}


def show(results: list[dict]) -> None:
    rows = []
    for r in results:
        n = r["n"]
        rows += [
            ("papers (pages)", f"{n} ({r['pages']} HTML pages)", ""),
            ("import seconds", "kept from an earlier run" if r["import_seconds"] is None else f"{r['import_seconds']:.2f}",
             "python build.py import, once"),
            ("cold build seconds", f"{r['cold']:.2f}", f"process wall; the build itself {r['cold_build_seconds']:.2f}; "
             + cpu_note(r["cpu"]["cold"])),
            ("a new file on this disk, µs", " / ".join(f"{us:.0f}" for us in r["new_file_us"].values()),
             "an empty file's creation, before the builds of " + ", ".join(r["new_file_us"])
             + f" ({r['output']['files']} files here; high for minutes after mass deletions: bench/README.md)"),
            ("no-change rebuild seconds", f"{r['nochange']:.2f}", f"process wall; the build itself {r['nochange_build_seconds']:.2f} (target < 1)"),
            ("one-paper-edit rebuild seconds", f"{r['edit']:.2f}",
             f"process wall; the build itself {r['edit_build_seconds']:.2f}, {r['edit_rendered']:.0f} pages rendered (target < 2); "
             + cpu_note(r["cpu"]["edit"])),
            ("edit live in the dev server seconds", f"{r['serve_edit']:.2f}",
             "from saving the file to the open page's long poll answered, the page showing the edit (target < 2); "
             f"previewed {r['serve_previewed']} of {r['runs']} (dev/preview.py)"),
            ("the dev server's rebuild served seconds", f"{r['serve_rebuilt']:.2f}",
             "from saving the file to the long poll answered with the rebuilt site"),
            ("peak memory MB, largest process", f"{r['peak_rss_mb']:.0f}", "largest RSS of a build process or worker: "
             + ", ".join(f"{kind} {mb:.0f}" for kind, mb in r["peak_rss_by_build_mb"].items())),
            *whole_memory_rows(r.get("whole_build_memory")),
            ("output", f"{r['output']['bytes'] / 1e6:.1f} MB", f"{r['output']['files']} files, "
             f"{r['output']['bytes'] / n / 1e3:.1f} KB per paper (target < 10)"),
            ("GitHub Pages artifact", f"{r['output']['pages_artifact']['deflated'] / 1e6:.1f} MB",
             (f"the tar deflated as upload-artifact does, what deploy-pages checks against 1 GB; "
              f"the tar {r['output']['pages_artifact']['tar'] / 1e6:.1f} MB (limit 10 GB)")),
            ("bytes per paper by kind", ", ".join(f"{kind} {size / n / 1e3:.2f} KB" for kind, size in
                                                  sorted(r["output"]["bytes_by_kind"].items(), key=lambda kv: -kv[1])), ""),
            ("largest HTML page", f"{r['output']['largest_html'][1] / 1e3:.1f} KB", r["output"]["largest_html"][0] + " (target < 200 KB)"),
            ("largest listing page", f"{r['output']['largest_listing'][1] / 1e3:.1f} KB", r["output"]["largest_listing"][0]),
            ("median paper page", f"{r['output']['median_paper_page'] / 1e3:.1f} KB", ""),
            ("cold stages (s)", ", ".join(f"{k} {v:.2f}" for k, v in r["stages_cold"].items()), ""),
            ("edit stages (s)", ", ".join(f"{k} {v:.2f}" for k, v in r["stages_edit"].items()), ""),
        ]
        if "mkdocs" in r:
            rows += [(f"MkDocs {r['mkdocs_version']} cold build seconds", f"{r['mkdocs']:.2f}",
                      f"nav: home page only; peak {r['mkdocs_rss_mb']:.0f} MB; MkDocs time / ours = {r['mkdocs_ratio']:.2f} (issue 13: >= 1)")]
        if "hugo" in r:
            rows += [(f"Hugo {r['hugo_version']} cold build seconds", f"{r['hugo']:.2f}",
                      f"minimal theme, no search or taxonomies; peak {r['hugo_rss_mb']:.0f} MB; Hugo time / ours = {r['hugo'] / r['cold']:.2f}")]
        if "mkdocs_default_nav" in r:
            rows += [("MkDocs, default nav, one run", f"{r['mkdocs_default_nav']:.2f}",
                      f"MkDocs time / ours = {r['mkdocs_default_nav'] / r['cold']:.1f}")]
        rows.append(("", "", ""))
    if len(results) > 1:
        a, b = results[0], results[-1]
        per = [(r["n"], r["cold"] / r["n"] * 1000) for r in (a, b)]
        rows.append(("growth", f"{a['n']} -> {b['n']} papers: {a['cold']:.2f}s -> {b['cold']:.2f}s",
                     f"{per[0][1]:.2f} vs {per[1][1]:.2f} ms per paper ({b['cold'] / a['cold']:.2f}x time for {b['n'] / a['n']:.2f}x papers)"))
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value}" + (f"   {note}" if note else ""))


def cpu_note(cpu: tuple[float, float]) -> str:
    """The CPU of a build and its workers (medians): near its wall time times the cores, the build
    waits for the machine, not for one of its processes."""
    user, system = cpu
    return f"CPU {user + system:.1f} s (user {user:.1f}, system {system:.1f}) on {os.cpu_count()} cores"


def whole_memory_rows(whole: dict | None) -> list[tuple[str, str, str]]:
    if whole is None:
        return []
    return [("peak memory MB, whole build", f"{whole['cold']['total_mb']:.0f}",
             "the build and its workers at once, Pss summed (issue 13: cold, at most 1,536 at 100,000 papers): "
             + "; ".join(f"{kind} {m['total_mb']:.0f} at {m['at_seconds']:.0f} s (RSS/private MB: the build process "
                         + "{}/{}".format(*m["build_process"])
                         + "".join(f", a worker {rss}/{private}" for rss, private in m["processes"]) + ")"
                         for kind, m in whole.items()))]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5000, help="papers to import (default 5000; the corpus has 5876)")
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement; medians are reported (default 3)")
    parser.add_argument("--jobs", type=int, help="--jobs for the builds (default: the build's own default)")
    parser.add_argument("--growth", type=int, metavar="M", help="also run with M papers (e.g. 1000) to show the growth")
    parser.add_argument("--no-mkdocs", action="store_true", help="skip the MkDocs comparison")
    parser.add_argument("--no-hugo", action="store_true", help="skip the Hugo comparison (Debian's hugo)")
    parser.add_argument("--mkdocs-default-nav", action="store_true",
                        help="also build once with MkDocs' default nav (every page on every page; slow)")
    parser.add_argument("--no-memory", action="store_true",
                        help="skip the whole build's memory (a cold build, a no-change rebuild and an edit more, not timed)")
    parser.add_argument("--keep", type=Path, help="keep the projects in this directory (a later run with the same --n and --keep reuses its import)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    print(f"corpus {CORPUS.name}, {os.cpu_count()} cores, python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}", flush=True)
    sizes = ([args.growth] if args.growth else []) + [args.n]
    try:
        results = [bench(n, args.runs, args.jobs, args.keep, not args.no_mkdocs, args.mkdocs_default_nav and n == args.n,
                         not args.no_hugo, not args.no_memory) for n in sizes]
    finally:
        delete_set_aside()
    show(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
