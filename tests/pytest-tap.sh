# Sourced by tests/run-pytest.sh and tests/run-peers.sh: pytest_tap DIR [ARG...] runs
# python3 -m pytest on $srcdir/DIR (ARGs added) against this build tree's libvotecl as one
# TAP test, its output as comments. Skipped where no Python 3 with NumPy and pytest is
# found, and under AddressSanitizer: a sanitized library loads only into a program started
# with its runtime first.
srcdir=${VOTECL_TEST_SRCDIR:-$(dirname "$0")}/..
builddir=${VOTECL_TEST_BUILDDIR:-$(dirname "$0")}/..

pytest_tap() {
    dir=$1
    shift
    echo "1..1"
    if grep -q __asan_init "$builddir/lib/.libs/libvotecl.so" 2>/dev/null; then
        echo "ok 1 # SKIP libvotecl is built with AddressSanitizer; python3 cannot load it"
        return 0
    fi
    for py in ${PYTHON:-} python3 /usr/bin/python3; do
        if "$py" -c 'import numpy, pytest' >/dev/null 2>&1; then
            VOTECL_LIBRARY=$builddir/lib/.libs/libvotecl.so
            export VOTECL_LIBRARY
            out=$(basename "$0" .sh).out
            if "$py" -m pytest -q -p no:cacheprovider "$@" "$srcdir/$dir" >"$out" 2>&1; then
                result="ok 1"
            else
                result="not ok 1"
            fi
            sed 's/^/# /' "$out"
            echo "$result - $dir ($py)"
            rm -f "$out"
            return 0
        fi
    done
    echo "ok 1 # SKIP no python3 with numpy and pytest (apt-get install python3-numpy python3-pytest)"
}
