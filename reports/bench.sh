#!/usr/bin/env bash
# bench.sh: toibench throughput and memory on this machine, each figure beside a baseline measured in the same run.
# Usage: bash reports/bench.sh [build/toibench]   (run by `make bench`)
# Environment: TOI_BENCH_COUNT (the big sweep, default 10^7), TOI_BENCH_JOBS (default: online cores).
set -euo pipefail

TB=${1:-build/toibench}
N=${TOI_BENCH_COUNT:-10000000}
J=${TOI_BENCH_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
SMALL=100000
TARGET_S=60
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$TB" ] || { echo "bench.sh: $TB is not an executable (run make first)" >&2; exit 1; }
# A private copy: a rebuild during the run must not change the program under test.
BUILD_DIR=$(dirname "$TB")
cp "$TB" "$tmp/toibench"
TB=$tmp/toibench

# Field after "X cases in T s ...: R cases/s": prints R.
rate_of() { sed -n 's/.*: \([0-9.e+]*\) cases\/s.*/\1/p' | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3g", a / b; else print "nan" }'; }

# Runs a command under /usr/bin/time -v when it exists; prints "SECONDS PEAK_KB".
# Without it, the sweep's own --stats line (VmHWM from /proc/self/status) gives the peak.
measure() {
  local log=$tmp/measure.log
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$@" 2>"$log" >/dev/null
    local kb secs
    kb=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "$log")
    secs=$(sed -n 's/.*sweep stats: [0-9]* cases in \([0-9.]*\) s.*/\1/p' "$log")
    echo "$secs $kb"
  else
    "$@" 2>"$log" >/dev/null
    sed -n 's/.*sweep stats: [0-9]* cases in \([0-9.]*\) s.*peak RSS \([0-9]*\) kB.*/\1 \2/p' "$log"
  fi
}

echo "toibench bench: $("$TB" --version), $(uname -m), $J thread(s) for sweeps, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo

echo "== single-thread speed on mixed cases (generated beforehand; only the named work is timed)"
ref_rate=$("$TB" sweep mixed --time-only reference --count 2000000 -j1 | rate_of)
gen_rate=$("$TB" sweep mixed --time-only gen --count 2000000 -j1 | rate_of)
printf "  %-18s %12.4g cases/s   (baseline)\n" reference "$ref_rate"
printf "  %-18s %12.4g cases/s   %8s x the reference\n" "gen (mixed)" "$gen_rate" "$(ratio "$gen_rate" "$ref_rate")"
cheapest=""
cheap_rate=0
for f in $("$TB" list | awk '/^[a-z][a-z0-9-]* \((forward|reverse)\)$/ {print $1}'); do
  r=$("$TB" sweep mixed --time-only "$f" --count 20000000 -j1 | rate_of)
  echo "$f $r" >>"$tmp/rates"
  printf "  %-18s %12.4g cases/s   %8s x the reference\n" "$f" "$r" "$(ratio "$r" "$ref_rate")"
  if awk -v a="$r" -v b="$cheap_rate" 'BEGIN { exit !(a > b) }'; then cheapest=$f; cheap_rate=$r; fi
done
echo "  reference cost / cheapest formulation ($cheapest): $(ratio "$cheap_rate" "$ref_rate")"
eric_rate=$(awk -v n=ericson '$1 == n {print $2}' "$tmp/rates")
echo "  reference cost / ericson: $(ratio "$eric_rate" "$ref_rate")"
echo "  cost per call against ericson (targets: robust <= 1.5, accurate <= 2):"
for f in robust accurate; do
  r=$(awk -v n="$f" '$1 == n {print $2}' "$tmp/rates")
  [ -n "$r" ] && printf "    %-10s %6s x ericson\n" "$f" "$(ratio "$eric_rate" "$r")"
done
# accurate against ericson per family, paired: each of PAIR_RUNS rounds times ericson then accurate on
# the same cases, and the median of the rounds' ratios is shown (a pause of this process on a shared
# machine falls on one round, not on every one).
PAIR_N=${TOI_BENCH_PAIR_COUNT:-4000000}
PAIR_RUNS=${TOI_BENCH_PAIR_RUNS:-5}
echo "  accurate / ericson per call, per family (median of $PAIR_RUNS paired runs of $PAIR_N cases; target <= 2):"
for fam in generic aimed grazing near-contact far scale slow tangent mixed; do
  for k in $(seq "$PAIR_RUNS"); do
    e=$("$TB" sweep "$fam" --time-only ericson --count "$PAIR_N" -j1 | rate_of)
    a=$("$TB" sweep "$fam" --time-only accurate --count "$PAIR_N" -j1 | rate_of)
    ratio "$e" "$a"
    echo
  done | sort -g | awk -v fam="$fam" '{ x[NR] = $1 } END { m = x[int((NR + 1) / 2)];
    printf "    %-13s %6s x ericson   (runs: %s .. %s)%s\n", fam, m, x[1], x[NR], m + 0 <= 2 ? "" : "   NOT met" }'
