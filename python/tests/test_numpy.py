"""votecl.histogram, histogram2d and histogramdd against NumPy's (issue 25.3): the same
arguments, the same (counts, edges), equal to NumPy on every unweighted input, values on
edges included; weighted float data within python/README.md's list of differences; lossless
conversions, refusals naming the dtype."""
import numpy as np
import pytest

import votecl


def rng(seed):
    return np.random.default_rng(seed)


def same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, list):
            same(g, w)
        else:
            assert np.asarray(g).dtype == np.asarray(w).dtype, (np.asarray(g).dtype, w.dtype)
            np.testing.assert_array_equal(g, w)


INTEGER_CASES = [
    # (data, keyword arguments)
    (rng(1).integers(0, 256, 5000).astype(np.uint8), {}),
    (rng(1).integers(0, 256, 5000).astype(np.uint8), dict(bins=256, range=(0, 256))),
    (rng(1).integers(0, 256, 5000).astype(np.uint8), dict(bins=7)),
    (np.arange(256, dtype=np.uint8), dict(bins=3)),               # values on edges
    (np.arange(256, dtype=np.uint8), dict(bins=255, range=(0, 255))),
    (np.arange(100, dtype=np.uint8), dict(bins=[0, 10, 11, 50, 99])),   # uneven, last edge
    (np.arange(100, dtype=np.uint8), dict(bins=[0.5, 10.5, 70])),
    (np.arange(100, dtype=np.uint8), dict(bins=10, range=(20.5, 40.25))),
    (np.full(50, 7, np.uint8), {}),                               # min == max
    (np.zeros(0, np.uint8), {}),                                  # empty
    (rng(2).integers(0, 65536, 20000).astype(np.uint16), dict(bins=13)),
    (rng(2).integers(1000, 1100, 20000).astype(np.uint16), dict(bins=100)),
    (np.arange(0, 65536, 7, dtype=np.uint16), dict(bins=[0, 7, 14, 700, 65535])),
    (rng(3).integers(0, 2**32, 20000, dtype=np.int64).astype(np.uint32), dict(bins=13)),
    (rng(3).integers(10**6, 10**6 + 5000, 9000).astype(np.uint32), dict(bins=50)),
    (rng(3).integers(0, 70000, 9000).astype(np.uint32), dict(bins=70, range=(0, 70000))),
    (rng(4).integers(-50, 50, 3000), dict(bins=9)),               # int64, negative
    (rng(4).integers(0, 200, 3000).astype(np.int8 if False else np.int16), {}),
    (rng(5).integers(0, 2, 999).astype(bool), {}),
    (rng(5).integers(0, 2, 999).astype(bool), dict(bins=2)),
    (rng(6).integers(0, 40, 3000), dict(bins="auto")),
    (rng(6).integers(0, 40, 3000).astype(np.float64), dict(bins=6)),   # whole float64
    (rng(7).integers(0, 256, 4000).astype(np.uint8), dict(bins=8, density=True)),
]


@pytest.mark.parametrize("case", range(len(INTEGER_CASES)))
def test_integer_data_equals_numpy(ctx, case):
    data, kw = INTEGER_CASES[case]
    got = votecl.histogram(data, context=ctx, **kw)
    want = np.histogram(data.astype(np.uint8) if data.dtype == bool else data, **kw)
    if data.dtype.kind == "f":  # counted as floats: whole values lie away from the edges
        assert data.max() < 2**24
    same(got, want)


def test_lists_and_weights(ctx):
    same(votecl.histogram([1, 2, 2, 3, 3, 3], bins=3, context=ctx),
         np.histogram([1, 2, 2, 3, 3, 3], bins=3))
    same(votecl.histogram([0.5, 0.25, 0.75, 1.0], bins=2, context=ctx),
         np.histogram([0.5, 0.25, 0.75, 1.0], bins=2))
    x = rng(8).integers(0, 256, 3000).astype(np.uint8)
    w = rng(8).uniform(0, 1, 3000)
    got, edges = votecl.histogram(x, bins=16, weights=w, context=ctx)
    want, want_edges = np.histogram(x, bins=16, weights=w)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(edges, want_edges)
    np.testing.assert_allclose(got, want, rtol=1e-5)  # sums in single precision
    got = votecl.histogram(x, bins=16, weights=w, density=True, context=ctx)[0]
    np.testing.assert_allclose(got, np.histogram(x, 16, weights=w, density=True)[0], rtol=1e-5)


