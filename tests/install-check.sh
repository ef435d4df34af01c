#!/bin/sh
# install-check.sh PREFIX SRCDIR
#
# After `make install` into PREFIX: builds a small program the way an application would
# (pkg-config --cflags --libs votecl, nothing from the source tree), runs it against the
# installed library and kernels (VOTECL_KERNEL_PATH unset) and checks a 256-bin histogram
# of known data on the default device. Also checks that pkg-config's kerneldir names the
# installed kernels, that the manual is installed (man pages, the guides in docdir) and that
# every installed example program (docdir/examples) builds with pkg-config's flags alone
# and runs to its own check.
#
# Exit status: 0 passed, 1 failed, 77 skipped (no OpenCL device on this machine).
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 PREFIX SRCDIR" >&2
    exit 1
fi
prefix=$1
srcdir=$2

fail() {
    echo "install-check: FAIL: $*" >&2
    exit 1
}

[ -d "$prefix" ] || fail "no such prefix: $prefix"
command -v pkg-config >/dev/null 2>&1 || fail "pkg-config not found"

# The installed library, wherever libdir put it (lib, lib64, lib/<multiarch>).
pcfile=$(find "$prefix" -name votecl.pc -path '*pkgconfig*' 2>/dev/null | head -n 1)
[ -n "$pcfile" ] || fail "votecl.pc is not installed under $prefix"
pcdir=$(dirname "$pcfile")
libdir=$(dirname "$pcdir")

PKG_CONFIG_PATH=$pcdir
export PKG_CONFIG_PATH
# Only what was installed: no kernels from the source tree, no forced backend or strategy.
unset VOTECL_KERNEL_PATH VOTECL_BACKEND VOTECL_FORCE_VARIANT

kerneldir=$(pkg-config --variable=kerneldir votecl) || fail "pkg-config --variable=kerneldir votecl"
[ -n "$kerneldir" ] || fail "votecl.pc has no kerneldir variable"
[ -d "$kerneldir" ] || fail "kerneldir $kerneldir is not a directory"
for f in vote.cl histogram.cl prelude.h common.h; do
    [ -f "$kerneldir/$f" ] || fail "$kerneldir/$f is missing"
    cmp -s "$srcdir/cl/$f" "$kerneldir/$f" || fail "$kerneldir/$f differs from $srcdir/cl/$f"
done
echo "install-check: kerneldir $kerneldir"

work=$(mktemp -d "${TMPDIR:-/tmp}/votecl-install-check.XXXXXX") || fail "mktemp"
trap 'rm -rf "$work"' EXIT INT TERM

cat >"$work/hist.c" <<'EOF'
/* A 256-bin histogram of known data with the installed libvotecl. */
#include <votecl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define K 1000
#define EXTRA 7

int
main(void)
{
    size_t n = 256 * K + EXTRA;
    uint8_t *x = malloc(n);
    uint32_t bins[256];
    if (x == NULL)
        return 1;
    /* Values i % 256: K votes in every bin, one more in bins 0 .. EXTRA - 1. */
    for (size_t i = 0; i < n; i++)
        x[i] = (uint8_t)(i % 256);

    votecl_context *context = NULL;
    char error[1024] = "";
    votecl_status status = votecl_context_new_with_error(NULL, &context, error, sizeof error);
    if (status == VOTECL_NO_DEVICE || status == VOTECL_BACKEND_UNAVAILABLE) {
        printf("no device: %s\n", error);
        free(x);
        return 77;
    }
    if (status != VOTECL_OK) {
        fprintf(stderr, "context: %s: %s\n", votecl_status_string(status), error);
        return 1;
    }
    votecl_device_info info;
    if (votecl_context_get_device_info(context, &info) == VOTECL_OK)
        printf("device: %s (%s)\n", info.name, info.platform);
    printf("kernel path: %s\n", votecl_context_get_kernel_path(context));

    votecl_hist_params params;
    votecl_hist_params_init(&params, VOTECL_DTYPE_U8);
    votecl_hist_plan *plan = NULL;
    status = votecl_hist_plan_new(context, &params, &plan);
    if (status == VOTECL_OK)
        status = votecl_hist_run(plan, x, NULL, NULL, n, bins);
    if (status != VOTECL_OK) {
        fprintf(stderr, "histogram: %s: %s\n%s\n", votecl_status_string(status),
                votecl_context_get_error(context), votecl_context_get_build_log(context));
        return 1;
    }
    int bad = 0;
    for (unsigned b = 0; b < 256; b++) {
        uint32_t want = K + (b < EXTRA ? 1 : 0);
        if (bins[b] != want) {
            fprintf(stderr, "bin %u: %u, want %u\n", b, bins[b], want);
            bad = 1;
        }
    }
    votecl_hist_plan_free(plan);
    votecl_context_free(context);
    free(x);
    if (!bad)
        printf("histogram of %zu elements: correct\n", n);
    return bad;
}
EOF

