#!/bin/bash
# Alternating one-paper edit builds of two checkouts of papersite, each on its own copy of a project:
#
#   bench/edit_pairs.sh CODE_A PROJECT_A CODE_B PROJECT_B N
#
# CODE_*: a checkout with .venv (a worktree at the commit to measure; do not edit it meanwhile, or
# its builds turn cold). PROJECT_*: a project already built by that checkout (bench/build.py --keep
# makes one; copy it for the other side and build it once). Each round appends a sentence to the
# same paper of each project and times `bench/build_child.py` (the build's process, wall seconds),
# A then B; prints each run, then each side's runs. Compare medians and pair ratios, as
# bench/README.md does: this machine is shared and noisy.
set -euo pipefail
[ $# -eq 5 ] || { sed -n 4p "$0"; exit 2; }
for i in $(seq 1 "$5"); do
  for side in A B; do
    if [ $side = A ]; then code=$1; root=$2; else code=$3; root=$4; fi
    paper="$root/content/papers/$(ls "$root/content/papers" | sed -n '1700p;$p' | head -1)"   # the 1,700th, or the last
    echo " Edit $RANDOM$RANDOM sentence." >> "$paper"
    start=$(date +%s.%N)
    (cd "$code" && .venv/bin/python bench/build_child.py "$root" > /dev/null)
    end=$(date +%s.%N)
    echo "$side $(echo "$end - $start" | bc)"
    sleep 2
  done
done | awk '{print; runs[$1] = runs[$1] " " $2} END {for (side in runs) print side, "all:" runs[side]}'
