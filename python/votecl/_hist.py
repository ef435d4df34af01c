"""Histograms: votecl_hist_* (GPU-vote's 1-D and 2-D histograms)."""
import ctypes
import builtins
from typing import Any, List, Optional, Tuple

import numpy as np

from . import _structs as S
from ._core import (Array, Buffer, Context, Plan, buffer_handle, device_input, empty_like_device,
                    fill, host_array, image_view, is_device_array)
from ._errors import invalid, invalid_type
from ._helpers import _ENUMS, _enum_values, _dtype_code
from . import _lib
from ._lib import fn
from ._validate import check_out

# votecl.histogram, histogram2d and histogramdd (NumPy's semantics) are in _numpy.py.
__all__ = ["Histogram"]

builtins_range = builtins.range

_ENUMS["edges"] = {"exact": S.VOTECL_HIST_EDGES_EXACT, "numpy": S.VOTECL_HIST_EDGES_NUMPY}


def _floats(weights: Optional[Array]) -> Any:
    """The weights as the float pointer the prototypes declare (None: no weights)."""
    return None if weights is None else weights.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


def _per_dim(value: Any, dims: int, name: str) -> List[Any]:
    """One value per dimension: a sequence of dims, or one value for all."""
    if isinstance(value, (list, tuple)) and len(value) == dims and \
            not (dims == 2 and name == "range" and np.isscalar(value[0])):
        return list(value)
    return [value] * dims


