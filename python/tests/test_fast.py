"""The compiled per-call path (votecl._fast, issue 25): the same results as the ctypes path
for every array it takes, the ctypes path for every array it does not, and the package
working without it."""
import os

import numpy as np
import pytest

import votecl
from votecl import _lib

needs_fast = pytest.mark.skipif(_lib.fast is None, reason="votecl._fast not built "
                                "(apt-get install python3-dev; make check builds it)")


@pytest.fixture(scope="module")
def ctx():
    with votecl.Context() as c:
        yield c


def both_paths(plan, *args, **kwargs):
    """plan(*args) through the compiled path, then through ctypes."""
    fast = _lib.fast
    first = plan(*args, **kwargs)
    _lib.fast = None
    try:
        second = plan(*args, **kwargs)
    finally:
        _lib.fast = fast
    return first, second


def test_build_tree_loads_the_extension_make_built():
    so = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(_lib.path)))), "python", "_fast.abi3.so")
    if os.path.basename(os.path.dirname(os.path.abspath(_lib.path))) != ".libs" or \
            not os.path.exists(so) or os.environ.get("VOTECL_PYTHON_FAST") == "0":
        pytest.skip("not a build tree's library with python/_fast.abi3.so")
    assert _lib.fast is not None


@needs_fast
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_fast_equals_ctypes_1d(ctx, dtype):
    rng = np.random.default_rng(3)
    x = (rng.integers(0, 200, (31, 17)) if dtype != np.float32
         else rng.uniform(0, 200, (31, 17))).astype(dtype)
    plan = votecl.Histogram(ctx, dtype, 50, (0, 200))
    first, second = both_paths(plan, x)
    expect = np.histogram(x, 50, (0, 200))[0] if dtype != np.float32 else second
    assert first.dtype == np.uint32 and np.array_equal(first, expect)
    assert np.array_equal(first, second)


@needs_fast
def test_fast_equals_ctypes_2d_weighted_two_arrays(ctx):
    rng = np.random.default_rng(4)
    xy = rng.integers(0, 256, (64, 2), dtype=np.uint8)
    two = votecl.Histogram(ctx, np.uint8, (8, 4), ((0, 256), (0, 256)), channels=2)
    first, second = both_paths(two, xy)
    assert first.shape == (8, 4) and np.array_equal(first, second) and first.sum() == 64
    x, y = xy[:, 0].copy(), xy[:, 1].copy()
    apart = votecl.Histogram(ctx, np.uint8, (8, 4), ((0, 256), (0, 256)), two_arrays=True)
    assert np.array_equal(both_paths(apart, x, y)[0], first)
    w = rng.uniform(0, 1, 64).astype(np.float32)
    weighted = votecl.Histogram(ctx, np.uint8, 16, (0, 256), weighted=True)
    fw, sw = both_paths(weighted, x, weights=w)
    assert fw.dtype == np.float32 and np.array_equal(fw, sw)
    assert np.allclose(fw, np.histogram(x, 16, (0, 256), weights=w)[0], rtol=1e-5)


@needs_fast
def test_arrays_the_fast_path_does_not_take_go_through_ctypes(ctx):
    plan = votecl.Histogram(ctx, np.uint8, 16, (0, 256))
    x = np.arange(512, dtype=np.uint16).astype(np.uint8).reshape(16, 32)
    expect = np.histogram(x, 16, (0, 256))[0]
    assert np.array_equal(plan(x[:, ::2]), np.histogram(x[:, ::2], 16, (0, 256))[0])  # strided
    for other in (x.astype(np.uint16), x.tolist()):  # refused by the ctypes path's checks
        with pytest.raises(votecl.InvalidType, match="is not one of uint8"):
            plan(other)
    out = np.zeros(16, np.uint32)
    assert plan(x, out=out) is out and np.array_equal(out, expect)


@needs_fast
def test_a_failing_call_raises_the_librarys_error(ctx):
    plan = votecl.Histogram(ctx, np.uint8, (4, 4), ((0, 256), (0, 256)), two_arrays=True)
    with pytest.raises(votecl.InvalidArgument, match="y"):
        plan(np.zeros(8, np.uint8))  # no y for a plan over two arrays


def test_the_package_works_without_the_extension(ctx, monkeypatch):
    monkeypatch.setattr(_lib, "fast", None)
    x = np.arange(256, dtype=np.uint8)
    assert np.array_equal(votecl.Histogram(ctx, np.uint8, 4, (0, 256))(x), [64] * 4)
