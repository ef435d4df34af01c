"""The algorithms: histograms, the generic voting engine, theta-rho Hough, PClines, HOG, GHT.

Every plan takes a Context (None: votecl.default_context()) and its parameters as keyword
arguments named as the fields of the C params struct (votecl_hist_params, votecl_hough_params,
votecl_lines_params, votecl_hog_params, votecl_ght_params), which start at the library's
defaults (its params_init functions). NumPy arrays go in and NumPy arrays or records come out;
on a Context(backend="cuda") CuPy arrays and PyTorch CUDA tensors are used where they lie
(histograms, the generic engine, PClines and HOG), and histogram results stay on the GPU.
"""
import ctypes

import numpy as np

from . import _structs as S
from ._core import (DTYPES, Plan, check, device_input, empty_like_device, fill, host_array,
                    image_view, is_device_array, record, records, struct_dict)
from ._lib import fn
from ._errors import invalid, invalid_type
from ._lifetime import Owned
from ._validate import check_out, image_shape, image_size, vote_input
from . import _cache

_ENUMS = {
    "variant": {"auto": S.VOTECL_VARIANT_AUTO, "local": S.VOTECL_VARIANT_LOCAL,
                "global": S.VOTECL_VARIANT_GLOBAL, "private": S.VOTECL_VARIANT_PRIVATE},
    "fusion": {"none": S.VOTECL_HOG_FUSION_NONE, "meanshift": S.VOTECL_HOG_FUSION_MEANSHIFT,
               "group": S.VOTECL_HOG_FUSION_GROUP},
    "method": {"guil": S.VOTECL_GHT_GUIL, "ballard": S.VOTECL_GHT_BALLARD},
    "pairing": {"auto": S.VOTECL_GHT_PAIRING_AUTO, "lb": S.VOTECL_GHT_PAIRING_LB,
                "ssm": S.VOTECL_GHT_PAIRING_SSM},
    "bin_type": {"unity": S.VOTECL_BINS_UNITY, "u32": S.VOTECL_BINS_U32,
                 "f32": S.VOTECL_BINS_F32},
}


def _enum_values(params):
    """Enum fields may be given by name ("local", "meanshift", "ballard")."""
    out = {}
    for key, value in params.items():
        if isinstance(value, str) and key in _ENUMS:
            if value not in _ENUMS[key]:
                raise invalid("%s: %r is not one of %s" % (key, value, ", ".join(_ENUMS[key])))
            value = _ENUMS[key][value]
        out[key] = value
    return out


def _dtype_code(dtype, name="dtype"):
    dtype = np.dtype(dtype)
    if dtype not in DTYPES:
        raise invalid_type("%s: %s is not uint8, uint16, uint32 or float32" % (name, dtype))
    return DTYPES[dtype]


def _collect(call, struct_type, name, capacity=256):
    """Calls call(array, capacity, found) until everything found fits; records out."""
    while True:
        out = (struct_type * capacity)()
        found = ctypes.c_size_t(0)
        call(out, capacity, found)
        if found.value <= capacity:
            return records(out, found.value, name)
        capacity = found.value


# --- histograms --------------------------------------------------------------------------

