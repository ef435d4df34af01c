#!/bin/sh
# The collection surface under attack (issue 28, docs/reliability.md): votecl batch's --out,
# list files, videos and the memory budget, and the JPEG and HOG messages. Each check is one
# finding of the issue, which it failed before the fix:
#   item 3   --out naming an input (by name, hard link, list file) is refused, input intact
#   item 5   sizes over the memory budget refused from the header (images, videos), in the
#            single commands and batch alike; --memory-budget moves the bound; the GHT's
#            pairings refused by the library's memory limit (the budget)
#   item 6   a FIFO video, a FIFO, /dev/zero or /dev/urandom list, an overlong list line:
#            refused at once, no hang
#   item 7   --out locked against a second run; a rerun with other options or another
#            algorithm refused, the file unchanged; a video that yields no frame gets an
#            "error" record
#   item 11  batch DIR takes .jpg; hog --descriptors - refused; CMYK and huge progressive
#            JPEG messages; FFmpeg's log silent under -q
# Every run is bounded in time (HOSTILE_SECONDS, 20) and in memory (ulimit -v
# HOSTILE_MEMORY_KB, 262144 as tests/hostile/run.sh; none under AddressSanitizer), on the
# reference backend (HOSTILE_BACKEND to change).
#
#   tests/hostile/batch.sh [--tap ...]      (from make check; arguments ignored)
set -u
. "$(dirname "$0")/common.sh"
hostile_need_python
if nm -D "$votecl" 2>/dev/null | grep -q __asan_init || ldd "$votecl" 2>/dev/null | grep -q asan
then
    memory_kb=unlimited
    seconds=$((seconds * 3))
fi
VOTECL_BACKEND=${HOSTILE_BACKEND:-ref}
export VOTECL_BACKEND
tmp=$(mktemp -d "${TMPDIR:-/tmp}/votecl-hostile-batch-XXXXXX") || exit 99
[ "${HOSTILE_KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99
mkdir in
python3 "$srcdir/hostile/gen.py" in || { echo "Bail out! gen.py failed"; exit 99; }
cp in/png-good-16x12 a.png
cp in/pgm-good b.pgm
video=no
"$votecl" batch --features 2>/dev/null | grep -q '^video yes' && video=yes

n=0
failed=0
# v ARGS...: votecl under the time and memory bounds; rc, out, err
v() {
    timeout -k 5 "$seconds" sh -c '[ "$0" = unlimited ] || ulimit -v "$0"; exec "$@"' \
        "$memory_kb" "$votecl" "$@" > out 2> err < /dev/null
    rc=$?
}
# result NAME WHY: one TAP line (WHY empty: ok; a sanitizer report in the last run's stderr
# fails it too)
result() {
    n=$((n + 1))
    why=$2
    if [ -z "$why" ] && grep -q 'Sanitizer\|runtime error' err 2>/dev/null; then
        why="sanitizer report"
    fi
    hostile_tap "$1" "$why" err 4
}
# expect NAME RC PATTERN: the last run exited RC and its stderr matches PATTERN
expect() {
    why=
    case $rc in 124 | 137) why="hung (over $seconds s)" ;; esac
    [ -z "$why" ] && [ "$rc" != "$2" ] && why="exit $rc, not $2"
    [ -z "$why" ] && [ -n "$3" ] && ! grep -q -- "$3" err && why="stderr lacks '$3'"
    result "$1" "$why"
}
# same FILE SUM: FILE's checksum is still SUM
same() {
    [ "$(cksum < "$1")" = "$2" ] && echo || echo "$1 changed"
}
# record_count FILE: the lines of FILE
lines() {
    wc -l < "$1" | tr -d ' '
}

# --- item 3: --out never names an input ---
sum=$(cksum < a.png)
v batch hist a.png b.pgm --out a.png
expect "batch --out = an input: refused" 2 "is an input"
result "batch --out = an input: input intact" "$(same a.png "$sum")"
v batch hist a.png b.pgm --out a.png --overwrite
expect "batch --out = an input --overwrite: refused" 2 "is an input"
result "batch --out = an input --overwrite: input intact" "$(same a.png "$sum")"
ln a.png hard.jsonl
v batch hist a.png --out hard.jsonl --overwrite
expect "batch --out = a hard link of an input: refused" 2 "is an input"
result "batch --out = a hard link of an input: input intact" "$(same a.png "$sum")"
mkdir dir
cp a.png dir/c.png
printf '%s\n' "$tmp/dir" > list.txt
lsum=$(cksum < list.txt)
v batch hist --list list.txt --out list.txt --overwrite
expect "batch --out = the --list file: refused" 2 "is an input"
result "batch --out = the --list file: intact" "$(same list.txt "$lsum")"
csum=$(cksum < dir/c.png)
v batch hist dir --out dir/c.png --overwrite
expect "batch --out = a file of an input directory: refused" 2 "is an input"
result "batch --out = a file of an input directory: intact" "$(same dir/c.png "$csum")"

