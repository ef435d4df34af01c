# Sourced by the hostile-input scripts (tests/hostile/*.sh): the build and source trees, the
# limits every run gets (HOSTILE_MEMORY_KB, 262144: the 256 MB bound of docs/reliability.md;
# HOSTILE_SECONDS, 20), and $votecl: the binary itself, not libtool's wrapper script
# (hundreds of runs: the wrapper's shell start-up would dominate).
builddir=${VOTECL_TEST_BUILDDIR:-$(pwd)/tests}/..
srcdir=${VOTECL_TEST_SRCDIR:-$(dirname "$0")/..}
memory_kb=${HOSTILE_MEMORY_KB:-262144}
seconds=${HOSTILE_SECONDS:-20}
votecl=$builddir/tools/votecl
for candidate in "$builddir/tools/.libs/lt-votecl" "$builddir/tools/.libs/votecl"; do
    if [ -x "$candidate" ]; then
        votecl=$candidate
        LD_LIBRARY_PATH=$builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
        export LD_LIBRARY_PATH
        break
    fi
done

# Skips the whole script (TAP plan 1..0) where python3 or timeout is missing.
hostile_need_python() {
    if ! command -v python3 >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1; then
        echo "1..0 # SKIP python3 or timeout missing"
        exit 0
    fi
}

# hostile_tap NAME WHY ERR LINES: the TAP line of check $n, NAME (ok when WHY is empty); a
# failure counts in $failed and shows the first LINES lines of the file ERR.
hostile_tap() {
    if [ -z "$2" ]; then
        echo "ok $n - $1"
    else
        failed=$((failed + 1))
        echo "not ok $n - $1: $2"
        sed 's/^/# /' "$3" 2>/dev/null | head -n "$4"
    fi
}