class Histogram(Plan):
    """A histogram plan (votecl_hist_*), GPU-vote's strategies.

    dtype: element type (uint8, uint16, uint32, float32); bins: an int (1-D) or one int per
    dimension (up to 8: N-D, row-major, over channels 0..D-1 of interleaved x unless channel
    says otherwise); range: (min, max) or one pair per dimension, max excluded; bin_edges:
    one array of increasing edges per dimension (or None for that dimension's even bins):
    uneven bins, [e_k, e_k+1) as cv2.calcHist's uniform=False (with edges="numpy" the last bin
    closed, as np.histogram's); channels: interleaved channels of x (N-D: defaults to the
    dimensions); two_arrays: 2-D over x and a second array y; weighted: f32 weights summed
    into float32 bins; per_channel: one histogram per channel of x from one pass (CUB's
    MultiHistogramEven; bins and range per channel or shared), result (channels, bins).
    Other keywords: fields of votecl_hist_params (variant, stretch, work_group_size, channel,
    edges: "exact", cv2.calcHist's bins, or "numpy", np.histogram's float32 edges with the
    last bin closed). Every call takes mask=: one uint8 per element (pixel), nonzero counts
    (cv2.calcHist's mask). Results: uint32 (float32 when weighted) of shape (bins,) or
    (n0, n1, ...); (frames, ...) for batch()."""

    _free = fn.hist_plan_free

    def __init__(self, context: Optional[Context] = None, dtype: Any = np.uint8, bins: Any = None,
                 range: Any = None, channels: Optional[int] = None, two_arrays: bool = False,
                 weighted: bool = False, bin_edges: Any = None, per_channel: bool = False,
                 **params: Any) -> None:
        super().__init__(context)
        self.dtype = np.dtype(dtype)
        p = S.votecl_hist_params()
        fn.hist_params_init(ctypes.byref(p), _dtype_code(self.dtype))
        p.weighted = int(bool(weighted))
        p.per_channel = int(bool(per_channel))
        nd = isinstance(bins, (tuple, list)) or (isinstance(bin_edges, (tuple, list)) and
                                                 not np.isscalar(bin_edges[0]))
        dims = len(bins) if isinstance(bins, (tuple, list)) else \
            len(bin_edges) if nd else 1
        if per_channel:
            dims = channels if channels is not None else 4
        p.channels = channels if channels is not None else (dims if nd and dims > 2 else 1)
        if dims > S.VOTECL_HIST_MAX_DIMS:
            raise invalid("bins: %d dimensions; at most %d" % (dims, S.VOTECL_HIST_MAX_DIMS))
        self._edges = self._set_dims(p, dims, nd or per_channel, bins, range, bin_edges,
                                     two_arrays)
        fill(p, _enum_values(params))
        self.params = p
        nb = [int(p.nbins[d]) for d in builtins_range(dims)]
        if per_channel:
            self.shape = (dims, nb[0]) if len(set(nb)) == 1 else (sum(nb),)
        else:
            self.shape = tuple(nb) if nd else (nb[0],)
        self.out_dtype = np.dtype(np.float32 if weighted else np.uint32)
        self._channels = int(p.channels)
        self._masked: Optional["Histogram"] = None
        self._make(p)

    def _make(self, p: Any) -> None:
        self._new_handle(fn.hist_plan_new, ctypes.byref(p))
        self._nbins = int(fn.hist_plan_nbins(self._handle))
        self._format = np.empty(0, self.dtype).data.format  # the buffers _fast takes

    @staticmethod
    def _set_dims(p: Any, dims: int, nd: bool, bins: Any, range_: Any, bin_edges: Any,
                  two_arrays: bool) -> List[Any]:
        """Sets dims, nbins, ranges and edges; returns the edge arrays the plan points at."""
        if not nd:
            bins, range_ = [bins], [range_]
            bin_edges = [bin_edges]
        else:
            bins = _per_dim(bins, dims, "bins")
            range_ = _per_dim(range_, dims, "range")
            bin_edges = _per_dim(bin_edges, dims, "bin_edges") if bin_edges is not None \
                else [None] * dims
        p.dims = dims
        p.two_arrays = int(bool(two_arrays))
        keep = []
        for d in builtins_range(dims):
            p.channel[d] = 0 if (d == 1 and two_arrays) else (d if p.channels > d else 0)
            if bin_edges[d] is not None:
                e = np.ascontiguousarray(bin_edges[d], np.float64)
                if e.ndim != 1 or e.size < 2:
                    raise invalid("bin_edges[%d]: a 1-D array of at least 2 edges" % d)
                keep.append(e)
                p.nbins[d] = e.size - 1
                p.bin_edges[d] = e.ctypes.data
                continue
            if bins[d] is not None:
                p.nbins[d] = bins[d]
            if range_[d] is not None:
                p.min[d], p.max[d] = range_[d]
        return keep

    @property
    def nbins(self) -> int:
        """The plan's bins (all of a 2-D plan's), fixed when it is made."""
        return self._nbins

    def describe(self, elements: int, frames: int = 1) -> Any:
        """The strategy for frames of `elements` elements (a votecl_vote_plan_info record)."""
        return self._query(fn.hist_plan_describe, S.votecl_vote_plan_info, "PlanInfo", elements,
                           frames)

    def _elements(self, arr: Array) -> int:
        return arr.size // self._channels

    def _masked_plan(self) -> "Histogram":
        """The same histogram made with params.masked (the library's masked plans take a
        mask with every run); made on the first call with a mask, then kept."""
        if self._masked is None:
            twin = Histogram.__new__(Histogram)
            Plan.__init__(twin, self.context)
            p = S.votecl_hist_params()
            ctypes.pointer(p)[0] = self.params
            p.masked = 1
            twin.__dict__.update({k: v for k, v in self.__dict__.items()
                                  if k not in ("_native", "_wraps", "_masked", "params")})
            twin.params = p
            twin._masked = None
            twin._wraps = None
            twin._make(p)
            self._masked = twin
        return self._masked

    def _mask(self, mask: Any, pixels: int) -> Array:
        m = np.ascontiguousarray(mask)
        if m.dtype == np.bool_:
            m = m.view(np.uint8)
        if m.dtype != np.uint8:
            raise invalid_type("mask: dtype %s; masks are uint8 (or bool)" % m.dtype)
        if m.size != pixels:
            raise invalid("mask: %d elements for %d pixels" % (m.size, pixels))
        return m

    def __call__(self, x: Any, y: Any = None, weights: Any = None, out: Any = None,
                 mask: Any = None) -> Any:
        """The histogram of x (any shape; channels interleaved last), with y and weights when
        the plan uses them; mask: one uint8 per element (pixel), nonzero counts. GPU arrays
        in, a GPU array out (asynchronous on the stream). out: an array of the result's
        shape, size and library to fill instead of a new one (a pipeline that reuses it saves
        an allocation per call)."""
        if mask is not None:
            return self._masked_plan()._run(x, y, weights, 1, out, mask)
        fast = _lib.fast
        if fast is not None and out is None and type(x) is np.ndarray:
            # NumPy arrays of the plan's dtype, C-contiguous: the compiled path (_fast.c)
            out = np.empty(self.shape, self.out_dtype)
            status = fast.hist_run(self._handle, x, y, weights, self._format, self._channels,
                                   out)
            if status is not None:
                self._check(status)
                return out
            out = None
        return self._run(x, y, weights, 1, out, None)

    def batch(self, x: Any, y: Any = None, weights: Any = None, out: Any = None,
              mask: Any = None) -> Any:
        """Histograms of frames: x has the frames on its first axis; (frames, bins...) out;
        mask: the frames' masks (one uint8 per element), or None."""
        plan = self._masked_plan() if mask is not None else self
        return plan._run(x, y, weights, None, out, mask)

    def _run(self, x: Any, y: Any, weights: Any, frames: Optional[int], out: Any,
             mask: Any) -> Any:
        if is_device_array(x):
            return self._device(x, y, weights, frames, out, mask)
        xa = host_array(x, "x", [self.dtype])
        nframes = 1 if frames is not None else xa.shape[0]
        ya = host_array(y, "y", [self.dtype]) if y is not None else None
        wa = host_array(weights, "weights", [np.float32]) if weights is not None else None
        shape = self.shape if frames is not None else (nframes,) + self.shape
        out = np.empty(shape, self.out_dtype) if out is None else \
            check_out(out, shape, self.out_dtype)
        n = self._elements(xa) // max(nframes, 1)
        yp = ya.ctypes.data if ya is not None else None
        if mask is None:
            self._check(fn.hist_run_batch(self._handle, xa.ctypes.data, yp, _floats(wa), n,
                                          nframes, out.ctypes.data))
            return out
        m = self._mask(mask, n * nframes)
        self._check(fn.hist_run_masked(self._handle, xa.ctypes.data, yp, _floats(wa),
                                       m.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), n,
                                       nframes, out.ctypes.data))
        return out

    def run_buffers(self, x: Buffer, n: int, frames: int = 1, y: Optional[Buffer] = None,
                    weights: Optional[Buffer] = None, out: Optional[Buffer] = None,
                    mask: Optional[Buffer] = None) -> Buffer:
        """Histograms of data already in device buffers of the plan's context
        (votecl_hist_run_buffers, any backend): frames of n elements each in x (y and the
        float32 weights likewise when the plan uses them); the frames * nbins uint32 (float32
        when weighted) bins go into out (None: a new Buffer), returned; mask: a Buffer of
        n * frames uint8, nonzero counts. Asynchronous: the
        work is queued; out.read(np.uint32) or context.finish() waits for it.

        >>> xb = votecl.Buffer(ctx, x.nbytes); xb.write(x)
        >>> counts = h.run_buffers(xb, x.size).read(np.uint32)
        """
        if out is None:
            out = Buffer(self.context, max(frames, 1) * self._nbins * 4)
        if mask is not None:
            plan = self._masked_plan()
            plan._check(fn.hist_run_masked_buffers(
                plan._handle, buffer_handle(x, "x"), buffer_handle(y, "y"),
                buffer_handle(weights, "weights"), buffer_handle(mask, "mask"), n, frames,
                buffer_handle(out, "out")))
            return out
        self._check(fn.hist_run_buffers(self._handle, buffer_handle(x, "x"),
                                        buffer_handle(y, "y"), buffer_handle(weights, "weights"),
                                        n, frames, buffer_handle(out, "out")))
        return out

    def image(self, image: Any, mask: Any = None) -> Array:
        """The histogram of an image (H, W) or (H, W, C) array, any row stride; mask: (H, W)
        uint8, nonzero counts."""
        if mask is not None:
            arr = np.ascontiguousarray(image)
            masked: "np.ndarray[Any, Any]" = self(arr, mask=mask)
            return masked
        view, keep = image_view(image)
        out = np.empty(self.shape, self.out_dtype)
        self._check(fn.hist_run_image(self._handle, ctypes.byref(view), out.ctypes.data))
        return out

    def _device(self, x: Any, y: Any, weights: Any, frames: Optional[int], out: Any,
                mask: Any = None) -> Any:
        dx = device_input(self.context, x, "x")
        if dx.dtype != self.dtype:
            raise invalid_type("x: dtype %s is not the plan's %s" % (dx.dtype, self.dtype))
        nframes = dx.shape[0] if frames is None else 1
        bx = self._wrap(dx)
        by = self._wrap(device_input(self.context, y, "y")) if y is not None else None
        bw = self._wrap(device_input(self.context, weights, "weights")) \
            if weights is not None else None
        shape = self.shape if frames is not None else (nframes,) + self.shape
        result = empty_like_device(x, shape, self.out_dtype) if out is None else out
        bo = self._wrap(device_input(self.context, result, "out"))
        if bo.size != nframes * self.nbins * 4:
            raise invalid("out: %d bytes are not %d frames of %d 4-byte bins"
                          % (bo.size, nframes, self.nbins))
        n = dx.nbytes // self.dtype.itemsize // self._channels // max(nframes, 1)
        if mask is not None:
            bm = self._wrap(device_input(self.context, mask, "mask"))
            self._check(fn.hist_run_masked_buffers(self._handle, bx._handle,
                                                   by._handle if by is not None else None,
                                                   bw._handle if bw is not None else None,
                                                   bm._handle, n, nframes, bo._handle))
            return result
        self._check(fn.hist_run_buffers(self._handle, bx._handle,
                                        by._handle if by is not None else None,
                                        bw._handle if bw is not None else None, n, nframes,
                                        bo._handle))
        return result
