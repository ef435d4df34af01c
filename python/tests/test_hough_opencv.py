"""votecl.hough_lines on OpenCV's grid with OpenCV's peak rule against cv2.HoughLines (issue
23 item 4): the same edges give the same (theta, rho, votes), in the same order, on every
backend present; skipped where cv2 is not installed."""
import math

import numpy as np
import pytest

import votecl

cv2 = pytest.importorskip("cv2")

OPENCV = dict(rho_grid="opencv", peak_rule="opencv", merge_distance=0)


@pytest.fixture(scope="module", params=["ref", "opencl", "cuda"])
def ctx(request):
    try:
        return votecl.Context(backend=request.param)
    except votecl.VoteclError as e:
        pytest.skip("no %s device: %s" % (request.param, e))


def _edges():
    """Line drawings, a sudoku-like grid, salt noise with a line, and the Canny edges of a
    drawn scene (rectangles, a disc, text, noise): binary edge images as OpenCV takes them."""
    im = np.zeros((97, 131), np.uint8)
    cv2.line(im, (10, 30), (120, 30), 255)
    cv2.line(im, (100, 5), (100, 90), 255)
    cv2.line(im, (5, 90), (90, 5), 255)
    yield "lines", im
    grid = np.zeros((200, 200), np.uint8)
    for k in range(10):
        cv2.line(grid, (10 + 20 * k, 5), (10 + 20 * k, 195), 255)
        cv2.line(grid, (5, 10 + 20 * k), (195, 10 + 20 * k), 255)
    yield "grid", grid
    rng = np.random.default_rng(5)
    salt = (rng.random((120, 160)) < 0.05).astype(np.uint8) * 255
    cv2.line(salt, (3, 7), (150, 110), 255)
    yield "salt", salt
    scene = np.full((240, 320), 60, np.uint8)
    cv2.rectangle(scene, (30, 40), (200, 170), 200, -1)
    cv2.rectangle(scene, (120, 90), (300, 220), 120, -1)
    cv2.circle(scene, (250, 60), 35, 230, -1)
    cv2.putText(scene, "votecl", (20, 225), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 250, 2)
    scene = cv2.add(scene, rng.integers(0, 20, scene.shape, dtype=np.uint8))
    yield "scene", cv2.Canny(scene, 50, 150)


@pytest.mark.parametrize("threshold", [20, 60, 100])
def test_same_lines_as_cv2(ctx, threshold):
    for name, edges in _edges():
        want = cv2.HoughLinesWithAccumulator(edges, 1, np.pi / 180, threshold)
        want = [] if want is None else [(l[0][1], l[0][0], int(l[0][2])) for l in want]
        got = votecl.hough_lines(edges, context=ctx, peak_threshold=threshold, **OPENCV)
        assert len(got) == len(want), name
        for (theta, rho, votes), line in zip(want, got):
            assert (line.rho, line.votes) == (rho, votes), name
            assert line.theta == pytest.approx(theta, abs=1e-6), name  # cv2's float32


def test_grid_centred_on_integers(ctx):
    """A line at rho 30 comes back at 30.0 and one at 100 at 100.0 (the span grid: 30.19 and
    100.5); the window rule keeps one line each."""
    im = np.zeros((150, 160), np.uint8)
    im[30, 5:150] = 255
    im[5:140, 100] = 255
    got = votecl.hough_lines(im, context=ctx, rho_grid="opencv")
    assert sorted((round(l.theta, 6), l.rho) for l in got) == [(0.0, 100.0),
                                                               (round(math.pi / 2, 6), 30.0)]
