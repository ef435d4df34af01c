"""The Hough transform for circles: votecl_circles_*."""
import ctypes
from typing import Any, List, Optional

import numpy as np

from . import _structs as S
from . import _cache
from ._core import Array, Context, Plan, Records, image_view
from ._errors import invalid
from ._helpers import _collect_voted, _counts_copy, _params
from ._lib import fn
from ._validate import image_shape, image_size

__all__ = ["Circles", "hough_circles"]

# Not in _helpers._ENUMS: the GHT's "method" field names other values.
_METHODS = {"gradient": S.VOTECL_CIRCLES_GRADIENT, "radii": S.VOTECL_CIRCLES_RADII}


def _method(value: Any) -> int:
    if isinstance(value, str):
        if value not in _METHODS:
            raise invalid("method: %r is not one of %s" % (value, ", ".join(_METHODS)))
        return int(_METHODS[value])
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

    def __init__(self, context: Optional[Context] = None, width: Any = None,
                 height: Any = None, method: Any = "gradient", **params: Any) -> None:
        super().__init__(context)
        width, height = image_size(width, "width"), image_size(height, "height")
        p = _params(S.votecl_circles_params, fn.circles_params_init, params, _method(method))
        self.params = p
        self._new_handle(fn.circles_plan_new, ctypes.byref(p), width, height)
        s, c, r = ctypes.c_uint(), ctypes.c_uint32(), ctypes.c_uint32()
        fn.circles_plan_shape(self._handle, ctypes.byref(s), ctypes.byref(c), ctypes.byref(r))
        self.shape = (s.value, r.value, c.value)
        self.radii: List[int] = [fn.circles_plan_radius(self._handle, i) for i in range(s.value)] \
            if p.method == S.VOTECL_CIRCLES_RADII else []
        self.stats: Any = None

    def __call__(self, image: Any) -> Records:
        """Circles of a uint8 (height, width) image of the plan's size: a gray image for
        method="gradient", an edge image (nonzero: an edge) for method="radii". Returns
        Circle records (x, y, radius, score, votes); the vote's figures in .stats.

        >>> circles = votecl.Circles(ctx, 640, 480, min_radius=10, max_radius=40)(gray)
        """
        view, keep = image_view(image)
        return _collect_voted(self, fn.circles_run, view, S.votecl_circle, "Circle")

    @property
    def accumulator(self) -> Optional[Array]:
        """The last run's accumulator, (spaces, rows, columns) uint32 (a copy), or None."""
        return _counts_copy(fn.circles_plan_accumulator(self._handle), self.shape)


def hough_circles(image: Any, context: Optional[Context] = None, method: Any = "gradient",
                  **params: Any) -> Records:
    """Circles of an image in one call (see Circles): a gray image for method="gradient"
    (OpenCV's HOUGH_GRADIENT), an edge image for method="radii" (scikit-image's
    hough_circle with hough_circle_peaks), through a plan the context keeps for images of
    this size and these parameters (votecl._cache).

    >>> votecl.hough_circles(gray, min_radius=10, max_radius=40, min_dist=20)
    """
    image = np.asarray(image)
    height, width = image_shape(image)
    params = dict(params, method=method)
    found: Records = _cache.run(context, Circles, (width, height), params,
                                lambda plan: plan(image))
    return found
