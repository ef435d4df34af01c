#!/bin/sh
# Runs each example program of examples/ (built by make) as one TAP test: an example checks
# its own result against the truth it constructed and exits 0, 77 without a device (a skip)
# or 1. make check gives it the uninstalled kernels (VOTECL_KERNEL_PATH); tests/install-check.sh
# runs the installed copies against an installed prefix.
dir=${VOTECL_TEST_BUILDDIR:-tests}/../examples
set -- histogram user-vote hough lines ght hog
echo "1..$#"
n=0
for example in "$@"; do
    n=$((n + 1))
    out=$("$dir/$example" 2>&1)
    rc=$?
    printf '%s\n' "$out" | sed 's/^/# /'
    case $rc in
    0) echo "ok $n $example" ;;
    77) echo "ok $n $example # SKIP no device" ;;
    *) echo "not ok $n $example (exit status $rc)" ;;
    esac
done
