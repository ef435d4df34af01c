#!/usr/bin/env python3
"""Exports OpenCV's default people detector (HOGDescriptor::getDefaultPeopleDetector) as a
libvotecl HOG model file (format: docs/hog-model.md). OpenCV's coefficients are under the
BSD licence (see COPYING). Usage: hog-export-people.py OUTPUT"""
import sys

import cv2


def main():
    hog = cv2.HOGDescriptor()
    coef = [float(c) for c in cv2.HOGDescriptor_getDefaultPeopleDetector().ravel()]
    n = hog.getDescriptorSize()
    assert len(coef) == n + 1, (len(coef), n)
    with open(sys.argv[1], "w") as f:
        f.write("# OpenCV's default people detector (Dalal and Triggs, INRIA person data),\n")
        f.write("# exported from cv2.HOGDescriptor_getDefaultPeopleDetector() (OpenCV %s)\n"
                % cv2.__version__)
        f.write("# by tools/hog-export-people.py. Copyright (C) 2000-2008 Intel Corporation,\n")
        f.write("# 2008-2011 Willow Garage; BSD licence: see COPYING.\n")
        f.write("votecl-hog-model 1\nwindow 64 128\nblock 16 16\nblock-stride 8 8\n")
        f.write("cell 8 8\nbins 9\nlength %d\nbias %.9g\nweights\n" % (n, coef[n]))
        for i in range(0, n, 6):
            f.write(" ".join("%.9g" % c for c in coef[i:i + 6]) + "\n")
        f.write("end\n")


if __name__ == "__main__":
    main()
