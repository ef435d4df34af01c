"""The Python package against NumPy, the 'ref' backend (the sequential references) and
constructed truth. Runs on whatever OpenCL device is present (PoCL in CI); device results must
equal the references exactly where the C library promises it (integer votes)."""
import ctypes
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import votecl

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(os.path.dirname(HERE))


def rng(seed=15):
    return np.random.default_rng(seed)


# --- library, contexts, errors ---

def test_library_and_devices(ctx):
    assert votecl.version().count(".") == 2
    from votecl import _version
    assert _version.VERSION == votecl.version(), "python/votecl/_version.py lags configure.ac"
    assert "opencl" in votecl.backends() and "ref" in votecl.backends()
    assert any(d.name == ctx.device.name for d in votecl.devices("opencl"))
    assert ctx.backend == "opencl" and ctx.device.backend == "opencl"
    assert ctx.native_queue != 0


def test_errors_carry_the_message(ctx):
    with pytest.raises(votecl.InvalidArgument) as e:
        votecl.Histogram(ctx, np.uint8, bins=0)
    assert e.value.name == "VOTECL_INVALID_ARGUMENT" and "nbins" in e.value.message
    with pytest.raises(TypeError, match="no field 'bogus'"):
        votecl.Histogram(ctx, np.uint8, bogus=1)
    with pytest.raises(votecl.VoteclError, match="device"):
        votecl.Context(backend="opencl", device="no-such-device-anywhere")


def test_device_arrays_need_cuda(ctx):
    class Fake:
        __cuda_array_interface__ = {"data": (1 << 20, False), "shape": (16,),
                                    "typestr": "|u1", "version": 3}
    with votecl.Histogram(ctx, np.uint8) as h, pytest.raises(TypeError, match="cuda"):
        h(Fake())


# --- histograms ---

@pytest.mark.parametrize("dtype,bins,lo,hi", [(np.uint8, 256, 0, 256), (np.uint16, 1000, 100, 60000),
                                              (np.float32, 100, -1.0, 1.0)])
def test_histogram_1d(ctx, ref, dtype, bins, lo, hi):
    r = rng()
    if dtype == np.float32:
        x = r.uniform(-1.2, 1.2, 50001).astype(np.float32)
    else:
        x = r.integers(0, np.iinfo(dtype).max + 1, 50001, dtype=np.int64).astype(dtype)
    got, edges = votecl.histogram(x, bins, (lo, hi), context=ctx)   # NumPy's (test_numpy.py)
    want, want_edges = np.histogram(x, bins, (lo, hi))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(edges, want_edges)
    with votecl.Histogram(ctx, dtype, bins, (lo, hi)) as h, \
            votecl.Histogram(ref, dtype, bins, (lo, hi)) as r:   # the plan: max excluded
        np.testing.assert_array_equal(h(x), r(x))
        assert h(x).sum() == np.count_nonzero((x >= lo) & (x < hi))


def test_histogram_2d_weighted_batch(ctx):
    r = rng(2)
    xy = r.integers(0, 256, (20000, 2), dtype=np.uint8)
    with votecl.Histogram(ctx, np.uint8, bins=(16, 8), range=((0, 256), (0, 256)),
                          channels=2) as h:
        got = h(xy)
    want = np.histogram2d(xy[:, 0], xy[:, 1], bins=(16, 8), range=((0, 256), (0, 256)))[0]
    np.testing.assert_array_equal(got, want)
    x = r.integers(0, 256, 10000, dtype=np.uint8)
    w = np.ones(10000, np.float32) * 0.5
    with votecl.Histogram(ctx, np.uint8, bins=32, range=(0, 256), weighted=True) as h:
        got = h(x, weights=w)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, np.histogram(x, 32, (0, 256), weights=w)[0])
    frames = r.integers(0, 256, (5, 3001), dtype=np.uint8)
    with votecl.Histogram(ctx, np.uint8, bins=64, range=(0, 256), variant="global") as h:
        got = h.batch(frames)
        assert got.shape == (5, 64)
        for f in range(5):
            np.testing.assert_array_equal(got[f], np.histogram(frames[f], 64, (0, 256))[0])
        img = frames[:, 1:3001:2]  # strided rows
        np.testing.assert_array_equal(h.image(img), np.histogram(img, 64, (0, 256))[0])
        assert h.describe(3000).variant == 2


