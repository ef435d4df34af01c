#!/bin/sh
# Runs libFuzzer targets for a fixed time each and prints one line per target:
#   fuzz: TARGET execs N crashes N time S
# then exits 1 if any target found a crash (its reproducer is left as
# WORKDIR/artifacts/TARGET-crash-*; copy it into the corpus once fixed).
#
#   run.sh CORPUS_ROOT WORKDIR SECONDS TARGET...
#
# Seeds come from CORPUS_ROOT/TARGET (read only); what the fuzzer finds goes to
# WORKDIR/work/TARGET, which later runs start from. FUZZ_JOBS targets run at once.
# FUZZ_SEED, when set, fixes libFuzzer's seed (CI's smoke run: the same inputs in the same
# order on every run, so that a finding is reproducible and not a matter of luck); unset, every
# run explores from a random seed (make fuzz-long).
set -u
corpus_root=$1
workdir=$2
seconds=$3
shift 3
jobs=${FUZZ_JOBS:-1}
seed_option=${FUZZ_SEED:+-seed=$FUZZ_SEED}

# Leaks, out-of-bounds accesses and undefined behaviour are all findings.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS

fuzz_target() {
    t=$1
    mkdir -p "$workdir/work/$t" "$workdir/artifacts"
    "$workdir/fuzz-$t-libfuzzer" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=3072 -malloc_limit_mb=512 \
        -print_final_stats=1 $seed_option -artifact_prefix="$workdir/artifacts/$t-" \
        "$workdir/work/$t" "$corpus_root/$t" > "$workdir/$t.log" 2>&1
}

# Whether a run ended only because LeakSanitizer's own tracer crashed (it does on some runs,
# tests/tap-test says more): no sanitizer finding, no failed property.
tracer_crash_only() {
    grep -q 'Tracer caught signal' "$1" && grep -q 'LeakSanitizer has encountered a fatal error' "$1" &&
        ! grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer: detected|libFuzzer)|runtime error|property violated' "$1"
}

run_one() {
    t=$1
    fuzz_target "$t"
    status=$?
    if [ "$status" -ne 0 ] && tracer_crash_only "$workdir/$t.log"; then
        # judged by a second run in which the leak checker works (the same seed and inputs)
        echo "fuzz: $t: LeakSanitizer's tracer crashed (not a finding); running it again"
        rm -f "$workdir/artifacts/$t-"*
        fuzz_target "$t"
        status=$?
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$workdir/$t.log" | tail -n 1)
    # crash-, leak-, timeout-, oom-: findings (slow-unit- is only a note)
    crashes=$(ls "$workdir/artifacts/$t-"* 2>/dev/null | grep -vc -- '-slow-unit-')
    echo "fuzz: $t execs ${execs:-0} crashes $crashes time $seconds status $status"
    if [ "$status" -ne 0 ]; then
        grep -E 'ERROR|SUMMARY|property violated|runtime error' "$workdir/$t.log" | head -n 5
        return 1
    fi
}

failed=0
running=0
pids=""
for t in "$@"; do
    run_one "$t" &
    pids="$pids $!"
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        for p in $pids; do wait "$p" || failed=1; done
        pids=""
        running=0
    fi
done
for p in $pids; do wait "$p" || failed=1; done
exit $failed
