"""Theta-rho Hough lines: votecl_hough_*."""
import ctypes
import math
from typing import Any, Optional

import numpy as np

from . import _structs as S
from . import _cache
from ._core import (Array, Buffer, Context, Plan, Records, buffer_handle, device_input, host_array,
                    empty_like_device, image_view, is_device_array)
from ._errors import invalid, invalid_type
from ._helpers import _collect, _collect_voted, _counts_copy, _params, _segments, _segments_p
from ._lib import fn
from ._validate import image_shape, image_size

__all__ = ["Hough", "hough_lines", "hough_lines_p", "segments_array"]


class Hough(Plan):
    """Theta-rho Hough lines on binary edge images (votecl_hough_*) of width x height.
    Keywords: fields of votecl_hough_params (angles, rho_bins, edge_threshold, peak_window,
    peak_threshold, max_lines, variant, ...). Calls return HoughLine records, most votes first."""

    _free = fn.hough_plan_free

    def __init__(self, context: Optional[Context] = None, width: Any = None, height: Any = None,
                 **params: Any) -> None:
        super().__init__(context)
        width, height = image_size(width, "width"), image_size(height, "height")
        p = _params(S.votecl_hough_params, fn.hough_params_init, params)
        self.params = p
        self._new_handle(fn.hough_plan_new, ctypes.byref(p), width, height)
        g, n = ctypes.c_uint(), ctypes.c_uint32()
        fn.hough_plan_shape(self._handle, ctypes.byref(g), ctypes.byref(n))
        self.shape = (g.value, n.value)
        self.stats: Any = None

    def __call__(self, image: Any) -> Records:
        """Lines of a binary edge image, a uint8 (height, width) array of the plan's size
        (nonzero: an edge): HoughLine records (theta, rho, votes, ...), most votes first;
        the vote's figures in .stats, its accumulator in .accumulator.

        >>> lines = votecl.Hough(ctx, 640, 480, max_lines=10)(edges)
        """
        view, keep = image_view(image)
        return _collect_voted(self, fn.hough_run, view, S.votecl_hough_line, "HoughLine")

    def run_gray(self, image: Any, sobel_threshold: int) -> Records:
        """Lines of a uint8 gray image of the plan's size (votecl_hough_run_gray): its edges
        (the Euclidean 3x3 Sobel magnitude reaching sobel_threshold, thinned across the edge
        unless the plan has ``thin_edges=0``) are found and voted on the device; HoughLine
        records as __call__ returns, the figures in .stats."""
        view, keep = image_view(image)
        return _collect_voted(self, fn.hough_run_gray, view, S.votecl_hough_line, "HoughLine",
                              sobel_threshold)

    def peaks(self, accumulator: Any) -> Records:
        """The lines of an (angles, rho_bins) uint32 accumulator (votecl_hough_plan_peaks), as a
        run extracts them: HoughLine records, most votes first."""
        acc = host_array(accumulator, "accumulator", [np.uint32])
        if acc.size != self.shape[0] * self.shape[1]:
            raise invalid("accumulator: %d counts, not the plan's %d x %d"
                          % (acc.size, self.shape[0], self.shape[1]))

        def call(out: Any, capacity: int, found: ctypes.c_size_t) -> None:
            self._check(fn.hough_plan_peaks(self._handle, acc.ctypes.data_as(
                ctypes.POINTER(ctypes.c_uint32)), out, capacity, ctypes.byref(found)))
        found: Records = _collect(call, S.votecl_hough_line, "HoughLine")
        return found

    def segments(self) -> Records:
        """Every segment of the last run's lines (votecl_hough_plan_segments; with
        segments=1): Segment records (x0, y0, x1, y1, line, hits), line by line, each a run of
        edge pixels along its line (gaps of at most max_gap steps, at least min_length px
        long), line the index in the run's lines; empty without segments=1."""
        return _segments(fn.hough_plan_segments, self._handle, self._check)

    def theta(self, angle: int) -> float:
        """The angle in radians of accumulator row `angle` (votecl_hough_plan_theta)."""
        return float(fn.hough_plan_theta(self._handle, angle))

    def rho(self, bin: int) -> float:
        """The rho in pixels at the centre of accumulator column `bin`
        (votecl_hough_plan_rho)."""
        return float(fn.hough_plan_rho(self._handle, bin))

    def describe(self, elements: int) -> Any:
        """The engine's strategy for an image of `elements` pixels (a PlanInfo record of
        votecl_vote_plan_info)."""
        return self._query(fn.hough_plan_describe, S.votecl_vote_plan_info, "PlanInfo", elements)

    def accumulate(self, image: Any) -> Any:
        """Only the votes: the (angles, rho_bins) uint32 accumulator of a binary edge image.
        A GPU image (uint8, packed, the plan's size; CUDA context) gives a GPU array,
        asynchronous on the stream (PyTorch: int32)."""
        if not is_device_array(image):
            self(image)
            return self.accumulator
        dev = device_input(self.context, image, "image")
        if dev.dtype != np.uint8:
            raise invalid_type("image: the Hough transform takes uint8 edge images")
        out = empty_like_device(image, self.shape, np.uint32)
        self._check(fn.hough_run_buffers(self._handle, self._wrap(dev)._handle,
                                         self._wrap(device_input(self.context, out,
                                                                 "out"))._handle))
        return out

    def run_buffers(self, image: Buffer, out: Optional[Buffer] = None) -> Buffer:
        """Votes a packed uint8 edge image of the plan's size already in a device buffer of
        the plan's context (votecl_hough_run_buffers, any backend) into out (None: a new
        Buffer of the (angles, rho_bins) uint32 accumulator), returned. Asynchronous:
        last_stats() or out.read(np.uint32) waits."""
        if out is None:
            out = Buffer(self.context, self.shape[0] * self.shape[1] * 4)
        self._check(fn.hough_run_buffers(self._handle, buffer_handle(image, "image"),
                                         buffer_handle(out, "out")))
        return out

    def last_stats(self) -> Any:
        """The figures of the plan's last run (a VoteStats record); waits for it to finish
        (votecl_hough_plan_last_stats)."""
        return self._query(fn.hough_plan_last_stats, S.votecl_vote_stats, "VoteStats")

    @property
    def accumulator(self) -> Optional[Array]:
        """The last run's accumulator, (angles, rho_bins) uint32 (a copy)."""
        return _counts_copy(fn.hough_plan_accumulator(self._handle), self.shape)


