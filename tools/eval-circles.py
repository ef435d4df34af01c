#!/usr/bin/env python3
"""OpenCV on the circle truth suite: reads what `votecl eval circles --dump DIR` wrote (each case
as NAME.pgm plus DIR/cases.json with its radius range and truth circles) and scores
cv2.HoughCircles(HOUGH_GRADIENT) with the suite's metric (tests/truth-circles.h): a circle
matches a truth circle within max(2, r / 10) px in centre and in radius; detections in cv2's
order, each matching the nearest unmatched truth, else a duplicate (a truth already taken),
else a false positive. Prints JSON per family, with votecl's figures from the same dump beside
it when --votecl FILE (the JSON `votecl eval circles` printed) is given.

OpenCV's parameters are votecl's rule (tools/eval-circles.c), one for every case: dp 1,
minDist 20, param1 (Canny) 100, param2 40, the case's minRadius and maxRadius, no blur.
Run with the Debian python3 (/usr/bin/python3) where cv2 lives.

With --skimage, scikit-image's hough_circle and hough_circle_peaks score beside them with
votecl's radii rule: cv2.Canny(50, 100) edges (votecl takes its own Canny with the same
thresholds), the case's radii in steps of 2, normalised, threshold 0.4, min_xdistance =
min_ydistance = 10 (slow: an accumulator of doubles per radius).

usage: eval-circles.py DIR [--votecl votecl-eval.json] [--threads N] [--skimage]
       (exit 77 without cv2)
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

try:
    import cv2
except ImportError:
    sys.exit(77)


def score_case(truth, detections, score):
    taken = [False] * len(truth)
    for x, y, r in detections:
        best, best_c, best_r, any_match = -1, 0.0, 0.0, False
        for t, (tx, ty, tr) in enumerate(truth):
            tol = max(2.0, 0.1 * tr)
            ce, re = math.hypot(x - tx, y - ty), abs(r - tr)
            if ce > tol or re > tol:
                continue
            any_match = True
            if not taken[t] and (best < 0 or ce < best_c):
                best, best_c, best_r = t, ce, re
        if best < 0:
            score["duplicates" if any_match else "false_positives"] += 1
            continue
        taken[best] = True
        score["matched"] += 1
        score["centre_error_sum"] += best_c
        score["radius_error_sum"] += best_r
    score["truths"] += len(truth)
    score["detections"] += len(detections)
    score["cases"] += 1
    score["cases_all_found"] += int(all(taken))


def empty_score():
    return {k: 0 for k in ("cases", "cases_all_found", "truths", "matched", "detections",
                           "duplicates", "false_positives")} | {
        "centre_error_sum": 0.0, "radius_error_sum": 0.0, "seconds": 0.0}


def skimage_circles(img, c):
    from skimage.transform import hough_circle, hough_circle_peaks
    radii = np.arange(int(c["min_radius"]), int(c["max_radius"]) + 1, 2)
    hs = hough_circle(cv2.Canny(img, 50, 100), radii)
    _, cx, cy, rad = hough_circle_peaks(hs, radii, min_xdistance=10, min_ydistance=10,
                                        threshold=0.4)
    return [(float(x), float(y), float(r)) for x, y, r in zip(cx, cy, rad)]


def finish(s, name="cv2.HoughCircles"):
    m = s["matched"]
    return {
        "detector": name,
        "cases": s["cases"], "cases_all_found": s["cases_all_found"], "truths": s["truths"],
        "matched": m, "detections": s["detections"], "duplicates": s["duplicates"],
        "false_positives": s["false_positives"],
        "recall": m / s["truths"] if s["truths"] else 1.0,
        "precision": m / s["detections"] if s["detections"] else 1.0,
        "centre_error_mean": s["centre_error_sum"] / m if m else 0.0,
        "radius_error_mean": s["radius_error_sum"] / m if m else 0.0,
        "seconds_per_case": s["seconds"] / s["cases"] if s["cases"] else 0.0,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--votecl")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--skimage", action="store_true")
    args = ap.parse_args()
    if args.threads:
        cv2.setNumThreads(args.threads)
    with open(os.path.join(args.dir, "cases.json")) as f:
        cases = json.load(f)["cases"]
    scores, sk_scores = {}, {}
    for c in cases:
        img = cv2.imread(os.path.join(args.dir, c["file"]), cv2.IMREAD_GRAYSCALE)
        t0 = time.perf_counter()
        found = cv2.HoughCircles(img, cv2.HOUGH_GRADIENT, dp=1, minDist=20, param1=100,
                                 param2=40, minRadius=int(c["min_radius"]),
                                 maxRadius=int(c["max_radius"]))
        s = scores.setdefault(c["family"], empty_score())
        s["seconds"] += time.perf_counter() - t0
        dets = [] if found is None else [tuple(map(float, d[:3])) for d in found[0]]
        score_case(c["truth"], dets, s)
        if args.skimage:
            k = sk_scores.setdefault(c["family"], empty_score())
            t0 = time.perf_counter()
            dets = skimage_circles(img, c)
            k["seconds"] += time.perf_counter() - t0
            score_case(c["truth"], dets, k)
    votecl = {}
    if args.votecl:
        with open(args.votecl) as f:
            for fam in json.load(f)["results"]["families"]:
                votecl[fam["family"]] = fam["detectors"]
    out = {"suite": "circles", "opencv": cv2.__version__, "families": []}
    for name, s in scores.items():
        sk = [finish(sk_scores[name], "skimage.hough_circle")] if name in sk_scores else []
        out["families"].append({"family": name,
                                "detectors": votecl.get(name, []) + [finish(s)] + sk})
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
