#!/bin/sh
# test_install.sh: `make install` into a temporary prefix, then a user's program (examples/score_solver.c)
# built with pkg-config alone, against the shared library and statically, run on a case file; then
# `make uninstall` must leave nothing behind. Run from the source tree by `make test-install`.
set -eu
MAKE=${MAKE:-make}
CC=${CC:-cc}
CASES=cases/documents.cases

fail() { echo "install check: FAILED: $*" >&2; exit 1; }

mkdir -p build
tmp=$(mktemp -d "$PWD/build/install-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
prefix=$tmp/prefix

$MAKE --no-print-directory install PREFIX="$prefix" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; fail "make install"; }
for f in bin/toibench lib/libtoibench.a lib/libtoibench.so lib/pkgconfig/toibench.pc \
         include/toibench/toi.h include/toibench/toiref.h include/toibench/toi_solver.h \
         share/man/man1/toibench.1 share/bash-completion/completions/toibench; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
for h in include/toibench/*.h; do [ -f "$prefix/$h" ] || fail "$h not installed"; done
ls "$prefix"/share/toibench/reports/*.gp >/dev/null 2>&1 || fail "no report script installed"
soname=$(readelf -d "$prefix/lib/libtoibench.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ -z "$soname" ] || [ ! -e "$prefix/lib/$soname" ]; then fail "SONAME '$soname' missing in lib/"; fi
"$prefix/bin/toibench" --help >/dev/null || fail "the installed toibench does not run"

PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
version=$(pkg-config --modversion toibench) || fail "pkg-config does not find toibench.pc"
cflags=$(pkg-config --cflags toibench)
libs=$(pkg-config --libs toibench)
echo "install check: toibench $version in a temporary prefix; cc examples/score_solver.c $cflags $libs"

# Shared.
# shellcheck disable=SC2086
$CC examples/score_solver.c $cflags $libs -o "$tmp/score_shared" || fail "shared link"
readelf -d "$tmp/score_shared" | grep -q "NEEDED.*\[$soname\]" || fail "score_shared does not load $soname"
LD_LIBRARY_PATH=$prefix/lib "$tmp/score_shared" "$CASES" >"$tmp/shared.out" || fail "score_shared $CASES"
echo "install check: shared: built and ran on $CASES"

# Static, as doc/commands.md says: cc -static prog.c $(pkg-config --static --cflags --libs toibench).
slibs=$(pkg-config --static --libs toibench)
# shellcheck disable=SC2086
$CC -static examples/score_solver.c $cflags $slibs -o "$tmp/score_static" 2>"$tmp/static.log" ||
  { cat "$tmp/static.log" >&2; fail "static link (-static $slibs)"; }
if readelf -d "$tmp/score_static" | grep -q "NEEDED"; then fail "score_static needs shared libraries"; fi
# ldd says "not a dynamic executable" (exit 1) for a static program: no libtoibench in what it lists
if ldd "$tmp/score_static" 2>&1 | grep -q libtoibench; then fail "ldd lists libtoibench for score_static"; fi
"$tmp/score_static" "$CASES" >"$tmp/static.out" || fail "score_static $CASES"
echo "install check: static: built and ran on $CASES"
if [ -f "$tmp/shared.out" ]; then cmp -s "$tmp/shared.out" "$tmp/static.out" || fail "shared and static outputs differ"; fi
cat "$tmp/static.out"

$MAKE --no-print-directory uninstall PREFIX="$prefix" >"$tmp/uninstall.log" 2>&1 ||
  { cat "$tmp/uninstall.log" >&2; fail "make uninstall"; }
left=$(find "$prefix" \( -type f -o -type l \) | sed "s|^$prefix/||")
[ -z "$left" ] || fail "make uninstall left: $left"
echo "install check: passed (uninstall left no file)"
