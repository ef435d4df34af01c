#!/usr/bin/env python3
"""Compare `votecl bench` with peer implementations on the same cases.

Runs `votecl bench --json` (or reads its JSON from --bench-json), then times 256-bin u8
histograms of the same sizes and data distributions with the peers that are importable:

  numpy   np.bincount, np.histogram                       (CPU)
  opencv  cv2.calcHist                                    (CPU)
  cupy    cp.bincount, cp.histogram                       (CUDA; data already on the GPU)
  torch   torch.bincount, torch.histc                     (CUDA; data already on the GPU)

and prints a table: case, votecl GB/s (the auto plan), each peer's GB/s and the ratio
votecl / peer. GB/s counts input bytes (one byte per element) per second / 1e9. For the
bench's other cases (hough*, lines1080, hog*, ght_*) it times OpenCV's HoughLines,
Canny + HoughLines / HoughLinesP, HOGDescriptor.detectMultiScale and GeneralizedHough
Guil / Ballard on the CPU, and a PyTorch theta-rho vote on the GPU where present, on the
same images, and prints each peer's time and votecl's speedup over it. The JSON of every
--backend (opencl, cuda, ref, both) is accepted.

Timing: 3 warm-up runs, then the median of 5 batches of --reps runs each (GPU peers
synchronise at the end of a batch). The distributions match `votecl bench` exactly except
"random", where numpy's generator replaces the tool's xorshift64 (same uniform bytes; the
histogram's speed depends on the distribution, not on the particular sequence).

Run with the system Python where Debian's numpy and cv2 live:
    /usr/bin/python3 tools/peers.py --votecl ./tools/votecl --mib 64
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

WARMUP = 3
BATCHES = 5
BINS = 256


# --- data: the same distributions as tools/cmd-bench.c ---

def distinct(n, k):
    i = np.arange(n, dtype=np.uint64)
    return ((((i >> np.uint64(4)) % np.uint64(k)) * np.uint64(61) + np.uint64(7))
            & np.uint64(255)).astype(np.uint8)


def building_gray(image_dir):
    import cv2  # only needed for this case
    path = os.path.join(image_dir, "building.png")
    bgr = cv2.imread(path, cv2.IMREAD_COLOR)
    if bgr is None:
        return None
    b, g, r = (bgr[..., c].astype(np.uint32) for c in range(3))
    # votecl's integer weights (299, 587, 114) / 1000, rounded
    return ((299 * r + 587 * g + 114 * b + 500) // 1000).astype(np.uint8).ravel()


def distributions(n, image_dir):
    rng = np.random.default_rng(1)
    cases = {
        "random": lambda: rng.integers(0, 256, n, dtype=np.uint8),
        "constant": lambda: np.full(n, 0x55, dtype=np.uint8),
    }
    for k in (2, 4, 8, 16):
        cases["distinct%d" % k] = (lambda k=k: distinct(n, k))
    gray = building_gray(image_dir)
    if gray is not None:
        cases["image"] = lambda: np.resize(gray, n)
    return cases


# --- timing ---

def time_op(op, reps, sync=None):
    """Seconds per run: median of BATCHES batches of reps runs after WARMUP runs."""
    for _ in range(WARMUP):
        op()
    if sync:
        sync()
    batches = []
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(reps):
            op()
        if sync:
            sync()
        batches.append(time.perf_counter() - t0)
    return statistics.median(batches) / reps


# --- peers: each maps (name) -> factory(data as numpy u8 array, frames) -> (op, sync) ---

def peer_numpy():
    def bincount(x, frames):
        parts = np.split(x, frames)
        return (lambda: [np.bincount(p, minlength=BINS) for p in parts]), None

    def histogram(x, frames):
        parts = np.split(x, frames)
        return (lambda: [np.histogram(p, bins=BINS, range=(0, BINS)) for p in parts]), None

    return {"np.bincount": bincount, "np.histogram": histogram}


def peer_opencv():
    try:
        import cv2
    except ImportError:
        return {}

    def calchist(x, frames):
        parts = [p.reshape(-1, 1024) if p.size % 1024 == 0 else p.reshape(-1, 1)
                 for p in np.split(x, frames)]
        return (lambda: [cv2.calcHist([p], [0], None, [BINS], [0, BINS]) for p in parts]), None

    return {"cv2.calcHist": calchist}


def peer_cupy():
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception:
        return {}
    sync = cp.cuda.Device().synchronize

    def bincount(x, frames):
        parts = [cp.asarray(p) for p in np.split(x, frames)]
        return (lambda: [cp.bincount(p, minlength=BINS) for p in parts]), sync

    def histogram(x, frames):
        parts = [cp.asarray(p) for p in np.split(x, frames)]
        return (lambda: [cp.histogram(p, bins=BINS, range=(0, BINS)) for p in parts]), sync

    return {"cp.bincount": bincount, "cp.histogram": histogram}


def peer_torch():
    try:
        import torch
        if not torch.cuda.is_available():
            return {}
    except Exception:
        return {}
    sync = torch.cuda.synchronize

    def bincount(x, frames):
        parts = [torch.from_numpy(p.copy()).cuda() for p in np.split(x, frames)]
        try:
            torch.bincount(parts[0], minlength=BINS)
        except RuntimeError:  # older versions want a wider integer type
            parts = [p.to(torch.int32) for p in parts]
        return (lambda: [torch.bincount(p, minlength=BINS) for p in parts]), sync

    def histc(x, frames):
        # histc wants floating point: converted once, outside the timed runs
        parts = [torch.from_numpy(p.copy()).cuda().float() for p in np.split(x, frames)]
        return (lambda: [torch.histc(p, bins=BINS, min=0, max=BINS) for p in parts]), sync

    return {"torch.bincount": bincount, "torch.histc": histc}


def all_peers():
    peers = {}
    for factory in (peer_numpy, peer_opencv, peer_cupy, peer_torch):
        peers.update(factory())
    return peers


# --- votecl's side ---

def run_votecl(path, mib, quick):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [path, "-q", "bench", "--json", out, "--mib", str(mib)]
    if quick:
        cmd.append("--quick")
    print("running:", " ".join(cmd), file=sys.stderr)
    try:
        subprocess.run(cmd, check=False)
        with open(out) as f:
            return bench_results(json.load(f))
    finally:
        os.unlink(out)


def bench_results(doc):
    """The results of votecl bench's JSON (the shared shape of schema 2: header, parameters,
    results), with the header's backend, device name and tool version beside them."""
    out = dict(doc.get("results", {}))
    out.setdefault("backend", doc.get("backend"))
    out["device_name"] = doc.get("device")
    out["version"] = doc.get("votecl")
    return out


