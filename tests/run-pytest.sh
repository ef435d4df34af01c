#!/bin/sh
# The Python package's pytest suite (python/tests) against this build tree's libvotecl, as
# one TAP test: skipped where no Python 3 with NumPy and pytest is found.
# Arguments from tests/tap-test (--tap -k) are ignored.
srcdir=${VOTECL_TEST_SRCDIR:-$(dirname "$0")}/..
builddir=${VOTECL_TEST_BUILDDIR:-$(dirname "$0")}/..
echo "1..1"
if grep -q __asan_init "$builddir/lib/.libs/libvotecl.so" 2>/dev/null; then
    # a sanitized library loads only into a program started with its runtime first
    echo "ok 1 # SKIP libvotecl is built with AddressSanitizer; python3 cannot load it"
    exit 0
fi
for py in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$py" -c 'import numpy, pytest' >/dev/null 2>&1; then
        VOTECL_LIBRARY=$builddir/lib/.libs/libvotecl.so
        export VOTECL_LIBRARY
        if "$py" -m pytest -q -p no:cacheprovider "$srcdir/python/tests" >run-pytest.out 2>&1; then
            sed 's/^/# /' run-pytest.out
            echo "ok 1 - python/tests ($py)"
        else
            sed 's/^/# /' run-pytest.out
            echo "not ok 1 - python/tests ($py)"
        fi
        rm -f run-pytest.out
        exit 0
    fi
done
echo "ok 1 # SKIP no python3 with numpy and pytest (apt-get install python3-numpy python3-pytest)"
