#!/bin/bash
# tests/tsan.sh TSAN_TOIBENCH TOIBENCH WORKDIR: the threaded commands (case streams
# at -j 1 to 5, the sweep, audit, simulate) run by the ThreadSanitizer build, each
# output compared byte for byte with the plain build's; any report of a race fails.
set -u
T=$1 P=$2 W=$3
mkdir -p "$W" || exit 1
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
fail=0 n=0
check() { # NAME ARGS...: run ARGS under both builds, compare stdout, stderr and status
  local name=$1
  shift
  "$P" "$@" >"$W/$name.plain" 2>"$W/$name.plain.err"
  local rp=$?
  "$T" "$@" >"$W/$name.tsan" 2>"$W/$name.tsan.err"
  local rt=$?
  if [ -n "${MASK_LAST:-}" ]; then # simulate's events/s column is wall clock: each line without its last field
    for f in "$W/$name.plain" "$W/$name.tsan"; do awk '{ $NF = ""; print }' "$f" >"$f.masked" && mv "$f.masked" "$f"; done
  fi
  n=$((n + 1))
  if [ "$rt" = 66 ] || grep -q "ThreadSanitizer" "$W/$name.tsan.err"; then
    echo "tsan: $name: a race reported:"
    head -40 "$W/$name.tsan.err"
    fail=1
  elif [ "$rp" != "$rt" ] || ! cmp -s "$W/$name.plain" "$W/$name.tsan" || ! cmp -s "$W/$name.plain.err" "$W/$name.tsan.err"; then
    echo "tsan: $name: the outputs differ (status $rp and $rt)"
    fail=1
  fi
}
"$P" gen mixed --count 30000 --seed 11 -o "$W/m.cases" || exit 1
"$P" gen tangent --count 5000 --seed 12 --precision binary32 -o "$W/t32.cases" || exit 1
# a late duplicate ID and a late bad line: the failure paths of the stream
{ cat "$W/m.cases"; sed -n 2p "$W/m.cases"; } >"$W/dup.cases"
{ cat "$W/m.cases"; echo "late-bad 2 0 0 1 0 0 0 0 0 0 x 1 1"; } >"$W/bad.cases"
for j in 1 2 3 5; do
  check ref-j$j reference -j$j "$W/m.cases"
  check run-j$j run -j$j -f ericson,accurate "$W/m.cases"
  check solve-j$j solve -j$j -f ericson "$W/m.cases"
  check dup-j$j reference -j$j "$W/dup.cases"
  check bad-j$j run -j$j "$W/bad.cases"
  check two-j$j reference -j$j "$W/m.cases" "$W/t32.cases"
done
check run32 run -j3 --precision binary32 "$W/t32.cases"
check audit audit -j2 "$W/m.cases"
check sweep sweep mixed --count 20000 -j2 --quiet -o -
check hunt hunt -f ericson --budget 2000 -j2 --quiet --seed 3
MASK_LAST=1 check sim simulate -f ericson --n 200 --events 20000 --every 10000
echo "tsan: $n commands, $([ $fail = 0 ] && echo 'no race, the same outputs' || echo FAILED)"
exit $fail
