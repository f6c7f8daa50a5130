#!/usr/bin/env bash
# Regenerates the worst-case corpus, one file per built-in formulation, with the
# search settings recorded in each file's first line. Run it after a deliberate
# change to a formulation (the `worst` tests then replay the new figures):
#   bash cases/worst/regenerate.sh build/toibench
set -euo pipefail
tb=${1:-build/toibench}
dir=$(cd "$(dirname "$0")" && pwd)
budget=${TOI_HUNT_BUDGET:-200000}
for f in $("$tb" list | awk '/^[a-z][a-z0-9-]* \((forward|reverse)\)$/ {print $1}'); do
  "$tb" hunt -f "$f" mixed --seed 1 --budget "$budget" --keep 8 -j 2 --quiet -o "$dir/$f.cases"
  echo "$f: $(grep -c '^worst-' "$dir/$f.cases") cases"
done