class Histogram(Plan):
    """A 1-D or 2-D histogram plan (votecl_hist_*), GPU-vote's strategies.

    dtype: element type (uint8, uint16, uint32, float32); bins: an int (1-D) or a pair (2-D);
    range: (min, max) or ((xmin, xmax), (ymin, ymax)), max excluded; channels: interleaved
    channels of x; two_arrays: 2-D over x and a second array y; weighted: f32 weights summed
    into float32 bins. Other keywords: fields of votecl_hist_params (variant, stretch,
    work_group_size, channel). Results: uint32 (float32 when weighted) of shape (bins,) or
    (nx, ny); (frames, ...) for batch()."""

    _free = fn.hist_plan_free

    def __init__(self, context=None, dtype=np.uint8, bins=None, range=None, channels=1,
                 two_arrays=False, weighted=False, **params):
        super().__init__(context)
        self.dtype = np.dtype(dtype)
        p = S.votecl_hist_params()
        fn.hist_params_init(ctypes.byref(p), _dtype_code(self.dtype))
        p.channels = channels
        p.weighted = int(bool(weighted))
        if isinstance(bins, (tuple, list)):
            p.two_arrays = int(bool(two_arrays))
            (x0, x1), (y0, y1) = range
            fn.hist_params_set_2d(ctypes.byref(p), bins[0], x0, x1, bins[1], y0, y1)
            self.shape = (int(bins[0]), int(bins[1]))
        else:
            if bins is not None:
                p.nbins[0] = bins
            if range is not None:
                p.min[0], p.max[0] = range
            self.shape = (int(p.nbins[0]),)
        fill(p, _enum_values(params))
        self.params = p
        self.out_dtype = np.dtype(np.float32 if weighted else np.uint32)
        self._channels = int(p.channels)
        h = ctypes.c_void_p()
        self._check(fn.hist_plan_new(self.context._handle, ctypes.byref(p), ctypes.byref(h)))
        self._handle = h.value
        self._nbins = int(fn.hist_plan_nbins(self._handle))

    @property
    def nbins(self):
        """The plan's bins (all of a 2-D plan's), fixed when it is made."""
        return self._nbins

    def describe(self, elements, frames=1):
        """The strategy for frames of `elements` elements (a votecl_vote_plan_info record)."""
        info = S.votecl_vote_plan_info()
        self._check(fn.hist_plan_describe(self._handle, elements, frames, ctypes.byref(info)))
        return record(info, "PlanInfo")

    def _elements(self, arr):
        return arr.size // self._channels

    def __call__(self, x, y=None, weights=None, out=None):
        """The histogram of x (any shape; channels interleaved last), with y and weights when
        the plan uses them. GPU arrays in, a GPU array out (asynchronous on the stream).
        out: an array of the result's shape, size and library to fill instead of a new one
        (a pipeline that reuses it saves an allocation per call)."""
        if is_device_array(x):
            return self._device(x, y, weights, 1, out)
        xa = host_array(x, "x", [self.dtype])
        ya = host_array(y, "y", [self.dtype]) if y is not None else None
        wa = host_array(weights, "weights", [np.float32]) if weights is not None else None
        out = np.empty(self.shape, self.out_dtype) if out is None else \
            check_out(out, self.shape, self.out_dtype)
        self._check(fn.hist_run(self._handle, xa.ctypes.data,
                                ya.ctypes.data if ya is not None else None,
                                wa.ctypes.data if wa is not None else None, self._elements(xa),
                                out.ctypes.data))
        return out

    def batch(self, x, y=None, weights=None, out=None):
        """Histograms of frames: x has the frames on its first axis; (frames, bins...) out."""
        if is_device_array(x):
            return self._device(x, y, weights, None, out)
        xa = host_array(x, "x", [self.dtype])
        frames = xa.shape[0]
        ya = host_array(y, "y", [self.dtype]) if y is not None else None
        wa = host_array(weights, "weights", [np.float32]) if weights is not None else None
        shape = (frames,) + self.shape
        out = np.empty(shape, self.out_dtype) if out is None else \
            check_out(out, shape, self.out_dtype)
        n = self._elements(xa) // max(frames, 1)
        self._check(fn.hist_run_batch(self._handle, xa.ctypes.data,
                                      ya.ctypes.data if ya is not None else None,
                                      wa.ctypes.data if wa is not None else None, n, frames,
                                      out.ctypes.data))
        return out

    def image(self, image):
        """The histogram of an image (H, W) or (H, W, C) array, any row stride."""
        view, keep = image_view(image)
        out = np.empty(self.shape, self.out_dtype)
        self._check(fn.hist_run_image(self._handle, ctypes.byref(view), out.ctypes.data))
        return out

    def _device(self, x, y, weights, frames, out):
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
        self._check(fn.hist_run_buffers(self._handle, bx._handle,
                                        by._handle if by is not None else None,
                                        bw._handle if bw is not None else None, n, nframes,
                                        bo._handle))
        return result


# --- the generic voting engine -------------------------------------------------------------

