#!/bin/sh
# The hostile-input pass of make check (docs/reliability.md, issue 16): every input that
# tests/hostile/gen.py writes, plus a FIFO, a directory, /dev/zero, a sparse file beyond
# the size limit, a missing file and standard input, through every subcommand that reads
# an image, each run under limits:
#   memory   ulimit -v $HOSTILE_MEMORY_KB (262144: the 256 MB bound of docs/reliability.md;
#            under AddressSanitizer, which reserves terabytes of address space, its
#            max_allocation_size_mb instead)
#   time     $HOSTILE_SECONDS (20) per run: a hang fails
# Each run must exit 0, 1 or 2 (no signal, no timeout), say why on stderr when it fails,
# leave no sanitizer report, and leave its input unchanged: every command also names the
# input as its output (data loss: issue 16 item 1).
#
#   tests/hostile/run.sh [--tap ...]      (from make check; arguments ignored)
# Environment: VOTECL_TEST_BUILDDIR (the build's tests/), VOTECL_TEST_SRCDIR (the source's
# tests/), HOSTILE_KEEP=1 keeps the work directory, HOSTILE_ALL=1 (below), HOSTILE_BACKEND;
# HOSTILE_RSS=1 measures every run's peak resident memory with /usr/bin/time and prints the
# largest (docs/reliability.md's figures: with HOSTILE_MEMORY_KB=unlimited).
set -u
. "$(dirname "$0")/common.sh"
hostile_need_python

tmp=$(mktemp -d "${TMPDIR:-/tmp}/votecl-hostile-XXXXXX") || exit 99
[ "${HOSTILE_KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in" "$tmp/out"
python3 "$srcdir/hostile/gen.py" "$tmp/in" || { echo "Bail out! gen.py failed"; exit 99; }
mkfifo "$tmp/in/fifo"
mkdir "$tmp/in/directory"
ln -s /dev/zero "$tmp/in/dev-zero"
ln -s "$tmp/in/loop" "$tmp/in/loop"
# beyond the 2 GiB + 1 MiB file limit, sparse: refused before a byte is read (item 5)
truncate -s 3G "$tmp/in/sparse-3g" 2>/dev/null || rm -f "$tmp/in/sparse-3g"
printf 'uint vote_index(uint space, uint index, VALUE_T value, uint nbins) { return 0; }\n' \
    > "$tmp/vote.cl"
cp "$tmp/in/png-good-16x12" "$tmp/good.png"

sanitized=0
if nm -D "$votecl" 2>/dev/null | grep -q __asan_init || ldd "$votecl" 2>/dev/null | grep -q asan
then
    sanitized=1
    # instrumented code is several times slower (HOG of a 4096x4096 RGBA bomb took over 20 s)
    seconds=$((seconds * 3))
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=$((memory_kb / 1024)):allocator_may_return_null=1
    export ASAN_OPTIONS
fi
# The reference backend by default (no device, no kernel compiles: the pass stays fast);
# HOSTILE_BACKEND=opencl|cuda for a device (with HOSTILE_MEMORY_KB=unlimited for CUDA,
# whose driver reserves more address space than 256 MB).
VOTECL_BACKEND=${HOSTILE_BACKEND:-ref}
export VOTECL_BACKEND

# The checksum of a file, or for the sparse giant its size and time (reading 3 GB of holes
# would cost more than the whole pass).
fingerprint() {
    case $1 in
    *sparse*) stat -c '%s %Y %Z' "$1" ;;
    *) cksum < "$1" ;;
    esac
}

# HOSTILE_RSS=1: each run under /usr/bin/time, the largest peak kept with its run's name
rss=
rss_max=0
rss_name=
if [ "${HOSTILE_RSS:-0}" = 1 ] && [ -x /usr/bin/time ] && [ "$sanitized" = 0 ]; then
    rss="/usr/bin/time -f %M -o $tmp/rss"
fi
note_rss() {
    [ -n "$rss" ] && [ -s "$tmp/rss" ] || return 0
    kb=$(tail -n 1 "$tmp/rss")
    case $kb in *[!0-9]* | '') return 0 ;; esac
    if [ "$kb" -gt "$rss_max" ]; then
        rss_max=$kb
        rss_name=$1
    fi
    rm -f "$tmp/rss"
}

n=0
failed=0
# run NAME INPUT COMMAND...: one TAP line (the checksum of INPUT is in $before: a few
# hundred runs, so each costs as few processes as possible)
run() {
    name=$1
    input=$2
    shift 2
    n=$((n + 1))
    # a valid 4096x4096 image through HOG's every scale on the reference backend is minutes
    # of instrumented arithmetic, not a hostile-input path: the plain pass runs it
    if [ "$sanitized" = 1 ] && [ "$name" = "hog png-bomb-rgba-4096" ]; then
        echo "ok $n - $name # SKIP minutes of compute under the sanitizers (the plain pass runs it)"
        return
    fi
    if [ "$sanitized" = 1 ]; then
        timeout -k 5 "$seconds" "$votecl" "$@" > "$tmp/stdout" 2> "$tmp/stderr" < /dev/null
    else
        timeout -k 5 "$seconds" sh -c 'ulimit -v "$0" && r=$1 && shift && exec $r "$@"' "$memory_kb" "$rss" \
            "$votecl" "$@" > "$tmp/stdout" 2> "$tmp/stderr" < /dev/null
    fi
    rc=$?
    note_rss "$name"
    why=
    case $rc in
    0 | 1 | 2) ;;
    124 | 137) why="hung (over $seconds s)" ;;
    *) why="exit status $rc" ;;
    esac
    if [ -z "$why" ] && [ "$rc" != 0 ] && ! grep -q 'votecl' "$tmp/stderr"; then
        why="exit $rc without a message"
    fi
    if [ -z "$why" ] && [ "$sanitized" = 1 ] &&
        grep -v 'WARNING: AddressSanitizer failed to allocate' "$tmp/stderr" |
        grep -q 'Sanitizer\|runtime error'; then
        why="sanitizer report"
    fi
    if [ -z "$why" ] && [ -n "$before" ] && [ "$(fingerprint "$input")" != "$before" ]; then
        why="input changed"
    fi
    hostile_tap "$name: exit $rc" "$why" "$tmp/stderr" 5
}

