#!/usr/bin/env python3
"""OpenCV on the line truth suite: reads what `votecl eval lines --dump DIR` wrote (each case
as NAME.pgm plus DIR/cases.json with its truth segments) and scores cv2.Canny followed by
cv2.HoughLines and cv2.HoughLinesP with the suite's metric (tests/truth-lines.h): a line
matches a truth segment within ANGLE degrees and DIST px of both its ends along its normal;
detections taken strongest first, each matching the nearest unmatched truth, else a duplicate
(a truth already taken), else a false positive. Prints JSON per family, with the votecl JSON
beside it when --votecl FILE is given.

OpenCV's parameters, one rule for every case (no per-case tuning): Canny(50, 150) and a vote
threshold of max(2, min(W, H) // 4) (PClines' default rule); HoughLines at 1 px and 1 degree;
HoughLinesP with minLineLength min(W, H) // 8 and maxLineGap 10, its segments also scored by
end-point error. Run with the Debian python3 (/usr/bin/python3) where cv2 lives.

usage: eval-lines.py DIR [--votecl votecl-eval.json] [--threads N]
"""
import argparse
import json
import math
import os
import sys
import time


def match(theta, rho, seg, angle_deg, dist_px):
    x0, y0, x1, y1 = seg
    direction = math.degrees(math.atan2(y1 - y0, x1 - x0))
    diff = abs(direction - (math.degrees(theta) + 90.0)) % 180.0
    diff = 180.0 - diff if diff > 90.0 else diff
    c, s = math.cos(theta), math.sin(theta)
    err = max(abs(x0 * c + y0 * s - rho), abs(x1 * c + y1 * s - rho))
    return diff <= angle_deg and err <= dist_px, err


def errors(theta, rho, seg):
    """The direction error in degrees and the distance of the segment's midpoint from the
    line (tests/truth-lines.c's truth_lines_errors)."""
    x0, y0, x1, y1 = seg
    direction = math.degrees(math.atan2(y1 - y0, x1 - x0))
    diff = abs(direction - (math.degrees(theta) + 90.0)) % 180.0
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    return min(diff, 180.0 - diff), abs(mx * math.cos(theta) + my * math.sin(theta) - rho)


def end_error(ends, seg):
    (a0, b0, a1, b1), (x0, y0, x1, y1) = ends, seg
    one = max(math.hypot(a0 - x0, b0 - y0), math.hypot(a1 - x1, b1 - y1))
    two = max(math.hypot(a0 - x1, b0 - y1), math.hypot(a1 - x0, b1 - y0))
    return min(one, two)


def score_case(truth, detections, angle_deg, dist_px, score):
    taken = [False] * len(truth)
    matched = 0
    for theta, rho, ends in detections:
        best, best_err, any_match = -1, 0.0, False
        for t, seg in enumerate(truth):
            ok, err = match(theta, rho, seg, angle_deg, dist_px)
            if not ok:
                continue
            any_match = True
            if not taken[t] and (best < 0 or err < best_err):
                best, best_err = t, err
        if best < 0:
            score["duplicates" if any_match else "false_positives"] += 1
            continue
        taken[best] = True
        matched += 1
        te, re = errors(theta, rho, truth[best])
        score["theta_error_sum"] += te
        score["rho_error_sum"] += re
        score["theta_error_max"] = max(score["theta_error_max"], te)
        score["rho_error_max"] = max(score["rho_error_max"], re)
        if ends is not None:
            e = end_error(ends, truth[best])
            score["ends"] += 1
            score["ends_within"] += e <= dist_px
    score["truths"] += len(truth)
    score["matched"] += matched
    score["detections"] += len(detections)
    score["cases"] += 1
    score["cases_all_found"] += matched == len(truth)


def segment_line(x0, y0, x1, y1):
    """theta in [0, pi) and rho of the line through a segment."""
    theta = math.atan2(x1 - x0, -(y1 - y0)) % math.pi  # the normal of the direction
    rho = x0 * math.cos(theta) + y0 * math.sin(theta)
    return theta, rho


