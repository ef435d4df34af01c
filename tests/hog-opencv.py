#!/usr/bin/env python3
"""The OpenCV oracle of tests/test-hog.c (python3-opencv): writes fixtures the test reads.

  hog-opencv.py compute IMAGE gray|colour STRIDE PADDING OUT
      OUT: int32 width, height, channels, windows, length; the u8 pixels handed to OpenCV
      (gray, or colour in libvotecl's R, G, B order); then windows * length float32 descriptors of
      cv2.HOGDescriptor().compute(img, (STRIDE, STRIDE), (PADDING, PADDING)).
  hog-opencv.py locations IMAGE gray|colour X0 Y0 X1 Y1 ... OUT
      OUT: as compute, for cv2.HOGDescriptor().compute(img, (8, 8), (0, 0), locations).
  hog-opencv.py detect IMAGE OUT
      OUT: int32 width, height, channels, boxes; the u8 RGB pixels; then per box int32 x, y,
      width, height of detectMultiScale(img, 0, (8, 8), (0, 0), 1.05, groupThreshold 2, False).
Exit status 77 when cv2 cannot be imported (the test then skips)."""
import struct
import sys

try:
    import cv2
    import numpy as np
except ImportError:
    sys.exit(77)


def load(path, mode):
    if path.startswith("skimage:"):
        try:
            import skimage
        except ImportError:
            sys.exit(77)
        import os
        path = os.path.join(os.path.dirname(skimage.__file__), "data", path[8:])
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit("cannot read %s" % path)
    if mode == "gray":
        img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    return np.ascontiguousarray(img)


def header(f, img, *rest):
    ch = 1 if img.ndim == 2 else img.shape[2]
    f.write(struct.pack("<5i", img.shape[1], img.shape[0], ch, *rest))
    if ch == 3:  # libvotecl takes R, G, B
        img = np.ascontiguousarray(img[:, :, ::-1])
    f.write(img.tobytes())


def compute(path, mode, stride, padding, out):
    img = load(path, mode)
    hog = cv2.HOGDescriptor()
    d = hog.compute(img, (stride, stride), (padding, padding)).astype(np.float32).ravel()
    n = hog.getDescriptorSize()
    with open(out, "wb") as f:
        header(f, img, d.size // n, n)
        f.write(d.tobytes())


def locations(path, mode, out, coords):
    img = load(path, mode)
    hog = cv2.HOGDescriptor()
    points = [(coords[i], coords[i + 1]) for i in range(0, len(coords), 2)]
    d = hog.compute(img, (8, 8), (0, 0), points).astype(np.float32).ravel()
    n = hog.getDescriptorSize()
    with open(out, "wb") as f:
        header(f, img, d.size // n, n)
        f.write(d.tobytes())


def detect(path, out):
    img = load(path, "colour")
    hog = cv2.HOGDescriptor()
    hog.setSVMDetector(cv2.HOGDescriptor_getDefaultPeopleDetector())
    boxes, _ = hog.detectMultiScale(img, hitThreshold=0, winStride=(8, 8), padding=(0, 0),
                                    scale=1.05, groupThreshold=2, useMeanshiftGrouping=False)
    boxes = np.asarray(boxes, dtype=np.int32).reshape(-1, 4)
    with open(out, "wb") as f:
        header(f, img, len(boxes), 0)
        f.write(boxes.tobytes())


if __name__ == "__main__":
    if sys.argv[1] == "compute":
        compute(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    elif sys.argv[1] == "locations":
        locations(sys.argv[2], sys.argv[3], sys.argv[-1], [int(v) for v in sys.argv[4:-1]])
    else:
        detect(sys.argv[2], sys.argv[3])
