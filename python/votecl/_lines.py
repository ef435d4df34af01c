"""PClines line detection: votecl_lines_*."""
import ctypes
from typing import Any, Dict, Optional

import numpy as np

from . import _structs as S
from . import _cache
from ._core import Array, Context, Plan, Records, device_input, image_view, is_device_array
from ._helpers import _dtype_code, _collect, _params, _params_dict, _segments
from ._lib import fn
from ._validate import image_shape, image_size

__all__ = ["Lines", "lines"]


class Lines(Plan):
    """PClines line detection (votecl_lines_*) in width x height images (u8 or f32, one
    channel). Keywords: fields of votecl_lines_params (distance, rows, neighbourhood,
    threshold, radius, edge_threshold, max_lines, ...). Calls return Line records (a, b, c,
    theta, rho, votes, ...), most votes first; GPU images are read where they lie."""

    _free = fn.lines_plan_free

    def __init__(self, context: Optional[Context] = None, width: Any = None, height: Any = None,
                 **params: Any) -> None:
        super().__init__(context)
        width, height = image_size(width, "width"), image_size(height, "height")
        p = _params(S.votecl_lines_params, fn.lines_params_init, params)
        self._new_handle(fn.lines_plan_new, ctypes.byref(p), width, height)
        self.width, self.height = width, height

    @property
    def params(self) -> Dict[str, Any]:
        """The resolved parameters as a dict."""
        return _params_dict(fn.lines_plan_params, self._handle, S.votecl_lines_params)

    def __call__(self, image: Any) -> Records:
        """Lines of a gray image, a uint8 or float32 (height, width) array of the plan's size
        (a GPU array on a CUDA context): Line records (a, b, c, theta, rho, votes, ...),
        most votes first.

        >>> lines = votecl.Lines(ctx, 640, 480)(gray)
        """
        if is_device_array(image):
            dev = device_input(self.context, image, "image")
            buf = self._wrap(dev)
            code = _dtype_code(dev.dtype, "image.dtype")
            h, w = dev.shape[0], dev.shape[1] if len(dev.shape) > 1 else 1

            def call(out: Any, capacity: int, found: ctypes.c_size_t) -> None:
                self._check(fn.lines_run_buffer(self._handle, buf._handle, w, h, code, out,
                                                capacity, ctypes.byref(found)))
        else:
            view, keep = image_view(image)

            def call(out: Any, capacity: int, found: ctypes.c_size_t) -> None:
                self._check(fn.lines_run(self._handle, ctypes.byref(view), out, capacity,
                                         ctypes.byref(found)))
        return _collect(call, S.votecl_lines_line, "Line")

    def edges(self, edges: Any) -> Records:
        """Lines from edge points: an (n, 4) int array of x, y, gx, gy."""
        e = np.ascontiguousarray(edges, np.int32).reshape(-1, 4)
        ptr = e.ctypes.data_as(ctypes.POINTER(S.votecl_lines_edge))

        def call(out: Any, capacity: int, found: ctypes.c_size_t) -> None:
            self._check(fn.lines_run_edges(self._handle, ptr, len(e), out, capacity,
                                           ctypes.byref(found)))
        return _collect(call, S.votecl_lines_line, "Line")

    def space(self) -> Array:
        """The TS space of the last run, (2d, V) uint32 (column after column)."""
        cols, rows = ctypes.c_uint32(), ctypes.c_uint32()
        fn.lines_plan_shape(self._handle, ctypes.byref(cols), ctypes.byref(rows))
        out = np.empty((cols.value, rows.value), np.uint32)
        self._check(fn.lines_plan_read_space(
            self._handle, out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)), out.size))
        return out

    def segments(self) -> Records:
        """Every segment of the last run's lines (votecl_lines_plan_segments; with
        segments=1): Segment records (x0, y0, x1, y1, line, hits), line by line, each a run of
        edge pixels along its line (gaps of at most max_gap steps, at least min_length px
        long), line the index in the run's lines; empty without segments=1 and for edge
        lists. votecl.segments_array(plan.segments()) gives cv2.HoughLinesP's array."""
        return _segments(fn.lines_plan_segments, self._handle, self._check)

    @property
    def stats(self) -> Any:
        """The last run's figures (a LinesStats record: edges, maxima)."""
        return self._query(fn.lines_plan_last_stats, S.votecl_lines_stats, "LinesStats")


def lines(image: Any, context: Optional[Context] = None, **params: Any) -> Records:
    """PClines lines of an image in one call (see Lines), through a plan the context keeps
    for images of this size and these parameters (votecl._cache)."""
    image = image if is_device_array(image) else np.asarray(image)
    height, width = image_shape(image)
    found: Records = _cache.run(context, Lines, (width, height), params, lambda plan: plan(image))
    return found