done
echo

echo "== full sweep: mixed, every formulation scored against the reference, $J thread(s)"
full_rate=$("$TB" sweep mixed --count 1000000 -j"$J" --quiet --stats -o "$tmp/r1e6" 2>&1 | rate_of)
printf "  %-18s %12.4g cases/s   %8s x the reference alone on one thread\n" "sweep 10^6" "$full_rate" \
  "$(ratio "$full_rate" "$ref_rate")"
echo

echo "== memory: peak resident set of a sweep of $N cases against one of $SMALL"
read -r s_small kb_small < <(measure "$TB" sweep mixed --count $SMALL -j"$J" --quiet --stats -o "$tmp/small")
read -r s_big kb_big < <(measure "$TB" sweep mixed --count "$N" -j"$J" --quiet --stats -o "$tmp/whole")
printf "  %-18s %10s kB\n" "$SMALL cases" "$kb_small"
printf "  %-18s %10s kB   %8s x (flat when close to 1)\n" "$N cases" "$kb_big" "$(ratio "$kb_big" "$kb_small")"
echo

echo "== target: a mixed sweep of 10^8 cases, all formulations and the reference, in under ${TARGET_S} s on $J thread(s)"
big_rate=$(awk -v n="$N" -v s="$s_big" 'BEGIN { printf "%.4g", n / s }')
s_1e8=$(awk -v n="$N" -v s="$s_big" 'BEGIN { printf "%.4g", s * 1e8 / n }')
verdict=$(awk -v s="$s_1e8" -v t="$TARGET_S" 'BEGIN { print (s < t) ? "met" : "NOT met" }')
printf "  %s cases in %s s (%s cases/s); 10^8 cases: %s s (extrapolated unless TOI_BENCH_COUNT=100000000), %s x the target, target %s\n" \
  "$N" "$s_big" "$big_rate" "$s_1e8" "$(ratio "$s_1e8" "$TARGET_S")" "$verdict"
echo

echo "== the same sweep sharded in two and merged"
t0=$(date +%s.%N)
"$TB" sweep mixed --count "$N" -j"$J" --quiet --shard 1/2 -o "$tmp/s1"
"$TB" sweep mixed --count "$N" -j"$J" --quiet --shard 2/2 -o "$tmp/s2"
"$TB" merge -o "$tmp/merged" "$tmp/s2" "$tmp/s1"
t1=$(date +%s.%N)
printf "  shards + merge: %.1f s (%s x the whole sweep)\n" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
  "$(ratio "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$s_big")"
if cmp -s "$tmp/whole" "$tmp/merged"; then
  echo "  cmp: merged result identical to the whole sweep's ($(wc -c <"$tmp/whole") bytes)"
else
  echo "  cmp: MERGED RESULT DIFFERS from the whole sweep's"
  exit 1
fi

