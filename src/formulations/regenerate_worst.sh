#!/usr/bin/env bash
# Regenerates the worst-case corpus, one file per built-in formulation (NAME/worst.cases
# beside it, NAME the formulation's name with '_' for '-'), with the
# search settings recorded in each file's first line. Run it after a deliberate
# change to a formulation (the `worst` tests then replay the new figures):
#   bash src/formulations/regenerate_worst.sh build/toibench
set -euo pipefail
tb=${1:-build/toibench}
dir=$(cd "$(dirname "$0")" && pwd)
budget=${TOI_HUNT_BUDGET:-200000}
for f in $("$tb" list | awk '/^[a-z][a-z0-9-]* \((forward|reverse)\)$/ {print $1}'); do
  out="$dir/${f//-/_}/worst.cases"
  "$tb" hunt -f "$f" mixed --seed 1 --budget "$budget" --keep 8 -j 2 --quiet -o "$out"
  echo "$f: $(grep -c '^worst-' "$out") cases"
done