class Vote(Plan):
    """A user-defined vote (votecl_vote_*): OpenCL C source defining any of vote_test,
    vote_index, vote_value, vote_finish (votecl-vote.h documents their signatures).

    dtype and channels: the elements; bins: N per space; spaces: G; bin_type: "unity", "u32" or
    "f32"; table: float32 constants the source reads as vote_table[]. Calls return
    (bins of shape (spaces, bins), stats record); a build error raises VoteclError whose
    context.build_log names the user's lines."""

    _free = fn.vote_plan_free

    def __init__(self, context=None, source=None, dtype=np.uint8, channels=1, bins=256,
                 spaces=1, bin_type="unity", table=None, **params):
        super().__init__(context)
        spec = S.votecl_vote_spec()
        fn.vote_spec_init(ctypes.byref(spec))
        self.dtype = np.dtype(dtype)
        spec.dtype = _dtype_code(self.dtype)
        spec.channels, spec.spaces, spec.nbins = channels, spaces, bins
        spec.bin_type = _enum_values({"bin_type": bin_type})["bin_type"]
        self._source = source.encode() if source is not None else None
        spec.source = self._source
        if table is not None:
            self._table = np.ascontiguousarray(table, np.float32)
            spec.table = self._table.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
            spec.table_size = self._table.size
        fill(spec, _enum_values(params))
        self.shape = (spaces, bins)
        self._channels = int(spec.channels)
        self.out_dtype = np.dtype(np.float32 if spec.bin_type == S.VOTECL_BINS_F32 else np.uint32)
        h = ctypes.c_void_p()
        self._check(fn.vote_plan_new(self.context._handle, ctypes.byref(spec), ctypes.byref(h)))
        self._handle = h.value

    def __call__(self, data):
        """Votes a 1-D array (index = position) or an image (H, W[, C]) array."""
        if is_device_array(data):
            dev = device_input(self.context, data, "data")
            shape = dev.shape
            width, height = (shape[0], 0) if len(shape) == 1 else (shape[1], shape[0])
            out = empty_like_device(data, self.shape, self.out_dtype)
            b = self._wrap(dev)
            o = self._wrap(device_input(self.context, out, "bins"))
            self._check(fn.vote_run_buffers(self._handle, b._handle, width, height, o._handle))
            return out, None
        arr = np.asarray(data)
        out = np.empty(self.shape, self.out_dtype)
        stats = S.votecl_vote_stats()
        if arr.ndim == 1:
            arr, n = vote_input(host_array(arr, "data", [self.dtype]), self._channels)
            self._check(fn.vote_run(self._handle, arr.ctypes.data, n, out.ctypes.data,
                                    ctypes.byref(stats)))
        else:
            view, keep = image_view(arr, "data")
            self._check(fn.vote_run_image(self._handle, ctypes.byref(view), out.ctypes.data,
                                          ctypes.byref(stats)))
        return out, record(stats, "VoteStats")


# --- theta-rho Hough ------------------------------------------------------------------------

class Hough(Plan):
    """Theta-rho Hough lines on binary edge images (votecl_hough_*) of width x height.
    Keywords: fields of votecl_hough_params (angles, rho_bins, edge_threshold, peak_window,
    peak_threshold, max_lines, variant, ...). Calls return HoughLine records, most votes first."""

    _free = fn.hough_plan_free

    def __init__(self, context=None, width=None, height=None, **params):
        super().__init__(context)
        width, height = image_size(width, "width"), image_size(height, "height")
        p = S.votecl_hough_params()
        fn.hough_params_init(ctypes.byref(p))
        fill(p, _enum_values(params))
        self.params = p
        h = ctypes.c_void_p()
        self._check(fn.hough_plan_new(self.context._handle, ctypes.byref(p), width, height,
                                      ctypes.byref(h)))
        self._handle = h.value
        g, n = ctypes.c_uint(), ctypes.c_uint32()
        fn.hough_plan_shape(self._handle, ctypes.byref(g), ctypes.byref(n))
        self.shape = (g.value, n.value)
        self.stats = None

    def __call__(self, image):
        """Lines of a binary edge image, a uint8 (height, width) array of the plan's size
        (nonzero: an edge): HoughLine records (theta, rho, votes, ...), most votes first;
        the vote's figures in .stats, its accumulator in .accumulator.

        >>> lines = votecl.Hough(ctx, 640, 480, max_lines=10)(edges)
        """
        view, keep = image_view(image)
        stats = S.votecl_vote_stats()

        def call(out, capacity, found):
            self._check(fn.hough_run(self._handle, ctypes.byref(view), out, capacity,
                                     ctypes.byref(found), ctypes.byref(stats)))
        lines = _collect(call, S.votecl_hough_line, "HoughLine")
        self.stats = record(stats, "VoteStats")
        return lines

    def accumulate(self, image):
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

    @property
    def accumulator(self):
        """The last run's accumulator, (angles, rho_bins) uint32 (a copy)."""
        p = fn.hough_plan_accumulator(self._handle)
        if not p:
            return None
        return np.ctypeslib.as_array(p, shape=self.shape).copy()