echo
echo "== event-driven simulation: 1000 balls (2D, seed 1, spacing 4), every kernel from the same state"
SIM_EVENTS=${TOI_BENCH_SIM_EVENTS:-1000000}
SIM_REF_EVENTS=${TOI_BENCH_SIM_REF_EVENTS:-100000}
# The summary's figures are read by their column's name (reports/sim_field.awk): events/s is no
# longer column 14 (queries is), since queries, failed and max_pen came before it.
"$TB" simulate --n 1000 --events "$SIM_EVENTS" --every 100000 >"$tmp/sim_f" || true
"$TB" simulate --n 1000 --events "$SIM_REF_EVENTS" --every 10000 -f reference >"$tmp/sim_r" || true
sim_field() { awk -v kernel="$1" -v field="$2" -f "$(dirname "$0")/sim_field.awk" "$3"; }
base_rate=$(sim_field expanded events/s "$tmp/sim_f")
printf "  %-16s %9s %12s %12s %11s %8s %7s\n" kernel events "events/s" "x expanded" "drift/1e6" overlaps missed
for f in "$tmp/sim_f" "$tmp/sim_r"; do
  awk '!/^#/ && $1 != "kernel" { print $1 }' "$f" | while read -r k; do
    echo "$k $(sim_field "$k" events "$f") $(sim_field "$k" events/s "$f") $(sim_field "$k" drift/1e6 "$f")" \
      "$(sim_field "$k" overlaps "$f") $(sim_field "$k" missed "$f") $(sim_field "$k" status "$f")"
  done
done |
  while read -r k ev rate drift ov miss status; do
    printf "  %-16s %9s %12.4g %12s %11.3g %8s %7s%s\n" "$k" "$ev" "$rate" "$(ratio "$rate" "$base_rate")" "$drift" \
      "$ov" "$miss" "$([ "$status" = ok ] || echo "  ($status)")"
  done
echo "  (drift/1e6 = final (KE - KE0)/KE0 scaled to 10^6 events; the reference runs $SIM_REF_EVENTS events)"

# ==== simulation speed: the goal of 10^6 events/s and a big ball at most 1.2x ====
# events/s of the summary (read by its column's name) for N = 1000 (2D, seed 1, the default radii 0.5..1), ericson, and
# the same 1000 small balls with one ball of radius 60 added (the second state is the first with its big
# ball); the median of three runs taken in turn. Environment: TOI_BENCH_SIMPERF_EVENTS (default 10^6).
SP_EVENTS=${TOI_BENCH_SIMPERF_EVENTS:-1000000}
sp_rate() {
  "$TB" simulate -f ericson --events "$SP_EVENTS" --every 100000 "$@" >"$tmp/sp_out"
  sim_field ericson events/s "$tmp/sp_out"
}
"$TB" simulate -f ericson --n 1001 --radius-dist bimodal:0.5e-9:60 --events 0 \
  --write-state "$tmp/sp_big.state" >/dev/null
awk '/^ball / && !done { done = 1; next } { print }' "$tmp/sp_big.state" >"$tmp/sp_small.state"
sp_plain=() sp_big=() sp_small=()
for k in 1 2 3; do
  sp_plain+=("$(sp_rate --n 1000 --seed 1)")
  sp_small+=("$(sp_rate --state "$tmp/sp_small.state")")
  sp_big+=("$(sp_rate --state "$tmp/sp_big.state")")
done
sp_med() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
sp_p=$(sp_med "${sp_plain[@]}") sp_s=$(sp_med "${sp_small[@]}") sp_b=$(sp_med "${sp_big[@]}")
echo
echo "== simulation speed: ericson, $SP_EVENTS events, N = 1000 2D (goal >= 1e6 events/s; one big ball <= 1.2x slower)"
printf "  %-44s %12s\n" state "events/s"
printf "  %-44s %12.4g\n" "--n 1000 --seed 1 (radii 0.5..1)" "$sp_p"
printf "  %-44s %12.4g\n" "1000 small balls (box of the next line)" "$sp_s"
printf "  %-44s %12.4g\n" "the same with one ball of radius 60" "$sp_b"
echo "  slowdown with the big ball (small / big events/s): $(ratio "$sp_s" "$sp_b")"
# ==== end of simulation speed ====

