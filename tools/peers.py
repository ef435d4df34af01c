#!/usr/bin/env python3
"""Compare `votecl bench` with peer histogram implementations on the same cases.

Runs `votecl bench --json` (or reads its JSON from --bench-json), then times 256-bin u8
histograms of the same sizes and data distributions with the peers that are importable:

  numpy   np.bincount, np.histogram                       (CPU)
  opencv  cv2.calcHist                                    (CPU)
  cupy    cp.bincount, cp.histogram                       (CUDA; data already on the GPU)
  torch   torch.bincount, torch.histc                     (CUDA; data already on the GPU)

and prints a table: case, votecl GB/s (the auto plan), each peer's GB/s and the ratio
votecl / peer. GB/s counts input bytes (one byte per element) per second / 1e9.

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
            return json.load(f)
    finally:
        os.unlink(out)


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
    ap.add_argument("--images", default=None,
                    help="directory with building.png (default: beside this script)")
    args = ap.parse_args()

    if args.bench_json:
        with open(args.bench_json) as f:
            bench = json.load(f)
    else:
        bench = run_votecl(args.votecl, args.mib, args.quick)
    image_dir = args.images or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                            "images")
    peers = all_peers()
    rows = measure(bench, peers, image_dir, args.reps)
    print_table(bench, rows, list(peers))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"device": bench.get("device"), "backend": bench.get("backend"),
                       "date": bench.get("date"), "votecl_version": bench.get("version"),
                       "peers": list(peers), "rows": rows}, f, indent=2)
    return 0 if all(r.get("ok", False) for r in bench_runs(bench)) else 1


if __name__ == "__main__":
    sys.exit(main())