def edge_values(edges):
    e = edges.astype(np.float32)
    return np.concatenate([e, np.nextafter(e, np.float32(np.inf)),
                           np.nextafter(e, np.float32(-np.inf))])


FLOAT_CASES = [
    (rng(10).uniform(0, 10, 1000).astype(np.float32), dict(bins=10)),
    (rng(10).uniform(-1.2, 1.2, 5001).astype(np.float32), dict(bins=100, range=(-1, 1))),
    (rng(11).normal(0, 1, 4000).astype(np.float32), dict(bins="auto")),
    (rng(11).normal(0, 1, 4000), dict(bins=33)),                      # float64: refused
    (rng(12).uniform(0, 1, 999).astype(np.float16), dict(bins=5)),
    (np.array([np.nan, 0.5, np.inf, -np.inf, 0.25], np.float32), dict(bins=4, range=(0, 1))),
]


@pytest.mark.parametrize("case", range(len(FLOAT_CASES)))
def test_float_data_equals_numpy(ctx, case):
    data, kw = FLOAT_CASES[case]
    if data.dtype == np.float64:
        with pytest.raises(votecl.InvalidType, match="float64"):
            votecl.histogram(data, context=ctx, **kw)
        data = data.astype(np.float32)
    same(votecl.histogram(data, context=ctx, **kw), np.histogram(data, **kw))


@pytest.mark.parametrize("bins,lo,hi", [(10, 0, 1), (100, -1, 1), (7, 0, 10), (13, 0.1, 0.7),
                                        (1000, 1e-3, 1e3)])
def test_float_values_on_edges(ctx, bins, lo, hi):
    """Values on every edge and one single-precision step either side, in float32 and in
    float64 (exact in float32, whose edges NumPy computes in float64)."""
    edges = np.histogram_bin_edges(np.empty(0, np.float32), bins, (lo, hi))
    x = edge_values(edges)
    same(votecl.histogram(x, bins, (lo, hi), context=ctx), np.histogram(x, bins, (lo, hi)))
    x64 = np.concatenate([x, edge_values(np.histogram_bin_edges(x.astype(np.float64), bins,
                                                                (lo, hi)))]).astype(np.float64)
    same(votecl.histogram(x64, bins, (lo, hi), context=ctx),
         np.histogram(x64, bins, (lo, hi)))


def test_float_uneven_edges(ctx):
    x = rng(13).normal(0, 1, 3000).astype(np.float32)
    edges = np.array([-3, -1, -0.5, 0, 0.1, 0.2, 1.7, 2.5], np.float32)
    x[:8] = edges
    same(votecl.histogram(x, bins=edges, context=ctx), np.histogram(x, bins=edges))
    w = rng(13).uniform(0, 1, 3000)
    got = votecl.histogram(x, bins=edges, weights=w, context=ctx)[0]
    np.testing.assert_allclose(got, np.histogram(x, bins=edges, weights=w)[0], rtol=1e-5)


def test_float_weighted(ctx):
    """Weighted float data: NumPy's bins, values on edges included (unit weights count
    exactly); sums in single precision."""
    x = rng(14).uniform(0, 10, 4000).astype(np.float32)
    w = rng(14).uniform(0, 1, 4000)
    got, edges = votecl.histogram(x, bins=20, weights=w, context=ctx)
    want, want_edges = np.histogram(x, bins=20, weights=w)
    same([edges], [want_edges])
    np.testing.assert_allclose(got, want, rtol=1e-5)
    on = edge_values(np.histogram_bin_edges(np.empty(0, np.float32), 13, (0.1, 0.7)))
    ones = np.ones(on.size)
    same(votecl.histogram(on, 13, (0.1, 0.7), weights=ones, context=ctx),
         np.histogram(on, 13, (0.1, 0.7), weights=ones))
    y = rng(15).uniform(0, 1, 4000).astype(np.float32)
    got = votecl.histogram2d(x, y, bins=(7, 3), weights=w, context=ctx)[0]
    np.testing.assert_allclose(got, np.histogram2d(x, y, bins=(7, 3), weights=w)[0],
                               rtol=1e-5)


