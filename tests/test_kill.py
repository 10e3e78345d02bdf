"""Nothing is lost: real builds killed with SIGKILL while writing, `--out` refusals, byte-identical builds.

A killed build must leave the previous output complete (the same files, byte for byte) or, if it
got as far as its commit, the new output complete: at once after a swap, and after a patch once
the next build has finished putting it in place, the first thing a build does. The next build
succeeds and leaves no `.site.tmp-*` / `.site.old-*` / `.site.patch-*` behind.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, build_args, make_project, paper_text, snapshot
from papersite import output, urls
from support.linkcheck import check_site
from support.maps import without_points

PAGES = 300
WORDS = ("reinforcement learning policy gradient regret bandit diffusion model transformer attention graph "
         "kernel convex bound sample complexity robust adversarial").split()


def generated_pages(count: int, edition: str) -> dict[str, str]:
    rng = random.Random(count)
    pages = {}
    for i in range(count):
        body = " ".join(rng.choice(WORDS) for _ in range(150)) + f" Marker{i:04d} {edition}."
        pages[f"p{i:04d}.md"] = paper_text(id=f"gen-{i:04d}", slug=f"paper-{i:04d}",
                                           title=f"Generated paper {i} ({edition}) on " + " ".join(rng.sample(WORDS, 4)), body=body)
    return pages


def freeze_checkout(dest: Path) -> Path:
    """A copy of the code, templates, static files and lunr.js: every build of a test runs this
    copy, so all of them (and the expected outputs) come from the same inputs and code."""
    dest.mkdir(parents=True)
    shutil.copyfile(REPO / "build.py", dest / "build.py")
    for name in ("papersite", "templates", "static"):
        shutil.copytree(REPO / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "node_modules" / "lunr", dest / "node_modules" / "lunr")
    return dest


def checkout_of(root: Path) -> Path:
    return root.parent / "checkout"


def start_build(root: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(checkout_of(root) / "build.py"), *build_args(root)], cwd=root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def run_build(root: Path) -> None:
    process = start_build(root)
    assert process.wait(timeout=300) == 0, process.stderr.read().decode()


def kill(process: subprocess.Popen) -> bool:
    """SIGKILL the build (its whole process group); False if it had already finished."""
    finished = process.poll() is not None
    if not finished:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return not finished


def temps(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith((".site.tmp-", ".site.old-", ".site.patch-")))


def wait_for_temp(root: Path, process: subprocess.Popen, timeout: float = 60) -> bool:
    """Poll until the build's `.site.tmp-*` directory appears (True) or the build ends (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with os.scandir(root) as entries:
            if any(e.name.startswith(".site.tmp-") for e in entries):
                return True
        time.sleep(0.0002)
    return False


@pytest.fixture(scope="module")
def editions(tmp_path_factory):
    """A project whose site/ holds edition A, its content already changed to edition B, and B's
    expected output (built elsewhere: builds are byte-identical wherever they are written)."""
    base = tmp_path_factory.mktemp("kill")
    freeze_checkout(base / "checkout")
    root = make_project(base / "proj", generated_pages(PAGES, "first"))
    run_build(root)
    first = snapshot(root / "site")
    for name, text in generated_pages(PAGES + 20, "second").items():
        (root / "content" / "papers" / name).write_text(text)
    expected = make_project(base / "expected")  # beside proj: built by the same checkout
    shutil.rmtree(expected / "content")
    shutil.copytree(root / "content", expected / "content")
    started = time.monotonic()
    process = start_build(expected)
    assert process.wait() == 0, process.stderr.read().decode()
    duration = time.monotonic() - started
    second = snapshot(expected / "site")
    assert first != second
    return root, first, second, duration


def assert_complete(site: Path, first: dict, second: dict, when: str) -> None:
    if output.patch_siblings(site):   # killed while putting its patch in place
        output.recover_output(site)   # what the next build does first, once it holds the lock
    # Map points aside: an incremental build keeps the points a clean one lays out afresh.
    now = without_points(snapshot(site))
    assert now in (without_points(first), without_points(second)), f"{when}: the site is neither the previous nor the new output " \
        f"({len(now)} files; previous {len(first)}, new {len(second)})"
    assert (site / urls.MARKER).is_file()
    assert check_site(site) == [], f"{when}: broken links in the surviving site"


def test_builds_killed_while_writing_leave_a_complete_site(editions):
    root, first, second, _ = editions
    landed = 0
    # Seconds after the temporary tree appears: at once, early, midway, late in the writing.
    for delay in (0.0, 0.01, 0.04, 0.09, 0.15):
        process = start_build(root)
        if wait_for_temp(root, process):
            time.sleep(delay)
            landed += kill(process) and bool(temps(root))
        else:
            kill(process)
        assert_complete(root / "site", first, second, f"killed {delay}s into writing")
    assert landed >= 3, f"only {landed} kills landed while the build was writing; make the build bigger"
    run_build(root)
    assert snapshot(root / "site") == second
    assert temps(root) == []


def test_builds_killed_at_random_moments_leave_a_complete_site(editions):
    root, first, second, duration = editions
    rng = random.Random(5)
    for _ in range(3):
        process = start_build(root)
        time.sleep(rng.uniform(0.3, 1.0) * duration)
        kill(process)
        assert_complete(root / "site", first, second, "killed at a random moment")
    run_build(root)
    assert snapshot(root / "site") == second
    assert temps(root) == []


