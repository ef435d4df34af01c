#!/usr/bin/env python3
"""HOG people detection: libvotecl on one backend against OpenCV's CPU detectMultiScale, in
the same process on the same frames (docs/performance.md, "HOG on the CPU (issue 14)").

Frames: tools/images/basketball1.png (gray) at 640x480 and stretched by nearest neighbour to
1920x1080 (as `votecl bench --only hog` stretches it), as gray and as colour (three equal
channels), and where tools/images/astronaut.jpg is present (`votecl bench`'s
hog1920x1080rgb) that real colour frame stretched to 1920x1080. Both sides run the
default people detector with winStride 8, padding 0, scale 1.05, group threshold 2. Rounds
alternate the two libraries so that both see the same machine load; each round is one
detection, after two warm-up detections each. Printed per frame: best and median wall time,
CPU time per detection (time.process_time: every thread of the process, PoCL's and OpenCV's
workers included), the ratios OpenCV / libvotecl (above 1: libvotecl faster), whether the
boxes are equal, and the load average before and after.

Run from a build tree with the system Python (python3-opencv):
    VOTECL_LIBRARY=lib/.libs/libvotecl.so PYTHONPATH=python VOTECL_KERNEL_PATH=$PWD/cl \\
        /usr/bin/python3 tools/hog-cpu.py [--backend opencl] [--rounds 7] [--threads 2]
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np


def stretch(img, w, h):
    ys = (np.arange(h) * img.shape[0] // h)[:, None]
    xs = (np.arange(w) * img.shape[1] // w)[None, :]
    return np.ascontiguousarray(img[ys, xs])


def frames(image_dir):
    import cv2
    bgr = cv2.imread(os.path.join(image_dir, "basketball1.png"), cv2.IMREAD_COLOR)
    if bgr is None:
        sys.exit("hog-cpu.py: no basketball1.png in %s" % image_dir)
    out = []
    for w, h in ((640, 480), (1920, 1080)):
        big = stretch(bgr, w, h)
        out.append(("%dx%d colour" % (w, h), big))
        out.append(("%dx%d gray" % (w, h), cv2.cvtColor(big, cv2.COLOR_BGR2GRAY)))
    astronaut = cv2.imread(os.path.join(image_dir, "astronaut.jpg"), cv2.IMREAD_COLOR)
    if astronaut is not None:
        out.append(("1920x1080 rgb", stretch(astronaut, 1920, 1080)))
    return out


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - w0, time.process_time() - c0, result


def boxes_cv(found):
    rects = found[0] if isinstance(found, tuple) else found
    return sorted(tuple(int(v) for v in r) for r in rects)


def boxes_vc(found):
    return sorted((int(d.box.x), int(d.box.y), int(d.box.width), int(d.box.height))
                  for d in found)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default="opencl")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2, help="cv2.setNumThreads (2)")
    ap.add_argument("--images", default=os.path.join(os.path.dirname(__file__), "images"))
    ap.add_argument("--only", help="frames whose name contains this")
    ap.add_argument("--json", dest="json_out", help="write the rows as JSON")
    args = ap.parse_args()

    import cv2
    import votecl
    cv2.setNumThreads(args.threads)
    ctx = votecl.Context(backend=args.backend)
    info = ctx.info if hasattr(ctx, "info") else None
    hog_cv = cv2.HOGDescriptor()
    hog_cv.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
    hog_vc = votecl.HOG(ctx)
    rows = []
    load0 = os.getloadavg()
    print("cv2 %s, %d threads; libvotecl backend %s%s; load %.2f %.2f %.2f" % (
        cv2.__version__, cv2.getNumThreads(), args.backend,
        " (%s)" % info.name.decode() if info is not None and hasattr(info, "name") and
        isinstance(info.name, bytes) else "", *load0))
    print("%-18s %10s %10s %10s %10s %10s %10s %7s %7s %s" % (
        "frame", "vc best", "vc median", "vc cpu", "cv best", "cv median", "cv cpu",
        "wall x", "cpu x", "boxes"))
    for name, bgr in frames(args.images):
        if args.only and args.only not in name:
            continue
        # libvotecl takes R, G, B; OpenCV the same pixels as B, G, R (tests/test-hog.c)
        rgb = np.ascontiguousarray(bgr[..., ::-1]) if bgr.ndim == 3 else bgr
        run_vc = lambda: hog_vc.detect(rgb)
        run_cv = lambda: hog_cv.detectMultiScale(bgr, 0, (8, 8), (0, 0), 1.05, 2)
        for _ in range(2):
            run_vc()
            run_cv()
        vc, cv = [], []
        for _ in range(args.rounds):
            vc.append(timed(run_vc))
            cv.append(timed(run_cv))
        same = boxes_vc(vc[-1][2]) == boxes_cv(cv[-1][2])
        row = {"frame": name,
               "votecl_best_s": min(t[0] for t in vc),
               "votecl_median_s": statistics.median(t[0] for t in vc),
               "votecl_cpu_s": statistics.median(t[1] for t in vc),
               "cv2_best_s": min(t[0] for t in cv),
               "cv2_median_s": statistics.median(t[0] for t in cv),
               "cv2_cpu_s": statistics.median(t[1] for t in cv),
               "boxes_equal": same, "boxes": len(boxes_cv(cv[-1][2]))}
        row["wall_ratio"] = row["cv2_best_s"] / row["votecl_best_s"]
        row["cpu_ratio"] = row["cv2_cpu_s"] / row["votecl_cpu_s"]
        rows.append(row)
        print("%-18s %8.1fms %8.1fms %8.1fms %8.1fms %8.1fms %8.1fms %6.2fx %6.2fx %s (%d)" % (
            name, 1e3 * row["votecl_best_s"], 1e3 * row["votecl_median_s"],
            1e3 * row["votecl_cpu_s"], 1e3 * row["cv2_best_s"], 1e3 * row["cv2_median_s"],
            1e3 * row["cv2_cpu_s"], row["wall_ratio"], row["cpu_ratio"],
            "equal" if same else "DIFFER", row["boxes"]))
        sys.stdout.flush()
    load1 = os.getloadavg()
    print("load after %.2f %.2f %.2f" % load1)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"backend": args.backend, "cv2": cv2.__version__,
                       "load_before": load0, "load_after": load1, "rows": rows}, f, indent=1)
    return 0 if all(r["boxes_equal"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
