#!/bin/sh
# The long concurrency run of docs/reliability.md: PROCESSES processes of THREADS threads
# each (one OpenCL context per thread, every algorithm in a loop for SECONDS, results
# checked against the reference), started at once on one empty cache directory and an
# empty PoCL kernel cache, so that all of them start cold; afterwards every cache file must
# be a whole entry (each process checks, and a last pass checks again).
#
#   tests/concurrency.sh [PROCESSES [THREADS [SECONDS]]]     (default 4 8 60)
#
# Run from the build directory (make check-concurrency does); prints one line per process
# and the total: concurrency: processes P threads T seconds S calls N failures N entries N
set -u
processes=${1:-4}
threads=${2:-8}
seconds=${3:-60}
program=${CONCURRENCY_PROGRAM:-./tests/test-concurrency}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/votecl-concurrency-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/cache" "$tmp/pocl"
# binaries stored on PoCL too, so that the processes race on the disk cache (docs/env.md)
VOTECL_POCL_BINARIES=1
export VOTECL_POCL_BINARIES

# First: COLD_RUNS (100) processes, one after the other, whose THREADS threads create the
# process's first contexts at the same moment (issue 16, item 14).
cold_failed=0
VOTECL_TEST_COLD_RUNS="${COLD_RUNS:-100}" VOTECL_TEST_THREADS="$threads" \
    "$program" --tap -p /opencl/concurrency/cold-start > "$tmp/cold.log" 2>&1 || cold_failed=1
echo "concurrency: $(sed -n 's/^# cold-start //p' "$tmp/cold.log") status $cold_failed"

i=0
pids=""
while [ "$i" -lt "$processes" ]; do
    VOTECL_TEST_CACHE_DIR="$tmp/cache" POCL_CACHE_DIR="$tmp/pocl" \
        VOTECL_TEST_THREADS="$threads" VOTECL_TEST_SECONDS="$seconds" \
        "$program" --tap -p /opencl/concurrency/threads > "$tmp/process-$i.log" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
done

failed=0
for p in $pids; do
    wait "$p" || failed=1
done

calls=0
failures=0
i=0
while [ "$i" -lt "$processes" ]; do
    line=$(sed -n 's/^# concurrency //p' "$tmp/process-$i.log")
    echo "concurrency: process $i: ${line:-no figures}"
    set -- $line
    # threads T seconds S calls N failures N entries N
    calls=$((calls + ${6:-0}))
    failures=$((failures + ${8:-0}))
    if grep -q '^not ok\|^Bail out' "$tmp/process-$i.log" || [ -z "$line" ]; then
        grep -v '^ok\|^# Start\|^# End' "$tmp/process-$i.log" | head -n 20
        failed=1
    fi
    i=$((i + 1))
done

# The cache once more, after everyone: the check alone, no threads.
VOTECL_TEST_CACHE_DIR="$tmp/cache" VOTECL_TEST_THREADS=1 VOTECL_TEST_SECONDS=0 \
    "$program" --tap -p /opencl/concurrency/threads > "$tmp/final.log" 2>&1 || failed=1
entries=$(ls "$tmp/cache" | grep -c '\.bin$')
echo "concurrency: processes $processes threads $threads seconds $seconds calls $calls" \
    "failures $failures entries $entries status $failed"
[ "$cold_failed" = 0 ] || failed=1
exit "$failed"
