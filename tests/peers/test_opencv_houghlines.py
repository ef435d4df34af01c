"""OpenCV's modules/imgproc/test/test_houghlines.cpp and modules/python/test/
test_houghlines.py ported to libvotecl's theta-rho Hough (votecl.Hough / hough_lines).

opencv_extra's data is not here: shared/pic5.png and ../stitching/a1.png are replaced by a
drawn scene of shapes (pic5's kind: polygons on a plain ground) and tools/images/building.png
(a photograph, a1's kind); the expected lines of HoughLines.xml, HoughLines2f.xml,
HoughLines3f.xml and HoughLinesP.xml, which OpenCV's own CPU code generated
(GENERATE_DATA), are generated the same way here by cv2 on the same edges. pic1.png is
OpenCV's (tools/images). The edges are cv2.Canny's, as in the origin; the transform is
libvotecl's. rhoStep r maps to rho_bins = ceil((W + D) / r) and thetaStep t to
angles = round(pi / t) (docs/conventions.md, "Rho grid" and "Line angle grid")."""
import math
import os

import numpy as np
import pytest

import votecl
from conftest import IMAGES, OPENCV_HOUGH, convention, issue23, missing

cv2 = pytest.importorskip("cv2", reason="OpenCV's Python bindings are not installed "
                          "(apt-get install python3-opencv)")


def pic5():
    """A stand-in for opencv_extra's shared/pic5.png: outlined and filled polygons, sides
    long enough for threshold 150."""
    img = np.full((300, 400), 255, np.uint8)
    cv2.rectangle(img, (20, 20), (380, 280), 0, 2)
    cv2.rectangle(img, (60, 50), (240, 220), 90, -1)
    pts = np.array([[200, 270], [360, 60], [370, 270]], np.int32)
    cv2.fillPoly(img, [pts], 40)
    cv2.line(img, (30, 270), (370, 30), 0, 3)
    return img


def image(name):
    if name == "pic5":
        return pic5()
    path = {"a1": "building.png", "pic1": "pic1.png"}[name]
    return cv2.imread(os.path.join(IMAGES, path), cv2.IMREAD_GRAYSCALE)


def hough_params(img, rho_step, theta_step):
    h, w = img.shape
    params = dict(angles=int(round(math.pi / theta_step)))
    if OPENCV_HOUGH.get("rho_grid") != "opencv":  # the OpenCV grid sizes itself (1 px bins)
        params["rho_bins"] = int(math.ceil((w + math.hypot(w, h)) / rho_step))
    return params


def count_matches(expected, actual, theta_eps, rho_eps):
    """countMatIntersection of the origin: expected lines with an actual one within eps."""
    count = 0
    for rho, theta in expected:
        if any(abs(r - rho) < rho_eps and abs(t - theta) < theta_eps for r, t in actual):
            count += 1
    return count


def opencv_lines(found):
    """libvotecl's (theta in [0, pi), rho) as cv2.HoughLines' (rho, theta): the same range."""
    return [(ln.rho, ln.theta) for ln in found]


# libvotecl's angles divide [0, pi) evenly (pi/63 for 0.05, pi/31 for 0.1); OpenCV steps by
# theta_step itself, so its lines lie up to 0.8 (0.05) or 1.3 degrees (0.1) off libvotecl's
# bins at large angles. On pic5 at 0.1 every cv2 line still matches within the test's tolerance
# (theta_step); the other cases need OpenCV's theta grid, which libvotecl lacks.
THETA_GRID = missing("an angle step that does not divide pi (cv2.HoughLines' theta grid)")
RHO_GRID = missing("OpenCV's rho grid with bins other than 1 px (rho_grid='opencv' has 1 px bins)")


def standard_marks(picture, rho_step, theta_step):
    if rho_step != 1:
        return [RHO_GRID]
    return [] if (picture, theta_step) == ("pic5", 0.1) else [THETA_GRID]


STANDARD = [pytest.param(p, r, t, th, marks=standard_marks(p, r, t))
            for p in ("pic5", "a1") for r in (1, 10) for t in (0.05, 0.1) for th in (80, 150)]


# test_houghlines.cpp: StandartHoughLinesTest.regression, .regression_Vec2f,
# .regression_Vec3f (the three read the same lines into three containers)
@issue23(4)
@pytest.mark.parametrize("container", ["Mat", "Vec2f", "Vec3f"])
@pytest.mark.parametrize("picture,rho_step,theta_step,threshold", STANDARD)
def test_standard_hough_lines_regression(ctx, container, picture, rho_step, theta_step,
                                         threshold):
    src = image(picture)
    dst = cv2.Canny(src, 100, 150, apertureSize=3)
    expected = cv2.HoughLines(dst, rho_step, theta_step, threshold)
    expected = [] if expected is None else [(float(r), float(t)) for r, t in expected[:, 0]]
    found = votecl.hough_lines(dst, context=ctx, peak_threshold=threshold,
                               **hough_params(dst, rho_step, theta_step), **OPENCV_HOUGH)
    count = count_matches(expected, opencv_lines(found), theta_step + 1.2e-7,
                          rho_step + 1.2e-7)
    assert count == len(expected)


PROBABILISTIC = [(p, r, t, th, ml, mg) for p in ("pic5", "pic1") for r in (5, 10)
                 for t in (0.05, 0.1) for th in (75, 150) for ml in (0, 10) for mg in (0, 4)]


def matched_segments(expected, actual, tolerance):
    """The expected segments (x0, y0, x1, y1) with an actual one whose ends, either way round,
    lie within tolerance (the norm of the 4-vector of end differences, lines_diff below)."""
    return sum(1 for e in expected if any(lines_diff(e, a) < tolerance for a in actual))


