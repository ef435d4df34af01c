#!/bin/sh
# tests/fuzz/params-fields.c and .h are generated from the public headers by
# tests/fuzz/gen-fields.py: one TAP line each, failing while the committed file differs from
# what the generator writes now (a header's field added without running it, or a hand edit).
#
#   tests/fuzz-fields-fresh.sh [--tap ...]      (from make check; arguments ignored)
set -u
srcdir=${VOTECL_TEST_SRCDIR:-$(dirname "$0")}/..
if ! command -v python3 > /dev/null 2>&1; then
    echo "1..0 # SKIP python3 missing"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/votecl-fields-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

echo "1..2"
if ! python3 "$srcdir/tests/fuzz/gen-fields.py" "$srcdir/include/votecl" "$tmp" 2> "$tmp/err"; then
    sed 's/^/# /' "$tmp/err"
fi
n=0
for f in params-fields.c params-fields.h; do
    n=$((n + 1))
    if diff -u "$srcdir/tests/fuzz/$f" "$tmp/$f" > "$tmp/diff" 2>&1; then
        echo "ok $n - tests/fuzz/$f is what tests/fuzz/gen-fields.py writes"
    else
        echo "not ok $n - tests/fuzz/$f differs from what tests/fuzz/gen-fields.py writes;" \
            "run: python3 tests/fuzz/gen-fields.py include/votecl tests/fuzz"
        sed 's/^/# /' "$tmp/diff" | head -n 40
    fi
done
