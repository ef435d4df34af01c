"""OpenCV's modules/imgproc/test/test_histograms.cpp, its calcHist cases, ported to
libvotecl's histograms (votecl.Histogram, the library's rule: [min, max), the upper edge
excluded as calcHist excludes it; votecl.histogram / histogram2d with explicit edges for
uneven bins).

Imgproc_Hist_Calc.accuracy draws 100 cases from OpenCV's test RNG; here the same
distributions are drawn from NumPy's PCG64 with a fixed seed (the same 100 cases on every
machine): 1 to 6 dimensions of 2 to about 2^20 bins in all, uniform or uneven (logarithmic)
ranges, u8 or f32 images of 1 to 256 pixels a side, a mask half the time. The oracle is the
origin's cvTsCalcHist: each value's bin in double precision, lo <= v < hi. The other tests of
the file (Query, MinMaxVal, Normalize, Threshold, Compare, CalcBackProject(Patch),
BayesianProb) test operations on histograms, not their counting, and are not ported
(docs/conventions.md, "What the peers' suites hold")."""
import math

import numpy as np
import pytest

import votecl
from conftest import issue23

CASES = 100
# Cases of Imgproc_Hist_Calc.accuracy whose f32 bins differ from the double-precision
# oracle by one bin for values next to an edge (issue 23 item 5).
ITEM5 = {24}


def draw_case(rng):
    """One case of CV_CalcHistTest, drawn as CV_BaseHistTest::get_hist_params and
    CV_CalcHistTest::prepare_test_case draw it."""
    cdims = int(rng.integers(1, 7))
    hist_size = math.exp(rng.random() * 20 * math.log(2))
    max_dim_size = int(round(hist_size ** (1.0 / cdims)))
    uniform = bool(rng.integers(0, 2))
    dims = []
    for _ in range(cdims):
        d = int(rng.integers(0, max_dim_size + 2)) + 2
        dims.append(d if uniform else min(d, 31))
    f32 = bool(rng.integers(0, 2))
    w = int(round(math.exp(rng.random() * 8 * math.log(2))))
    h = int(round(math.exp(rng.random() * 8 * math.log(2))))
    low, high = (-1000.0, 1000.0) if f32 else (0.0, 255.0)
    delta = float(rng.integers(0, 2)) * (high - low) * 0.05
    lo, hi = low + delta, high - delta
    ranges = [uniform_range(lo, hi) if uniform else log_edges(lo, hi, n) for n in dims]
    if f32:
        images = [rng.uniform(low, high, (h, w)).astype(np.float32) for _ in dims]
    else:
        images = [rng.integers(int(low), int(high), (h, w), dtype=np.uint8) for _ in dims]
    mask = rng.integers(-2, 2, (h, w)).clip(0).astype(np.uint8) if rng.integers(0, 2) \
        else None
    return dict(dims=dims, uniform=uniform, ranges=ranges, images=images, mask=mask)


def uniform_range(lo, hi):
    return np.array([lo, hi], np.float32)


def log_edges(lo, hi, n):
    """CV_BaseHistTest::get_hist_ranges' uneven edges: a logarithmic scale."""
    q, j = 1.0, 0
    for j in range(10):
        q = 1.0 + (j + 1) * 0.1
        if (q ** n - 1) / (q - 1) >= hi - lo:
            break
    if j == 0:
        delta, q = (hi - lo) / n, 1.0
    else:
        q = 1 + j * 0.1
        delta = max(math.floor((hi - lo) * (q - 1) / (q ** n - 1)), 1.0)
    edges, val = [], lo
    for _ in range(n + 1):
        edges.append(min(val, hi))
        val += delta
        delta *= q
    return np.array(edges, np.float32)


def oracle(case):
    """cvTsCalcHist: counts in double precision, each value in [lo, hi), masked out where
    the mask is 0."""
    dims, ranges = case["dims"], case["ranges"]
    keep = np.ones(case["images"][0].shape, bool) if case["mask"] is None else \
        case["mask"] != 0
    idx = []
    for n, r, im in zip(dims, ranges, case["images"]):
        v = im.astype(np.float64)
        if case["uniform"]:
            lo, hi = float(r[0]), float(r[1])
            keep &= (v >= lo) & (v < hi)
            i = np.clip(np.floor((v - lo) * n / (hi - lo)), 0, n - 1)
        else:
            t = r.astype(np.float32)
            j = np.searchsorted(t, im.astype(np.float32), side="right")
            keep &= (j > 0) & (j <= n)
            i = j - 1
        idx.append(i.astype(np.int64))
    out = np.zeros(dims, np.int64)
    np.add.at(out, tuple(i[keep] for i in idx), 1)
    return out


