#!/bin/sh
# The plan each algorithm picks under each device profile (docs/profiles.md): runs
# `votecl bench --quick` and small truth suites with VOTECL_DEBUG and VOTECL_DEVICE_PROFILE set
# and prints the library's distinct "plan:" lines per profile, and a digest of each suite's
# figures without its timings (equal digests: the profiles found the same; bench's times on
# PoCL say nothing about the target and are left out).
#
#   tools/profile-plans.sh [VOTECL] [profile...]   default: ./tools/votecl, all five profiles
#
# Run from the build tree with VOTECL_KERNEL_PATH pointing at the source tree's cl/.
votecl=${1:-./tools/votecl}
[ $# -gt 0 ] && shift
profiles=${*:-fermi gcn rdna ocl-min cpu}
images=$(dirname "$0")/images
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

for p in none $profiles; do
    echo "== profile $p"
    prof=$p
    [ "$p" = none ] && prof=
    for run in "bench --quick -q --json $out/bench.json" \
        "eval lines --cases 2 --detector both" \
        "eval ght --scenes 1 --images $images" \
        "eval hog --family people --images $images"; do
        # shellcheck disable=SC2086
        VOTECL_DEBUG=1 VOTECL_DEVICE_PROFILE=$prof "$votecl" $run >"$out/stdout" 2>"$out/log"
        status=$?
        echo "-- votecl $run: exit $status"
        grep -o 'context: profile.*' "$out/log" | sort -u
        grep -o 'plan: .*' "$out/log" | sort | uniq -c | sort -rn
        grep -i 'error' "$out/log" | grep -v 'BACKEND_UNAVAILABLE' | sort -u | head -5
        # the suites' figures without timings: equal digests, equal results across profiles
        case $run in eval*)
            echo "figures $(grep -iv 'seconds\|"device"' "$out/stdout" | md5sum | cut -c1-12)" ;;
        esac
    done
done
