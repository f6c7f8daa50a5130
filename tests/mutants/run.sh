#!/bin/sh
# run.sh: the mutation test: each mutant of mutants.list applied alone to a copy of the tree, built, and the suite run against it.
#
# Usage: sh tests/mutants/run.sh [LIST]     (make mutate; LIST defaults to tests/mutants/mutants.list)
#
# The copy is build/mutate/tree/ (the files git knows, tracked or new, synced by content so that unchanged
# files keep their times) with its own build/ kept from run to run: a mutant rebuilds only the objects of its
# file and the links. For each mutant the file's text FIND must occur exactly once (else the entry is stale:
# an error); it is replaced by REPLACE, build/toitest is built (a mutant that does not compile is an error
# too), and the suite runs with --fail-fast: first the entry's FILTER when it names one (a quick kill), then,
# if that passes, the whole suite. A failing, crashing or timed-out suite kills the mutant. The file is then
# restored (with a new time, so the next build compiles it again).
#
# Environment: MUTATE_MIN (95) the kill rate in percent below which the run fails; MUTATE_ONLY a
# comma-separated list of mutant IDs to run alone; MUTATE_JOBS (1) make's -j; MUTATE_TEST_JOBS (1)
# Criterion's -j; MUTATE_TIMEOUT (900) seconds per suite run; MUTATE_BASELINE (1) first runs the whole
# suite on the unmutated copy, which must pass; MUTATE_CHECK=1 only checks that every entry applies, without
# building; MUTATE_QUICK=1 runs the filters alone (a mutant its filter misses counts as surviving: a lower
# bound, for writing the list); MAKE (make).
#
# Prints one line per mutant and "killed K of N non-equivalent (P%)"; exits 0 when P >= MUTATE_MIN and no
# entry was stale or failed to build, 1 otherwise, 2 on a usage error or a failing baseline.
# Nothing from the list is ever evaluated by the shell: the texts reach awk through the environment.

set -u
unset MAKEFLAGS MFLAGS MAKELEVEL GNUMAKEFLAGS

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
list=${1:-$here/mutants.list}
min=${MUTATE_MIN:-95}
only=${MUTATE_ONLY:-}
jobs=${MUTATE_JOBS:-1}
tjobs=${MUTATE_TEST_JOBS:-1}
limit=${MUTATE_TIMEOUT:-900}
baseline=${MUTATE_BASELINE:-1}
check=${MUTATE_CHECK:-0}
quick=${MUTATE_QUICK:-0}
make=${MAKE:-make}
work=$root/build/mutate
tree=$work/tree
logs=$work/logs

case $min in '' | *[!0-9]*) echo "mutate: MUTATE_MIN must be a whole number of percent, not '$min'" >&2; exit 2 ;; esac
[ -f "$list" ] || { echo "mutate: no list $list" >&2; exit 2; }
command -v git >/dev/null 2>&1 || { echo "mutate: git is needed to list the tree's files" >&2; exit 2; }
mkdir -p "$tree" "$logs" || exit 2
# Read from a copy: the list may be edited while a run goes on.
cp "$list" "$work/mutants.list" || exit 2

now() { date +%s; }
start=$(now)

# ---- the copy: every file git knows (tracked, or new and not ignored) whose content differs ----
echo "mutate: syncing $tree"
files=$work/files
(cd "$root" && git ls-files -c -o --exclude-standard) | sort -u > "$files" || exit 2
while IFS= read -r f; do
  [ -f "$root/$f" ] || continue
  if ! cmp -s "$root/$f" "$tree/$f" 2>/dev/null; then
    mkdir -p "$(dirname "$tree/$f")" && cp "$root/$f" "$tree/$f" || exit 2
  fi
done < "$files"
# Sources removed from the tree since the last run would still be built by the Makefile's wildcards.
(cd "$tree" && find src reference tests include engines examples bench -type f 2>/dev/null) | sort > "$work/have"
comm -13 "$files" "$work/have" | while IFS= read -r f; do rm -f "$tree/$f"; done

# build [LOG]: build/toitest in the copy; 0 on success.
build() {
  (cd "$tree" && "$make" -j"$jobs" build/toitest) > "$1" 2>&1
}