def calc_hist(ctx, case):
    """cv2.calcHist's call on the library: one N-D plan over the images interleaved, the mask
    given with the call, calcHist's ranges (uniform: [lo, hi) per dimension; uneven: the
    edges, the last bin open)."""
    dims, ranges, images = case["dims"], case["ranges"], case["images"]
    x = np.stack(images, axis=-1)
    whole = all(float(v).is_integer() for r in ranges for v in r)
    if x.dtype == np.uint8 and case["uniform"] and not whole:
        # the plans take whole-number ranges for integer data; u8 is exact in float32, whose
        # rule is calcHist's double-precision one
        x = x.astype(np.float32)
    kw = dict(bins=tuple(dims), channels=len(dims))
    if case["uniform"]:
        kw["range"] = tuple((float(r[0]), float(r[1])) for r in ranges)
    else:
        kw["bin_edges"] = [r.astype(np.float64) for r in ranges]
    return votecl.Histogram(ctx, x.dtype, **kw)(x, mask=case["mask"])


def libvotecl(ctx, case):
    dims, ranges, images = case["dims"], case["ranges"], case["images"]
    dtype = images[0].dtype
    if case["mask"] is not None or len(dims) > 2:
        return calc_hist(ctx, case)
    whole = all(float(v).is_integer() for r in ranges for v in r)
    if case["uniform"] and dtype == np.uint8 and not whole:
        # the plans take whole-number ranges for integer data: NumPy's functions take any
        # (docs/conventions.md, "Histogram ranges of integer data")
        r = [(float(a), float(b)) for a, b in ranges]
        if len(dims) == 1:
            return votecl.histogram(images[0].ravel(), bins=dims[0], range=r[0],
                                    context=ctx)[0]
        return votecl.histogram2d(images[0].ravel(), images[1].ravel(), bins=dims, range=r,
                                  context=ctx)[0]
    if case["uniform"] and len(dims) == 1:
        return votecl.Histogram(ctx, dtype, bins=dims[0],
                                range=(float(ranges[0][0]), float(ranges[0][1])))(images[0])
    if case["uniform"]:
        r = tuple((float(a), float(b)) for a, b in ranges)
        return votecl.Histogram(ctx, dtype, bins=tuple(dims), range=r, two_arrays=True)(
            images[0], images[1])
    # uneven edges: NumPy's rule closes the last bin, calcHist's leaves it open
    if len(dims) == 1:
        counts, _ = votecl.histogram(images[0].ravel(), bins=ranges[0].astype(np.float64),
                                     context=ctx)
    else:
        counts, _, _ = votecl.histogram2d(images[0].ravel(), images[1].ravel(),
                                          bins=[r.astype(np.float64) for r in ranges],
                                          context=ctx)
    return counts


def outcome(case, backend):
    """The mark a case needs, from what it asks for (none since issue 26 item 1: masks, N-D
    and uneven bins on every backend)."""
    return None


def accuracy_params():
    rng = np.random.default_rng(20231126)
    return [pytest.param(i, draw_case(rng), id="case%02d" % i) for i in range(CASES)]


# test_histograms.cpp: Imgproc_Hist_Calc.accuracy (CV_CalcHistTest), 100 cases
@pytest.mark.parametrize("index,case", accuracy_params())
def test_calc_hist_accuracy(ctx, request, index, case):
    mark = outcome(case, ctx.backend)
    if mark is None and index in ITEM5:
        mark = issue23(5)
    if mark is not None:
        request.applymarker(mark)
    counts = np.asarray(libvotecl(ctx, case)).reshape(case["dims"])
    expected = oracle(case)
    # cvCompareHist(CV_COMP_CHISQR) <= DBL_EPSILON: every bin equal
    assert np.array_equal(counts, expected), \
        "%d bins differ" % int(np.count_nonzero(counts != expected))


# test_histograms.cpp: Imgproc_Hist_Calc.calcHist_regression_11544 (u16 zeros, 1000 bins
# over [0, 900) and over [0, 1000): the same counts on every path; here on every backend)
def test_calc_hist_regression_11544(ctx):
    m = np.zeros((10, 10), np.uint16)
    for hi in (900, 1000):
        hist = votecl.Histogram(ctx, np.uint16, bins=1000, range=(0, hi))(m)
        expected = np.zeros(1000, np.uint32)
        expected[0] = 100
        assert np.array_equal(hist, expected)


# test_histograms.cpp: Imgproc_Hist_Calc.badarg, its calcHist half (the calcBackProject half
# tests a feature libvotecl does not have and is not ported)
def test_calc_hist_badarg(ctx):
    img = np.zeros((10, 10), np.uint8)
    votecl.Histogram(ctx, np.uint8, bins=100, range=(0, 10))(img)  # base run
    with pytest.raises(votecl.InvalidArgument):
        votecl.Histogram(ctx, np.uint8, bins=0, range=(0, 10))
    with pytest.raises(votecl.InvalidArgument):
        votecl.Histogram(ctx, np.uint8, bins=100, range=(10, 0))
    with pytest.raises(votecl.InvalidArgument):
        votecl.Histogram(ctx, np.int32, bins=100)
    with pytest.raises(votecl.InvalidArgument):
        votecl.Histogram(ctx, np.uint8, bins=100, range=(0, 10))(np.zeros((10, 10), np.int32))
    votecl.Histogram(ctx, np.uint8, bins=100)(img)  # special case: the dtype's own range
