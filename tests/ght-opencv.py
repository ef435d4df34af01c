"""The cv2 oracle of tests/test-ght.c: OpenCV's generalized Hough with the parameters of its
sample (samples/cpp/generalizedhoughtransform.cpp). Prints one pose per line: x y angle scale.
Usage: ght-opencv.py ballard|guil SCENE TEMPLATE (exit 77 when cv2 is missing)."""
import os
import sys

try:
    import cv2
except ImportError:
    sys.exit(77)


# The detector and its parameters are the peer's of tools/peers.py: one definition for the
# test oracle and the benchmark.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from peers import ght_detector  # noqa: E402


def main():
    method, scene_path, templ_path = sys.argv[1:4]
    scene = cv2.imread(scene_path, cv2.IMREAD_GRAYSCALE)
    templ = cv2.imread(templ_path, cv2.IMREAD_GRAYSCALE)
    g = ght_detector(cv2, method, templ)
    positions, _ = g.detect(scene)
    if positions is None:
        return
    for x, y, scale, angle in positions[0]:
        print(f"{x} {y} {angle} {scale}")


main()
