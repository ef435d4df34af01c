"""votecl.canny and votecl.sobel: constructed truth, equal on every backend present (the
device's kernels too, under a forced GPU shape), and equal to cv2.Canny and cv2.Sobel (where
cv2 is installed) on the images of tools/images and on smoothed noise, for apertures 3, 5
and 7, L1 and L2 gradients and thresholds from low to above any magnitude (aperture 7's
scaled derivatives round half to even: the smoothed noise has such halves)."""
import os

import numpy as np
import pytest

import votecl

IMAGES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools", "images")
THRESHOLDS = [(0, 0), (20, 60), (60, 20), (50, 150), (100, 300.5), (900, 2500), (1e6, 1e6)]


def step(width=40, height=30, column=20):
    im = np.zeros((height, width), np.uint8)
    im[:, column:] = 255
    return im


def noise(seed, shape=(61, 83), passes=2):
    rng = np.random.default_rng(seed)
    im = rng.integers(0, 256, shape).astype(np.float64)
    for _ in range(passes):  # a box blur, without cv2
        im = (im + np.roll(im, 1, 0) + np.roll(im, 1, 1) + np.roll(im, (1, 1), (0, 1))) / 4
    return im.astype(np.uint8)


@pytest.fixture(scope="module", params=votecl.backends())
def ctx(request):
    try:
        return votecl.Context(backend=request.param)
    except votecl.VoteclError as e:
        pytest.skip("no %s device: %s" % (request.param, e))


@pytest.mark.parametrize("aperture", [3, 5, 7])
@pytest.mark.parametrize("l2", [False, True])
def test_step_truth(ctx, aperture, l2):
    edges = votecl.canny(step(), 100, 50, aperture, l2, context=ctx)
    want = np.zeros_like(edges)
    want[:, 19] = 255  # the left of the step's two equal magnitudes
    assert edges.dtype == np.uint8 and np.array_equal(edges, want)


def test_aperture7_thresholds_scaled(ctx):
    # 7x7: (5 + 4 + 1) * 64 * 255 / 16 = 10200 across the step, the thresholds over 16
    assert not votecl.canny(step(), 163200, 163200, aperture=7, context=ctx).any()
    assert votecl.canny(step(), 163199, 163199, aperture=7, l2=True, context=ctx)[:, 19].all()


def test_sobel_truth(ctx):
    g = votecl.sobel(step(), 1, 0, ksize=3, context=ctx)
    assert g.dtype == np.int32 and set(np.unique(g[:, 19:21])) == {1020}
    assert not g[:, :19].any() and not g[:, 21:].any()
    assert not votecl.sobel(step(), 0, 1, 7, context=ctx).any()


def test_backends_agree():
    ref = votecl.Context(backend="ref")
    im = noise(3)
    for backend in votecl.backends():
        try:
            other = votecl.Context(backend=backend)
        except votecl.VoteclError:
            continue
        for aperture in (3, 5, 7):
            assert np.array_equal(votecl.canny(im, 30, 90, aperture, context=other),
                                  votecl.canny(im, 30, 90, aperture, context=ref))


def test_device_kernels_agree():
    """The kernels of a GPU-shaped device (forced: VOTECL_FORCE_SHAPE, read when a context
    is made) give the reference's edges."""
    saved = os.environ.get("VOTECL_FORCE_SHAPE")
    os.environ["VOTECL_FORCE_SHAPE"] = "gpu"
    try:
        dev = votecl.Context(backend="opencl")
    except votecl.VoteclError as e:
        pytest.skip("no OpenCL device: %s" % e)
    finally:
        if saved is None:
            del os.environ["VOTECL_FORCE_SHAPE"]
        else:
            os.environ["VOTECL_FORCE_SHAPE"] = saved
    ref = votecl.Context(backend="ref")
    im = noise(5, shape=(45, 77), passes=1)
    for aperture in (3, 5, 7):
        for l2 in (False, True):
            assert np.array_equal(votecl.canny(im, 40, 120, aperture, l2, context=dev),
                                  votecl.canny(im, 40, 120, aperture, l2, context=ref))


def test_refusals(ctx):
    with pytest.raises(votecl.InvalidArgument, match="aperture_size"):
        votecl.canny(step(), 50, 150, aperture_size=9, context=ctx)
    with pytest.raises(votecl.InvalidArgument, match="ksize"):
        votecl.sobel(step(), 1, 0, ksize=4, context=ctx)
    with pytest.raises(votecl.InvalidArgument):
        votecl.canny(step().astype(np.float32), 50, 150, context=ctx)
    with pytest.raises(votecl.InvalidArgument, match="image"):
        votecl.canny(np.zeros((4, 4, 3), np.uint8), 50, 150, context=ctx)


def cv2_images():
    cv2 = pytest.importorskip("cv2")
    images = [noise(seed, passes=passes) for seed, passes in ((1, 0), (2, 1), (4, 3))]
    for name in ("pic1.png", "templ.png", "basketball1.png"):
        im = cv2.imread(os.path.join(IMAGES, name), cv2.IMREAD_GRAYSCALE)
        if im is not None:
            images.append(im[:240, :320])  # a corner: the reference is sequential
    return cv2, images


@pytest.mark.parametrize("aperture", [3, 5, 7])
@pytest.mark.parametrize("l2", [False, True])
def test_equals_cv2_canny(aperture, l2):
    cv2, images = cv2_images()
    ctx = votecl.Context(backend="ref")
    for im in images:
        for t1, t2 in THRESHOLDS:
            want = cv2.Canny(im, t1, t2, apertureSize=aperture, L2gradient=l2)
            got = votecl.canny(im, t1, t2, aperture_size=aperture, L2gradient=l2, context=ctx)
            assert np.array_equal(got, want), (im.shape, t1, t2)


@pytest.mark.parametrize("ksize", [3, 5, 7])
def test_equals_cv2_sobel(ksize):
    cv2, images = cv2_images()
    ctx = votecl.Context(backend="ref")
    for im in images:
        for dx, dy in ((1, 0), (0, 1), (1, 1)):
            want = cv2.Sobel(im, cv2.CV_64F, dx, dy, ksize=ksize,
                             borderType=cv2.BORDER_REPLICATE)
            assert np.array_equal(votecl.sobel(im, dx, dy, ksize, context=ctx), want)
