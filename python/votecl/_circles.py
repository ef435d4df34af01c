"""The Hough transform for circles: votecl_circles_*."""
import ctypes

import numpy as np

from . import _structs as S
from ._core import Plan, fill, image_view, record
from ._helpers import _collect, _enum_values
from ._lib import fn

__all__ = ["Circles", "hough_circles"]

# Not in _helpers._ENUMS: the GHT's "method" field names other values.
_METHODS = {"gradient": S.VOTECL_CIRCLES_GRADIENT, "radii": S.VOTECL_CIRCLES_RADII}


def _method(value):
    if isinstance(value, str):
        if value not in _METHODS:
            raise ValueError("method: %r is not one of %s" % (value, ", ".join(_METHODS)))
        return _METHODS[value]
    return int(value)


class Circles(Plan):
    """Circles by the Hough transform (votecl_circles_*) in width x height images.
    method="gradient" (default) is OpenCV's HoughCircles(HOUGH_GRADIENT) on a uint8 gray
    image; method="radii" is scikit-image's hough_circle and hough_circle_peaks on a uint8
    edge image (every nonzero pixel an edge). Other keywords: fields of votecl_circles_params
    (min_radius, max_radius, max_circles, dp, min_dist, canny_high, votes, radius_step,
    normalize, threshold, min_xdistance, min_ydistance, num_peaks). Calls return Circle
    records (x, y, radius, score, votes) in the method's order."""

    _free = fn.circles_plan_free

    def __init__(self, context=None, width=None, height=None, method="gradient", **params):
        super().__init__(context)
        p = S.votecl_circles_params()
        fn.circles_params_init(ctypes.byref(p), _method(method))
        fill(p, _enum_values(params))
        self.params = p
        h = ctypes.c_void_p()
        self._check(fn.circles_plan_new(self.context._handle, ctypes.byref(p), width, height,
                                        ctypes.byref(h)))
        self._handle = h.value
        s, c, r = ctypes.c_uint(), ctypes.c_uint32(), ctypes.c_uint32()
        fn.circles_plan_shape(self._handle, ctypes.byref(s), ctypes.byref(c), ctypes.byref(r))
        self.shape = (s.value, r.value, c.value)
        self.radii = [fn.circles_plan_radius(self._handle, i) for i in range(s.value)] \
            if p.method == S.VOTECL_CIRCLES_RADII else []
        self.stats = None

    def __call__(self, image):
        view, keep = image_view(image)
        stats = S.votecl_vote_stats()

        def call(out, capacity, found):
            self._check(fn.circles_run(self._handle, ctypes.byref(view), out, capacity,
                                       ctypes.byref(found), ctypes.byref(stats)))
        circles = _collect(call, S.votecl_circle, "Circle")
        self.stats = record(stats, "VoteStats")
        return circles

    @property
    def accumulator(self):
        """The last run's accumulator, (spaces, rows, columns) uint32 (a copy), or None."""
        p = fn.circles_plan_accumulator(self._handle)
        if not p:
            return None
        return np.ctypeslib.as_array(p, shape=self.shape).copy()


def hough_circles(image, context=None, method="gradient", **params):
    """Circles of an image in one call (see Circles): a gray image for method="gradient"
    (OpenCV's HOUGH_GRADIENT), an edge image for method="radii" (scikit-image's
    hough_circle with hough_circle_peaks)."""
    image = np.asarray(image)
    with Circles(context, image.shape[1], image.shape[0], method=method, **params) as c:
        return c(image)
