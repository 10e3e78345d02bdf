"""One build of a benchmark project, in a process of its own, started as `python build.py build`
starts (bench/build.py times it): prints the build's result as JSON.

A file of its own, so the process imports what build.py imports and nothing of the benchmark's.
"""

import gc
import json
import os
import sys
from argparse import ArgumentParser
from pathlib import Path

# BENCH_CODE: another checkout's papersite (bench/cold_pairs.sh compares two with this script).
sys.path.insert(0, os.environ.get("BENCH_CODE") or str(Path(__file__).resolve().parent.parent))
for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):   # as build.py does
    os.environ.setdefault(name, "1")
gc.disable()   # as build.py does while importing
from papersite.pipeline import BuildOptions, build  # noqa: E402

gc.enable()


def main() -> None:
    args = ArgumentParser()
    args.add_argument("root", type=Path)
    args.add_argument("--clean", action="store_true")
    args.add_argument("--jobs", type=int)
    args.add_argument("--out", type=Path, help="output directory (default: ROOT/site; the cache goes beside it)")
    ns = args.parse_args()
    kept: list = []   # as build.py keeps them
    result = build(BuildOptions(content=ns.root / "content", config=ns.root / "site.yml", out=ns.out or ns.root / "site",
                                clean=ns.clean, jobs=ns.jobs), keep=kept)
    print(json.dumps({"seconds": result.seconds, "pages": result.pages, "files": result.files,
                      "rendered": result.rendered, "reused": result.reused, "warnings": len(result.warnings),
                      "timings": dict(result.timings)}), flush=True)
    os._exit(0)   # as build.py exits: without freeing the build's objects one by one


if __name__ == "__main__":
    main()