# --- item 6: nothing blocks, nothing grows without bound ---
mkfifo fifo fifo.mp4
v batch hist fifo.mp4 -q
expect "batch FIFO.mp4: no hang" 0 ""
grep -q '"error":.*not a regular file' out
result "batch FIFO.mp4: an error record" "$([ $? = 0 ] || echo 'no error record')"
v batch hist --video fifo -q
expect "batch --video FIFO: no hang" 0 ""
for list in fifo /dev/zero /dev/urandom; do
    v batch hist --list "$list"
    expect "batch --list $list: refused at once" 1 "not a regular file"
done
python3 -c 'print("x" * 5000)' > long.txt
v batch hist --list long.txt
expect "batch --list with a 5000-byte line: refused" 1 "longer than"

# --- item 7: one writer, one set of options, a record for every item ---
v batch hist --bins 16 a.png b.pgm --out o.jsonl -q
osum=$(cksum < o.jsonl)
v batch hist --bins 256 a.png b.pgm dir --out o.jsonl -q
expect "batch resume with other options: refused" 1 "not made by"
result "batch resume with other options: --out unchanged" "$(same o.jsonl "$osum")"
v batch hough a.png b.pgm dir --out o.jsonl -q
expect "batch resume by another algorithm: refused" 1 "not made by"
result "batch resume by another algorithm: --out unchanged" "$(same o.jsonl "$osum")"
v batch hist --bins=16 a.png b.pgm dir --out o.jsonl -q
expect "batch resume with the same options (--bins=16): continues" 0 ""
result "batch resume with the same options: one record more" \
    "$([ "$(lines o.jsonl)" = 3 ] || echo "$(lines o.jsonl) records")"
python3 - o.jsonl > locked 2>&1 <<'EOF' &
import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(30)
EOF
holder=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q locked locked 2>/dev/null && break; sleep 1; done
osum=$(cksum < o.jsonl)
v batch hist --bins 16 a.png b.pgm dir --out o.jsonl --overwrite -q
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
expect "batch --out locked by another run: refused" 1 "locked"
result "batch --out locked by another run: unchanged" "$(same o.jsonl "$osum")"

if [ "$video" = yes ]; then
    # a video FFmpeg opens that holds no frame, and one whose frames are all before --start
    printf 'YUV4MPEG2 W16 H16 F25:1 Ip A1:1 Cmono\n' > empty.y4m
    { printf 'YUV4MPEG2 W16 H16 F25:1 Ip A1:1 Cmono\n'
      for _ in 1 2; do printf 'FRAME\n'; head -c 256 /dev/zero; done; } > two.y4m
    v batch hist empty.y4m -q
    expect "batch video without a frame: exit 0" 0 ""
    grep -q '"source":"empty.y4m".*"error":.*no frame' out
    result "batch video without a frame: an error record" "$([ $? = 0 ] || echo 'no record')"
    v batch hist two.y4m --start 1000 -q
    grep -q '"source":"two.y4m".*"error":.*no frame in the range' out
    result "batch video with no frame in the range: an error record" \
        "$([ $? = 0 ] || echo 'no record')"
    v batch hist two.y4m -q
    result "batch video of two frames: two records" \
        "$([ "$(lines out)" = 2 ] && ! grep -q error out || echo "$(lines out) records")"
    # item 5: a video's frame size checked against the budget before decoding
    { printf 'YUV4MPEG2 W16000 H16000 F25:1 Ip A1:1 Cmono\n'; printf 'FRAME\n'; } > huge.y4m
    v batch hist huge.y4m -q
    expect "batch 16000x16000 video: exit 0" 0 ""
    grep -q '"error":.*memory budget' out
    result "batch 16000x16000 video: refused from its header" "$([ $? = 0 ] || echo 'no refusal')"
    # item 11: FFmpeg's own log lines are silent under -q
    head -c 4096 in/binary-noise > noise.mp4
    v batch hist noise.mp4 -q
    result "batch -q: no FFmpeg log line" "$([ ! -s err ] || echo 'stderr not empty')"
fi

# --- item 5: the memory budget, from the header, in the single commands and batch ---
for cmd in "vote --source $tmp/vote.cl" hough lines hist; do
    printf 'uint vote_index(uint space, uint index, VALUE_T value, uint nbins) { return 0; }\n' \
        > vote.cl
    # shellcheck disable=SC2086
    v $cmd in/png-bomb-46340
    expect "${cmd%% *} 46340x46340 PNG bomb: refused from its header" 1 "memory budget"
done
v batch hist in/png-bomb-46340 -q
grep -q '"error":.*memory budget' out
result "batch hist 46340x46340 PNG bomb: refused from its header" \
    "$([ $? = 0 ] || echo 'no refusal')"