def hough_lines(image, context=None, **params):
    """Theta-rho Hough lines of a binary edge image in one call (see Hough), through a plan
    the context keeps for images of this size and these parameters (votecl._cache)."""
    image = np.asarray(image)
    height, width = image_shape(image)
    return _cache.run(context, Hough, (width, height), params, lambda plan: plan(image))


# --- PClines ----------------------------------------------------------------------------------

class Lines(Plan):
    """PClines line detection (votecl_lines_*) in width x height images (u8 or f32, one
    channel). Keywords: fields of votecl_lines_params (distance, rows, neighbourhood,
    threshold, radius, edge_threshold, max_lines, ...). Calls return Line records (a, b, c,
    theta, rho, votes, ...), most votes first; GPU images are read where they lie."""

    _free = fn.lines_plan_free

    def __init__(self, context=None, width=None, height=None, **params):
        super().__init__(context)
        width, height = image_size(width, "width"), image_size(height, "height")
        p = S.votecl_lines_params()
        fn.lines_params_init(ctypes.byref(p))
        fill(p, _enum_values(params))
        h = ctypes.c_void_p()
        self._check(fn.lines_plan_new(self.context._handle, ctypes.byref(p), width, height,
                                      ctypes.byref(h)))
        self._handle = h.value
        self.width, self.height = width, height

    @property
    def params(self):
        """The resolved parameters as a dict."""
        p = S.votecl_lines_params()
        fn.lines_plan_params(self._handle, ctypes.byref(p))
        return struct_dict(p)

    def __call__(self, image):
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

            def call(out, capacity, found):
                self._check(fn.lines_run_buffer(self._handle, buf._handle, w, h, code, out,
                                                capacity, ctypes.byref(found)))
        else:
            view, keep = image_view(image)

            def call(out, capacity, found):
                self._check(fn.lines_run(self._handle, ctypes.byref(view), out, capacity,
                                         ctypes.byref(found)))
        return _collect(call, S.votecl_lines_line, "Line")

    def edges(self, edges):
        """Lines from edge points: an (n, 4) int array of x, y, gx, gy."""
        e = np.ascontiguousarray(edges, np.int32).reshape(-1, 4)
        ptr = e.ctypes.data_as(ctypes.POINTER(S.votecl_lines_edge))

        def call(out, capacity, found):
            self._check(fn.lines_run_edges(self._handle, ptr, len(e), out, capacity,
                                           ctypes.byref(found)))
        return _collect(call, S.votecl_lines_line, "Line")

    def space(self):
        """The TS space of the last run, (2d, V) uint32 (column after column)."""
        cols, rows = ctypes.c_uint32(), ctypes.c_uint32()
        fn.lines_plan_shape(self._handle, ctypes.byref(cols), ctypes.byref(rows))
        out = np.empty((cols.value, rows.value), np.uint32)
        self._check(fn.lines_plan_read_space(
            self._handle, out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)), out.size))
        return out

    @property
    def stats(self):
        """The last run's figures (a LinesStats record: edges, maxima)."""
        s = S.votecl_lines_stats()
        self._check(fn.lines_plan_last_stats(self._handle, ctypes.byref(s)))
        return record(s, "LinesStats")


def lines(image, context=None, **params):
    """PClines lines of an image in one call (see Lines), through a plan the context keeps
    for images of this size and these parameters (votecl._cache)."""
    image = image if is_device_array(image) else np.asarray(image)
    height, width = image_shape(image)
    return _cache.run(context, Lines, (width, height), params, lambda plan: plan(image))


# --- HOG ----------------------------------------------------------------------------------

def hog_params(**params):
    """A votecl_hog_params with the people detector's defaults and the given fields."""
    p = S.votecl_hog_params()
    fn.hog_params_init(ctypes.byref(p))
    return fill(p, _enum_values(params))


