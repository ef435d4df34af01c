"""votecl.hough_circles and votecl.Circles: both methods against a drawn disc (constructed
truth), every device against the 'ref' backend (exact: the votes are integers), and against
cv2.HoughCircles and skimage.transform.hough_circle where those are installed."""
import numpy as np
import pytest

import votecl


def disc(width=120, height=100, cx=57.3, cy=48.6, r=23.0):
    y, x = np.mgrid[0:height, 0:width]
    return np.where((x - cx) ** 2 + (y - cy) ** 2 <= r * r, 200, 40).astype(np.uint8)


def ring_edges(width=80, height=70, cx=37, cy=33, r=17):
    """scikit-image's circle_perimeter (Bresenham), drawn without it."""
    im = np.zeros((height, width), np.uint8)
    x, y, d = 0, r, 3 - 2 * r
    while y >= x:
        for dy, dx in ((y, x), (-y, x), (y, -x), (-y, -x), (x, y), (-x, y), (x, -y), (-x, -y)):
            im[cy + dy, cx + dx] = 255
        if d < 0:
            d += 4 * x + 6
        else:
            d += 4 * (x - y) + 10
            y -= 1
        x += 1
    return im


def test_gradient_finds_the_disc(ctx, ref):
    im = disc()
    found = votecl.hough_circles(im, context=ctx, min_radius=10, max_radius=40, votes=10)
    assert found == votecl.hough_circles(im, context=ref, min_radius=10, max_radius=40, votes=10)
    assert abs(found[0].x - 57.3) <= 1.5 and abs(found[0].y - 48.6) <= 1.5
    assert abs(found[0].radius - 23.0) <= 1.5


def test_radii_finds_the_ring(ctx, ref):
    im = ring_edges()
    with votecl.Circles(ctx, 80, 70, method="radii", min_radius=14, max_radius=20,
                        min_xdistance=3, min_ydistance=3) as c:
        found = c(im)
        assert c.radii == list(range(14, 21))
        acc = c.accumulator
        assert acc.shape == (7, 70, 80)
    with votecl.Circles(ref, 80, 70, method="radii", min_radius=14, max_radius=20,
                        min_xdistance=3, min_ydistance=3) as c:
        assert c(im) == found
        np.testing.assert_array_equal(c.accumulator, acc)
    assert (found[0].x, found[0].y, found[0].radius, found[0].score) == (37, 33, 17, 1.0)


def test_bad_method_is_refused(ref):
    with pytest.raises(ValueError):
        votecl.Circles(ref, 10, 10, method="nope")


def test_same_as_cv2():
    cv2 = pytest.importorskip("cv2")
    im = disc(160, 140, 70.5, 66.5, 31)
    ours = votecl.hough_circles(im, context=votecl.Context(backend="ref"), min_radius=10,
                                max_radius=50, votes=10, min_dist=20)
    theirs = cv2.HoughCircles(im, cv2.HOUGH_GRADIENT, 1, 20, param1=100, param2=10,
                              minRadius=10, maxRadius=50)
    assert [(c.x, c.y, c.radius) for c in ours] == \
        [tuple(float(v) for v in c) for c in theirs[0]]


def test_same_as_skimage():
    transform = pytest.importorskip("skimage.transform")
    draw = pytest.importorskip("skimage.draw")
    im = ring_edges()
    radii = np.arange(14, 21)
    hs = transform.hough_circle(im, radii)
    acc, cx, cy, rad = transform.hough_circle_peaks(hs, radii, total_num_peaks=1)
    with votecl.Circles(votecl.Context(backend="ref"), 80, 70, method="radii", min_radius=14,
                        max_radius=20, max_circles=1) as c:
        found = c(im)
        points = np.array([len(draw.circle_perimeter(0, 0, r)[0]) for r in radii])
        np.testing.assert_allclose(c.accumulator / points[:, None, None], hs, rtol=1e-12)
    assert (found[0].x, found[0].y, found[0].radius) == (cx[0], cy[0], rad[0])
    assert abs(found[0].score - acc[0]) < 1e-12