cc=${CC:-cc}
cflags=$(pkg-config --cflags votecl) || fail "pkg-config --cflags votecl"
libs=$(pkg-config --libs votecl) || fail "pkg-config --libs votecl"
# The public headers must compile cleanly under strict C11.
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror $cflags -o "$work/hist" "$work/hist.c" $libs ||
    fail "compiling with pkg-config's flags: $cc $cflags ... $libs"

# A private disk cache, so the check neither reads nor fills the user's.
VOTECL_CACHE_DIR=$work/cache
# and binaries stored on PoCL too (by default PoCL keeps its own cache: docs/env.md)
VOTECL_POCL_BINARIES=1
export VOTECL_CACHE_DIR VOTECL_POCL_BINARIES
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/hist"
rc=$?
case $rc in
0) echo "install-check: PASS" ;;
77)
    echo "install-check: SKIP: no OpenCL device"
    exit 77
    ;;
*) fail "the program built against the installed library exited with $rc" ;;
esac

# The same program again: now from the installed kernels' disk cache.
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/hist" >/dev/null ||
    fail "second run (warm disk cache) failed"
[ -n "$(ls "$VOTECL_CACHE_DIR" 2>/dev/null)" ] || fail "nothing was written to the disk cache"

# The manual: both man pages where man finds them, the guides beside the examples.
mandir=$(find "$prefix" -path '*/man1/votecl.1' 2>/dev/null | head -n 1)
[ -n "$mandir" ] || fail "votecl.1 is not installed under $prefix"
mandir=$(dirname "$(dirname "$mandir")")
[ -f "$mandir/man3/votecl.3" ] || fail "votecl.3 is not installed in $mandir/man3"
if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man -M "$mandir" votecl 2>/dev/null | grep -q 'votecl COMMAND' ||
        fail "man -M $mandir votecl does not show votecl(1)"
    MANWIDTH=80 man -M "$mandir" 3 votecl 2>/dev/null | grep -q 'votecl_hist_plan_new' ||
        fail "man -M $mandir 3 votecl does not show votecl(3)"
fi
exdir=$(find "$prefix" -path '*/doc/*/examples' -type d 2>/dev/null | head -n 1)
[ -n "$exdir" ] || fail "no examples directory under $prefix/share/doc"
docdir=$(dirname "$exdir")
for f in env.md hog-model.md performance.md accuracy.md README NEWS; do
    [ -f "$docdir/$f" ] || fail "$docdir/$f is not installed"
done
echo "install-check: manual in $mandir, guides and examples in $docdir"

# Each installed example, copied out with the header the examples share, built as a user
# would and run against the prefix.
[ -f "$exdir/common.h" ] || fail "$exdir/common.h is not installed"
cp "$exdir/common.h" "$work/common.h" || fail "copying common.h"
examples="histogram user-vote hough lines ght hog"
for example in $examples; do
    [ -f "$exdir/$example.c" ] || fail "$exdir/$example.c is not installed"
    cp "$exdir/$example.c" "$work/$example.c" || fail "copying $example.c"
    # shellcheck disable=SC2086
    $cc -std=c11 -Wall -Wextra -Werror $cflags -o "$work/$example" "$work/$example.c" $libs -lm ||
        fail "example $example.c does not build with pkg-config's flags"
    LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/$example" >"$work/$example.out" 2>&1
    rc=$?
    case $rc in
    0) echo "install-check: example $example: PASS" ;;
    77) echo "install-check: example $example: SKIP (no device)" ;;
    *)
        cat "$work/$example.out" >&2
        fail "installed example $example exited with $rc"
        ;;
    esac
done
exit 0
