#!/bin/sh
# The votecl tool's conventions and the data-loss fixes of issue 16 (items 1-4, 18) and
# issue 15 (item 4), one TAP line each; on the 'ref' backend (no device needed).
#
#   tests/tool-cli.sh [--tap ...]      (from make check; arguments ignored)
set -u
builddir=${VOTECL_TEST_BUILDDIR:-$(pwd)/tests}/..
votecl=$builddir/tools/votecl
VOTECL_BACKEND=ref
export VOTECL_BACKEND
if ! command -v python3 > /dev/null 2>&1; then
    echo "1..0 # SKIP python3 missing"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/votecl-cli-XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 99

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
    [ -f err ] && sed 's/^/# /' err | head -n 5
}
# check NAME EXPECTED-STATUS COMMAND...: runs it (stdout to out, stderr to err)
check() {
    name=$1 want=$2
    shift 2
    "$@" > out 2> err
    rc=$?
    if [ "$rc" = "$want" ]; then ok "$name (exit $rc)"; else not_ok "$name: exit $rc, want $want"; fi
}
same() { if cmp -s "$1" "$2"; then ok "$3"; else not_ok "$3"; fi; }

# a 64x128 gray image (one HOG window) and a 24x16 template cut from it, as PGM
python3 - <<'PY' || exit 99
w, h = 64, 128
px = bytes(((x * 7 + y * 3) ^ (40 if 20 < x < 44 and 30 < y < 100 else 0)) & 0xff
           for y in range(h) for x in range(w))
