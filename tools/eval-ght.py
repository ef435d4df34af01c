#!/usr/bin/env python3
"""OpenCV's generalized Hough on the scenes `votecl eval ght --dump DIR` wrote, scored with the
metric of tests/truth-ght.h (a pose matches a planted one within 2 px, 1 degree and 2% scale,
each planted pose at most once, best-ranked pose first), beside votecl's poses from the same
dump. Prints JSON: per family and in all, for votecl and for cv2's Guil.

cv2's Guil runs with the parameters of OpenCV's sample (samples/cpp/generalizedhoughtransform.cpp:
levels 360, dp 2, angle 0..360 step 1, scale 0.5..2 step 0.05, thresholds 1500 / 50 / 10 for
angle, scale and position, min_dist 100 there; 10 here as for votecl) unless options say
otherwise. It ranks its poses by their position votes.

Usage: eval-ght.py DIR [--angle-thresh N] [--scale-thresh N] [--pos-thresh N]
       [--min-dist D] [--limit N]   (exit 77 when cv2 is missing)"""
import argparse
import json
import math
import os
import sys
import time

try:
    import cv2
except ImportError:
    sys.exit(77)

POS, ANGLE, SCALE = 2.0, 1.0, 0.02


def angle_diff(a, b):
    d = math.fmod(abs(a - b), 360.0)
    return 360 - d if d > 180 else d


def score(truth, poses):
    used = [False] * len(truth)
    found = false = first = 0
    for rank, (x, y, a, s) in enumerate(poses, 1):
        hit = -1
        for k, (tx, ty, ta, ts) in enumerate(truth):
            if (not used[k] and math.hypot(x - tx, y - ty) <= POS
                    and angle_diff(a, ta) <= ANGLE and abs(s / ts - 1) <= SCALE):
                hit = k
                break
        if hit < 0:
            false += 1
            continue
        used[hit] = True
        found += 1
        first = first or rank
    return found, false, first


class Tally:
    def __init__(self):
        self.scenes = self.instances = self.found = self.false = 0
        self.with_inst = self.strongest = self.first_sum = self.first_n = 0
        self.no_pose = 0
        self.seconds = 0.0

    def add(self, truth, poses, seconds=0.0):
        found, false, first = score(truth, poses)
        self.scenes += 1
        self.instances += len(truth)
        self.found += found
        self.false += false
        self.seconds += seconds
        if truth:
            self.with_inst += 1
            self.strongest += first == 1
            if first:
                self.first_sum += first
                self.first_n += 1
        else:
            self.no_pose += not poses

    def json(self):
        absent = self.scenes - self.with_inst
        out = {
            "scenes": self.scenes,
            "instances": self.instances,
            "found": self.found,
            "recall": self.found / self.instances if self.instances else 0,
            "strongest_true": self.strongest / self.with_inst if self.with_inst else 0,
            "false_per_scene": self.false / self.scenes if self.scenes else 0,
            "mean_first_true_rank": self.first_sum / self.first_n if self.first_n else 0,
        }
        if absent:
            out["no_pose_share"] = self.no_pose / absent
        if self.seconds:
            out["seconds_per_scene"] = self.seconds / self.scenes
        return out


def guil(args, templ):
    g = cv2.createGeneralizedHoughGuil()
    g.setMinDist(args.min_dist)
    g.setLevels(360)
    g.setDp(2)
    g.setMaxBufferSize(1000)
    g.setMinAngle(0)
    g.setMaxAngle(360)
    g.setAngleStep(1)
    g.setAngleThresh(args.angle_thresh)
    g.setMinScale(0.5)
    g.setMaxScale(2.0)
    g.setScaleStep(0.05)
    g.setScaleThresh(args.scale_thresh)
    g.setPosThresh(args.pos_thresh)
    g.setTemplate(templ)
    return g


def detect(g, scene):
    positions, votes = g.detect(scene)
    if positions is None:
        return []
    poses = [(float(x), float(y), float(a), float(s)) for x, y, s, a in positions[0]]
    order = sorted(range(len(poses)), key=lambda i: -int(votes[0][i][0]))
    # cv2's Guil angle has votecl's sense (clockwise on the screen, y down): a scene warped by
    # cv2.getRotationMatrix2D(c, 210, 0.85) gives 151 in both
    return [poses[i] for i in order]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--angle-thresh", type=int, default=1500)
    ap.add_argument("--scale-thresh", type=int, default=50)
    ap.add_argument("--pos-thresh", type=int, default=10)
    ap.add_argument("--min-dist", type=float, default=10)
    ap.add_argument("--limit", type=int, default=0, help="scenes per family (0: all)")
    args = ap.parse_args()
    with open(os.path.join(args.dir, "cases.json")) as f:
        cases = json.load(f)["cases"]
    detectors = {}
    tallies = {"votecl": {}, "cv2_guil": {}}
    per_family = {}
    for case in cases:
        family = case["scene"].rsplit("-", 1)[0]
        per_family[family] = per_family.get(family, 0) + 1
        if args.limit and per_family[family] > args.limit:
            continue
        truth = [tuple(t) for t in case["truth"]]
        for name in tallies:
            tallies[name].setdefault(family, Tally())
        tallies["votecl"][family].add(truth, [tuple(p[:4]) for p in case["votecl"]])
        if case["template"] not in detectors:
            templ = cv2.imread(os.path.join(args.dir, "templ-%s.pgm" % case["template"]),
                               cv2.IMREAD_GRAYSCALE)
            detectors[case["template"]] = guil(args, templ)
        scene = cv2.imread(os.path.join(args.dir, case["scene"]), cv2.IMREAD_GRAYSCALE)
        t0 = time.perf_counter()
        poses = detect(detectors[case["template"]], scene)
        tallies["cv2_guil"][family].add(truth, poses, time.perf_counter() - t0)
    out = {"metric": {"pos": POS, "angle": ANGLE, "scale": SCALE},
           "cv2": cv2.__version__,
           "cv2_guil_params": {"angle_thresh": args.angle_thresh,
                               "scale_thresh": args.scale_thresh,
                               "pos_thresh": args.pos_thresh, "min_dist": args.min_dist}}
    for name, fam in tallies.items():
        total = Tally()
        for t in fam.values():
            for k in vars(total):
                setattr(total, k, getattr(total, k) + getattr(t, k))
        out[name] = {f: t.json() for f, t in fam.items()}
        out[name]["all"] = total.json()
    json.dump(out, sys.stdout, indent=2)
    print()


main()
