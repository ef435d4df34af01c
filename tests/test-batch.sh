#!/bin/sh
# votecl batch against single-image runs, MPI ranks against one process, and a killed run
# resumed against an uninterrupted one. TAP output; make check runs it through tests/tap-test
# (whose --tap -k arguments are ignored here). Needs python3 (to compare JSON) and a device;
# the video cases need a votecl built with FFmpeg and the ffmpeg program, the MPI cases a
# votecl built with MPI and mpirun: each missing piece is a skip.
set -u

builddir=${VOTECL_TEST_BUILDDIR:-$(dirname "$0")}
VOTECL=${VOTECL:-$builddir/../tools/votecl}
work=$(mktemp -d "${TMPDIR:-/tmp}/votecl-batch.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { if "$@" >"$work/check.log" 2>&1; then ok "$desc"; else sed 's/^/# /' "$work/check.log"; not_ok "$desc"; fi; }

if ! command -v python3 >/dev/null 2>&1; then
    skip "python3 missing"
    echo "1..$n"
    exit 0
fi

# Records without what differs between runs (time, the worker and rank that did them).
cat >"$work/compare.py" <<'EOF'
import json, sys

def records(path):
    out = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            for k in ("seconds", "worker", "rank"):
                r.pop(k, None)
            out.append(r)
    return out

def same_files(a, b):
    ra, rb = records(a), records(b)
    if ra != rb:
        print("%s: %d records, %s: %d" % (a, len(ra), b, len(rb)))
        for i, (x, y) in enumerate(zip(ra, rb)):
            if x != y:
                print("first difference at record %d:\n%s\n%s" % (i + 1, x, y))
                break
        return 1
    return 0 if ra else 1

# batch records against single-image outputs: both have the shared JSON header (schema 2); the
# record's command, parameters and every key of its results equal the single run's (whose
# results may carry more: its time, its plan).
def against_singles(batch, singles):
    rs = records(batch)
    names = [l.strip() for l in open(singles)]
    if len(rs) != len(names):
        print("%d records, %d single runs" % (len(rs), len(names)))
        return 1
    for r, name in zip(rs, names):
        if "results" not in r:
            print("record without results: %s" % r)
            return 1
        single = json.load(open(name))
        for k in ("schema", "command", "backend", "device", "parameters"):
            if r.get(k) != single.get(k):
                print("%s: %s: batch %s, single %s" % (r["source"], k, r.get(k), single.get(k)))
                return 1
        shape = lambda d: [{k: v for k, v in i.items() if k != "path"} for i in d["inputs"]]
        if shape(r) != shape(single)[-1:]:
            print("%s: inputs: batch %s, single %s" % (r["source"], r["inputs"], single["inputs"]))
            return 1
        for k, v in r["results"].items():
            if single["results"].get(k) != v:
                print("%s: %s: batch %s, single %s" % (r["source"], k, v, single["results"].get(k)))
                return 1
    return 0

if sys.argv[1] == "same":
    sys.exit(same_files(sys.argv[2], sys.argv[3]))
sys.exit(against_singles(sys.argv[2], sys.argv[3]))
EOF

# Seeded images: a few bright straight lines on a dark, lightly noisy background; img5 and
# img6 in colour (PPM: batch uploads colour frames as they are for lines).
mkdir -p "$work/images"
python3 - "$work/images" <<'EOF'
import math, random, sys
random.seed(18)
for k in range(7):
    w, h = 96 + 8 * k, 72 + 4 * k
    px = bytearray(random.randrange(0, 30) for _ in range(w * h))
    for _ in range(3):
        t, r = random.uniform(0, math.pi), random.uniform(10, min(w, h) / 2)
        c, s = math.cos(t), math.sin(t)
        for y in range(h):
            for x in range(w):
                if abs(x * c + y * s - r) < 1.0:
                    px[y * w + x] = 230
    if k >= 5:
        rgb = bytes(c for v in px for c in (v, v * 3 // 4, random.randrange(0, 256)))
        with open("%s/img%d.ppm" % (sys.argv[1], k), "wb") as f:
            f.write(b"P6\n%d %d\n255\n" % (w, h) + rgb)
        continue
    with open("%s/img%d.pgm" % (sys.argv[1], k), "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h) + bytes(px))
EOF

# A missing device is a skip, never a pass.
if ! "$VOTECL" lines "$work/images/img0.pgm" --json >/dev/null 2>"$work/probe"; then
    if grep -qi 'device\|backend' "$work/probe"; then
        for i in 1 2 3 4 5 6 7 8 9 10 11 12 13; do skip "no device: $(head -n 1 "$work/probe")"; done
        exit 0
    fi
fi

# 1-4: a directory of images equals votecl ALGO IMAGE --json, image by image.
for algo in lines hough hist circles; do
    desc="batch $algo over images equals single $algo runs"
    : >"$work/singles-$algo"
    for f in "$work"/images/*.p?m; do
        "$VOTECL" "$algo" "$f" --json >"$f.$algo.json" 2>>"$work/err" &&
            echo "$f.$algo.json" >>"$work/singles-$algo"
    done
    "$VOTECL" batch "$algo" -q "$work/images" --out "$work/$algo.jsonl" 2>>"$work/err"
    check python3 "$work/compare.py" singles "$work/$algo.jsonl" "$work/singles-$algo"
done

# 5: HOG (colour, a model loaded once per worker) over two shipped photographs of people.
images=${VOTECL_TEST_SRCDIR:-$(dirname "$0")}/../tools/images
desc="batch hog over photographs equals single hog runs"
mkdir -p "$work/people"
cp "$images/pic1.png" "$images/basketball1.png" "$work/people/"
: >"$work/singles-hog"
for f in "$work"/people/*.png; do
    "$VOTECL" hog "$f" --json >"$f.json" 2>>"$work/err" && echo "$f.json" >>"$work/singles-hog"
done
# the memory budget is shared by batch's workers (docs/reliability.md): a machine with more
# devices has more of them, so the budget is set so that every photograph fits on any
"$VOTECL" batch hog -q --memory-budget 4096 "$work/people" --out "$work/hog.jsonl" \
    2>>"$work/err"
check python3 "$work/compare.py" singles "$work/hog.jsonl" "$work/singles-hog"

# 6: a video's frames (every 2nd of 1 s) equal single runs on the frames batch decoded.
features=$("$VOTECL" batch --features)
video=0
if echo "$features" | grep -qx 'video yes' && command -v ffmpeg >/dev/null 2>&1 &&
    ffmpeg -v error -y -f lavfi -i testsrc=size=96x64:rate=10 -t 1 -pix_fmt yuv420p \
        -c:v mpeg4 -q:v 3 "$work/clip.avi" 2>>"$work/err"; then
    video=1
    desc="batch lines over a video equals single lines runs on its frames"
    mkdir -p "$work/frames"
    "$VOTECL" batch lines -q "$work/clip.avi" --every 2 --frames "$work/frames" \
        --out "$work/video.jsonl" 2>>"$work/err"
    : >"$work/singles-video"
    for f in "$work"/frames/*.pgm; do
        "$VOTECL" lines "$f" --json >"$f.json" 2>>"$work/err" && echo "$f.json" >>"$work/singles-video"
    done
    check python3 "$work/compare.py" singles "$work/video.jsonl" "$work/singles-video"
else
    skip "no video: votecl without FFmpeg or no ffmpeg program"
fi

# The collection of the MPI and resume cases: the images, the video when there is one.
inputs="$work/images"
test $video = 1 && inputs="$inputs $work/clip.avi"
# shellcheck disable=SC2086
"$VOTECL" batch lines -q $inputs --out "$work/whole.jsonl" 2>>"$work/err"

# 7-8: 2 and 3 MPI ranks write what one process writes.
if echo "$features" | grep -qx 'mpi yes' && command -v mpirun >/dev/null 2>&1; then
    for np in 2 3; do
        desc="batch lines under mpirun -np $np equals one process"
        # shellcheck disable=SC2086
        # Open MPI keeps memory to the end: leak reports of a sanitizer build are not ours;
        # containers often forbid the cross-memory attach of its shared-memory transport
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" OMPI_MCA_btl_vader_single_copy_mechanism=none \
        mpirun --oversubscribe --allow-run-as-root -np $np "$VOTECL" batch lines -q --streams 1 \
            $inputs --out "$work/mpi$np.jsonl" >>"$work/err" 2>&1
        check python3 "$work/compare.py" same "$work/whole.jsonl" "$work/mpi$np.jsonl"
    done
else
    skip "no MPI: votecl without Open MPI or no mpirun"
    skip "no MPI: votecl without Open MPI or no mpirun"
fi

# 9: a run cut in the middle of a record (half the records and half a line) resumes to the
# uninterrupted output.
desc="a run cut halfway and resumed equals an uninterrupted run"
total=$(wc -l <"$work/whole.jsonl")
half=$((total / 2))
head -n "$half" "$work/whole.jsonl" >"$work/cut.jsonl"
sed -n "$((half + 1))p" "$work/whole.jsonl" | cut -c1-40 | tr -d '\n' >>"$work/cut.jsonl"
# shellcheck disable=SC2086
"$VOTECL" batch lines -q $inputs --out "$work/cut.jsonl" 2>>"$work/err"
check python3 "$work/compare.py" same "$work/whole.jsonl" "$work/cut.jsonl"

# 10: a run killed (SIGKILL) in the middle, then resumed, equals an uninterrupted run. The tool
# reads only regular files (a named pipe cannot hold a run at a chosen record), so the run goes
# over 400 items and is killed as soon as 3 records are on disk; the record count at the kill
# is reported, and a kill that came after the last record fails the test rather than passing
# it. (60 items were too few once PClines' fit got faster: a run on a loaded 2-core host
# ended between two polls.)
desc="a run killed by SIGKILL and resumed equals an uninterrupted run"
for r in $(seq 80); do for k in 0 1 2 3 4; do echo "$work/images/img$k.pgm"; done; done \
    >"$work/kill-list"
total=$(wc -l <"$work/kill-list")
"$VOTECL" batch lines -q --list "$work/kill-list" --out "$work/kill-whole.jsonl" 2>>"$work/err"
lines() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }
"$VOTECL" batch lines -q --list "$work/kill-list" --out "$work/killed.jsonl" 2>>"$work/err" &
pid=$!
i=0
while [ "$(lines "$work/killed.jsonl")" -lt 3 ] && [ $i -lt 1200 ]; do
    sleep 0.02
    i=$((i + 1))
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
killed_at=$(lines "$work/killed.jsonl")
echo "# killed with $killed_at of $total records written"
if [ "$killed_at" -ge "$total" ]; then
    not_ok "$desc (the run ended before the kill)"
else
    "$VOTECL" batch lines -q --list "$work/kill-list" --out "$work/killed.jsonl" 2>>"$work/err"
    check python3 "$work/compare.py" same "$work/kill-whole.jsonl" "$work/killed.jsonl"
fi

# 11: an output of another collection is refused, not continued.
desc="resuming an output of another collection fails"
head -n 2 "$work/hough.jsonl" >"$work/other.jsonl"
if "$VOTECL" batch lines -q "$work/images/img4.pgm" --out "$work/other.jsonl" 2>/dev/null; then
    not_ok "$desc"
else
    ok "$desc"
fi

# 12: an unreadable image gives an error record in its place and the run goes on.
desc="an unreadable image is an error record in its place"
printf 'P5\n10 10\n255\nshort' >"$work/bad.pgm"
printf '%s\n%s\n' "$work/bad.pgm" "$work/images/img0.pgm" >"$work/list"
"$VOTECL" batch lines -q --list "$work/list" --out "$work/bad.jsonl" 2>>"$work/err"
check python3 -c "
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(not (len(r) == 2 and 'error' in r[0] and 'results' in r[1]))" "$work/bad.jsonl"

# 13: --annotate draws each record's results, one picture per record.
desc="--annotate writes one picture per record"
mkdir -p "$work/annotated"
"$VOTECL" batch lines -q "$work/images" --annotate "$work/annotated" --out "$work/annotated.jsonl" \
    2>>"$work/err"
check test "$(ls "$work/annotated" | grep -c '^00000[0-4]\.png$')" = 5

# 14: --every and the time range keep the frames asked for (10 frames a second).
desc="--every 2 --start 0.3 --end 0.8 keeps frames 4 and 6"
if [ $video = 1 ]; then
    "$VOTECL" batch lines -q "$work/clip.avi" --every 2 --start 0.3 --end 0.8 \
        --out "$work/range.jsonl" 2>>"$work/err"
    check python3 -c "
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
got = [(x['frame'], round(x['timestamp'], 3)) for x in r]
print(got)
sys.exit(got != [(4, 0.4), (6, 0.6)])" "$work/range.jsonl"
else
    skip "no video"
fi

# the plan last: the loops above run one test per algorithm that has a batch case
echo "1..$n"
if [ $failed != 0 ]; then
    sed 's/^/# /' "$work/err"
fi
exit 0
