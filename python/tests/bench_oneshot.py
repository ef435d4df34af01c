"""Per-call times of the one-shot functions (plans from the context's cache) against a
held plan and against a plan built per call, on the default device. A benchmark, not a
test: `python3 python/tests/bench_oneshot.py [repeats]` prints a table (microseconds)."""
import sys
import time

import numpy as np

import votecl


def per_call(fs, repeats, rounds=15):
    """Median per-call seconds of each function, timed in alternation (round after round)
    so that a loaded machine slows them alike."""
    for f in fs:
        f()
    times = [[] for _ in fs]
    for _ in range(rounds):
        for f, t in zip(fs, times):
            start = time.perf_counter()
            for _ in range(repeats):
                f()
            t.append((time.perf_counter() - start) / repeats)
    return [sorted(t)[len(t) // 2] * 1e6 for t in times]


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    ctx = votecl.Context()
    rng = np.random.default_rng(1)
    x8 = rng.integers(0, 256, (16, 16), dtype=np.uint8)
    xf = rng.uniform(0, 1, (16, 16)).astype(np.float32)
    big = rng.integers(0, 256, 1 << 20, dtype=np.uint8)
    im = np.zeros((64, 96), np.uint8)
    im[20, :] = 255
    im[:, 30] = 255
    h8 = votecl.Histogram(ctx, np.uint8, 256, (0, 256))
    hf = votecl.Histogram(ctx, np.float32, 10, (0, 1))
    hough = votecl.Hough(ctx, 96, 64)
    pcl = votecl.Lines(ctx, 96, 64)
    rows = [
        ("histogram u8 16x16, 256 bins", lambda: h8(x8),
         lambda: votecl.histogram(x8, 256, (0, 256), context=ctx),
         lambda: votecl.Histogram(ctx, np.uint8, 256, (0, 256))(x8)),
        ("histogram f32 16x16, 10 bins", lambda: hf(xf),
         lambda: votecl.histogram(xf, 10, (0, 1), context=ctx),
         lambda: votecl.Histogram(ctx, np.float32, 10, (0, 1))(xf)),
        ("histogram f32 16x16, default range", lambda: hf(xf),
         lambda: votecl.histogram(xf, 10, context=ctx), None),
        ("histogram u8 1M, 256 bins", lambda: h8(big),
         lambda: votecl.histogram(big, 256, (0, 256), context=ctx), None),
        ("histogram u8 1M, 10 bins, default range", lambda: h8(big),
         lambda: votecl.histogram(big, 10, context=ctx), None),
        ("hough_lines 96x64", lambda: hough(im),
         lambda: votecl.hough_lines(im, context=ctx), lambda: votecl.Hough(ctx, 96, 64)(im)),
        ("lines (PClines) 96x64", lambda: pcl(im),
         lambda: votecl.lines(im, context=ctx), lambda: votecl.Lines(ctx, 96, 64)(im)),
    ]
    print("%-36s %10s %10s %7s %12s" % ("call", "held us", "one-shot", "ratio", "plan/call"))
    for name, held, oneshot, fresh in rows:
        a, b = per_call([held, oneshot], repeats)
        c = per_call([fresh], max(repeats // 20, 3), 5)[0] if fresh else float("nan")
        print("%-36s %10.1f %10.1f %7.2f %12.1f" % (name, a, b, b / a, c))
    print("device:", ctx.device.name)


if __name__ == "__main__":
    main()