# suite LOG [FILTER]: the Criterion suite in the copy, stopping at the first failure; 0 when it passes.
suite() {
  log=$1
  shift
  if [ $# -gt 0 ]; then
    (cd "$tree" && timeout "$limit" build/toitest --fail-fast -j"$tjobs" --short-filename --filter "$1") >> "$log" 2>&1
  else
    (cd "$tree" && timeout "$limit" build/toitest --fail-fast -j"$tjobs" --short-filename) >> "$log" 2>&1
  fi
}

if [ "$baseline" = 1 ] && [ -z "$only" ] && [ "$check" != 1 ] && [ "$quick" != 1 ]; then
  echo "mutate: building and running the unmutated suite (MUTATE_BASELINE=0 skips this)"
  if ! build "$logs/baseline.log"; then
    echo "mutate: the unmutated copy does not build; see $logs/baseline.log" >&2
    exit 2
  fi
  t0=$(now)
  if ! suite "$logs/baseline.log"; then
    echo "mutate: the unmutated suite fails; see $logs/baseline.log" >&2
    exit 2
  fi
  echo "mutate: baseline passes ($(($(now) - t0)) s)"
fi

# apply FILE: FIND -> REPLACE in the copy of FILE (both from the environment); prints the occurrences of
# FIND, and writes the mutated text only when there is exactly one.
apply() {
  awk -v out="$tree/$1.mutant" '
    BEGIN { find = ENVIRON["MUT_FIND"]; repl = ENVIRON["MUT_REPLACE"]; n = 0 }
    { lines[NR] = $0
      rest = $0
      while ((i = index(rest, find)) > 0) { n++; rest = substr(rest, i + length(find)) } }
    END {
      if (n == 1 && find != "") {
        for (k = 1; k <= NR; k++) {
          s = lines[k]; i = index(s, find)
          if (i > 0) s = substr(s, 1, i - 1) repl substr(s, i + length(find))
          print s > out
        }
        close(out)
      }
      print n
    }' "$tree/$1"
}

killed=0 survived=0 errors=0 equivalent=0
survivors=""

# run_one: the mutant in the variables id, file, find, replace, filter, why, equiv.
run_one() {
  [ -n "$id" ] || return 0
  if [ -n "$only" ]; then
    case ",$only," in *",$id,"*) ;; *) return 0 ;; esac
  fi
  if [ -z "$file" ] || [ ! -f "$tree/$file" ]; then
    echo "STALE     $id: no file '$file'"
    errors=$((errors + 1)); return 0
  fi
  if [ "$find" = "$replace" ]; then
    echo "STALE     $id: the replacement is the text itself"
    errors=$((errors + 1)); return 0
  fi
  n=$(MUT_FIND=$find MUT_REPLACE=$replace apply "$file")
  if [ "$n" != 1 ]; then
    echo "STALE     $id: '$find' occurs $n times in $file"
    rm -f "$tree/$file.mutant"
    errors=$((errors + 1)); return 0
  fi
  if [ "$check" = 1 ]; then
    rm -f "$tree/$file.mutant"
    echo "applies   $id"
    return 0
  fi
  if [ -n "$equiv" ]; then
    rm -f "$tree/$file.mutant"
    echo "EQUIVALENT $id: $equiv"
    equivalent=$((equivalent + 1)); return 0
  fi
  log=$logs/$id.log
  : > "$log"
  cp "$tree/$file" "$work/original" && mv "$tree/$file.mutant" "$tree/$file" || exit 2
  t0=$(now)
  if ! build "$log"; then
    verdict="ERROR     $id: does not build ($log)"
    errors=$((errors + 1))
  elif [ -n "$filter" ] && ! suite "$log" "$filter"; then
    verdict="killed    $id by $filter"
    killed=$((killed + 1))
  elif [ "$quick" = 1 ]; then
    verdict="SURVIVED  $id: not killed by its filter${filter:+ $filter}"
    survived=$((survived + 1))
    survivors="$survivors $id"
  elif ! suite "$log"; then
    verdict="killed    $id by the suite"
    killed=$((killed + 1))
  else
    verdict="SURVIVED  $id: $file: $why"
    survived=$((survived + 1))
    survivors="$survivors $id"
  fi
  # Restored with a new time: the next build compiles the original again.
  cp "$work/original" "$tree/$file" && touch "$tree/$file" || exit 2
  echo "$verdict ($(($(now) - t0)) s)"
}

# ---- the list: blocks of "key: value" lines separated by blank lines; '#' lines are comments ----
id="" file="" find="" replace="" filter="" why="" equiv=""
while IFS= read -r line || [ -n "$line" ]; do
  case $line in
    '#'*) continue ;;
    '') run_one; id="" file="" find="" replace="" filter="" why="" equiv="" ;;
    'id: '*) id=${line#id: } ;;
    'file: '*) file=${line#file: } ;;
    'find: '*) find=${line#find: } ;;
    'replace: '*) replace=${line#replace: } ;;
    'filter: '*) filter=${line#filter: } ;;
    'why: '*) why=${line#why: } ;;
    'equivalent: '*) equiv=${line#equivalent: } ;;
    *) echo "mutate: $list: cannot read the line '$line'" >&2; exit 2 ;;
  esac
done < "$work/mutants.list"
run_one

if [ "$check" = 1 ]; then
  echo "mutate: $errors stale entries"
  [ "$errors" -eq 0 ] || exit 1
  exit 0
fi
nonequiv=$((killed + survived + errors))
if [ "$nonequiv" -gt 0 ]; then
  tenths=$((killed * 1000 / nonequiv))
  pct="$((tenths / 10)).$((tenths % 10))"
else
  pct="100.0"
fi
echo "mutate: $equivalent equivalent, $errors stale or not building, $survived survived:${survivors:- none}"
echo "killed $killed of $nonequiv non-equivalent ($pct%) in $(($(now) - start)) s"
[ "$errors" -eq 0 ] && [ $((killed * 100)) -ge $((min * nonequiv)) ] || exit 1
exit 0