open("a.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, h) + px)
t = bytes(px[(y + 14) * w + x + 8] for y in range(40) for x in range(40))
open("t.pgm", "wb").write(b"P5\n40 40\n255\n" + t)
PY
cp a.pgm a.orig

# --- item 1: an output naming the input is refused (exit 2), the input unchanged ---
# refused: exit 2 and the message says why
refused() {
    check "$@"
    grep -q 'is an input' err || not_ok "$1: the message names the input"
}
refused "hist --plot INPUT" 2 "$votecl" hist a.pgm --plot a.pgm
refused "hough --out INPUT" 2 "$votecl" hough a.pgm --out a.pgm
refused "hough --accumulator INPUT" 2 "$votecl" hough a.pgm --accumulator a.pgm
refused "lines --out INPUT" 2 "$votecl" lines a.pgm --out a.pgm
refused "lines --space INPUT" 2 "$votecl" lines a.pgm --space a.pgm
refused "hog --out INPUT" 2 "$votecl" hog a.pgm --out a.pgm
refused "ght --out TEMPLATE" 2 "$votecl" ght t.pgm a.pgm --out t.pgm
refused "circles --out INPUT" 2 "$votecl" circles a.pgm --out a.pgm
refused "edges --out INPUT" 2 "$votecl" edges a.pgm --out a.pgm
ln a.pgm hard-link.pgm
refused "hist --plot a hard link of the input" 2 "$votecl" hist a.pgm --plot hard-link.pgm
same a.pgm a.orig "the input survived every attempt"

# --- item 2: a failed write leaves the previous file whole ---
"$votecl" hist a.pgm --plot plot.png > /dev/null 2>&1 && cp plot.png plot.orig
( trap '' XFSZ; ulimit -f 1; exec "$votecl" hist a.pgm --bins 256 --plot plot.png ) > /dev/null 2> err
rc=$?
if [ "$rc" = 1 ]; then ok "write beyond ulimit -f: exit 1"; else not_ok "write beyond ulimit -f: exit $rc"; fi
same plot.png plot.orig "the previous plot is whole after the failed write"
if ls -A | grep -q '^\.votecl-out-'; then not_ok "temporary left behind"; else ok "no temporary left"; fi

# --- item 3: demo --out equal to --images ---
mkdir d
cp a.pgm d/a.pgm && cp a.pgm d/a-gray.png.pgm && cp -r d d.orig
check "demo --out = --images" 2 "$votecl" demo --images d --out d
if diff -r d d.orig > /dev/null; then ok "demo inputs unchanged"; else not_ok "demo inputs changed"; fi

# --- item 4 and issue 15: write errors on standard output ---
if [ -w /dev/full ]; then
    "$votecl" hist a.pgm > /dev/full 2> err
    rc=$?
    if [ "$rc" = 1 ] && grep -q 'write error' err; then ok "hist > /dev/full: exit 1"; else not_ok "hist > /dev/full: exit $rc"; fi
    "$votecl" --json hist a.pgm > /dev/full 2> err
    rc=$?
    if [ "$rc" = 1 ]; then ok "hist --json > /dev/full: exit 1"; else not_ok "hist --json > /dev/full: exit $rc"; fi
fi

# --- item 18: demo with an output path beyond PATH_MAX says so, no garbage ---
# a directory whose name is 4090 bytes: it exists, the files in it cannot be named
long=$tmp
while [ $((${#long} + 251)) -lt 4090 ]; do
    long=$long/$(printf '%0250d' 0)
done
long=$long/$(printf "%0$((4090 - ${#long} - 1))d" 0)
mkdir -p "$long" || not_ok "mkdir of a 4090-byte path"
mkdir d2 && cp a.pgm d2/x.pgm
"$votecl" demo --images d2 --out "$long" > /dev/null 2> err
rc=$?
if [ "$rc" = 1 ] && grep -q 'path too long\|name too long\|cannot create' err && ! LC_ALL=C grep -q '[^[:print:][:space:]]' err
then ok "demo with a long --out: a clear message"; else not_ok "demo with a long --out: exit $rc"; fi

# --- issue 15: --version, --, -, exit codes, JSON ---
check "--version" 0 "$votecl" --version
grep -q '^votecl [0-9]' out && ok "--version names the version" || not_ok "--version output"
cp a.pgm ./-dash.pgm
check "hist -- -dash.pgm" 0 "$votecl" hist --bins 4 -- -dash.pgm
check "hist - (standard input)" 0 sh -c '"$0" hist --bins 4 - < a.pgm' "$votecl"
"$votecl" hist a.pgm --plot - > plot-stdout 2> err
if python3 -c 'import sys; sys.exit(b"\x89PNG\r\n" not in open("plot-stdout", "rb").read())'
then ok "--plot - writes PNG to standard output"
else not_ok "--plot - writes PNG to standard output"; fi
[ -e ./- ] && not_ok "a file named - was written" || ok "no file named -"
# --mask: the counts of the pixels under a nonzero mask byte only (calcHist's mask), a mask
# of another size refused
python3 - <<'PYEOF'
w, h = 64, 128
open("m.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, h) + bytes(255 if (x < 5 and y < 4) else 0 for y in range(h) for x in range(w)))
open("m-small.pgm", "wb").write(b"P5\n2 2\n255\n" + bytes(4))
PYEOF
"$votecl" hist a.pgm --bins 1 --mask m.pgm > out 2> err
grep -qx '0 20' out && ok "hist --mask counts the 20 masked pixels" || not_ok "hist --mask: $(tail -1 out)"
check "hist --mask of another size: 2" 2 "$votecl" hist a.pgm --mask m-small.pgm
# --joint: one N-D histogram of every channel (a colour image: 2 x 2 x 2 bins, its counts those
# of the pixels' octants), masked too; --joint with --plot refused
python3 - <<'PYEOF'
w, h = 64, 128
px = bytes(v for y in range(h) for x in range(w) for v in ((x * 4) & 255, (y * 2) & 255, 200))
open("c.ppm", "wb").write(b"P6\n%d %d\n255\n" % (w, h) + px)
PYEOF
"$votecl" hist c.ppm --joint --bins 2 > out 2> err
# red < 128 for x < 32, green < 128 for y < 64, blue 200 always in the upper half: bins 1, 3, 5, 7
if [ "$(grep -v '^#' out | tr '\n' ' ')" = "0 0 1 2048 2 0 3 2048 4 0 5 2048 6 0 7 2048 " ]
then ok "hist --joint: a 2x2x2 histogram of a colour image"; else not_ok "hist --joint: $(tr '\n' ' ' < out)"; fi
"$votecl" hist c.ppm --joint --bins 2 --mask m.pgm > out 2> err
grep -qx '1 20' out && ok "hist --joint --mask" || not_ok "hist --joint --mask: $(tr '\n' ' ' < out)"
check "hist --joint --plot: 2" 2 "$votecl" hist c.ppm --joint --plot p.png
# --edges: uneven bins (red = 4 x column: 25 columns below 100, 39 from 100 on, 128 rows each)
"$votecl" hist c.ppm --channel 0 --edges 0,100,256 > out 2> err
[ "$(grep -v '^#' out | tr '\n' ' ')" = "0 3200 1 4992 " ] && ok "hist --edges: uneven bins" ||
    not_ok "hist --edges: $(tr '\n' ' ' < out)"
check "hist --edges not increasing: 2" 2 "$votecl" hist c.ppm --edges 100,0
check "hist --edges with --min: 2" 2 "$votecl" hist c.ppm --edges 0,1 --min 0
check "unknown option: 2" 2 "$votecl" hist a.pgm --no-such-option
check "bad value checked by the tool: 2" 2 "$votecl" hist a.pgm --bins x
check "bad value checked by the library: 2" 2 "$votecl" lines a.pgm --window 4
grep -q 'invalid argument: neighbourhood' err || not_ok "the library's message"
check "missing file: 1" 1 "$votecl" hist no-such.pgm

bad=$(printf 'bad-\377\376-name.pgm')
cp a.pgm "$bad"
"$votecl" --json hist --bins 4 "$bad" > out.json 2> err
if python3 -c 'import json,sys; d=json.load(open("out.json")); assert "\ufffd" in d["inputs"][0]["path"]'
then ok "JSON with a non-UTF-8 file name parses"; else not_ok "JSON with a non-UTF-8 file name"; fi

# One JSON shape for every subcommand (schema 2, docs/man/votecl.1 JSON OUTPUT): the header
# (schema, votecl, library, command, backend, device, inputs with each image's size), then
# "parameters" and "results" and nothing else at the top (votecl batch's records add their
# own keys); no key twice in an object; "edges" a count wherever it appears.
cat > shape.py <<'PY'
import json, sys
HEADER = ("schema", "votecl", "library", "command", "backend", "device", "inputs")
RECORD = {"source", "frame", "batch", "timestamp", "seconds", "worker", "rank"}

def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), "duplicate key: %s" % keys
    return dict(pairs)

def edges_are_counts(v, where):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "edges":
                assert isinstance(x, int) and not isinstance(x, bool), "%s.edges: %r" % (where, x)
            edges_are_counts(x, where + "." + k)
    elif isinstance(v, list):
        for x in v:
            edges_are_counts(x, where)

def check(d, command, extra=()):
    for k in HEADER + ("parameters", "results"):
        assert k in d, "no %s" % k
    assert set(d) <= set(HEADER) | {"parameters", "results"} | set(extra), sorted(d)
    assert d["schema"] == 2 and d["command"] == command, (d["schema"], d["command"])
    assert isinstance(d["votecl"], str) and isinstance(d["library"], str)
    assert isinstance(d["backend"], str) and isinstance(d["device"], str)
    for i in d["inputs"]:
        assert set(i) == {"path", "width", "height", "channels", "dtype"}, i
        assert isinstance(i["width"], int) and isinstance(i["height"], int)
    assert isinstance(d["parameters"], dict) and isinstance(d["results"], dict)
    edges_are_counts(d, command)

command, path = sys.argv[1], sys.argv[2]
text = open(path).read()
if command.startswith("batch "):
    lines = text.splitlines()
    assert lines
    for line in lines:
        r = json.loads(line, object_pairs_hook=no_duplicates)
        check(r, command.split()[1], RECORD)
        assert len(r["inputs"]) == 1 and r["inputs"][0]["path"] == r["source"]
else:
    d = json.loads(text, object_pairs_hook=no_duplicates)
    check(d, command)
    images = int(sys.argv[3])  # -1: what the command reads itself (the shipped images)
    assert images < 0 or len(d["inputs"]) == images, d["inputs"]
PY
shape() { # shape NAME COMMAND IMAGES FILE: FILE holds COMMAND's JSON with IMAGES images read
    if python3 shape.py "$2" "$4" "$3" > err 2>&1; then ok "JSON shape: $1"; else not_ok "JSON shape: $1"; fi
}
mkdir -p batch-in && cp a.pgm batch-in/
for c in "hist a.pgm" "hough a.pgm" "lines a.pgm" "hog a.pgm" "ght t.pgm a.pgm" "circles a.pgm" \
    "edges a.pgm" "edges --sobel 1,0 a.pgm" "info" \
    "warmup" "eval lines --family single-8conn --cases 1"; do
    "$votecl" --json $c > out.json 2> err
    set -- $c
    images=$(echo "$c" | grep -o '[a-z]*\.pgm' | wc -l)
    shape "$c" "$1" "$images" out.json
done
python3 -c 'import sys; sys.stdout.buffer.write(b"P5\n32 32\n255\n" + bytes(255 if x == y else 0 for y in range(32) for x in range(32)))' > e.pgm
"$votecl" --json hough --edges none e.pgm > out.json 2> err
shape "hough --edges none" hough 1 out.json
# --segments: every run along a line (issue 26 item 3): row 10 dashed at columns 2-9 and 14-25
python3 -c 'import sys; sys.stdout.buffer.write(b"P5\n32 32\n255\n" + bytes(255 if y == 10 and (2 <= x <= 9 or 14 <= x <= 25) else 0 for y in range(32) for x in range(32)))' > dash.pgm
for gap in 3 4; do
    "$votecl" --json hough --edges none --segments --max-gap $gap --max-lines 1 dash.pgm > out.json 2> err
    if python3 -c '
import json, sys
s = json.load(open("out.json"))["results"]["segments"]
want = [(2, 9), (14, 25)] if sys.argv[1] == "3" else [(2, 25)]
assert sorted((round(min(g["x0"], g["x1"])), round(max(g["x0"], g["x1"]))) for g in s) == want, s
assert all(g["line"] == 0 and round(g["y0"]) == 10 for g in s), s' $gap
    then ok "hough --segments --max-gap $gap: every run"; else not_ok "hough --segments --max-gap $gap"; fi
done
"$votecl" lines --segments --max-gap 3 --max-lines 1 dash.pgm > out 2> err
grep -q '^# [0-9]* segment(s)' out && ok "lines --segments lists the segments" || not_ok "lines --segments"
"$votecl" eval ght --scenes 1 --size 120x90 > out.json 2> err
shape "eval ght" eval -1 out.json
"$votecl" bench --quick --only lines --json out.json > /dev/null 2> err
shape "bench" bench -1 out.json
for algo in hist hough lines hog circles; do
    rm -f out.jsonl
    "$votecl" batch "$algo" -q batch-in --out out.jsonl 2> err
    shape "batch $algo" "batch $algo" 1 out.jsonl
done
rm -f out.jsonl
"$votecl" batch ght --template t.pgm -q batch-in --out out.jsonl 2> err
shape "batch ght" "batch ght" 1 out.jsonl
# the user vote and calibrate run OpenCL C: on an OpenCL device when there is one
printf 'uint vote_index(uint space, uint index, uchar value, uint nbins) { return value %% nbins; }\n' > v.cl
if "$votecl" --backend opencl --json vote --source v.cl --bins 4 a.pgm > out.json 2> err; then
    shape "vote" vote 1 out.json
else
    ok "JSON shape: vote # SKIP no OpenCL device: $(head -n 1 err)"
fi

# JPEG input (an 8x8 gray baseline JPEG), when built with libjpeg
printf '\377\330\377\333\000\103\000\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\001\377\300\000\013\010\000\010\000\010\001\001\021\000\377\304\000\024\000\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\011\377\304\000\034\020\000\000\006\003\000\000\000\000\000\000\000\000\000\000\000\000\000\010\011\044\065\103\124\141\162\377\332\000\010\001\001\000\000\077\000\047\323\154\266\300\060\306\253\235\017\377\331' > j.jpg
if "$votecl" hist --bins 4 j.jpg > out 2> err; then
    ok "JPEG input"
    head -c 100 j.jpg > j-cut.jpg
    check "truncated JPEG refused" 1 "$votecl" hist j-cut.jpg
elif grep -q 'JPEG support was not built' err; then
    ok "JPEG input # SKIP built without libjpeg"
else
    not_ok "JPEG input"
fi

# hog --descriptors as .npy
check "hog --descriptors x.npy" 0 "$votecl" hog a.pgm --descriptors d.npy
if python3 -c '
import struct
b = open("d.npy", "rb").read()
assert b[:6] == b"\x93NUMPY" and b[6] == 1
hl = struct.unpack("<H", b[8:10])[0]
head = b[10:10 + hl].decode()
assert (10 + hl) % 64 == 0 and head.endswith("\n")
shape = eval(head)["shape"]
assert eval(head)["descr"][1:] == "f4" and len(b) - 10 - hl == 4 * shape[0] * shape[1]
assert shape == (1, 3780), shape
'; then ok ".npy header and shape"; else not_ok ".npy header and shape"; fi

# --- issue 16 item 8: fusion quadratic in the windows kept. --threshold -3 keeps about 13 500
# windows of a 640x480 noise image: mean-shift ran over 100 s, now refused at once (exit 2,
# hit_threshold named); grouping (below its limit) finishes
python3 -c '
import random
random.seed(1)
open("noise.pgm", "wb").write(b"P5 640 480 255\n" + bytes(random.randrange(256) for _ in range(640 * 480)))
' || exit 99
check "hog --threshold -3 --fusion meanshift refused within 30 s" 2 \
    timeout 30 "$votecl" hog noise.pgm --threshold -3 --fusion meanshift
grep -q 'hit_threshold: -3 keeps [0-9]* windows, more than the 2048' err ||
    not_ok "the fusion limit's message names hit_threshold"
check "hog --threshold -3 grouped within 30 s" 0 timeout 30 "$votecl" hog noise.pgm --threshold -3

# issue 25.5: --model reads a detector OpenCV saved (HOGDescriptor::save, YAML); zero weights
# and a bias of 1 make the one window of a.pgm a detection
python3 -c '
print("%YAML:1.0\n---\nm: !!opencv-object-detector-hog\n   winSize: [ 64, 128 ]\n"
      "   blockSize: [ 16, 16 ]\n   blockStride: [ 8, 8 ]\n   cellSize: [ 8, 8 ]\n   nbins: 9\n"
      "   derivAperture: 1\n   winSigma: 4.\n   histogramNormType: 0\n"
      "   L2HysThreshold: 2.0000000000000001e-01\n   gammaCorrection: 1\n   nlevels: 64\n"
      "   signedGradient: 0\n   SVMDetector: [ " + ", ".join(["0."] * 3780 + ["1."]) + " ]")
' > opencv.yml || exit 99
check "hog --model OpenCV's YAML" 0 "$votecl" hog a.pgm --model opencv.yml --fusion none
grep -q '^0 0 64 128 1.0000' out || not_ok "hog --model OpenCV's YAML: its one detection"
# batch reads it too: every window of noise.pgm scores 1, so grouping keeps detections
check "batch hog --model OpenCV's YAML" 0 "$votecl" batch hog noise.pgm --model opencv.yml \
    --out batch-model.jsonl -q
grep -q '"found": *[1-9]' batch-model.jsonl ||
    not_ok "batch hog --model OpenCV's YAML: detections"

# votecl edges (issue 26 item 4): a vertical step between columns 19 and 20 has one edge
# column (the left of two equal magnitudes), 30 pixels, for every aperture, L1 or L2, and the
# image written holds them; refusals name what was wrong
python3 -c 'import sys; sys.stdout.buffer.write(b"P5\n40 30\n255\n" + bytes(0 if x < 20 else 255 for y in range(30) for x in range(40)))' > step.pgm
for o in "--aperture 3" "--aperture 5 --l2" "--aperture 7"; do
    check "edges $o: the step's 30 edge pixels" 0 "$votecl" edges step.pgm $o --out step-edges.pgm
    tail -n 1 out | grep -qx 30 || not_ok "edges $o: count $(tail -n 1 out), want 30"
    python3 -c 'import sys; b = open("step-edges.pgm", "rb").read()[-1200:]; sys.exit(sum(v == 255 for v in b) != 30 or sum(v == 0 for v in b) != 1170)' ||
        not_ok "edges $o: the image written has the 30 edges"
done
check "edges --sobel 1,0: cv2.Sobel's 3x3 step (1020 on two columns)" 0 "$votecl" edges step.pgm --sobel 1,0
tail -n 1 out | grep -qx '60 0 1020' || not_ok "edges --sobel 1,0: '$(tail -n 1 out)', want '60 0 1020'"
check "edges --aperture 4 refused" 2 "$votecl" edges step.pgm --aperture 4
grep -q 'aperture_size: 4 is not 3, 5 or 7' err || not_ok "edges --aperture 4: the message names it"
check "edges --sobel 1 refused" 2 "$votecl" edges step.pgm --sobel 1
grep -q 'DX,DY' err || not_ok "edges --sobel 1: the message says DX,DY"
check "edges of a missing file: 1" 1 "$votecl" edges no-such.pgm
grep -q 'no-such.pgm' err || not_ok "edges of a missing file: the message names it"
printf 'P5\n40 30\n255\nshort' > cut.pgm
check "edges of a truncated PGM: 1" 1 "$votecl" edges cut.pgm
# cv2.Canny's count on a.pgm, where OpenCV's Python is installed
if python3 -c 'import cv2' 2> /dev/null; then
    cv2_count=$(python3 -c 'import cv2; print(int((cv2.Canny(cv2.imread("a.pgm", 0), 20, 60, apertureSize=5, L2gradient=True) > 0).sum()))')
    check "edges a.pgm as cv2.Canny" 0 "$votecl" edges a.pgm --low 20 --high 60 --aperture 5 --l2
    tail -n 1 out | grep -qx "$cv2_count" || not_ok "edges a.pgm: $(tail -n 1 out) edges, cv2.Canny $cv2_count"
else
    ok "edges a.pgm as cv2.Canny # SKIP no cv2"
fi

echo "1..$n"
[ "$failed" = 0 ] && exit 0
exit 1
