"""The cv2 oracle of tests/test-ght.c: OpenCV's generalized Hough with the parameters of its
sample (samples/cpp/generalizedhoughtransform.cpp). Prints one pose per line: x y angle scale.
Usage: ght-opencv.py ballard|guil SCENE TEMPLATE (exit 77 when cv2 is missing)."""
import sys

try:
    import cv2
except ImportError:
    sys.exit(77)


def main():
    method, scene_path, templ_path = sys.argv[1:4]
    scene = cv2.imread(scene_path, cv2.IMREAD_GRAYSCALE)
    templ = cv2.imread(templ_path, cv2.IMREAD_GRAYSCALE)
    if method == "ballard":
        g = cv2.createGeneralizedHoughBallard()
        g.setVotesThreshold(40)
        g.setMinDist(10)
    else:
        g = cv2.createGeneralizedHoughGuil()
        g.setMinDist(100)
        g.setMinAngle(0)
        g.setMaxAngle(360)
        g.setAngleStep(1)
        g.setAngleThresh(1500)
        g.setMinScale(0.5)
        g.setMaxScale(2.0)
        g.setScaleStep(0.05)
        g.setScaleThresh(50)
        g.setPosThresh(10)
    g.setLevels(360)
    g.setDp(2)
    g.setMaxBufferSize(1000)
    g.setTemplate(templ)
    positions, _ = g.detect(scene)
    if positions is None:
        return
    for x, y, scale, angle in positions[0]:
        print(f"{x} {y} {angle} {scale}")


main()
