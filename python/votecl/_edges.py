"""The edge step as a call of its own: votecl_edges_canny and votecl_edges_sobel, with
cv2.Canny's and cv2.Sobel's semantics, so any detector can be fed the edges a user knows."""
import ctypes
from typing import Any, Optional

import numpy as np

from . import _structs as S
from ._core import Array, Context, _resolve_context, check, image_view
from ._errors import invalid, invalid_type
from ._lib import fn
from ._validate import image_shape

__all__ = ["canny", "sobel"]

def _gray(image: Any) -> Array:
    arr: Array = np.asarray(image)
    if arr.dtype != np.uint8:
        raise invalid_type("image: a uint8 (height, width) array, not %s" % arr.dtype)
    if arr.ndim != 2:
        raise invalid("image: a (height, width) uint8 array, not shape %s" % (arr.shape,))
    return arr


def _run(image: Any, context: Optional[Context], ctype: Any, call: Any) -> Array:
    """call(context handle, image view, output pointer, output stride) into a new array of
    the image's shape and of ctype's dtype, under the context's lock."""
    height, width = image_shape(_gray(image))
    out = np.empty((height, width), ctype)
    view, keep = image_view(image)  # keep: the pixels the view points to
    ctx = _resolve_context(context)
    with ctx._lock():
        check(call(ctx._handle, ctypes.byref(view), out.ctypes.data_as(ctypes.POINTER(ctype)),
                   width), ctx)
    return out


def canny(image: Any, threshold1: float, threshold2: float, aperture_size: int = 3,
          L2gradient: bool = False, context: Optional[Context] = None, *,
          aperture: Optional[int] = None, l2: Optional[bool] = None) -> Array:
    """cv2.Canny(image, threshold1, threshold2, apertureSize=aperture_size,
    L2gradient=L2gradient) on a uint8 (height, width) image: a uint8 array of the image's
    shape, 255 at an edge and 0 elsewhere, equal to OpenCV's (votecl_edges_canny). The
    smaller threshold admits candidates, the larger makes strong edges; aperture_size is 3, 5
    or 7 (the Sobel's side); L2gradient compares sqrt(gx^2 + gy^2) instead of ``|gx| + |gy|``.
    aperture and l2 are short names of aperture_size and L2gradient.

    >>> edges = votecl.canny(gray, 50, 150, aperture_size=5, L2gradient=True)
    """
    p = S.votecl_canny_params()
    fn.canny_params_init(ctypes.byref(p))
    p.threshold1, p.threshold2 = float(threshold1), float(threshold2)
    p.aperture_size = int(aperture if aperture is not None else aperture_size)
    p.l2_gradient = int(bool(l2 if l2 is not None else L2gradient))
    return _run(image, context, ctypes.c_uint8,
                lambda ctx, view, out, stride: fn.edges_canny(ctx, view, ctypes.byref(p), out,
                                                              stride))


def sobel(image: Any, dx: int, dy: int, ksize: int = 3,
          context: Optional[Context] = None) -> Array:
    """cv2.Sobel(image, cv2.CV_32S, dx, dy, ksize=ksize, borderType=cv2.BORDER_REPLICATE) on a
    uint8 (height, width) image: the int32 derivative of order dx in x and dy in y (each 0 or
    1, not both 0) of side ksize (3, 5 or 7), the border replicated (votecl_edges_sobel).
    OpenCV computes CV_32S from uint8 through float: compare with
    cv2.Sobel(image, cv2.CV_64F, ...), which holds the same integers.

    >>> gx = votecl.sobel(gray, 1, 0, ksize=5)
    """
    return _run(image, context, ctypes.c_int32,
                lambda ctx, view, out, stride: fn.edges_sobel(ctx, view, int(dx), int(dy),
                                                              int(ksize), out, stride))
