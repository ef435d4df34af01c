#!/bin/sh
# The device-dependent test programs under each named device profile (docs/profiles.md): a
# fixed subset of their /opencl/ cases (case_list below), chosen to reach every module's plan
# (AUTO strategies, the local strategy's passes, PClines, HOG's and the GHT's kernels, user
# votes), runs with VOTECL_DEVICE_PROFILE set, so that PoCL runs the plans of a Fermi,
# GCN, RDNA, OpenCL-minimum and CPU device, each equal to the reference. One TAP line per
# profile and program; a program that runs no case fails (a skipped device is a skip).
#
#   tests/profiles.sh [profile...]      default: fermi gcn rdna ocl-min cpu
#
# Arguments from tests/tap-test (--tap -k) are ignored. VOTECL_PROFILE_PROGRAMS limits the
# programs (space-separated names such as "histogram hog") when measuring.
builddir=${VOTECL_TEST_BUILDDIR:-$(dirname "$0")}

# The cases of program under profile; none: the program does not run there. Every profile
# runs the engine's strategies (histogram, user votes); the GPU profiles add the modules whose
# GPU shape PoCL otherwise never runs under a device's limits, each where its plan differs:
# fermi the whole GHT, gcn SIMD 64 and work-groups of 256 (the GHT's vote spaces), ocl-min
# work-groups of 64 (the Hough's gray path) and 32 KiB. rdna differs from fermi only in its
# local memory: the engine alone. Sub-sampling runs on ocl-min and cpu only (its programs
# take 12-18 s to compile cold per profile). The kernels' compilation dominates everything
# (PoCL, cold: 20-50 s of CPU per profile; warm, the whole run takes seconds);
# docs/profiles.md has the figures.
case_list() {
    engine="/opencl/auto /opencl/local/u8/random /opencl/local/u32/multipass \
        /opencl/local/f32/weighted /opencl/private/u8/random"
    case $1/$2 in
    */histogram) echo "$engine" ;;
    */uservote) echo /opencl/uservote/passes /opencl/uservote/spaces-7/local ;;
    rdna/*) ;;
    ocl-min/hough) echo /opencl/local/hough/planted /opencl/auto/hough/gray ;;
    */hough) echo /opencl/local/hough/planted ;;
    */pclines) echo /opencl/pclines/synthetic /opencl/pclines/equal-image ;;
    */hog) echo /opencl/hog/stages ;;
    fermi/ght | cpu/ght) echo /opencl/ght/detect-equal ;;
    gcn/ght) echo /opencl/ght/guil-spaces ;;
    */sum) echo /opencl/sum/u8/local ;;
    ocl-min/subsample | cpu/subsample) echo /opencl/subsample/u8/local ;;
    esac
}

profiles=
for a in "$@"; do
    case $a in -*) ;; *) profiles="$profiles $a" ;; esac
done
profiles=${profiles:-fermi gcn rdna ocl-min cpu}
programs=${VOTECL_PROFILE_PROGRAMS:-histogram hough pclines hog ght uservote sum subsample}

n=0
for p in $profiles; do
    for prog in $programs; do
        n=$((n + 1))
        args=
        for c in $(case_list "$p" "$prog"); do args="$args -p $c"; done
        # ocl-min has no fp64, which every GHT kernel needs: the GHT refuses there
        # (VOTECL_UNSUPPORTED; tests/test-ght.c's /opencl/ght/no-fp64 checks it).
        if [ "$p" = ocl-min ] && [ "$prog" = ght ]; then
            echo "ok $n - $p $prog # SKIP the GHT needs fp64, which ocl-min lacks"
            continue
        fi
        if [ -z "$args" ]; then
            n=$((n - 1))
            continue
        fi
        start=$(date +%s)
        # Under AddressSanitizer (CI's sanitized pass) without LeakSanitizer: the programs'
        # own runs in that pass check leaks; on these short runs LeakSanitizer's tracer
        # crashed at exit (signal 11, PoCL's threads still starting), failing a run whose
        # cases all passed. ASan and UBSan still watch every access.
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            VOTECL_DEVICE_PROFILE=$p "$builddir/test-$prog" --tap -k $args \
            >profiles-$p-$prog.out 2>&1
        status=$?
        seconds=$(($(date +%s) - start))
        passed=$(grep '^ok ' profiles-$p-$prog.out | grep -vc '# SKIP')
        skipped=$(grep '^ok ' profiles-$p-$prog.out | grep -c '# SKIP')
        failed=$(grep -c '^not ok' profiles-$p-$prog.out)
        summary="$p $prog: $passed passed, $skipped skipped, $failed failed, $seconds s"
        if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
            sed 's/^/# /' profiles-$p-$prog.out
            echo "not ok $n - $summary (status $status)"
        elif [ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ]; then
            echo "ok $n - $summary # SKIP no device"
        elif [ "$passed" -eq 0 ]; then
            sed 's/^/# /' profiles-$p-$prog.out
            echo "not ok $n - $summary: no case ran"
        else
            echo "ok $n - $summary"
        fi
        rm -f profiles-$p-$prog.out
    done
done
echo "1..$n"
