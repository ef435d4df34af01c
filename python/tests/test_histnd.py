"""Issue 26 item 1 from Python: N-D, uneven, masked and per-channel histograms against
np.histogramdd, np.histogram and cv2.calcHist, on the ref backend and OpenCL."""
import numpy as np
import pytest

import votecl


@pytest.fixture(params=["ref", "opencl"])
def any_ctx(request, ctx, ref):
    return ref if request.param == "ref" else ctx


def test_histogramdd_matches_numpy(any_ctx):
    rng = np.random.default_rng(26)
    s = rng.normal(size=(4000, 4)).astype(np.float32)
    s[::97, 1] = np.nan
    edges = np.array([-3.0, -1.0, 0.0, 0.5, 3.0])
    for bins in (5, (3, 4, 5, 6), [edges] * 4):
        got = votecl.histogramdd(s, bins, range=[(-2, 2)] * 4, context=any_ctx)
        want = np.histogramdd(s, bins, range=[(-2, 2)] * 4)
        assert np.array_equal(got[0], want[0])
        assert all(np.array_equal(a, b) for a, b in zip(got[1], want[1]))


def test_histogramdd_mask(any_ctx):
    rng = np.random.default_rng(27)
    u = rng.integers(0, 256, (3000, 3), dtype=np.uint8)
    m = rng.integers(0, 2, 3000).astype(bool)
    r = [(0, 255)] * 3
    got, _ = votecl.histogramdd(u, 8, range=r, mask=m, context=any_ctx)
    assert np.array_equal(got, np.histogramdd(u[m], 8, range=r)[0])
    got, _ = votecl.histogramdd(u, 8, range=r, mask=np.zeros(3000, np.uint8), context=any_ctx)
    assert not got.any()


def test_histogram_edges_closed_last_bin(any_ctx):
    x = np.array([-1.0, -0.5, 0.0, 0.1, 0.7, 1.0, 1.5, np.nan], np.float32)
    e = np.array([-0.5, 0.0, 0.1, 0.7, 1.0])
    got, edges = votecl.histogram(x, bins=e, context=any_ctx)
    assert np.array_equal(got, np.histogram(x[~np.isnan(x)], bins=e)[0])
    assert np.array_equal(edges, e)


def test_plan_mask_and_uneven_as_calchist(any_ctx):
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(28)
    img = rng.integers(0, 256, (40, 50, 3), dtype=np.uint8)
    mask = (rng.integers(0, 3, (40, 50)) > 0).astype(np.uint8)
    h = votecl.Histogram(any_ctx, np.uint8, bins=(4, 5, 6), range=(0, 256))
    want = cv2.calcHist([img], [0, 1, 2], mask, [4, 5, 6], [0, 256] * 3)
    assert np.array_equal(h(img, mask=mask), want.astype(np.uint32))
    e = np.array([0.0, 10.5, 30.0, 100.0, 255.0])  # calcHist: the last bin open
    got = votecl.Histogram(any_ctx, np.uint8, bin_edges=e)(img[..., 0].copy())
    v = img[..., 0].ravel()
    assert np.array_equal(got, np.histogram(v[v < 255], bins=e)[0])


def test_per_channel_one_pass(any_ctx):
    rng = np.random.default_rng(29)
    rgba = rng.integers(0, 256, (30, 20, 4), dtype=np.uint8)
    got = votecl.Histogram(any_ctx, np.uint8, per_channel=True, channels=4)(rgba)
    assert got.shape == (4, 256)
    for c in range(4):
        assert np.array_equal(got[c], np.bincount(rgba[..., c].ravel(), minlength=256))


def test_bad_input_names_the_field(ref):
    with pytest.raises(votecl.InvalidArgument, match="bin_edges"):
        votecl.Histogram(ref, np.float32, bin_edges=np.array([0.0, 1.0, 1.0]))
    with pytest.raises(votecl.InvalidArgument, match="nbins"):
        votecl.Histogram(ref, np.uint8, bins=(65536, 65536, 65536), range=(0, 256))