# ---- the user's paths: case files read, solved, scored and written end to end ----
# Environment: TOI_BENCH_FILE_COUNT (cases in the file, default 10^6).
FN=${TOI_BENCH_FILE_COUNT:-1000000}
echo
echo "== case files end to end: a mixed file of $FN cases, each command against wc -l on the same file, $J thread(s)"
"$TB" gen mixed --count "$FN" -o "$tmp/cases.txt"
# "SECONDS PEAK_KB" of a command, its output thrown away: the best time of three runs (to the
# nanosecond clock; /usr/bin/time's own is in hundredths) and the peak resident memory of the last.
wall() {
  local best="" t0 t1 k
  for k in 1 2 3; do
    t0=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$tmp/wall.log" "$@" >/dev/null
    t1=$(date +%s.%N)
    best=$(awk -v a="$t0" -v b="$t1" -v m="$best" 'BEGIN { d = b - a; printf "%.4g", (m == "" || d < m) ? d : m }')
  done
  echo "$best $(cat "$tmp/wall.log")"
}
cat "$tmp/cases.txt" >/dev/null # in the page cache, as for every command after it
read -r s_wc kb_wc < <(wall wc -l "$tmp/cases.txt")
read -r s_ref kb_ref < <(wall "$TB" reference -j"$J" "$tmp/cases.txt")
read -r s_eric kb_eric < <(wall "$TB" run -j"$J" -f ericson "$tmp/cases.txt")
read -r s_all kb_all < <(wall "$TB" run -j"$J" "$tmp/cases.txt")
mem_rate=$("$TB" sweep mixed --time-only reference --count "$FN" -j"$J" | rate_of)
s_mem=$(awk -v n="$FN" -v r="$mem_rate" 'BEGIN { printf "%.3g", (r > 0 ? n / r : 0) }')
printf "  %-26s %8s %10s %10s %12s  %s\n" command seconds "x wc -l" "x batch" "peak kB" goal
row() { # NAME SECONDS KB GOAL
  printf "  %-26s %8s %10s %10s %12s  %s\n" "$1" "$2" "$(ratio "$2" "$s_wc")" "$(ratio "$2" "$s_mem")" "$3" "$4"
}
row "wc -l FILE" "$s_wc" "$kb_wc" "(the cost of reading it)"
row "batch reference (memory)" "$s_mem" "-" "(sweep --time-only reference)"
row "reference FILE" "$s_ref" "$kb_ref" "<= 5 x wc -l, <= 65536 kB"
row "run -f ericson FILE" "$s_eric" "$kb_eric" "<= 7 x wc -l, <= 65536 kB"
row "run FILE (every one)" "$s_all" "$kb_all" "<= 65536 kB"
rm -f "$tmp/cases.txt"

# ---- the reference's engines (fast vs mpfr): bit-identity, speed ratio, fallbacks per family ----
# Environment: TOI_BENCH_FASTREF_COUNT (mixed cases checked, default 10^7),
# TOI_BENCH_FASTREF_FAMILY (cases per family, default 10^6).
FR=$BUILD_DIR/bench_fastref
FR_N=${TOI_BENCH_FASTREF_COUNT:-10000000}
FR_P=${TOI_BENCH_FASTREF_FAMILY:-1000000}
echo
echo "== reference engines: fast (default) against mpfr on $FR_N mixed cases, one thread, same run"
if [ -x "$FR" ]; then
  "$FR" --count "$FR_N" --per-family "$FR_P" || { echo "  THE ENGINES DISAGREE (cases above)"; exit 1; }
  echo
  echo "== reference engines in binary32 (roots rounded once from the exact root): the same cases"
  "$FR" --count "$FR_N" --per-family "$FR_P" --precision binary32 ||
    { echo "  THE ENGINES DISAGREE IN BINARY32 (cases above)"; exit 1; }
