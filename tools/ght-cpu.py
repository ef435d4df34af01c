#!/usr/bin/env python3
"""GHT Ballard: libvotecl on one backend against OpenCV's GeneralizedHoughBallard, in the same
process on the same images (docs/performance.md, "Every algorithm against OpenCV on PoCL").

The sample pair tools/images/templ.png in pic1.png (400x300), read as gray by cv2. libvotecl
runs `votecl.GHT(method='ballard')` with its defaults; OpenCV runs the sample's parameters
(tools/peers.py's ght_detector: votes threshold 40, min distance 10, levels 360, dp 2). After
five warm-up detections each, rounds alternate the two libraries so that both see the same
machine load; a round is --reps detections back to back. Printed: each round's time per
detection, the best and median of both, and OpenCV / libvotecl (above 1: libvotecl faster).

Run from a build tree with the system Python (python3-opencv):
    VOTECL_LIBRARY=lib/.libs/libvotecl.so PYTHONPATH=python VOTECL_KERNEL_PATH=$PWD/cl \\
        /usr/bin/python3 tools/ght-cpu.py [--backend opencl] [--rounds 5] [--reps 300]
"""

import argparse
import os
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default="opencl")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--images", default=os.path.join(os.path.dirname(__file__), "images"))
    args = ap.parse_args()

    import cv2
    import votecl
    sys.path.insert(0, os.path.dirname(__file__))
    from peers import ght_detector

    templ = cv2.imread(os.path.join(args.images, "templ.png"), cv2.IMREAD_GRAYSCALE)
    pic = cv2.imread(os.path.join(args.images, "pic1.png"), cv2.IMREAD_GRAYSCALE)
    if templ is None or pic is None:
        sys.exit("ght-cpu.py: no templ.png or pic1.png in %s" % args.images)
    ours = votecl.GHT(votecl.Context(backend=args.backend), templ, method="ballard")
    theirs = ght_detector(cv2, "ballard", templ)
    for _ in range(5):
        ours.detect(pic)
        theirs.detect(pic)
    vt, ct = [], []
    for _ in range(args.rounds):
        t = time.perf_counter()
        for _ in range(args.reps):
            poses = ours.detect(pic)
        vt.append((time.perf_counter() - t) / args.reps * 1e3)
        t = time.perf_counter()
        for _ in range(args.reps):
            theirs.detect(pic)
        ct.append((time.perf_counter() - t) / args.reps * 1e3)
    print("libvotecl ms/detection: " + " ".join("%.3f" % v for v in vt))
    print("OpenCV ms/detection:    " + " ".join("%.3f" % v for v in ct))
    print("best %.3f / %.3f ms, median %.3f / %.3f ms: OpenCV / libvotecl %.2fx (best), "
          "%.2fx (median); %d poses, load %s" % (
              min(vt), min(ct), statistics.median(vt), statistics.median(ct),
              min(ct) / min(vt), statistics.median(ct) / statistics.median(vt), len(poses),
              " ".join(open("/proc/loadavg").read().split()[:3])
              if os.path.exists("/proc/loadavg") else "?"))


if __name__ == "__main__":
    main()
