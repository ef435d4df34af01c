#!/bin/sh
# make check-valgrind: the tests that need no device (/nodevice/..., /ref/...) and the fuzz
# corpora under valgrind's memcheck, leaks included. GLib's -p PATH runs only the tests
# directly in PATH, so every test path is listed (-l) and passed on its own.
#
#   tests/check-valgrind.sh SRCDIR PROGRAM...      (from the build directory)
#
# Prints one line per program and exits 1 when valgrind found an error in any of them; the
# logs are tests/valgrind-NAME.log.
set -u
srcdir=$1
shift
glib_supp=$(pkg-config --variable=prefix glib-2.0 2>/dev/null)/share/glib-2.0/valgrind/glib.supp
supp="--suppressions=$srcdir/tests/valgrind.supp"
[ -f "$glib_supp" ] && supp="$supp --suppressions=$glib_supp"
VALGRIND=${VALGRIND:-valgrind}
flags="--error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
--errors-for-leak-kinds=definite,indirect --num-callers=30 $supp"

failed=0
for program in "$@"; do
    name=$(basename "$program")
    log=tests/valgrind-$name.log
    case $name in
    fuzz-*)
        # the replay of the committed corpus (no GLib)
        args=""
        ;;
    *)
        args=$("$program" -l 2>/dev/null | grep -E '^/(nodevice|ref)/' | sed 's/^/-p /')
        if [ -z "$args" ]; then
            echo "valgrind: $name: no /nodevice or /ref tests"
            continue
        fi
        args="$args --tap"
        ;;
    esac
    start=$(date +%s)
    # shellcheck disable=SC2086 # one word per option
    $VALGRIND $flags "$program" $args > "$log" 2>&1
    status=$?
    count=$(grep -c '^ok ' "$log")
    errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -n 1)
    seconds=$(($(date +%s) - start))
    echo "valgrind: $name: $count ok, ${errors:-?} errors, status $status, $seconds s"
    if [ "$status" -ne 0 ]; then
        grep -E '^==[0-9]+== (Invalid|Conditional|Use of|[0-9,]+ bytes in|Syscall|Mismatched)' \
            "$log" | head -n 5
        grep -E '^not ok|Bail out' "$log" | head -n 5
        failed=1
    fi
done
exit "$failed"
