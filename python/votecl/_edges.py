"""The edge step as calls of its own: votecl_edges_canny and votecl_edges_sobel (cv2.Canny and
cv2.Sobel's results, on the host whatever the context's backend)."""
import ctypes
from typing import Any, Optional

import numpy as np

from . import _structs as S
from ._core import Array, Context, check, default_context, image_view
from ._errors import invalid_type
from ._lib import fn

__all__ = ["canny", "sobel"]


def _gray(image: Any, context: Optional[Context]) -> Any:
    """A votecl_image of a uint8 (height, width) array, the array it views, and the context
    whose error a failure reports."""
    arr = np.asarray(image)
    if arr.dtype != np.uint8 or arr.ndim != 2:
        raise invalid_type("image: a uint8 (height, width) array, not %s %s"
                           % (arr.dtype, arr.shape))
    view, keep = image_view(arr)
    return view, keep, context if context is not None else default_context()


def canny(image: Any, threshold1: float, threshold2: float, aperture_size: int = 3,
          l2_gradient: bool = False, context: Optional[Context] = None) -> Array:
    """cv2.Canny(image, threshold1, threshold2, apertureSize, L2gradient) of a uint8 gray
    image (votecl_edges_canny): a uint8 array of its shape, 255 at an edge, 0 elsewhere.
    context: whose error message a failure carries (None: the thread's default).

    >>> edges = votecl.canny(gray, 50, 150)
    """
    view, keep, ctx = _gray(image, context)
    params = S.votecl_canny_params()
    fn.canny_params_init(ctypes.byref(params))
    params.threshold1, params.threshold2 = threshold1, threshold2
    params.aperture_size, params.l2_gradient = aperture_size, int(bool(l2_gradient))
    out = np.empty(keep.shape, np.uint8)
    with ctx._lock():
        check(fn.edges_canny(ctx._handle, ctypes.byref(view), ctypes.byref(params),
                             out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), out.strides[0]),
              ctx)
    return out


def sobel(image: Any, dx: int, dy: int, ksize: int = 3,
          context: Optional[Context] = None) -> Array:
    """cv2.Sobel(image, cv2.CV_32S, dx, dy, ksize=ksize) with the border replicated, of a
    uint8 gray image (votecl_edges_sobel): an int32 array of its shape.

    >>> gx = votecl.sobel(gray, 1, 0)
    """
    view, keep, ctx = _gray(image, context)
    out = np.empty(keep.shape, np.int32)
    with ctx._lock():
        check(fn.edges_sobel(ctx._handle, ctypes.byref(view), dx, dy, ksize,
                             out.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
                             out.strides[0] // 4), ctx)
    return out