v batch hog in/png-bomb-46340 -q
grep -q '"error":.*this command takes sides up to' out
result "batch hog 46340x46340 PNG bomb: the single command's side limit" \
    "$([ $? = 0 ] || echo 'no refusal')"
# batch's workers share the budget; --preload holds every image within it
mkdir many
python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import gen
open("many/m00.png", "wb").write(gen.png(1024, 1024, idat=gen.bomb_idat(1024, 1024, 8, 1)))
open("big.png", "wb").write(gen.png(2048, 2048, idat=gen.bomb_idat(2048, 2048, 8, 1)))' \
    "$srcdir/hostile"
for k in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19; do
    cp many/m00.png "many/m$k.png"
done
# 2048 x 2048 gray: 4 Mpixels x (1 + hist's 4) bytes = 21 MB
v hist big.png --memory-budget 32
expect "hist --memory-budget 32: a 2048x2048 image fits" 0 ""
v batch hist --streams 1 --memory-budget 32 big.png -q
result "batch, 1 worker: the same image fits" "$(! grep -q error out || echo 'refused')"
v batch hist --streams 2 --memory-budget 32 big.png -q
grep -q '"error":.*shared by 2 workers' out
result "batch, 2 workers: each has half the budget" "$([ $? = 0 ] || echo 'not refused')"
v batch hist --preload --streams 1 --memory-budget 16 many -q
expect "batch --preload: 20 MB of images over a 16 MB budget refused" 1 "preload.*memory budget"
v hist a.png --memory-budget 16
expect "hist --memory-budget 16: a small image still fits" 0 ""
v hist in/png-bomb-rgba-4096 --memory-budget 16
expect "hist --memory-budget 16: a 4096x4096 RGBA image is over it" 1 "memory budget of 16 MB"
# the GHT's pairings, the rest of item 5: a valid 18 KB image of rings (117 M pairings: 5.6
# GB on PoCL before) is refused by the library's memory limit, which is the budget, before
# its pairings are allocated, in the single command and in batch; the peak resident memory
# (/usr/bin/time, where present and not under a sanitizer) stays under 512 MB
rss_kb=
if [ -x /usr/bin/time ] && [ "$memory_kb" != unlimited ]; then
    timeout -k 5 "$seconds" sh -c 'ulimit -v "$0" && exec "$@"' "$memory_kb" /usr/bin/time \
        -f %M -o rss "$votecl" ght in/png-ght-ring-48 in/png-ght-rings-1024 > out 2> err \
        < /dev/null
    rc=$?
    rss_kb=$(tail -n 1 rss)
else
    v ght in/png-ght-ring-48 in/png-ght-rings-1024
fi
expect "ght: 117 M pairings over the budget: refused by the library" 1 \
    "over the memory limit of .* MB (params.memory_limit) (--memory-budget MB raises it)"
if [ -n "$rss_kb" ]; then
    result "ght: 117 M pairings: peak RSS $rss_kb KB <= 512 MB" \
        "$([ "$rss_kb" -le 524288 ] || echo "$rss_kb KB")"
fi
# (address space 4 times the budget: the refusal is the library's, from --memory-budget; a
# tighter ulimit makes whichever allocation comes first fail, by the process's own mappings,
# which grow with the machine's cores)
budget_kb=$memory_kb
[ "$memory_kb" = unlimited ] || memory_kb=$((memory_kb * 4))
v batch ght --template in/png-ght-ring-48 in/png-ght-rings-1024 -q
memory_kb=$budget_kb
grep -q '"error":.*over the memory limit' out
result "batch ght: 117 M pairings over the budget: an error record" \
    "$([ $? = 0 ] || echo 'no refusal')"
v ght in/png-ght-ring-48 in/png-ght-ring-48 --max 1
expect "ght: the ring in itself: within the budget" 0 ""

# --- item 11: messages and streams ---
if [ -r "$srcdir/../tools/images/astronaut.jpg" ]; then
    mkdir jdir
    cp "$srcdir/../tools/images/astronaut.jpg" jdir/x.jpg
    cp "$srcdir/../tools/images/astronaut.jpg" jdir/y.JPEG
    v batch hist jdir -q
    result "batch DIR takes .jpg and .jpeg" \
        "$([ "$(grep -c '"source":"jdir/[xy]' out)" = 2 ] || echo "$(lines out) records")"
fi
v hog a.png --descriptors -
expect "hog --descriptors -: refused (stdout carries the report)" 2 "standard output"
v hist in/jpeg-cmyk
expect "CMYK JPEG: a clear message" 1 "CMYK colour is not supported"
v hist in/jpeg-progressive-12000
expect "12000x12000 progressive JPEG: refused before libjpeg's backing store" 1 "memory budget"

echo "1..$n"
echo "# hostile batch: $n checks, $failed failed (video $video)"
[ "$failed" = 0 ]