def new_score():
    keys = ("cases", "cases_all_found", "truths", "matched", "detections", "duplicates",
            "false_positives", "ends", "ends_within")
    floats = ("seconds", "theta_error_sum", "theta_error_max", "rho_error_sum", "rho_error_max")
    return dict.fromkeys(keys, 0) | dict.fromkeys(floats, 0.0)


def finish(name, s):
    out = {k: v for k, v in s.items() if k != "seconds" and not k.endswith("_sum")}
    out["detector"] = name
    out["recall"] = s["matched"] / s["truths"] if s["truths"] else 1.0
    good = s["detections"] - s["duplicates"] - s["false_positives"]
    out["precision"] = good / s["detections"] if s["detections"] else 1.0
    if s["matched"]:
        out["theta_error_mean_deg"] = s["theta_error_sum"] / s["matched"]
        out["theta_error_max_deg"] = out.pop("theta_error_max")
        out["rho_error_mean_px"] = s["rho_error_sum"] / s["matched"]
        out["rho_error_max_px"] = out.pop("rho_error_max")
    if s["ends"]:
        out["ends_within_fraction"] = s["ends_within"] / s["ends"]
    out["seconds_per_case"] = s["seconds"] / s["cases"] if s["cases"] else 0.0
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--votecl", help="votecl eval lines JSON to print beside")
    ap.add_argument("--threads", type=int, default=0, help="cv2.setNumThreads (0: default)")
    args = ap.parse_args()
    try:
        import cv2
        import numpy as np
    except ImportError as e:
        print(json.dumps({"suite": "lines", "skipped": f"OpenCV not importable: {e}"}))
        return 0
    if args.threads:
        cv2.setNumThreads(args.threads)
    with open(os.path.join(args.dir, "cases.json")) as f:
        suite = json.load(f)
    angle, dist = suite["angle_deg"], suite["distance_px"]
    families = {}
    for case in suite["cases"]:
        img = cv2.imread(os.path.join(args.dir, case["file"]), cv2.IMREAD_GRAYSCALE)
        truth = case["truth"]
        threshold = max(2, min(case["width"], case["height"]) // 4)
        fam = families.setdefault(case["family"], {"cv2.HoughLines": new_score(),
                                                   "cv2.HoughLinesP": new_score()})
        t0 = time.perf_counter()
        edges = cv2.Canny(img, 50, 150)
        lines = cv2.HoughLines(edges, 1, np.pi / 180, threshold)
        t1 = time.perf_counter()
        dets = [] if lines is None else [(float(l[0][1]), float(l[0][0]), None) for l in lines]
        # OpenCV's rho may be negative with theta in [0, pi): the same line
        score_case(truth, dets, angle, dist, fam["cv2.HoughLines"])
        fam["cv2.HoughLines"]["seconds"] += t1 - t0
        t0 = time.perf_counter()
        edges = cv2.Canny(img, 50, 150)
        segs = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold,
                               minLineLength=min(case["width"], case["height"]) // 8,
                               maxLineGap=10)
        t1 = time.perf_counter()
        dets = []
        for s in [] if segs is None else segs:
            x0, y0, x1, y1 = (float(v) for v in s[0])
            theta, rho = segment_line(x0, y0, x1, y1)
            dets.append((theta, rho, (x0, y0, x1, y1)))
        score_case(truth, dets, angle, dist, fam["cv2.HoughLinesP"])
        fam["cv2.HoughLinesP"]["seconds"] += t1 - t0
    votecl = {}
    if args.votecl:
        with open(args.votecl) as f:
            for fam in json.load(f).get("families", []):
                votecl[fam["family"]] = fam["detectors"]
    out = {"suite": "lines", "opencv": cv2.__version__, "angle_deg": angle, "distance_px": dist,
           "families": []}
    for name, dets in families.items():
        entry = {"family": name,
                 "detectors": [finish(k, v) for k, v in dets.items()] + votecl.get(name, [])}
        out["families"].append(entry)
    json.dump(out, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
