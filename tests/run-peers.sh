#!/bin/sh
# The peers' own test cases, ported (tests/peers: scikit-image's and OpenCV's suites calling
# libvotecl through the Python package), as one TAP test on every backend present. Each case
# passes or is a strict xfail naming its docs/conventions.md row or the missing feature; the
# cases of a peer whose Python package is absent (cv2, skimage) are skipped with that reason.
# Skipped where no Python 3 with NumPy and pytest is found. VOTECL_PEERS_SLOW=1 adds the
# cases marked slow. Arguments from tests/tap-test (--tap -k) are ignored.
srcdir=${VOTECL_TEST_SRCDIR:-$(dirname "$0")}/..
builddir=${VOTECL_TEST_BUILDDIR:-$(dirname "$0")}/..
echo "1..1"
if grep -q __asan_init "$builddir/lib/.libs/libvotecl.so" 2>/dev/null; then
    echo "ok 1 # SKIP libvotecl is built with AddressSanitizer; python3 cannot load it"
    exit 0
fi
for py in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$py" -c 'import numpy, pytest' >/dev/null 2>&1; then
        VOTECL_LIBRARY=$builddir/lib/.libs/libvotecl.so
        export VOTECL_LIBRARY
        out=run-peers.out
        if "$py" -m pytest -q -p no:cacheprovider -rfs "$srcdir/tests/peers" >$out 2>&1; then
            sed 's/^/# /' $out
            echo "ok 1 - tests/peers ($py)"
        else
            sed 's/^/# /' $out
            echo "not ok 1 - tests/peers ($py)"
        fi
        rm -f $out
        exit 0
    fi
done
echo "ok 1 # SKIP no python3 with numpy and pytest (apt-get install python3-numpy python3-pytest)"