def test_incremental_builds_killed_while_patching_leave_a_complete_site(editions, tmp_path):
    """One page edited: the build writes the few files it changes and patches the previous output
    with them. A kill must leave the previous output as it was, or the patch whole."""
    root, _, second, _ = editions
    run_build(root)                                # start from edition two, whatever ran before
    assert snapshot(root / "site") == second
    page = root / "content" / "papers" / "p0007.md"
    page.write_text(page.read_text().replace("Marker0007", "Marker0007 edited"))
    expected = make_project(root.parent / "expected-third")
    shutil.rmtree(expected / "content")
    shutil.copytree(root / "content", expected / "content")
    run_build(expected)
    third = snapshot(expected / "site")
    assert third != second
    for delay in (0.0, 0.005, 0.02):
        process = start_build(root)
        if wait_for_temp(root, process):
            time.sleep(delay)
        kill(process)
        assert_complete(root / "site", second, third, f"incremental build killed {delay}s into writing")
    run_build(root)
    assert without_points(snapshot(root / "site")) == without_points(third)
    assert temps(root) == []


def test_interrupted_fallback_swap_is_put_back(tmp_path, monkeypatch):
    """Without renameat2 the swap is two renames; a kill between them leaves `.site.old-*` and no
    site. The previous output must come back, even if the next build then fails."""
    out = tmp_path / "site"
    write_site(out, {"index.html": "previous"})
    out.rename(tmp_path / ".site.old-4242")        # what a kill between the two renames leaves
    output.restore_interrupted_swap(out)           # every build starts with this, once it holds the lock
    assert (out / "index.html").read_text() == "previous"
    assert temps(tmp_path) == []
    monkeypatch.setattr(output, "exchange", lambda a, b: False)
    write_site(out, {"index.html": "next"})
    assert (out / "index.html").read_text() == "next"
    assert temps(tmp_path) == []


def write_site(out: Path, files: dict[str, str]) -> None:
    with output.Staging(out) as staging:
        for name, text in files.items():
            staging.write(name, text)
        staging.commit()


# --- --out refusals ------------------------------------------------------------------------

def refused(result) -> None:
    assert result.code == 1
    assert "refusing" in result.err
    assert "Traceback" not in result.err


def test_out_refuses_a_foreign_non_empty_directory(tmp_path, cli):
    root = make_project(tmp_path / "proj", {"a.md": paper_text()})
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "notes.txt").write_text("mine")
    (docs / "sub" / "deep.txt").write_text("mine too")
    before = snapshot(docs)
    result = cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", docs)
    refused(result)
    assert "did not build" in result.err
    assert snapshot(docs) == before


def test_out_refuses_the_content_directory_and_its_parents(tmp_path, cli):
    root = make_project(tmp_path / "proj", {"a.md": paper_text()})
    before = snapshot(root)
    for target in (root / "content", root / "content" / "papers", root):
        result = cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", target)
        refused(result)
    assert snapshot(root) == before


def test_out_refuses_the_filesystem_root_and_home(tmp_path, cli):
    root = make_project(tmp_path / "proj", {"a.md": paper_text()})
    for target in ("/", Path.home()):
        result = cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", target)
        refused(result)


def test_out_refuses_a_file_and_a_symlink_to_a_foreign_directory(tmp_path, cli):
    root = make_project(tmp_path / "proj", {"a.md": paper_text()})
    (tmp_path / "file.txt").write_text("keep")
    result = cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", tmp_path / "file.txt")
    assert result.code == 1 and "not a directory" in result.err
    assert (tmp_path / "file.txt").read_text() == "keep"
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "x.txt").write_text("keep")
    (tmp_path / "link").symlink_to(foreign)
    refused(cli("build", "--content", root / "content", "--config", root / "site.yml", "--out", tmp_path / "link"))
    assert (foreign / "x.txt").read_text() == "keep"


def test_out_refuses_the_repository_root_of_a_copy(tmp_path):
    """`python build.py build --out .` run inside a checkout: the checkout must survive."""
    copy = tmp_path / "checkout"
    copy.mkdir()
    for name in ("build.py", "site.yml"):
        shutil.copyfile(REPO / name, copy / name)
    for name in ("papersite", "templates", "static", "content"):
        shutil.copytree(REPO / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "node_modules" / "lunr", copy / "node_modules" / "lunr")
    before = snapshot(copy)
    # One interpreter for every attempt (imports are most of a build's time); the copy's own
    # papersite is imported, so its own root is the one protected.
    script = (
        "import sys\n"
        "from papersite.cli import main\n"
        "codes = [main(['build', '--out', target]) for target in sys.argv[1:]]\n"
        "print('codes', *codes)\n"
    )
    targets = [".", str(copy), "content", "templates", "static", "papersite"]
    result = subprocess.run([sys.executable, "-c", script, *targets], cwd=copy, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(copy)})
    assert result.stdout.split() == ["codes", *["1"] * len(targets)], result.stderr
    assert result.stderr.count("refusing") == len(targets) and "Traceback" not in result.stderr, result.stderr
    assert snapshot(copy) == before
    result = subprocess.run([sys.executable, "build.py", "build"], cwd=copy, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert (copy / "site" / "index.html").is_file()


# --- determinism -----------------------------------------------------------------------------

def test_two_builds_in_fresh_processes_are_byte_identical(tmp_path):
    """Separate interpreters with different hash seeds: set or dict order never leaks into output."""
    checkout = freeze_checkout(tmp_path / "checkout")
    runs = []
    for seed in ("1", "2"):
        root = make_project(tmp_path / f"proj{seed}", copy_papers=True)
        runs.append((root, subprocess.Popen([sys.executable, str(checkout / "build.py"), *build_args(root)], cwd=root,
                                            env={**os.environ, "PYTHONHASHSEED": seed},
                                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)))
    sites = []
    for root, process in runs:
        assert process.wait(timeout=300) == 0, process.stderr.read().decode()
        sites.append(snapshot(root / "site"))
    assert sites[0].keys() == sites[1].keys()
    different = [name for name in sites[0] if sites[0][name] != sites[1][name]]
    assert different == []
