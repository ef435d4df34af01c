#!/bin/sh
# PoCL's kernel cache under the library's trust rules (issue 28 item 1, docs/env.md "Trusting
# the cache"). PoCL dlopen()s the kernels of its cache with no check of who wrote them; an
# attacker who prepared the victim's XDG_CACHE_HOME (or POCL_CACHE_DIR) ran code in the
# victim's process. Here a cache is planted: a first run fills a PoCL cache, every kernel in
# it is replaced by a library whose constructor leaves a marker file, and the tree is made
# writable by others. Then votecl runs with XDG_CACHE_HOME, then POCL_CACHE_DIR, pointing at
# it, and with a relative XDG_CACHE_HOME: the marker must not appear, the results must be
# right, and nothing may be written under the current directory.
#
#   tests/hostile/pocl-cache.sh [--tap ...]   (from make check; arguments ignored)
# Needs PoCL (an OpenCL CPU device) and a C compiler ($CC, else cc); skipped without them.
set -u
. "$(dirname "$0")/common.sh"
cc=${CC:-cc}
unset POCL_CACHE_DIR POCL_KERNEL_CACHE VOTECL_POCL_BINARIES VOTECL_BACKEND VOTECL_DEVICE
export VOTECL_BACKEND=opencl
if ! "$votecl" info 2>/dev/null | grep -qi 'portable computing\|pocl'; then
    echo "1..0 # SKIP no PoCL device"
    exit 0
fi
if ! command -v "${cc%% *}" >/dev/null 2>&1; then
    echo "1..0 # SKIP no C compiler"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/votecl-pocl-cache-XXXXXX") || exit 99
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
marker=$tmp/planted-code-ran
# a 16x12 gray image of 192 pixels: hist must count 192 votes
printf 'P5\n16 12\n255\n' > "$tmp/a.pgm"
head -c 192 /dev/zero >> "$tmp/a.pgm"

# 1. fill a PoCL cache the way the victim's runs would, in the tree an attacker prepared
mkdir -p "$tmp/xdg/pocl/kcache"
POCL_CACHE_DIR=$tmp/xdg/pocl/kcache VOTECL_DISABLE_DISK_CACHE=1 \
    "$votecl" hist "$tmp/a.pgm" > /dev/null 2>&1
n=$(find "$tmp/xdg/pocl/kcache" -name '*.so' | wc -l)
if [ "$n" -eq 0 ]; then
    echo "Bail out! PoCL left no kernel in POCL_CACHE_DIR (its layout changed?)"
    exit 99
fi
# 2. every kernel becomes the attacker's code; the tree writable by anyone
printf '#include <stdio.h>\n__attribute__((constructor)) static void planted(void)\n{ FILE *f = fopen("%s", "w"); if (f) fclose(f); }\n' \
    "$marker" > "$tmp/planted.c"
if ! $cc -shared -fPIC -o "$tmp/planted.so" "$tmp/planted.c" 2>"$tmp/cc.log"; then
    echo "1..0 # SKIP cannot build a shared library with $cc"
    exit 0
fi
find "$tmp/xdg/pocl/kcache" -name '*.so' -exec cp "$tmp/planted.so" {} \;
chmod -R go+w "$tmp/xdg"

n=0
failed=0
# check NAME: the last run left no marker, counted 192 votes, exited 0
check() {
    n=$((n + 1))
    why=
    [ "$rc" = 0 ] || why="exit $rc"
    [ -z "$why" ] && [ -e "$marker" ] && why="the planted kernel ran"
    [ -z "$why" ] && ! grep -q '"counts": \[192, 0, 0,' "$tmp/out.json" && why="wrong counts"
    hostile_tap "$1" "$why" "$tmp/err" 5
    rm -f "$marker"
}
run() {
    VOTECL_CACHE_DIR=$tmp/victim-cache "$votecl" hist --json "$tmp/a.pgm" > "$tmp/out.json" \
        2> "$tmp/err"
    rc=$?
}
XDG_CACHE_HOME=$tmp/xdg run
check "XDG_CACHE_HOME in another user's tree: its PoCL cache is not loaded"
rm -rf "$tmp/victim-cache"
POCL_CACHE_DIR=$tmp/xdg/pocl/kcache run
check "POCL_CACHE_DIR writable by others: not loaded"
rm -rf "$tmp/victim-cache"
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && XDG_CACHE_HOME=relative run)
check "relative XDG_CACHE_HOME"
n=$((n + 1))
if [ -z "$(ls -A "$tmp/cwd")" ]; then
    echo "ok $n - relative XDG_CACHE_HOME: nothing written under the current directory"
else
    failed=$((failed + 1))
    echo "not ok $n - relative XDG_CACHE_HOME: the current directory got $(ls -A "$tmp/cwd")"
fi
n=$((n + 1))
if find "$tmp/victim-cache/pocl" -name '*.so' 2>/dev/null | grep -q .; then
    echo "ok $n - PoCL's kernels are cached in the library's cache directory"
else
    failed=$((failed + 1))
    echo "not ok $n - PoCL's kernels are cached in the library's cache directory"
fi
echo "1..$n"
[ "$failed" = 0 ]