class HOGModel(Owned):
    """A linear SVM over HOG descriptors (votecl_hog_model): people(), load(path), or from
    weights and a bias for the geometry of the given parameters."""

    _free = fn.hog_model_free

    def __init__(self, context=None, weights=None, bias=0.0, _handle=None, **params):
        from ._core import default_context
        self._handle = None
        self.context = context if context is not None else default_context()
        if _handle is None:
            p = hog_params(**params)
            w = np.ascontiguousarray(weights, np.float32)
            h = ctypes.c_void_p()
            check(fn.hog_model_new(self.context._handle, ctypes.byref(p),
                                   w.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), w.size,
                                   bias, ctypes.byref(h)), self.context)
            _handle = h.value
        self._handle = _handle

    @classmethod
    def people(cls, context=None):
        """OpenCV's default people detector (64 x 128)."""
        from ._core import default_context
        context = context if context is not None else default_context()
        h = ctypes.c_void_p()
        with context._native.lock:
            check(fn.hog_model_people(context._handle, ctypes.byref(h)), context)
            return cls(context, _handle=h.value)

    file_params = None  # the geometry of a detector OpenCV saved (a votecl_hog_params)

    @classmethod
    def load(cls, path, context=None):
        """A model file: docs/hog-model.md's format, or a detector OpenCV saved
        (HOGDescriptor::save, YAML or XML), whose window geometry HOG(model=...) then takes
        (in .file_params)."""
        from ._core import default_context
        import os
        context = context if context is not None else default_context()
        h = ctypes.c_void_p()
        with context._native.lock:
            status = fn.hog_model_load(context._handle, os.fsencode(path), ctypes.byref(h))
            file_params = None
            if status == 1 and b"not a votecl-hog-model file" in \
                    (fn.context_get_error(context._handle) or b""):
                file_params = hog_params()
                status = fn.hog_model_load_opencv(context._handle, os.fsencode(path),
                                                  ctypes.byref(file_params), ctypes.byref(h))
            check(status, context)
            model = cls(context, _handle=h.value)
        model.file_params = file_params
        return model

    def save(self, path):
        """Writes the model as a votecl-hog-model file (docs/hog-model.md)."""
        import os
        check(fn.hog_model_save(self.context._handle, self._handle, os.fsencode(path)),
              self.context)

    @property
    def weights(self):
        """The SVM's weights, float32 (descriptor length,), a copy."""
        n, w, b = ctypes.c_size_t(), ctypes.POINTER(ctypes.c_float)(), ctypes.c_float()
        fn.hog_model_get(self._handle, ctypes.byref(n), ctypes.byref(w), ctypes.byref(b))
        return np.ctypeslib.as_array(w, shape=(n.value,)).copy()

    @property
    def bias(self):
        """The SVM's bias: a window's score is bias + weights . descriptor."""
        b = ctypes.c_float()
        fn.hog_model_get(self._handle, None, None, ctypes.byref(b))
        return b.value