def bench_runs(bench):
    """The per-backend runs of votecl bench JSON: one for --backend opencl|cuda|ref, two
    (each with its own config, device and cases) for --backend both."""
    runs = bench.get("runs")
    if not runs:
        return [bench]
    header = {k: v for k, v in bench.items() if k not in ("runs", "comparison")}
    return [dict(header, **run) for run in runs]


def votecl_gbps(bench):
    """GB/s of the auto plan per case."""
    result = {}
    for c in bench.get("cases", []):
        if c.get("variant") != "auto" or c.get("status") != "VOTECL_OK":
            continue
        if c.get("gbps") is not None:
            result[c["case"]] = c["gbps"]
    return result


# --- peers of the other algorithms, on the images of votecl bench's cases ---

def bench_image(image_dir, name, size=None, colour=False):
    """A bench image in gray (votecl's weights), or in colour (BGR) with colour, stretched by
    nearest neighbour as the bench stretches it (pixel (x, y) of the frame takes source
    (x * w / W, y * h / H))."""
    import cv2
    gray = building_gray(image_dir) if name == "building.png" and not colour else None
    if gray is None:
        img = cv2.imread(os.path.join(image_dir, name),
                         cv2.IMREAD_COLOR if colour else cv2.IMREAD_GRAYSCALE)
        if img is None:
            return None
    else:
        bgr = cv2.imread(os.path.join(image_dir, name), cv2.IMREAD_COLOR)
        img = gray.reshape(bgr.shape[:2])
    if size is None:
        return img
    w, h = size
    ys = (np.arange(h) * img.shape[0] // h)[:, None]
    xs = (np.arange(w) * img.shape[1] // w)[None, :]
    return np.ascontiguousarray(img[ys, xs])


def algorithm_peers(bench, image_dir):
    """{case: {peer: (op, sync)}} for votecl bench's hough, lines, hog and ght cases: OpenCV
    on the CPU (HoughLines, HoughLinesP, HOGDescriptor.detectMultiScale, GeneralizedHough
    Guil and Ballard) and, where PyTorch has CUDA, a theta-rho vote made of PyTorch
    operations. Each peer does the work of the case as OpenCV would: edges from Canny
    (votecl's Hough cases take Sobel edges of the same frame, timed without the edge step on
    both sides), lines from gray images, people from images, poses from the template pair."""
    try:
        import cv2
    except ImportError:
        return {}
    cases = {c.get("case"): c for r in bench_runs(bench) for c in r.get("cases", [])}
    out = {}
    frame = bench_image(image_dir, "building.png", (1920, 1080))
    if frame is not None:
        edges = cv2.Canny(frame, 50, 150)
        diag = float(np.hypot(*frame.shape))
        for angles, rho_bins in ((64, 4200), (180, 4123)):
            name = "hough%dx%d" % (angles, rho_bins)
            if name not in cases:
                continue
            rho, theta = 2 * diag / rho_bins, np.pi / angles
            peers = {"cv2.HoughLines": (lambda r=rho, t=theta:
                                        cv2.HoughLines(edges, r, t, 150), None)}
            torch_vote = torch_hough(edges, angles, rho_bins, diag)
            if torch_vote:
                peers["torch theta-rho"] = torch_vote
            out[name] = peers
        if "lines1080" in cases:
            out["lines1080"] = {
                "cv2.Canny+HoughLines": (lambda: cv2.HoughLines(cv2.Canny(frame, 50, 150),
                                                                1, np.pi / 180, 150), None),
                "cv2.Canny+HoughLinesP": (lambda: cv2.HoughLinesP(
                    cv2.Canny(frame, 50, 150), 1, np.pi / 180, 80, minLineLength=30,
                    maxLineGap=5), None)}
    people = bench_image(image_dir, "basketball1.png")
    if people is not None and hasattr(cv2, "HOGDescriptor") and \
            hasattr(cv2, "HOGDescriptor_getDefaultPeopleDetector"):
        hog = cv2.HOGDescriptor()
        hog.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
        for name, img in (("hog640x480", people),
                          ("hog1920x1080", bench_image(image_dir, "basketball1.png",
                                                       (1920, 1080)))):
            if name in cases:
                out[name] = {"cv2.HOGDescriptor.detectMultiScale": (
                    lambda i=img: hog.detectMultiScale(i, 0, (8, 8), (0, 0), 1.05, 2), None)}
        colour = bench_image(image_dir, "astronaut.jpg", (1920, 1080), colour=True)
        if "hog1920x1080rgb" in cases and colour is not None:
            out["hog1920x1080rgb"] = {"cv2.HOGDescriptor.detectMultiScale": (
                lambda: hog.detectMultiScale(colour, 0, (8, 8), (0, 0), 1.05, 2), None)}
    templ = bench_image(image_dir, "templ.png")
    pic = bench_image(image_dir, "pic1.png")
    if templ is not None and pic is not None:
        for name, method in (("ght_guil_auto", "guil"), ("ght_ballard", "ballard")):
            if name in cases:
                g = ght_detector(cv2, method, templ)
                out[name] = {"cv2.GeneralizedHough%s" % method.capitalize():
                             (lambda g=g: g.detect(pic), None)}
    return out


def ght_detector(cv2, method, templ):
    """OpenCV's GHT with the parameters of its sample (samples/cpp/generalizedhoughtransform.cpp),
    the oracle of tests/test-ght.c (tests/ght-opencv.py) and the benchmark's peer."""
    if method == "ballard":
        g = cv2.createGeneralizedHoughBallard()
        g.setVotesThreshold(40)
        g.setMinDist(10)
    else:
        g = cv2.createGeneralizedHoughGuil()
        g.setMinDist(100)
        g.setMinAngle(0)
        g.setMaxAngle(360)
        g.setAngleStep(1)
        g.setAngleThresh(1500)
        g.setMinScale(0.5)
        g.setMaxScale(2.0)
        g.setScaleStep(0.05)
        g.setScaleThresh(50)
        g.setPosThresh(10)
    g.setLevels(360)
    g.setDp(2)
    g.setMaxBufferSize(1000)
    g.setTemplate(templ)
    return g


def torch_hough(edges, angles, rho_bins, diag):
    """A theta-rho vote from PyTorch operations on the GPU (cos/sin, index, bincount) over the
    edge pixels already on the device; None without CUDA."""
    try:
        import torch
        if not torch.cuda.is_available():
            return None
    except Exception:
        return None
    ys, xs = np.nonzero(edges)
    x = torch.from_numpy(xs.astype(np.float32)).cuda()
    y = torch.from_numpy(ys.astype(np.float32)).cuda()
    theta = torch.arange(angles, device="cuda", dtype=torch.float32) * (np.pi / angles)
    cos, sin = torch.cos(theta)[:, None], torch.sin(theta)[:, None]
    scale = rho_bins / (2 * diag)
    offs = (torch.arange(angles, device="cuda") * rho_bins)[:, None]

    def op():
        r = ((x[None, :] * cos + y[None, :] * sin + diag) * scale).long().clamp_(0, rho_bins - 1)
        return torch.bincount((r + offs).ravel(), minlength=angles * rho_bins)
    return op, torch.cuda.synchronize


def measure_algorithms(bench, image_dir, reps):
    """Rows of case, votecl seconds per backend and each peer's seconds and ratio."""
    runs = bench_runs(bench)
    rows = []
    for name, peers in algorithm_peers(bench, image_dir).items():
        ours = {}
        for r in runs:
            for c in r.get("cases", []):
                if c.get("case") == name and c.get("seconds"):
                    ours[r.get("backend", "?")] = c["seconds"]
        row = {"case": name, "votecl_seconds": ours, "peers": {}}
        for peer, (op, sync) in peers.items():
            if sys.stderr.isatty():
                print("  %s %s" % (name, peer), file=sys.stderr)
            seconds = time_op(op, 1 if name.startswith(("hog", "ght")) else reps, sync)
            row["peers"][peer] = {"seconds": seconds,
                                  "speedup": {be: seconds / v for be, v in ours.items()}}
        rows.append(row)
    return rows


def print_algorithms(rows):
    if not rows:
        return
    print("%-14s %-36s %12s %12s  %s" % ("case", "peer", "peer ms", "votecl ms",
                                         "votecl speedup"))
    for r in rows:
        for peer, v in r["peers"].items():
            ours = " ".join("%s %.3f" % (be, s * 1e3) for be, s in r["votecl_seconds"].items())
            up = " ".join("%s %.2fx" % (be, x) for be, x in v["speedup"].items())
            print("%-14s %-36s %12.3f %12s  %s" % (r["case"], peer, v["seconds"] * 1e3, ours,
                                                 up))
    print("(speedup = peer time / votecl time, same images; votecl from the bench JSON)")


# --- the comparison ---

def case_data(bench, image_dir):
    """(case name, data, frames) for every case votecl measured."""
    cfg = bench["config"]
    n = cfg["bytes"]
    for name, make in distributions(n, image_dir).items():
        yield name, make(), 1
    frame = cfg["frame_width"] * cfg["frame_height"]
    rng = np.random.default_rng(1)
    one = rng.integers(0, 256, frame, dtype=np.uint8)
    yield "frame1080", one, 1
    yield "frame1080_sync", one, 1
    frames = cfg["batch_frames"]
    yield "batch64", rng.integers(0, 256, frame * frames, dtype=np.uint8), frames


def measure(bench, peers, image_dir, reps):
    """Times every peer once per case and sets each backend run's ratios beside them."""
    runs = bench_runs(bench)
    ours = [votecl_gbps(r) for r in runs]
    rows = []
    for name, data, frames in case_data(runs[0], image_dir):
        if not any(name in o for o in ours):
            continue
        row = {"case": name, "bytes": int(data.size), "frames": frames,
               "votecl_gbps": {r.get("backend", "?"): o.get(name)
                               for r, o in zip(runs, ours)}, "peers": {}}
        # frame1080_sync is a latency case: one frame, one run at a time, like votecl's
        case_reps = 1 if name == "frame1080_sync" else reps
        for peer, factory in peers.items():
            if sys.stderr.isatty():
                print("  %s %s" % (name, peer), file=sys.stderr)
            op, sync = factory(data, frames)
            seconds = time_op(op, case_reps, sync)
            gbps = data.size / seconds / 1e9
            row["peers"][peer] = {
                "gbps": gbps,
                "ratio": {be: (v / gbps if v else None)
                          for be, v in row["votecl_gbps"].items()}}
        rows.append(row)
    return rows


def print_table(bench, rows, peers):
    for run in bench_runs(bench):
        be = run.get("backend", "?")
        dev = run.get("device", {})
        print("device: %s (%s), votecl %s, %s" % (dev.get("name"), be, run.get("version"),
                                                  run.get("date")))
        header = ["%-14s" % "case", "%8s" % "votecl"] + ["%22s" % ("%s ratio" % p)
                                                         for p in peers]
        print(" | ".join(header))
        for r in rows:
            ours = r["votecl_gbps"].get(be)
            if ours is None:
                continue
            cells = ["%-14s" % r["case"], "%8.3f" % ours]
            for p in peers:
                v = r["peers"].get(p)
                cells.append("%22s" % ("%.3f %.2fx" % (v["gbps"], v["ratio"][be])
                                       if v else "-"))
            print(" | ".join(cells))
    print("(GB/s of input bytes; ratio = votecl / peer; votecl: the auto plan)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mib", type=int, default=64, help="MiB per distribution case (64)")
    ap.add_argument("--votecl", default="./tools/votecl", help="the votecl binary")
    ap.add_argument("--bench-json", help="read votecl's results instead of running it")
    ap.add_argument("--json", dest="json_out", help="write the comparison as JSON")
    ap.add_argument("--reps", type=int, default=3, help="runs per timed batch of a peer (3)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (votecl bench --quick)")
    ap.add_argument("--only", choices=("hist", "algorithms"),
                    help="only the histogram peers, or only the other algorithms' peers")
    ap.add_argument("--images", default=None,
                    help="directory with building.png (default: beside this script)")
    args = ap.parse_args()

    if args.bench_json:
        with open(args.bench_json) as f:
            bench = bench_results(json.load(f))
    else:
        bench = run_votecl(args.votecl, args.mib, args.quick)
    image_dir = args.images or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "images")
    peers = all_peers() if args.only != "algorithms" else {}
    rows = measure(bench, peers, image_dir, args.reps) if peers else []
    if peers:
        print_table(bench, rows, list(peers))
    algo_rows = measure_algorithms(bench, image_dir, args.reps) if args.only != "hist" else []
    print_algorithms(algo_rows)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"device": bench.get("device_name"), "backend": bench.get("backend"),
                       "date": bench.get("date"), "votecl_version": bench.get("version"),
                       "peers": list(peers), "rows": rows, "algorithms": algo_rows}, f,
                      indent=2)
    return 0 if all(r.get("ok", False) for r in bench_runs(bench)) else 1


if __name__ == "__main__":
    sys.exit(main())
