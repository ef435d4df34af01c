#!/usr/bin/env python3
"""Scores `votecl eval hog --dump DIR` against OpenCV (python3-opencv) on the same images.

  tools/eval-hog.py DIR

Per case: descriptors (families saturated, equal-mag, gray-rgb) against
cv2.HOGDescriptor().compute(img, (8, 8), (0, 0)): the largest difference and the share of
elements off by more than 1e-3; boxes of libvotecl's grouping and mean-shift against
detectMultiScale(img, 0, (8, 8), (0, 0), 1.05, groupThreshold 2) with the default people
detector: boxes equal (same x, y, width, height), recall and precision at IoU >= 0.5
(tests/truth-hog.h's metric: greedy in the detector's order). Prints JSON: per family and in
all, OpenCV's figures beside libvotecl's. Exit status 77 without cv2."""
import json
import os
import sys
import time

try:
    import cv2
    import numpy as np
except ImportError:
    sys.exit(77)

IOU = 0.5


def iou(a, b):
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    inter = max(0, x1 - x0) * max(0, y1 - y0)
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def score(truth, found, acc):
    acc["truths"] += len(truth)
    acc["found"] += len(found)
    acc["equal"] += sum(1 for t in truth if tuple(t) in set(map(tuple, found)))
    taken = [False] * len(truth)
    for f in found:
        best, b = None, IOU
        for k, t in enumerate(truth):
            v = iou(t, f)
            if not taken[k] and v >= b:
                best, b = k, v
        if best is not None:
            taken[best] = True
            acc["matched"] += 1


def finish(acc):
    out = dict(acc)
    out["recall"] = acc["matched"] / acc["truths"] if acc["truths"] else None
    out["precision"] = acc["matched"] / acc["found"] if acc["found"] else None
    out["equal_share"] = acc["equal"] / acc["truths"] if acc["truths"] else None
    return out


def main():
    d = sys.argv[1]
    with open(os.path.join(d, "cases.json")) as f:
        cases = json.load(f)["cases"]
    hog = cv2.HOGDescriptor()
    det = cv2.HOGDescriptor()
    det.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
    fams, rows = {}, []
    for c in cases:
        img = cv2.imread(os.path.join(d, c["name"] + ".ppm"), cv2.IMREAD_COLOR)
        fam = fams.setdefault(c["family"], {
            "cases": 0, "desc_max_diff": 0.0, "desc_off": 0, "desc_elements": 0,
            "group": {"truths": 0, "found": 0, "equal": 0, "matched": 0},
            "meanshift": {"truths": 0, "found": 0, "equal": 0, "matched": 0},
            "opencv_seconds": 0.0, "group_seconds": 0.0, "meanshift_seconds": 0.0})
        fam["cases"] += 1
        row = {"name": c["name"]}
        path = os.path.join(d, c["name"] + ".f32")
        if "windows" in c and os.path.exists(path):
            ref = hog.compute(img, (8, 8), (0, 0)).ravel()
            ours = np.fromfile(path, np.float32)
            if ours.size != ref.size:
                row["desc_error"] = "sizes %d and %d" % (ours.size, ref.size)
                fam["desc_max_diff"] = float("inf")
            else:
                diff = np.abs(ours - ref)
                row["desc_max_diff"] = float(diff.max()) if diff.size else 0.0
                fam["desc_max_diff"] = max(fam["desc_max_diff"], row["desc_max_diff"])
                fam["desc_off"] += int((diff > 1e-3).sum())
                fam["desc_elements"] += int(diff.size)
        t0 = time.perf_counter()
        boxes, _ = det.detectMultiScale(img, hitThreshold=0, winStride=(8, 8), padding=(0, 0),
                                        scale=1.05, groupThreshold=2)
        fam["opencv_seconds"] += time.perf_counter() - t0
        truth = np.asarray(boxes, dtype=np.int64).reshape(-1, 4).tolist()
        row["opencv"] = truth
        for mode in ("group", "meanshift"):
            score(truth, c[mode], fam[mode])
            fam[mode + "_seconds"] += c[mode + "_seconds"]
            row[mode] = c[mode]
        rows.append(row)
    total = {"group": {"truths": 0, "found": 0, "equal": 0, "matched": 0},
             "meanshift": {"truths": 0, "found": 0, "equal": 0, "matched": 0}}
    for fam in fams.values():
        for mode in ("group", "meanshift"):
            for k in total[mode]:
                total[mode][k] += fam[mode][k]
            fam[mode] = finish(fam[mode])
    for mode in ("group", "meanshift"):
        total[mode] = finish(total[mode])
    total["images"] = len(cases)
    print(json.dumps({"suite": "hog", "opencv": cv2.__version__, "families": fams,
                      "total": total, "cases": rows}, indent=1))


if __name__ == "__main__":
    main()
