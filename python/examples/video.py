#!/usr/bin/env python3
"""People (HOG) and lines (PClines) in every frame of a video read with cv2.VideoCapture.

    python3 python/examples/video.py VIDEO [--backend opencl|cuda|ref] [--device SEL]
                                           [--frames N] [--out annotated.avi] [--gpu]

VIDEO is a file or a camera index (0). Prints one line per frame: the detections and lines
found and the time each took. --out writes the frames with the boxes (green) and lines (red)
drawn. --gpu (with --backend cuda and CuPy installed) uploads each frame once with CuPy and
hands the GPU array to both detectors, as a pipeline that decodes on the GPU would.
"""
import argparse
import sys
import time

import cv2

import votecl


def draw_line(frame, line, colour):
    """The line a x + b y + c = 0 across the frame."""
    h, w = frame.shape[:2]
    a, b, c = line.a, line.b, line.c
    if abs(b) > abs(a):
        p0, p1 = (0, -(c) / b), (w - 1, -(a * (w - 1) + c) / b)
    else:
        p0, p1 = (-(c) / a, 0), (-(b * (h - 1) + c) / a, h - 1)
    cv2.line(frame, tuple(map(int, map(round, p0))), tuple(map(int, map(round, p1))), colour, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("video")
    ap.add_argument("--backend", default=None)
    ap.add_argument("--device", default=None)
    ap.add_argument("--frames", type=int, default=0, help="stop after N frames (0: all)")
    ap.add_argument("--lines", type=int, default=8, help="most lines per frame")
    ap.add_argument("--out", help="write the annotated video here")
    ap.add_argument("--gpu", action="store_true", help="pass CuPy arrays (cuda backend)")
    args = ap.parse_args()

    source = int(args.video) if args.video.isdigit() else args.video
    cap = cv2.VideoCapture(source)
    if not cap.isOpened():
        sys.exit("cannot open %s" % args.video)
    ctx = votecl.Context(backend=args.backend, device=args.device)
    print("votecl %s on %s (%s)" % (votecl.version(), ctx.device.name, ctx.backend),
          file=sys.stderr)
    if args.gpu:
        import cupy
    hog = votecl.HOG(ctx)  # OpenCV's people detector, colour gradients
    plan, writer, n = None, None, 0
    while args.frames == 0 or n < args.frames:
        ok, frame = cap.read()  # BGR uint8 (H, W, 3): HOG takes it as it is
        if not ok:
            break
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if plan is None:
            plan = votecl.Lines(ctx, gray.shape[1], gray.shape[0], max_lines=args.lines)
        if args.gpu:
            frame_in, gray_in = cupy.asarray(frame), cupy.asarray(gray)
        else:
            frame_in, gray_in = frame, gray
        t0 = time.perf_counter()
        people = hog.detect(frame_in)
        t1 = time.perf_counter()
        found = plan(gray_in)
        t2 = time.perf_counter()
        print("frame %d: %d people (%.1f ms), %d lines (%.1f ms)"
              % (n, len(people), (t1 - t0) * 1e3, len(found), (t2 - t1) * 1e3))
        if args.out:
            for d in people:
                b = d.box
                cv2.rectangle(frame, (b.x, b.y), (b.x + b.width, b.y + b.height), (0, 255, 0), 2)
            for line in found:
                draw_line(frame, line, (0, 0, 255))
            if writer is None:
                fourcc = cv2.VideoWriter_fourcc(*"MJPG")
                writer = cv2.VideoWriter(args.out, fourcc, cap.get(cv2.CAP_PROP_FPS) or 25,
                                         (frame.shape[1], frame.shape[0]))
            writer.write(frame)
        n += 1
    if writer is not None:
        writer.release()
    if n == 0:
        sys.exit("no frame read from %s" % args.video)
    return 0


if __name__ == "__main__":
    sys.exit(main())