# test_houghlines.cpp: ProbabilisticHoughLinesTest.regression (HoughLinesP.xml's segments,
# every one, matched to integer precision). HoughLinesP.xml is cv2's output on these edges;
# cv2 samples the edge pixels in random order, votes with each only until it completes a line,
# walks that line from the sampled pixel at the bin's angle and then removes the line's pixels,
# so most of its segments on these coarse grids (rho 5 and 10 px, 19 and 63 angles) are short
# pieces that exist only in that order. libvotecl votes with every pixel and walks each peak's
# line at the bin's centre (2 px either side): with 5-10 px rho bins the centre line misses the
# edge pixels the sampled walk starts from. Measured on these 32 cases with lines_diff < 5: 0 to
# 26% of cv2's segments matched (pic1 at rho 10, 0.05, 75: 74 of 413). The test compares cv2's
# segments with ours in the same run and stays a strict xfail until they match.
@convention("Segment ends")
@pytest.mark.parametrize("picture,rho_step,theta_step,threshold,min_line,max_gap",
                         PROBABILISTIC)
def test_probabilistic_hough_lines_regression(ctx, picture, rho_step, theta_step, threshold,
                                              min_line, max_gap):
    src = image(picture)
    dst = cv2.Canny(src, 100, 150, apertureSize=3)
    expected = cv2.HoughLinesP(dst, rho_step, theta_step, threshold, minLineLength=min_line,
                               maxLineGap=max_gap)
    expected = [] if expected is None else [tuple(s) for s in expected[:, 0]]
    found = votecl.hough_lines_p(dst, rho_step, theta_step, threshold, minLineLength=min_line,
                                 maxLineGap=max_gap, context=ctx)
    assert found.dtype == np.int32 and found.shape[1:] == (1, 4)
    assert len(expected) > 0 and matched_segments(expected, found[:, 0], 5) == len(expected)


# test_houghlines.cpp: HoughLinesPointSetTest.regression (16 combinations of rho and theta
# ranges over 20 points)
@missing("a Hough transform of a point set over a given rho and theta range "
         "(cv2.HoughLinesPointSet; issue 26 item 4 asks for min_theta and max_theta)")
@pytest.mark.parametrize("rho_min", [0.0, 120.0])
@pytest.mark.parametrize("rho_max", [360.0, 480.0])
@pytest.mark.parametrize("theta_min", [0.0, math.pi / 18])
@pytest.mark.parametrize("theta_max", [math.pi / 2, math.pi * 5 / 12])
def test_hough_lines_point_set_regression(ctx, rho_min, rho_max, theta_min, theta_max):
    points = [(0, 369), (10, 364), (20, 358), (30, 352), (40, 346), (50, 341), (60, 335),
              (70, 329), (80, 323), (90, 318), (100, 312), (110, 306), (120, 300), (130, 295),
              (140, 289), (150, 284), (160, 277), (170, 271), (180, 266), (190, 260)]
    found = votecl.hough_lines_points(points, context=ctx, max_lines=1, peak_threshold=1,
                                      min_rho=rho_min, max_rho=rho_max,
                                      rho_bins=360, min_theta=theta_min, max_theta=theta_max)
    assert int(found[0].rho * 100000) == int(320.0 * 100000)
    assert int(found[0].theta * 100000) == int(1.04719 * 100000)


def lines_diff(line1, line2):
    norm1 = np.linalg.norm(np.subtract(line1, line2))
    line3 = list(line1[2:4]) + list(line1[0:2])
    return min(norm1, np.linalg.norm(np.subtract(line3, line2)))


# python/test/test_houghlines.py: houghlines_test.test_houghlines (HoughLinesP on pic1.png:
# more than 70% of the 15 drawn lines within 5 px; then HoughLinesWithAccumulator's two
# strongest lines have 192 and 187 votes). Issue 26 item 3's bar: at least as many of the drawn
# lines matched as cv2.HoughLinesP matches in the same run (each drawn line counted once).
def test_houghlines(ctx):
    src = image("pic1")
    dst = cv2.Canny(src, 50, 200)
    found = votecl.hough_lines_p(dst, 1, np.pi / 180, 40, 50, 10, context=ctx)
    theirs = cv2.HoughLinesP(dst, 1, np.pi / 180, 40, np.array([]), 50, 10)
    assert found.dtype == np.int32 and found.shape[1:] == (1, 4)
    test_lines = [[232, 25, 43, 25], [43, 129, 232, 129], [43, 129, 43, 25],
                  [232, 129, 232, 25], [251, 86, 314, 183], [252, 86, 323, 40],
                  [315, 183, 386, 137], [324, 40, 386, 136], [245, 205, 377, 205],
                  [244, 206, 305, 278], [306, 279, 377, 205], [153, 177, 196, 177],
                  [153, 277, 153, 179], [153, 277, 196, 277], [196, 177, 196, 277]]
    ours = matched_segments(test_lines, found[:, 0], 5)
    cv2s = matched_segments(test_lines, [] if theirs is None else theirs[:, 0], 5)
    print("drawn lines matched: libvotecl %d, cv2.HoughLinesP %d of %d"
          % (ours, cv2s, len(test_lines)))
    assert float(ours) / len(test_lines) > .7
    assert ours >= cv2s
    acc = votecl.hough_lines(dst, context=ctx, peak_threshold=150)
    assert acc[0].votes == 192
    assert acc[1].votes == 187