# Every input through hist; through every other subcommand the inputs that decode (each
# command then works on them) and one of each way to fail (the read path is shared, so the
# others fail there alike); HOSTILE_ALL=1: every input through everything (about 650
# runs, a minute or more).
every=" png-good-16x12 png-truncated-41 png-text-2g png-bomb-46340 png-bomb-rgba-4096
png-huge-declared-tiny-idat png-65535-square png-gray-1 png-gray-16 png-gray16-alpha
png-palette-trns png-interlaced png-palette-index-out png-bad-zlib pgm-good pgm-ascii
pgm-maxval-0 pgm-16-truncated ppm-good ppm-16 jpeg-huge-no-data jpeg-huge-progressive
jpeg-garbage fifo directory dev-zero sparse-3g missing "
every=" $(echo $every) "
for path in "$tmp"/in/* /dev/zero "$tmp/in/missing"; do
    f=${path##*/}
    before=
    [ -f "$path" ] && [ ! -L "$path" ] && before=$(fingerprint "$path")
    run "hist $f" "$path" hist "$path" --plot "$path"
    case "$every" in
    *" $f "*) ;;
    *) [ "${HOSTILE_ALL:-0}" = 1 ] || continue ;;
    esac
    run "hough $f" "$path" hough "$path" --out "$path"
    run "lines $f" "$path" lines "$path" --out "$path"
    run "hog $f" "$path" hog "$path" --out "$path"
    run "ght template $f" "$path" ght "$path" "$tmp/good.png" --out "$path"
    run "ght image $f" "$path" ght "$tmp/good.png" "$path" --out "$path"
    run "vote $f" "$path" vote --source "$tmp/vote.cl" "$path"
done
# standard input, and the demo over a directory of them all (its outputs beside nothing)
for f in png-text-2g png-bomb-46340 pgm-truncated; do
    n=$((n + 1))
    if timeout -k 5 "$seconds" sh -c '[ "$1" = 1 ] || ulimit -v "$0"; shift; exec "$@"' \
        "$memory_kb" "$sanitized" "$votecl" hist - < "$tmp/in/$f" > /dev/null 2> "$tmp/stderr"
    then rc=0; else rc=$?; fi
    if [ "$rc" = 1 ] && grep -q votecl "$tmp/stderr"; then
        echo "ok $n - hist - < $f: exit 1"
    else
        failed=$((failed + 1))
        echo "not ok $n - hist - < $f: exit $rc"
    fi
done
# a valid bomb above what a command takes (HOG's and the GHT's sides) is refused from its
# header, before 2 GiB are decoded (issue 16 item 7)
for cmd in hog ght; do
    n=$((n + 1))
    set -- "$tmp/in/png-bomb-46340"
    [ "$cmd" = ght ] && set -- "$tmp/good.png" "$1"
    if timeout -k 5 "$seconds" sh -c '[ "$1" = 1 ] || ulimit -v "$0"; shift; exec "$@"' \
        "$memory_kb" "$sanitized" "$votecl" "$cmd" "$@" > /dev/null 2> "$tmp/stderr"
    then rc=0; else rc=$?; fi
    if [ "$rc" = 1 ] && grep -q 'this command takes sides up to' "$tmp/stderr"; then
        echo "ok $n - $cmd png-bomb-46340 refused from its header"
    else
        failed=$((failed + 1))
        echo "not ok $n - $cmd png-bomb-46340 refused from its header: exit $rc"
        sed 's/^/# /' "$tmp/stderr" | head -n 3
    fi
done
mkdir "$tmp/demo-in"
for f in png-truncated-41 png-text-2g pgm-maxval-0 png-gray-1 ppm-good jpeg-huge-no-data; do
    cp "$tmp/in/$f" "$tmp/demo-in/$f.png"
done
before=$(fingerprint "$tmp/demo-in/png-gray-1.png")
run "demo" "$tmp/demo-in/png-gray-1.png" demo --images "$tmp/demo-in" --out "$tmp/out"
run "demo --out = --images" "$tmp/demo-in/png-gray-1.png" demo --images "$tmp/demo-in" \
    --out "$tmp/demo-in"
echo "1..$n"
echo "# hostile: $n runs, $failed failed (memory ${memory_kb} KB, sanitizer $sanitized)"
[ -n "$rss" ] && echo "# hostile: max RSS $rss_max KB ($rss_name; backend $VOTECL_BACKEND)"
# explicit: the cleanup trap must not decide the status
[ "$failed" = 0 ] && exit 0
exit 1