else
  echo "  $FR is missing (make bench builds it)"
fi

# ---- the external solver path: plug-in, binary and text commands, node engines ----
# Environment: TOI_BENCH_SOLVERPATH_COUNT (cases, default 200000), TOI_BENCH_SOLVERPATH_RUNS (default 5).
SP=$BUILD_DIR/bench_solverpath
echo
echo "== external solvers: the example kernel built in, as a plug-in and as a command (binary, text); node engines"
if [ -x "$SP" ]; then
  "$SP" "$BUILD_DIR" --count "${TOI_BENCH_SOLVERPATH_COUNT:-200000}" --runs "${TOI_BENCH_SOLVERPATH_RUNS:-5}" ||
    echo "  bench_solverpath failed"
else
  echo "  $SP is missing (make bench builds it)"
fi

# ---- the kernels' claims, checked per family (robust and accurate) ----
# Environment: TOI_BENCH_KERNEL_COUNT (cases per family, default 10^7).
KN=${TOI_BENCH_KERNEL_COUNT:-10000000}
echo
echo "== robust and accurate: $KN cases per family against the reference ($J thread(s))"
printf "  %-13s %-9s %9s %8s %10s %12s %12s %10s\n" family kernel misclass "max ULP" "<0.5 ULP" "<4 ULP" "max ratio" seconds
for fam in generic aimed grazing near-contact far scale slow tangent mixed; do
  t0=$(date +%s.%N)
  "$TB" sweep "$fam" --count "$KN" -f robust,accurate -j"$J" --quiet -o "$tmp/k_$fam"
  secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  # stat: 8 missed 9 ghost 10 other 11 timed 12 max_ulp 17 max_ratio; hist: 4 H 7 count
  awk -v fam="$fam" -v secs="$secs" '
    $1 == "stat" { f = $2; mis[f] += $8 + $9 + $10; timed[f] += $11;
                   if ($12 != "nan" && $12 + 0 > mu[f]) mu[f] = $12 + 0;
                   if ($17 != "nan" && $17 + 0 > mr[f]) mr[f] = $17 + 0; seen[f] = 1 }
    $1 == "hist" { f = $2; if ($4 <= 1) cr[f] += $7; if ($4 <= 4) w4[f] += $7 }
    END { for (f in seen) printf "  %-13s %-9s %9d %8.4g %9.5f%% %11.5f%% %12.4g %10s\n", fam, f, mis[f], mu[f],
                                 timed[f] ? 100 * cr[f] / timed[f] : 0, timed[f] ? 100 * w4[f] / timed[f] : 0, mr[f], secs }' \
    "$tmp/k_$fam" | sort -k2
done
echo "  (misclass: missed + ghost + other; <0.5 ULP: correctly rounded, but for exact ties (0.5 ULP, in the next"
echo "   bin); <4 ULP counts histogram bins up to [2, 4);"
echo "   max ratio: |T - t*| / (kappa 2^-53 |t*| + 2^-1075); sampled maxima are lower bounds)"

