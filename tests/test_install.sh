#!/bin/sh
# test_install.sh: `make install` into a temporary DESTDIR (staged as a packager does, PREFIX /usr/local),
# then the examples built against what was installed alone (pkg-config with the staging root as its sysroot;
# nothing of the source tree's include/): a user's program (examples/score_solver.c) against the shared
# library and statically, run on a case file, and the example plug-in (examples/solver_c/plugin.c) and
# command solver, run by the installed toibench; then `make uninstall` must leave nothing behind. Run from
# the source tree by `make test-install`.
set -eu
MAKE=${MAKE:-make}
CC=${CC:-cc}
CASES=cases/documents.cases

fail() { echo "install check: FAILED: $*" >&2; exit 1; }

mkdir -p build
tmp=$(mktemp -d "$PWD/build/install-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
dest=$tmp/dest
PREFIX=/usr/local
prefix=$dest$PREFIX

$MAKE --no-print-directory install DESTDIR="$dest" PREFIX="$PREFIX" >"$tmp/install.log" 2>&1 ||
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

# The .pc file names PREFIX; the sysroot puts the staging root before its -I and -L paths.
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
version=$(pkg-config --modversion toibench) || fail "pkg-config does not find toibench.pc"
cflags=$(pkg-config --cflags toibench)
libs=$(pkg-config --libs toibench)
case "$cflags" in *"$dest"*) ;; *) fail "pkg-config --cflags '$cflags' does not point into the staging root" ;; esac
echo "install check: toibench $version in a temporary DESTDIR; cc examples/score_solver.c $cflags $libs"

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

# The plug-in example: the installed toi_solver.h alone (it links nothing of toibench), run by the installed
# toibench beside the command-line example; both compute the same quadratic, so their rows agree.
# shellcheck disable=SC2086
$CC -std=c11 -O2 -shared -fPIC $cflags examples/solver_c/plugin.c -o "$tmp/example_plugin.so" -lm ||
  fail "the plug-in example does not build against the installed header"
$CC -std=c11 -O2 examples/solver_c/solver.c -o "$tmp/solver_c" -lm || fail "the command example does not build"
LD_LIBRARY_PATH=$prefix/lib "$prefix/bin/toibench" run --solver "$tmp/example_plugin.so" --solver-cmd "$tmp/solver_c" \
  "$CASES" >"$tmp/plugin.out" || fail "the installed toibench does not run the examples"
p=$(sed -n 's/^example-stable  *//p' "$tmp/plugin.out" | head -n 1)
c=$(sed -n 's/^solver_c  *//p' "$tmp/plugin.out" | head -n 1)
[ -n "$p" ] && [ "$p" = "$c" ] || { cat "$tmp/plugin.out" >&2; fail "the plug-in and command examples disagree"; }
echo "install check: examples/solver_c (plug-in and command) built and ran through the installed toibench"

$MAKE --no-print-directory uninstall DESTDIR="$dest" PREFIX="$PREFIX" >"$tmp/uninstall.log" 2>&1 ||
  { cat "$tmp/uninstall.log" >&2; fail "make uninstall"; }
left=$(find "$dest" \( -type f -o -type l \) | sed "s|^$dest/||")
[ -z "$left" ] || fail "make uninstall left: $left"
echo "install check: passed (uninstall left no file)"