def hough_lines(image: Any, context: Optional[Context] = None, **params: Any) -> Records:
    """Theta-rho Hough lines of a binary edge image in one call (see Hough), through a plan
    the context keeps for images of this size and these parameters (votecl._cache)."""
    image = np.asarray(image)
    height, width = image_shape(image)
    found: Records = _cache.run(context, Hough, (width, height), params, lambda plan: plan(image))
    return found


def hough_lines_p(image: Any, rho: float, theta: float, threshold: int,
                  minLineLength: float = 0, maxLineGap: float = 0,
                  context: Optional[Context] = None, **params: Any) -> Any:
    """Line segments of an edge image as cv2.HoughLinesP(image, rho, theta, threshold,
    minLineLength=..., maxLineGap=...) returns them: an (N, 1, 4) int32 array of x0, y0, x1, y1
    ((0, 1, 4) when there is none, where cv2 returns None). The nonzero pixels of the uint8
    (height, width) image are the edges; the lines are the theta-rho transform's peaks of at
    least threshold votes on a grid of round(pi / theta) angles and bins rho px wide, and the
    segments every run of edge pixels along each line (Hough.segments()) of at least
    minLineLength px with gaps of at most maxLineGap px. Unlike cv2's, the result is
    deterministic: every edge pixel votes (no random sampling), and a pixel near two lines
    counts for both. params: other fields of votecl_hough_params (peak_window,
    merge_distance, max_lines, ...)."""
    edges = (np.asarray(image) != 0).view(np.uint8)
    height, width = image_shape(edges)
    if not (rho > 0 and theta > 0):
        raise invalid("rho, theta: %r and %r must be greater than 0" % (rho, theta))
    p = dict(angles=max(1, int(round(math.pi / theta))), peak_threshold=max(1, int(threshold)),
             segments=1, min_length=max(0, int(round(minLineLength))),
             max_gap=max(0, int(round(maxLineGap))))
    if rho != 1:
        p["rho_bins"] = max(1, int(math.ceil((width + math.hypot(width, height)) / rho)))
    p.update(params)

    def call(plan: Hough) -> Any:
        plan(edges)
        return segments_array(plan.segments())
    return _cache.run(context, Hough, (width, height), p, call)


def segments_array(segments: Records) -> Any:
    """Segment records (Hough.segments(), Lines.segments()) as cv2.HoughLinesP's array: (N,
    1, 4) int32 x0, y0, x1, y1, the ends rounded to the nearest pixel."""
    return _segments_p(segments)