# ==== mixed radii: one big ball among small ones ====
# The same small balls with and without one ball of radius 60 (the second state is the first without its
# big ball): the state read (--events 0: read, overlap check, grid, first predictions) and a run of
# MIX_EVENTS events, whole process, the median of three runs taken in turn; the ratio one big / none is
# what a grid that degrades with mixed radii shows. Environment: TOI_BENCH_MIX_SIZES (small-ball counts,
# default "20000 80000"), TOI_BENCH_MIX_EVENTS (default 200000).
MIX_SIZES=${TOI_BENCH_MIX_SIZES:-20000 80000}
MIX_EVENTS=${TOI_BENCH_MIX_EVENTS:-200000}
# Median wall seconds of three runs of each of two commands, alternated; prints "A B".
mix_time2() {
  local a=() b=() t0 k
  for k in 1 2 3; do
    t0=$(date +%s.%N); "$TB" simulate -f robust --state "$1" --events "$3" >/dev/null
    a+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')")
    t0=$(date +%s.%N); "$TB" simulate -f robust --state "$2" --events "$3" >/dev/null
    b+=("$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')")
  done
  echo "$(printf '%s\n' "${a[@]}" | sort -g | sed -n 2p) $(printf '%s\n' "${b[@]}" | sort -g | sed -n 2p)"
}
echo
echo "== mixed radii: small balls (radii 0.5..1, spacing 2.5, 2D) with and without one ball of radius 60"
printf "  %-8s %-22s %12s %12s %10s\n" small what "one big s" "none s" "big/none"
for n in $MIX_SIZES; do
  "$TB" simulate -f robust --n $((n + 1)) --spacing 2.5 --radius-dist bimodal:0.5e-9:60 --events 0 \
    --write-state "$tmp/mix_big.state" >/dev/null
  awk '/^ball / && !done { done = 1; next } { print }' "$tmp/mix_big.state" >"$tmp/mix_none.state"
  read -r rb rn < <(mix_time2 "$tmp/mix_big.state" "$tmp/mix_none.state" 0)
  printf "  %-8s %-22s %12.3g %12.3g %10s\n" "$n" "state read" "$rb" "$rn" "$(ratio "$rb" "$rn")"
  read -r sb sn < <(mix_time2 "$tmp/mix_big.state" "$tmp/mix_none.state" "$MIX_EVENTS")
  printf "  %-8s %-22s %12.3g %12.3g %10s\n" "$n" "read + $MIX_EVENTS events" "$sb" "$sn" "$(ratio "$sb" "$sn")"
done
echo "  (whole process, wall clock; before the hierarchical grid one big ball made both quadratic in N)"
# ==== end of mixed radii ====

# ==== sweep profile: a mixed sweep over every formulation and where its time goes ====
# Environment: TOI_BENCH_SWEEP_COUNT (cases, default 10^7; the time of 10^8 cases, the goal's size, is
# extrapolated from it in proportion).
bench_sweep_profile() {
  local n=${TOI_BENCH_SWEEP_COUNT:-10000000} goal=60 log=$tmp/sweep_profile.log secs est
  echo
  echo "== sweep profile: mixed, every formulation, $n cases on $J thread(s); goal 10^8 cases in under $goal s"
  "$TB" sweep mixed --count "$n" -j"$J" --quiet --stats --profile -o "$tmp/sweep_profile" 2>"$log"
  secs=$(sed -n 's/.*sweep stats: [0-9]* cases in \([0-9.]*\) s.*/\1/p' "$log")
  est=$(awk -v s="$secs" -v n="$n" 'BEGIN { printf "%.1f", s * 1e8 / n }')
  printf "  %s cases in %s s; 10^8 cases: %s s extrapolated, goal %s s: %s\n" "$n" "$secs" "$est" "$goal" \
    "$(awk -v e="$est" -v g="$goal" 'BEGIN { print (e < g) ? "met" : "NOT met" }')"
  sed -n 's/^sweep profile: \([0-9]* cases on .*\)/  (\1)/p' "$log"
  printf "  %-10s %-18s %10s %7s %14s\n" part name seconds share "cases/s"
  awk '/^sweep profile: [a-z]/ { printf "  %-10s %-18s %10s %7s %14s\n", $3, $4, $5, $7, $8 }' "$log"
  awk '/^sweep profile: scoring / { s = $7; sub(/%/, "", s)
    printf "  scoring: %s%% of the parts, goal <= 25%%: %s\n", s, (s + 0 <= 25) ? "met" : "NOT met" }' "$log"
}
bench_sweep_profile
# ==== end of sweep profile ====
