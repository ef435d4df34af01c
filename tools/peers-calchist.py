#!/usr/bin/env python3
"""libvotecl's histograms on the CPU (PoCL) beside cv2.calcHist on the same 1920x1080 data
(issue 26: "CPU ahead of cv2.calcHist"): a gray 256-bin histogram, the 16x16x16 histogram of
an RGB frame and the four 256-bin histograms of an RGBA frame (one pass), each checked equal
to cv2.calcHist first, then medians of 15 calls. Run from the build tree:
    /usr/bin/python3 tools/peers-calchist.py
"""
import os, sys, time, statistics, numpy as np, cv2
sys.path.insert(0, os.path.join(os.getcwd(), 'python'))
os.environ.setdefault('VOTECL_LIBRARY', os.path.join(os.getcwd(), 'lib/.libs/libvotecl.so'))
os.environ.setdefault('VOTECL_KERNEL_PATH', os.path.join(os.getcwd(), 'cl'))
import votecl
rng = np.random.default_rng(1)
rgb = cv2.resize(cv2.imread('tools/images/building.png'), (1920, 1080))
rgba = np.dstack([rgb, rng.integers(0, 256, rgb.shape[:2], dtype=np.uint8)])
gray = cv2.cvtColor(rgb, cv2.COLOR_BGR2GRAY)
ctx = votecl.Context(backend='opencl')
def t(f, reps=15):
    f(); s = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); s.append(time.perf_counter() - t0)
    return statistics.median(s) * 1e3
h1 = votecl.Histogram(ctx, bins=256, range=(0, 256))
h3 = votecl.Histogram(ctx, bins=[16, 16, 16], range=[(0, 256)] * 3, channels=3)
hpc = votecl.Histogram(ctx, bins=256, range=(0, 256), channels=4, per_channel=True)
# equal first
assert (h1(gray) == cv2.calcHist([gray], [0], None, [256], [0, 256]).ravel()).all()
assert (h3(rgb) == cv2.calcHist([rgb], [0, 1, 2], None, [16] * 3, [0, 256] * 3)).all()
pc = hpc(rgba)
assert all((pc[c] == cv2.calcHist([rgba], [c], None, [256], [0, 256]).ravel()).all() for c in range(4))
rows = [
 ("gray 256 bins", lambda: h1(gray), lambda: cv2.calcHist([gray], [0], None, [256], [0, 256])),
 ("RGB 16x16x16", lambda: h3(rgb), lambda: cv2.calcHist([rgb], [0, 1, 2], None, [16] * 3, [0, 256] * 3)),
 ("RGBA per channel (4 x 256)", lambda: hpc(rgba), lambda: [cv2.calcHist([rgba], [c], None, [256], [0, 256]) for c in range(4)]),
]
print("threads cv2:", cv2.getNumThreads(), "load:", os.getloadavg())
for name, a, b in rows:
    ta, tb = t(a), t(b)
    print("%-28s votecl %.3f ms  cv2.calcHist %.3f ms  ratio %.2fx" % (name, ta, tb, tb / ta))