class HOG(Plan):
    """HOG descriptors and the sliding-window detector (votecl_hog_*).

    model: "people" (default), a HOGModel, a path to a model file, or None (descriptors only).
    Keywords: fields of votecl_hog_params (window_width, ..., scale, hit_threshold, fusion
    "none" | "meanshift" | "group", ...). Images are uint8 (H, W), (H, W, 3) or (H, W, 4);
    on a CUDA context a GPU image (H, W) or (H, W, 3) with colour on is read where it lies."""

    _free = fn.hog_free

    def __init__(self, context=None, model="people", **params):
        super().__init__(context)
        self.params = hog_params(**params)
        if isinstance(model, str) and model == "people":
            model = HOGModel.people(self.context)
        elif isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
            model = HOGModel.load(model, self.context)
        if getattr(model, "file_params", None) is not None:  # OpenCV's geometry, then ours
            self.params = fill(type(model.file_params).from_buffer_copy(model.file_params),
                               _enum_values(params))
        self.model = model
        h = ctypes.c_void_p()
        self._check(fn.hog_new(self.context._handle, ctypes.byref(self.params),
                               model._handle if model is not None else None, ctypes.byref(h)))
        self._handle = h.value

    @property
    def descriptor_length(self):
        """The length of one window's descriptor (3780 for the people detector)."""
        n = ctypes.c_size_t()
        self._check(fn.hog_descriptor_length(ctypes.byref(self.params), ctypes.byref(n)))
        return n.value

    def detect(self, image, rois=None):
        """Detections (records with box (x, y, width, height), score, scale), best first.
        rois: optional (x, y, width, height) regions searched as images of their own."""
        r = None
        nr = 0
        if rois is not None and len(rois):
            r = (S.votecl_hog_rect * len(rois))(*[S.votecl_hog_rect(*map(int, t)) for t in rois])
            nr = len(rois)
        if is_device_array(image):
            dev = device_input(self.context, image, "image")
            if dev.dtype != np.uint8:
                raise invalid_type("image: HOG takes uint8 images, not %s" % dev.dtype)
            buf = self._wrap(dev)
            h, w = dev.shape[0], dev.shape[1]
            ch = dev.shape[2] if len(dev.shape) == 3 else 1

            def call(out, capacity, found):
                self._check(fn.hog_detect_buffer(self._handle, buf._handle, w, h, ch, r, nr, out,
                                                 capacity, ctypes.byref(found)))
        else:
            view, keep = image_view(image)

            def call(out, capacity, found):
                self._check(fn.hog_detect(self._handle, ctypes.byref(view), r, nr, out,
                                          capacity, ctypes.byref(found)))
        return _collect(call, S.votecl_hog_detection, "Detection")

    def windows(self, capacity=4096):
        """The raw windows of the last detection before fusion."""
        def call(out, cap, found):
            self._check(fn.hog_last_windows(self._handle, out, cap, ctypes.byref(found)))
        return _collect(call, S.votecl_hog_detection, "Detection", capacity)

    def compute(self, image):
        """Descriptors of every window at scale 1: (rows, columns, length) float32, as
        OpenCV's HOGDescriptor::compute orders them (rows of windows, left to right)."""
        view, keep = image_view(image)
        cols, rows = ctypes.c_size_t(), ctypes.c_size_t()
        self._check(fn.hog_windows(self._handle, view.width, view.height, ctypes.byref(cols),
                                   ctypes.byref(rows)))
        n = self.descriptor_length
        out = np.empty((rows.value, cols.value, n), np.float32)
        count = ctypes.c_size_t()
        self._check(fn.hog_compute(self._handle, ctypes.byref(view),
                                   out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), out.size,
                                   ctypes.byref(count)))
        return out

    def compute_at(self, image, locations):
        """Descriptors of windows whose top-left corners are locations ((n, 2) ints)."""
        view, keep = image_view(image)
        loc = np.ascontiguousarray(locations, np.int32).reshape(-1, 2)
        n = self.descriptor_length
        out = np.empty((len(loc), n), np.float32)
        self._check(fn.hog_compute_at(self.context._handle, ctypes.byref(self.params),
                                      ctypes.byref(view),
                                      loc.ctypes.data_as(ctypes.POINTER(S.votecl_hog_point)),
                                      len(loc), out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                      out.size))
        return out


# --- generalized Hough ----------------------------------------------------------------------

class GHT(Plan):
    """The generalized Hough transform (votecl_ght_*): a model of a template (uint8, one
    channel) found in images of any size. method: "guil" (rotation, scale, position) or
    "ballard" (R-table). Keywords: fields of votecl_ght_params (levels, canny_low, canny_high,
    min_angle, max_angle, angle_step, min_scale, max_scale, scale_step, dp, ...). detect()
    returns Pose records (x, y, angle, scale, votes, ...), best first. Host images only."""

    _free = fn.ght_model_free

    def __init__(self, context=None, template=None, method="guil", **params):
        super().__init__(context)
        p = S.votecl_ght_params()
        fn.ght_params_init(ctypes.byref(p), _enum_values({"method": method})["method"])
        fill(p, _enum_values(params))
        view, keep = image_view(template, "template")
        h = ctypes.c_void_p()
        self._check(fn.ght_model_new(self.context._handle, ctypes.byref(p), ctypes.byref(view),
                                     ctypes.byref(h)))
        self._handle = h.value

    @property
    def params(self):
        """The model's resolved parameters (votecl_ght_params) as a dict."""
        p = S.votecl_ght_params()
        fn.ght_model_params(self._handle, ctypes.byref(p))
        return struct_dict(p)

    def detect(self, image):
        """Poses of the template in image, a uint8 (H, W) array: Pose records (x, y, angle,
        scale, votes, ...), most votes first.

        >>> poses = votecl.GHT(ctx, template, "ballard").detect(scene)
        """
        view, keep = image_view(image)

        def call(out, capacity, found):
            self._check(fn.ght_detect(self._handle, ctypes.byref(view), out, capacity,
                                      ctypes.byref(found)))
        return _collect(call, S.votecl_ght_pose, "Pose", 64)

    @property
    def stats(self):
        """The last detection's figures (a GhtStats record: template and image edges and
        pairings, candidates, seconds spent on edges and pairing)."""
        s = S.votecl_ght_stats()
        self._check(fn.ght_model_last_stats(self._handle, ctypes.byref(s)))
        return record(s, "GhtStats")