# --- the generic engine ---

def test_vote_user_source(ctx):
    x = rng(3).integers(0, 256, 30000, dtype=np.uint8)
    src = "uint vote_index(uint space, uint index, uchar value, uint nbins) " \
          "{ return value % 10 + space * 0; }"
    with votecl.Vote(ctx, src, np.uint8, bins=10, spaces=2) as v:
        bins, stats = v(x)
    assert bins.shape == (2, 10) and stats.elements == 30000
    np.testing.assert_array_equal(bins[0], np.bincount(x % 10, minlength=10))
    np.testing.assert_array_equal(bins[1], bins[0])
    with pytest.raises(votecl.VoteclError) as e:
        votecl.Vote(ctx, "this is not C", np.uint8)
    assert e.value.name == "VOTECL_BUILD_FAILED"
    assert "user" in ctx.build_log


# --- theta-rho Hough and PClines ---

def line_image(w, h, thickness=1):
    im = np.zeros((h, w), np.uint8)
    im[h // 3, :] = 255                  # horizontal: theta = 90 deg, rho = h / 3
    im[:, w // 4] = 255                  # vertical: theta = 0, rho = w / 4
    return im


def test_hough_finds_the_lines(ctx, ref):
    im = line_image(90, 70)
    found = votecl.hough_lines(im, context=ctx, max_lines=2)
    assert found == votecl.hough_lines(im, context=ref, max_lines=2)
    assert np.asarray(found)["votes"].tolist() == [l.votes for l in found]  # named fields
    got = sorted((round(math.degrees(l.theta)), round(l.rho)) for l in found)
    assert got == [(0, 22), (90, 23)]
    with votecl.Hough(ctx, 90, 70) as h:
        h(im)
        assert h.accumulator.shape == h.shape and h.accumulator.max() >= 70
        assert h.stats.kept == np.count_nonzero(im)
        np.testing.assert_array_equal(h.accumulate(im), h.accumulator)


def dashed_image():
    """Row 30 in dashes 10-29, 33-52 and 60-69 (gaps of 3 and 7 steps) of a 120 x 60 image."""
    im = np.zeros((60, 120), np.uint8)
    for a, b in ((10, 29), (33, 52), (60, 69)):
        im[30, a:b + 1] = 255
    return im


def test_segments_every_run(ctx, ref):
    im = dashed_image()
    segs = votecl.hough_lines_p(im, 1, math.pi / 180, 15, minLineLength=0, maxLineGap=3,
                                context=ctx)
    assert segs.dtype == np.int32 and segs.shape == (2, 1, 4)
    assert sorted(tuple(sorted([tuple(s[:2]), tuple(s[2:])])) for s in segs[:, 0]) == [
        ((10, 30), (52, 30)), ((60, 30), (69, 30))]
    np.testing.assert_array_equal(
        segs, votecl.hough_lines_p(im, 1, math.pi / 180, 15, 0, 3, context=ref))
    with votecl.Lines(ctx, 120, 60, segments=1, max_gap=2, min_length=9) as plan:
        lines = plan(im)
        runs = plan.segments()
        assert [s.line for s in runs] == [0, 0, 0] and lines[0].has_segment
        assert sorted(round(abs(s.x1 - s.x0)) for s in runs) == [9, 19, 19]
        assert votecl.segments_array(runs).shape == (3, 1, 4)
    with votecl.Lines(ctx, 120, 60) as plan:
        plan(im)
        assert len(plan.segments()) == 0


def test_pclines_device_equals_ref(ctx, ref):
    r = rng(4)
    im = (r.integers(0, 30, (71, 97))).astype(np.uint8)
    im[35, :] = 250
    im[:, 40] = 250
    with votecl.Lines(ctx, 97, 71) as plan:
        got = plan(im)
        space = plan.space()
        assert plan.stats.edges > 0 and plan.params["distance"] > 0
    with votecl.Lines(ref, 97, 71) as plan:
        assert got == plan(im)
        np.testing.assert_array_equal(space, plan.space())
    thetas = sorted(round(math.degrees(l.theta)) % 180 for l in got[:2])
    assert thetas == [0, 90]
    f = votecl.lines(im.astype(np.float32) / 255, context=ctx)
    assert len(f) >= 2


# --- HOG ---

def person_like(w=96, h=160, channels=1, seed=5):
    r = rng(seed)
    im = r.integers(0, 40, (h, w, channels), dtype=np.uint8)
    im[30:140, 38:58] = 200     # a torso and legs
    im[15:32, 40:56] = 180      # a head
    return im[:, :, 0] if channels == 1 else im


def test_hog_detect_equals_ref(ctx, ref):
    im = person_like()
    params = dict(hit_threshold=-100.0, fusion="none", scale=1.0)
    got = votecl.HOG(ctx, **params).detect(im)
    want = votecl.HOG(ref, **params).detect(im)
    assert len(got) == len(want) > 0
    for a, b in zip(got, want):
        assert a.box == b.box
        assert a.score == pytest.approx(b.score, abs=1e-4)
    colour = votecl.HOG(ctx, hit_threshold=-100.0, fusion="none", scale=1.0).detect(
        person_like(channels=3))
    assert len(colour) == len(got)


def test_hog_descriptors_and_models(ctx, tmp_path):
    im = person_like()
    hog = votecl.HOG(ctx, model=None)
    d = hog.compute(im)
    assert d.shape[2] == hog.descriptor_length == 3780
    at = hog.compute_at(im, [(0, 0), (8, 16)])
    np.testing.assert_allclose(at[0], d[0, 0], atol=1e-5)
    np.testing.assert_allclose(at[1], d[2, 1], atol=1e-5)
    people = votecl.HOGModel.people(ctx)
    assert people.weights.shape == (3780,)
    path = str(tmp_path / "m.model")
    people.save(path)
    again = votecl.HOGModel.load(path, ctx)
    np.testing.assert_array_equal(again.weights, people.weights)
    mine = votecl.HOGModel(ctx, np.zeros(3780, np.float32), 1.5)
    assert mine.bias == 1.5
    hits = votecl.HOG(ctx, model=mine, fusion="none", scale=1.0).detect(im)
    assert len(hits) == d.shape[0] * d.shape[1]     # every window scores 1.5 >= 0
    with pytest.raises(votecl.InvalidArgument, match="weights|length"):
        votecl.HOGModel(ctx, np.zeros(10, np.float32), 0.0)


def skimage_layout(d, w, h, cell, cells, nbins):
    """A window's descriptor from OpenCV's layout (blocks and cells column after column, as
    compute() returns it) to scikit-image's (row after row), for block stride one cell."""
    nbx, nby = w // cell - cells + 1, h // cell - cells + 1
    return d.reshape(nbx, nby, cells, cells, nbins).transpose(1, 0, 3, 2, 4).ravel()


@pytest.mark.parametrize("norm", ["L1", "L1-sqrt", "L2"])
def test_hog_block_norms_hard_binning(ctx, ref, norm):
    """scikit-image's block norms and hard binning: each block normalised as named, the device
    equal to the reference, and both equal to skimage.feature.hog of the same uint8 image
    (where scikit-image is installed)."""
    im = person_like(w=64, h=48, seed=8)
    geometry = dict(window_width=64, window_height=48, block_width=16, block_height=16,
                    block_stride_x=8, block_stride_y=8, window_stride_x=8, window_stride_y=8,
                    gamma=0, block_norm=norm, binning="hard")
    got = votecl.HOG(ctx, model=None, **geometry).compute(im)[0, 0]
    want = votecl.HOG(ref, model=None, **geometry).compute(im)[0, 0]
    np.testing.assert_allclose(got, want, atol=1e-5)
    blocks = want.reshape(-1, 36)   # L1: sums of 1; L1-sqrt and L2: sums of squares of 1
    np.testing.assert_allclose((blocks if norm == "L1" else blocks ** 2).sum(axis=1), 1,
                               atol=1e-4)
    try:
        from skimage import feature
    except ImportError:
        return
    sk = feature.hog(im, orientations=9, pixels_per_cell=(8, 8), cells_per_block=(2, 2),
                     block_norm=norm)
    np.testing.assert_allclose(skimage_layout(got, 64, 48, 8, 2, 9), sk, atol=1e-5)


def test_hog_option_names(ref):
    with pytest.raises(ValueError, match="block_norm"):
        votecl.HOG(ref, model=None, block_norm="Linf")
    with pytest.raises(ValueError, match="binning"):
        votecl.HOG(ref, model=None, binning="soft")
    p = votecl.hog_params(block_norm="L1-sqrt", binning="hard")
    assert (p.block_norm, p.binning) == (2, 1)


# --- GHT ---

def shape_template():
    t = np.zeros((40, 40), np.uint8)
    t[8:32, 8:14] = 255
    t[8:14, 8:30] = 255
    t[20:26, 8:24] = 255
    return t


@pytest.mark.parametrize("method", ["ballard", "guil"])
def test_ght_finds_the_template(ctx, method):
    t = shape_template()
    scene = np.zeros((90, 110), np.uint8)
    scene[30:70, 50:90] = t
    params = dict(min_scale=1.0, max_scale=1.0) if method == "guil" else {}
    if method == "guil":
        params.update(min_angle=0.0, max_angle=10.0)
    with votecl.GHT(ctx, t, method, **params) as g:
        poses = g.detect(scene)
        assert g.stats.image_edges > 0
    assert poses, "no pose"
    best = poses[0]
    assert abs(best.x - 69.5) <= 2 and abs(best.y - 49.5) <= 2


def test_ght_memory_limit(ctx):
    """A detection over GHT's memory_limit raises OutOfResources (a MemoryError) naming the
    figure and the limit; the model stays usable."""
    t = shape_template()
    scene = np.zeros((90, 110), np.uint8)
    scene[30:70, 50:90] = t
    with votecl.GHT(ctx, t, "guil", memory_limit=8 << 20) as g:
        with pytest.raises(votecl.OutOfResources, match="over the memory limit of 8.0 MB"):
            g.detect(np.zeros((2000, 2000), np.uint8))
        with pytest.raises(MemoryError):
            g.detect(np.zeros((2000, 2000), np.uint8))
        assert g.params["memory_limit"] == 8 << 20
        g.detect(scene)


# --- the layouts and the install ---

@pytest.mark.parametrize("generator, generated", [("gen_structs.py", "_structs.py"),
                                                   ("gen_protos.py", "_protos.py")])
def test_generated_files_match_the_headers(generator, generated):
    headers = os.path.join(os.environ.get("VOTECL_TEST_SRCDIR", os.path.join(TREE, "tests")),
                           "..", "include", "votecl")
    if not os.path.isdir(headers):
        pytest.skip("no headers beside the package")
    out = subprocess.run([sys.executable, os.path.join(TREE, "python", generator), headers],
                         capture_output=True, text=True, check=True).stdout
    with open(os.path.join(TREE, "python", "votecl", generated)) as f:
        assert f.read() == out, "python/votecl/%s is stale: rerun python/%s" % (generated,
                                                                                generator)


def test_every_prototype_is_in_the_library():
    """The headers and the loaded library agree: a declared function the library lacks is a
    header ahead of its build (or a misspelt declaration)."""
    from votecl import _lib, _protos
    assert len(_protos.FUNCTIONS) > 100
    missing = [name for name in _protos.FUNCTIONS if not hasattr(_lib.lib, name)]
    assert missing == []
    assert _lib.fn.status_name(0) == b"VOTECL_OK"


def test_opencl_interop_from_python(ctx):
    """A cl_context, queue and cl_mem made here with raw OpenCL through ctypes, adopted and
    wrapped: the histogram lands in the caller's cl_mem; the caller's objects survive."""
    cl = ctypes.CDLL("libOpenCL.so.1")
    vp, u = ctypes.c_void_p, ctypes.c_uint
    cl.clGetPlatformIDs.argtypes = [u, ctypes.POINTER(vp), ctypes.POINTER(u)]
    cl.clGetDeviceIDs.argtypes = [vp, ctypes.c_uint64, u, ctypes.POINTER(vp), ctypes.POINTER(u)]
    cl.clGetDeviceInfo.argtypes = [vp, u, ctypes.c_size_t, vp, vp]
    cl.clCreateContext.restype = vp
    cl.clCreateContext.argtypes = [vp, u, ctypes.POINTER(vp), vp, vp, ctypes.POINTER(ctypes.c_int)]
    cl.clCreateCommandQueue.restype = vp
    cl.clCreateCommandQueue.argtypes = [vp, vp, ctypes.c_uint64, ctypes.POINTER(ctypes.c_int)]
    cl.clCreateBuffer.restype = vp
    cl.clCreateBuffer.argtypes = [vp, ctypes.c_uint64, ctypes.c_size_t, vp,
                                  ctypes.POINTER(ctypes.c_int)]
    cl.clEnqueueReadBuffer.argtypes = [vp, vp, u, ctypes.c_size_t, ctypes.c_size_t, vp, u, vp, vp]
    for f in ("clReleaseMemObject", "clReleaseCommandQueue", "clReleaseContext", "clFinish"):
        getattr(cl, f).argtypes = [vp]
    platforms, n = (vp * 8)(), u()
    cl.clGetPlatformIDs(8, platforms, ctypes.byref(n))
    device = None
    for p in platforms[:n.value]:
        devs, nd = (vp * 16)(), u()
        cl.clGetDeviceIDs(p, 0xFFFFFFFF, 16, devs, ctypes.byref(nd))
        for d in devs[:nd.value]:
            name = ctypes.create_string_buffer(256)
            cl.clGetDeviceInfo(d, 0x102B, 256, name, None)  # CL_DEVICE_NAME
            if name.value.decode() == ctx.device.name:
                device = d
    assert device is not None
    err = ctypes.c_int()
    clctx = cl.clCreateContext(None, 1, (vp * 1)(device), None, None, ctypes.byref(err))
    queue = cl.clCreateCommandQueue(clctx, device, 0, ctypes.byref(err))
    x = rng(9).integers(0, 256, 4099, dtype=np.uint8)
    xmem = cl.clCreateBuffer(clctx, 1 | 32, x.nbytes, x.ctypes.data, ctypes.byref(err))
    omem = cl.clCreateBuffer(clctx, 1, 256 * 4, None, ctypes.byref(err))
    mine = votecl.Context.from_opencl(clctx, device, queue)
    assert mine.native_queue == queue
    with votecl.Histogram(mine, np.uint8) as h:
        bx = votecl.Buffer.wrap(mine, xmem, x.nbytes)
        bo = votecl.Buffer.wrap(mine, omem, 1024)
        assert bx.native == xmem
        fn = votecl._lib.fn
        assert fn.hist_run_buffers(h._handle, bx._handle, None, None, x.size, 1, bo._handle) == 0
        out = np.empty(256, np.uint32)
        cl.clEnqueueReadBuffer(queue, omem, 1, 0, 1024, out.ctypes.data, 0, None, None)
        np.testing.assert_array_equal(out, np.bincount(x, minlength=256))
        bx.close()
        bo.close()
    mine.close()
    assert cl.clFinish(queue) == 0          # the caller's queue is still valid
    for m in (xmem, omem):
        cl.clReleaseMemObject(m)
    cl.clReleaseCommandQueue(queue)
    cl.clReleaseContext(clctx)
