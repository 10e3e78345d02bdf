#!/bin/bash
# Alternating cold builds of two checkouts of papersite on one project, each into a new directory:
#
#   bench/cold_pairs.sh CODE_A CODE_B PROJECT N DEST
#
# CODE_*: a checkout with .venv (a worktree at the commit to measure). PROJECT: a project with
# content/ and site.yml (bench/build.py --keep makes one). Each round builds PROJECT with `--clean`,
# A then B, into DEST/<side>-<round>/site (the cache beside it), and times this checkout's
# `bench/build_child.py` running that side's code (the build's process: wall, user and system
# seconds). Nothing is deleted: on this machine's disk creating files soon after deleting many is
# slow (bench/README.md), so DEST must have room for 2 x N sites (at 100,000 papers, 4.4 GB each
# with its cache). Prints each run with the build's stage
# clocks, then each side's wall seconds. Compare medians and pair ratios: this machine is noisy.
set -euo pipefail
[ $# -eq 5 ] || { sed -n 4p "$0"; exit 2; }
mkdir -p "$5"
here=$(cd "$(dirname "$0")" && pwd)   # this checkout's build_child.py runs either side's code (BENCH_CODE)
for i in $(seq 1 "$4"); do
  for side in A B; do
    if [ $side = A ]; then code=$1; else code=$2; fi
    out="$5/$side-$i"
    json=$(BENCH_CODE="$code" /usr/bin/time -f "%e %U %S" -o "$out.time" "$code/.venv/bin/python" "$here/build_child.py" "$3" --clean --out "$out/site")
    read -r wall user sys < "$out.time"
    echo "$side $wall user $user sys $sys stages $(echo "$json" | "$1/.venv/bin/python" -c 'import json, sys; print({k: round(v, 2) for k, v in json.load(sys.stdin)["timings"].items()})' 2>/dev/null || echo "$json")"
  done
done | awk '{print; runs[$1] = runs[$1] " " $2} END {for (side in runs) print side, "all:" runs[side]}'