def test_histogram2d_and_dd(ctx):
    r = rng(20)
    x8, y8 = r.integers(0, 256, (2, 6000)).astype(np.uint8)
    same(votecl.histogram2d(x8, y8, bins=(16, 8), context=ctx),
         np.histogram2d(x8, y8, bins=(16, 8)))
    same(votecl.histogram2d(x8, y8, bins=[[0, 10, 200, 255], [0, 1, 2, 250]], context=ctx),
         np.histogram2d(x8, y8, bins=[[0, 10, 200, 255], [0, 1, 2, 250]]))
    same(votecl.histogram2d(x8, y8, bins=5, range=[[10, 100], [0, 255]], density=True,
                            context=ctx),
         np.histogram2d(x8, y8, bins=5, range=[[10, 100], [0, 255]], density=True))
    xy = r.integers(0, 256, (3000, 2)).astype(np.uint8)
    same(votecl.histogramdd(xy, bins=4, context=ctx), np.histogramdd(xy, bins=4))
    same(votecl.histogramdd(xy[:, 0], bins=4, context=ctx), np.histogramdd(xy[:, 0], bins=4))
    xf, yf = r.uniform(0, 1, (2, 6000)).astype(np.float32)
    same(votecl.histogram2d(xf, yf, bins=(10, 4), context=ctx),
         np.histogram2d(xf, yf, bins=(10, 4)))
    x16, y16 = r.integers(0, 3000, (2, 5000)).astype(np.uint16)   # counted as float32
    x16[:3], y16[:3] = 300, 1500                                  # values on edges
    same(votecl.histogram2d(x16, y16, bins=10, context=ctx), np.histogram2d(x16, y16, bins=10))
    same(votecl.histogram2d(x16, y16, bins=[[0, 300, 301, 3000], [0, 1500, 2999]],
                            context=ctx),
         np.histogram2d(x16, y16, bins=[[0, 300, 301, 3000], [0, 1500, 2999]]))
    same(votecl.histogram2d(x8, yf, bins=6, context=ctx), np.histogram2d(x8, yf, bins=6))
    x3 = r.integers(0, 9, (100, 3))                                # N-D (issue 26)
    same(votecl.histogramdd(x3, context=ctx), np.histogramdd(x3))
    same(votecl.histogramdd([x8, y8, x8], bins=(4, 3, 2), context=ctx),
         np.histogramdd([x8, y8, x8], bins=(4, 3, 2)))


@pytest.mark.parametrize("bad", [np.array([1 + 2j]), np.array(["a", "b"]),
                                 np.array([1, 2], dtype="datetime64[s]"),
                                 np.array([1, 2], dtype=object),
                                 np.array([2**40, 1], dtype=np.int64),
                                 np.array([0.1, 0.3])])
def test_refused_dtypes_name_the_dtype(ctx, bad):
    with pytest.raises(votecl.InvalidType) as e:
        votecl.histogram(bad, context=ctx)
    assert str(bad.dtype) in e.value.message
    assert isinstance(e.value, votecl.InvalidArgument)


def test_plan_cache_is_bounded_and_reused(ctx):
    from votecl import _cache
    ctx_plans = lambda: ctx._plans or {}
    x = np.arange(300, dtype=np.uint8)
    votecl.histogram(x, bins=5, context=ctx)
    votecl.histogram(x[:100], bins=9, range=(1, 50), context=ctx)   # the same identity plan
    before = dict(ctx_plans())
    assert len(before) >= 1
    for i in range(_cache.SIZE + 5):
        votecl.hough_lines(np.zeros((8 + i, 8), np.uint8), context=ctx)
    assert len(ctx_plans()) == _cache.SIZE
    assert all(p.closed for p in before.values())   # the evicted plans were closed


def test_ref_backend():
    """The ref backend runs no user functions: 1-D float data takes the library's even bins
    there (README: differences), integer data is NumPy's exactly."""
    ref = votecl.Context(backend="ref")
    x = rng(15).uniform(0, 1, 2000).astype(np.float32)
    got, edges = votecl.histogram(x, bins=10, context=ref)
    want, want_edges = np.histogram(x, bins=10)
    np.testing.assert_array_equal(edges, want_edges)
    assert got.sum() == want.sum() and np.abs(got - want).sum() <= 2
    i = rng(15).integers(0, 1000, 2000)
    same(votecl.histogram(i, bins=7, context=ref), np.histogram(i, bins=7))
    ref.close()
