"""Errors, contexts, devices, parameter structs, result records and device arrays."""
import collections
import ctypes
import math
import os
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple, cast

import numpy as np
import numpy.typing as npt

from . import _lib
from . import _protos
from . import _lifetime
from . import _validate
from . import _structs as S
# the errors stay importable from here, where they were defined before _errors
from ._errors import ClosedError, InvalidArgument, InvalidType, Unsupported  # noqa: F401
from ._errors import VoteclError, invalid, invalid_type
from ._errors import error as _error
from ._lib import fn
from ._lifetime import Owned

Array = npt.NDArray[Any]

BACKENDS = {"default": S.VOTECL_BACKEND_DEFAULT, "opencl": S.VOTECL_BACKEND_OPENCL,
            "cuda": S.VOTECL_BACKEND_CUDA, "ref": S.VOTECL_BACKEND_REF}
DTYPES = {np.dtype(np.uint8): S.VOTECL_DTYPE_U8, np.dtype(np.uint16): S.VOTECL_DTYPE_U16,
          np.dtype(np.uint32): S.VOTECL_DTYPE_U32, np.dtype(np.float32): S.VOTECL_DTYPE_F32}
_WARMUP_ALL = 1  # VOTECL_WARMUP_ALL, a #define of votecl-context.h
DEVICE_TYPES = {S.VOTECL_DEVICE_OTHER: "other", S.VOTECL_DEVICE_CPU: "cpu",
                S.VOTECL_DEVICE_GPU: "gpu", S.VOTECL_DEVICE_ACCELERATOR: "accelerator"}


def check(status: int, context: Any = None) -> None:
    """Raises the error of a status other than VOTECL_OK, with the context's message."""
    if status != 0:
        message = ""
        native = getattr(context, "_native", None)
        if native is not None and native.handle:
            message = (fn.context_get_error(native.handle) or b"").decode(errors="replace")
        raise _error(status, message)


def version() -> str:
    """The library's version string."""
    return str(fn.version_string().decode())


# --- parameter structs by name -------------------------------------------------------------

def fill(struct: Any, overrides: Dict[str, Any]) -> Any:
    """Sets the fields of a ctypes struct (already holding the library's defaults from its
    params_init function) by name; an unknown name raises TypeError listing the known ones.
    Strings become their constant values for enum fields given as names (e.g. fusion="none")."""
    names = [f[0] for f in struct._fields_]
    for key, value in overrides.items():
        if key not in names:
            raise invalid_type("%s has no field %r; its fields: %s"
                               % (type(struct).__name__, key, ", ".join(names)))
        current = getattr(struct, key)
        try:
            if isinstance(current, ctypes.Array):
                _fill_array(current, key, value)
            else:
                setattr(struct, key, value)
        except (TypeError, ValueError, OverflowError) as e:
            if isinstance(e, VoteclError):
                raise
            raise invalid("%s: %r does not fit %s's field %s (%s)"
                          % (key, value, type(struct).__name__, key, e)) from None
    return struct


def _fill_array(arr: Any, key: str, value: Any) -> None:
    """An array field (channel[2], nbins[2], ...) from a sequence of at most its length."""
    try:
        values = list(value)
    except TypeError:
        example = tuple([value] + [0] * (len(arr) - 1))
        raise invalid("%s: an array of %d values; give a sequence such as %s, not %r"
                      % (key, len(arr), example, value)) from None
    if len(values) > len(arr):
        raise invalid("%s: at most %d values, not %d" % (key, len(arr), len(values)))
    for i, v in enumerate(values):
        arr[i] = v


def struct_dict(struct: Any) -> Dict[str, Any]:
    """A ctypes struct as a dict (nested structs and arrays converted)."""
    out = {}
    for name, _ in struct._fields_:
        v = getattr(struct, name)
        if isinstance(v, ctypes.Structure):
            v = struct_dict(v)
        elif isinstance(v, ctypes.Array):
            v = bytes(v).split(b"\0")[0].decode(errors="replace") if v._type_ is ctypes.c_char \
                else list(v)
        elif isinstance(v, bytes):
            v = v.decode(errors="replace")
        out[name] = v
    return out


_RECORDS = {}


def record_type(struct_type: Any, name: str) -> Any:
    """A namedtuple with the fields of a ctypes struct (nested structs become records too), so
    fields the C side adds appear without a change here."""
    if struct_type not in _RECORDS:
        _RECORDS[struct_type] = collections.namedtuple(name, [f[0] for f in struct_type._fields_])
    return _RECORDS[struct_type]


_FLAT: Dict[Any, bool] = {}
_FLAT_DTYPES: Dict[Any, Any] = {}


class Records(List[Any]):
    """Result records: a list of namedtuples with the C struct's fields (line.theta,
    detection.box.x), which is also a NumPy structured array of the same fields:
    result.array or np.asarray(result) (result.array["votes"], result.array["box"]["x"])."""

    __slots__ = ("array",)

    def __init__(self, items: List[Any], array: Array) -> None:
        super().__init__(items)
        self.array = array

    def __array__(self, dtype: Any = None) -> Array:
        return self.array if dtype is None else self.array.astype(dtype)


def records(array: Any, count: int, name: str) -> Records:
    """The first count structs of a ctypes array as Records (see record_type). Structs of
    scalar fields only are read through NumPy's view of the array in one pass (a generic
    getattr per field costs about 4 us a record, more than a millisecond's worth of lines
    or detections is worth in a pipeline); others field by field."""
    struct_type = array._type_
    flat = _FLAT.get(struct_type)
    if flat is None:
        flat = _FLAT[struct_type] = all(
            isinstance(t, type) and issubclass(t, ctypes._SimpleCData) and
            getattr(t, "_type_", "") in "bBhHiIlLqQfd?" for _, t in struct_type._fields_)
    dtype = _FLAT_DTYPES.get(struct_type)
    if dtype is None:  # NumPy builds it from the ctypes fields in Python: once
        dtype = _FLAT_DTYPES[struct_type] = np.dtype(struct_type)
    arr = np.frombuffer(array, dtype, count).copy()
    if count == 0:
        return Records([], arr)
    if not flat:
        return Records([record(array[i], name) for i in range(count)], arr)
    make = record_type(struct_type, name)._make
    return Records(list(map(make, arr.tolist())), arr)


def record(struct: Any, name: str) -> Any:
    values = []
    for fname, ftype in struct._fields_:
        v = getattr(struct, fname)
        if isinstance(v, ctypes.Structure):
            v = record(v, fname.capitalize())
        elif isinstance(v, ctypes.Array):
            v = list(v)
        values.append(v)
    return record_type(type(struct), name)(*values)


# --- devices and contexts -----------------------------------------------------------------

# the fields are the C struct's, known when it is read, hence Any for mypy
_DeviceInfo: Any = cast(Any, collections.namedtuple)(
    "DeviceInfo", [f[0] for f in S.votecl_device_info._fields_])


class DeviceInfo(_DeviceInfo):  # type: ignore[misc]
    """Facts about a device (votecl_device_info): name, vendor, platform, compute_units, ...;
    backend and type as names ("opencl", "gpu")."""

    @classmethod
    def _of(cls, info: Any) -> "DeviceInfo":
        d = struct_dict(info)
        d["backend"] = (fn.backend_name(info.backend) or b"?").decode()
        d["type"] = DEVICE_TYPES.get(info.type, "other")
        return cls(**d)


def backends() -> List[str]:
    """The backends built into the library, e.g. ["opencl", "ref"] or with "cuda"."""
    return [n for n, v in BACKENDS.items() if v and fn.backend_is_built(v)]


def devices(backend: str = "opencl") -> List[DeviceInfo]:
    """The devices of a backend, as DeviceInfo records."""
    found = ctypes.c_size_t(0)
    check(fn.devices_list(BACKENDS[backend], None, 0, ctypes.byref(found)))
    infos = (S.votecl_device_info * max(found.value, 1))()
    check(fn.devices_list(BACKENDS[backend], infos, found.value, ctypes.byref(found)))
    return [DeviceInfo._of(infos[i]) for i in range(min(found.value, len(infos)))]


def set_backend(options: Any, backend: Optional[str]) -> None:
    """Sets an options struct's backend field from a backend's name (None: left as is)."""
    if backend is not None:
        if backend not in BACKENDS:
            raise invalid("backend: %r is not one of %s" % (backend, ", ".join(BACKENDS)))
        options.backend = BACKENDS[backend]


class Context(Owned):
    """One backend and one device; every plan is made from a context.

    backend: "opencl", "cuda", "ref" or None (VOTECL_BACKEND, else cuda when built and present,
    else opencl). device: a selector in OpenCV's "platform:type:name-or-index" form
    (VOTECL_DEVICE when None). kernel_path, cache_dir, disable_disk_cache: as
    votecl_context_options.

    On the CUDA backend the context shares the calling thread's current CUDA context (else the
    device's primary one) with CuPy and PyTorch, and queues its work on cuda_stream (an int:
    a CUstream handle such as cupy.cuda.get_current_stream().ptr or
    torch.cuda.current_stream().cuda_stream; None: the legacy default stream, which CuPy and
    PyTorch use by default), so device arrays need no synchronisation. With backend None,
    such a CUDA context is tried first where CUDA is built and VOTECL_BACKEND does not say
    otherwise, as the library's own order does.

    Threads: a context's calls, and those of everything made from it, hold the context's
    lock, so a context and its plans may be shared between threads (their calls then run one
    at a time); for calls in parallel, give each thread its own context.
    Lifetime: what is made from a context keeps it alive; close() (or the end of a `with`
    block) frees what was made from it first, and their later calls raise
    votecl.ClosedError."""

    _root = True
    _free = fn.context_free

    def __init__(self, backend: Optional[str] = None, device: Optional[str] = None,
                 kernel_path: Optional[str] = None, cache_dir: Optional[str] = None,
                 disable_disk_cache: bool = False, cuda_stream: Optional[int] = None) -> None:
        self._keep: List[bytes] = []
        self._shares_cuda = False
        self._plans = None
        options = S.votecl_context_options()
        fn.context_options_init(ctypes.byref(options))
        set_backend(options, backend)
        if kernel_path is None:
            kernel_path = _lib.default_kernel_path()
        for field, value in (("device", device), ("kernel_path", kernel_path),
                             ("cache_dir", cache_dir)):
            if value is not None:
                encoded = os.fsencode(value)
                self._keep.append(encoded)
                setattr(options, field, encoded)
        options.disable_disk_cache = int(bool(disable_disk_cache))
        handle = ctypes.c_void_p()
        error = ctypes.create_string_buffer(1024)
        env = os.environ.get("VOTECL_BACKEND", "").lower()
        shares = backend == "cuda" or (backend is None and env in ("", "cuda") and
                                       fn.backend_is_built(S.VOTECL_BACKEND_CUDA))
        if shares:
            status = fn.context_new_from_cuda(None, cuda_stream, ctypes.byref(options),
                                              ctypes.byref(handle), error, len(error))
            if status != 0 and backend is None:  # no CUDA here: the library's default order
                shares = False
        if not shares:
            status = fn.context_new_with_error(ctypes.byref(options), ctypes.byref(handle),
                                               error, len(error))
        if status != 0:
            raise _error(status, error.value.decode(errors="replace"))
        self._handle = handle.value
        self._shares_cuda = shares
        self._queue = fn.context_get_native_queue(self._handle) or 0

    @classmethod
    def from_opencl(cls, cl_context: Any, cl_device: Any, cl_queue: Any = None,
                    **options: Any) -> "Context":
        """A context on the caller's OpenCL objects (ints or ctypes pointers: a cl_context,
        one of its cl_device_id and an in-order cl_command_queue on them, e.g. pyopencl's
        .int_ptr). The objects are retained, never destroyed."""
        self = cls.__new__(cls)
        self._keep, self._shares_cuda, self._plans = [], False, None
        opts = S.votecl_context_options()
        fn.context_options_init(ctypes.byref(opts))
        if _lib.default_kernel_path():
            options.setdefault("kernel_path", _lib.default_kernel_path())
        for field, value in options.items():
            if isinstance(value, str):
                value = os.fsencode(value)
                self._keep.append(value)
            setattr(opts, field, value)
        handle = ctypes.c_void_p()
        error = ctypes.create_string_buffer(1024)
        status = fn.context_new_from_opencl(cl_context, cl_device, cl_queue, ctypes.byref(opts),
                                            ctypes.byref(handle), error, len(error))
        if status != 0:
            raise _error(status, error.value.decode(errors="replace"))
        self._handle = handle.value
        self._queue = fn.context_get_native_queue(self._handle) or 0
        return self

    def close(self) -> None:
        """Frees the context, after everything made from it (plans, buffers, models), which
        then raise votecl.ClosedError; waits for a call in progress in another thread."""
        native = self._native
        if native is None:
            return
        with native.lock:
            self._plans = None
            super().close()

    @property
    def backend(self) -> str:
        """"opencl", "cuda" or "ref"."""
        return str(fn.backend_name(fn.context_get_backend(self._handle)).decode())

    @property
    def device(self) -> DeviceInfo:
        """The context's DeviceInfo."""
        info = S.votecl_device_info()
        check(fn.context_get_device_info(self._handle, ctypes.byref(info)), self)
        return DeviceInfo._of(info)

    @property
    def build_log(self) -> str:
        """The log of the last kernel build ("" when none)."""
        return str(fn.context_get_build_log(self._handle).decode(errors="replace"))

    @property
    def kernel_path(self) -> str:
        """The directories searched for kernel sources, ':'-separated
        (votecl_context_get_kernel_path)."""
        return os.fsdecode(fn.context_get_kernel_path(self._handle) or b"")

    @property
    def cache_dir(self) -> str:
        """The disk cache of compiled programs ("" when off; votecl_context_get_cache_dir)."""
        return os.fsdecode(fn.context_get_cache_dir(self._handle) or b"")

    def on_build(self, callback: Any) -> None:
        """Reports kernel compilations as they happen (votecl_context_set_build_callback):
        callback(event, what, seconds) with event "started" or "finished", what the kernel
        files compiled ("hog.cl") and seconds the build took ("finished"), on the thread of
        the call that compiles, inside it. It must not call into this context or what was
        made from it; an exception it raises is ignored. None removes it."""
        if callback is None:
            self._build_callback = None
            null = _protos.votecl_build_callback(0)  # address 0: NULL
            check(fn.context_set_build_callback(self._handle, null, None), self)
            return

        def report(event: int, what: bytes, seconds: float, user: Any) -> None:
            try:
                callback("started" if event == S.VOTECL_BUILD_STARTED else "finished",
                         (what or b"").decode(errors="replace"), seconds)
            except Exception:
                pass  # nothing may unwind through the library
        wrapped = _protos.votecl_build_callback(report)
        check(fn.context_set_build_callback(self._handle, wrapped, None), self)
        self._build_callback = wrapped  # C holds it: kept while set

    @property
    def native_queue(self) -> int:
        """The cl_command_queue or CUstream the context's work goes to, as an int (0: none or
        the legacy default stream); fixed for the context's life, so asked once."""
        return self._queue

    def finish(self) -> None:
        """Waits until all work queued on the context has finished."""
        check(fn.context_finish(self._handle), self)

    def warmup(self, all: bool = False, progress: Any = None) -> int:
        """Builds the kernels the default plans of every module use on this device
        (votecl_context_warmup), so that they land in the disk cache and a later process's
        first call loads them instead of compiling (seconds per program on PoCL).

        all: also every forced histogram strategy of every element type
        (VOTECL_WARMUP_ALL). progress: None, or a callable (step, index, steps) called
        before each step with its name. Returns the number of steps run (0 on the ref
        backend, which compiles nothing). Raises the first failing step's error (later
        steps still run; the message names the step), or what progress raised.

        >>> votecl.Context().warmup(progress=lambda step, i, n: print(i + 1, n, step))
        """
        seen = [0]
        raised: List[BaseException] = []

        def step(name: bytes, index: int, steps: int, user: Any) -> None:
            seen[0] = index + 1
            if progress is not None and not raised:
                try:
                    progress(name.decode(errors="replace"), index, steps)
                except BaseException as e:  # re-raised once the C call returns
                    raised.append(e)
        callback = _protos.votecl_warmup_progress(step)
        status = fn.context_warmup(self._handle, _WARMUP_ALL if all else 0, callback, None)
        if raised:
            raise raised[0]
        check(status, self)
        return seen[0]

    def __repr__(self) -> str:
        if self.closed:
            return "<votecl.Context (closed)>"
        return "<votecl.Context %s on %r>" % (self.backend, self.device.name)


_thread = threading.local()


def default_context() -> Context:
    """The calling thread's default context, made on its first use with the defaults
    (VOTECL_BACKEND, VOTECL_DEVICE): each thread has its own, so the one-shot functions
    (votecl.histogram, hough_lines, lines, ...) run in parallel from any thread. A closed
    one is replaced."""
    ctx = getattr(_thread, "context", None)
    if ctx is None or ctx.closed:
        ctx = _thread.context = Context()
    return ctx


def _resolve_context(context: Any) -> Context:
    if context is None:
        return default_context()
    if not isinstance(context, Context):
        raise invalid("context: a votecl.Context or None (the thread's default), not %s %r"
                      % (type(context).__name__, context))
    return context


_lifetime.resolve_context = _resolve_context


# --- arrays ---------------------------------------------------------------------------------

def host_array(a: Any, name: str, dtypes: Optional[Sequence[Any]] = None) -> Array:
    """a as a C-contiguous NumPy array (copied only when it is not one already)."""
    arr = np.ascontiguousarray(a)
    if dtypes is not None and arr.dtype not in [np.dtype(d) for d in dtypes]:
        raise invalid_type("%s: dtype %s is not one of %s"
                           % (name, arr.dtype, ", ".join(str(np.dtype(d)) for d in dtypes)))
    return arr


def image_view(arr: Any, name: str = "image") -> Tuple[Any, Array]:
    """A votecl_image over a 2-D (H, W) or 3-D (H, W, C) NumPy array of u8/u16/u32/f32; rows may
    be strided (the element stride must be the item size)."""
    arr = np.asarray(arr)
    if arr.ndim not in (2, 3):
        raise invalid("%s: expected (height, width) or (height, width, channels), got shape %s"
                      % (name, arr.shape))
    if arr.dtype not in DTYPES:
        raise invalid_type("%s: dtype %s is not uint8, uint16, uint32 or float32"
                           % (name, arr.dtype))
    channels = arr.shape[2] if arr.ndim == 3 else 1
    inner_ok = arr.strides[1] == arr.itemsize * channels and (arr.ndim == 2 or
                                                              arr.strides[2] == arr.itemsize)
    if not inner_ok or arr.strides[0] < 0:
        arr = np.ascontiguousarray(arr)
    view = S.votecl_image(arr.ctypes.data, arr.shape[1], arr.shape[0], arr.strides[0], channels,
                          DTYPES[arr.dtype])
    return view, arr


class DeviceArray:
    """A GPU array seen through __cuda_array_interface__ (CuPy arrays, PyTorch CUDA tensors,
    Numba arrays) or DLPack (through CuPy): pointer, shape, dtype, and the stream it is
    ordered on. It must be C-contiguous."""

    def __init__(self, obj: Any, name: str) -> None:
        module = type(obj).__module__.partition(".")[0]
        if (module == "torch" and _torch_view(self, obj, name)) or \
                (module == "cupy" and _cupy_view(self, obj, name)):
            return
        cai: Any = getattr(obj, "__cuda_array_interface__", None)
        if cai is None and hasattr(obj, "__dlpack__"):
            # DLPack producers (JAX, TF, ...) through CuPy's importer
            import cupy  # type: ignore[import]
            obj = cupy.from_dlpack(obj)
            cai = obj.__cuda_array_interface__
        self.obj = obj
        self.ptr = cai["data"][0]
        self.shape = tuple(cai["shape"])
        self.dtype = np.dtype(cai["typestr"])
        self.stream = cai.get("stream")
        strides = cai.get("strides")
        if strides is not None:
            expect: List[int] = []
            acc = self.dtype.itemsize
            for s in reversed(self.shape):
                expect.insert(0, acc)
                acc *= s
            if tuple(strides) != tuple(expect) and math.prod(self.shape) > 1:
                raise invalid("%s: a device array must be C-contiguous" % name)
        self.nbytes = math.prod(self.shape) * self.dtype.itemsize


_TORCH_DTYPES: Dict[Any, Any] = {}


def _torch_view(view: DeviceArray, t: Any, name: str) -> bool:
    """Fills a DeviceArray from a PyTorch CUDA tensor's own accessors, which cost far less
    than its __cuda_array_interface__ (built in Python on every access); the same fields (that
    interface gives no stream: PyTorch orders work on its current stream, which callers
    synchronise or share). False where the tensor is not such a plain array."""
    dtype = _TORCH_DTYPES.get(t.dtype)
    if dtype is None:
        try:
            dtype = np.dtype(str(t.dtype).rpartition(".")[2])
        except TypeError:
            return False
        _TORCH_DTYPES[t.dtype] = dtype
    if not t.is_cuda or t.is_sparse or t.requires_grad:
        return False
    if not t.is_contiguous():
        raise invalid("%s: a device array must be C-contiguous" % name)
    view.obj, view.ptr, view.shape, view.dtype, view.stream = t, t.data_ptr(), tuple(t.shape), \
        dtype, None
    view.nbytes = t.numel() * dtype.itemsize
    return True


def _cupy_view(view: DeviceArray, a: Any, name: str) -> bool:
    """Fills a DeviceArray from a CuPy array's attributes: the fields its
    __cuda_array_interface__ (version 3) gives, the stream being the current one (none for
    the legacy default), without building the interface's dict. False for an empty array."""
    if a.size == 0:
        return False
    if not a.flags.c_contiguous:
        raise invalid("%s: a device array must be C-contiguous" % name)
    import cupy
    view.obj, view.ptr, view.shape, view.dtype, view.nbytes = a, a.data.ptr, a.shape, a.dtype, \
        a.nbytes
    view.stream = cupy.cuda.get_current_stream().ptr or None
    return True


def is_device_array(obj: Any) -> bool:
    """Whether obj lives on a GPU (CUDA array interface or a non-CPU DLPack device). CuPy
    arrays and PyTorch tensors are told by their type (their interface is built on every
    access, and a CPU tensor's raises)."""
    if isinstance(obj, (np.ndarray, list, tuple)):
        return False
    module = type(obj).__module__.partition(".")[0]
    if module == "cupy" and hasattr(type(obj), "__cuda_array_interface__"):
        return True
    if module == "torch" and hasattr(type(obj), "__cuda_array_interface__"):
        return bool(getattr(obj, "is_cuda", False))
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    if isinstance(obj, np.ndarray) or not hasattr(obj, "__dlpack_device__"):
        return False
    try:
        return obj.__dlpack_device__()[0] not in (1, 3)  # kDLCPU, kDLCUDAHost
    except Exception:
        return False


def empty_like_device(template: Any, shape: Sequence[int], dtype: Any) -> Any:
    """A new device array of the template's library (CuPy or PyTorch) on its device. PyTorch
    gets int32 for uint32 counts (they never exceed 2^31 - 1 votes, so nothing is lost), as
    its CUDA array interface has no unsigned 32-bit type in every version."""
    module = type(template).__module__.split(".")[0]
    if module == "torch":
        import torch  # type: ignore[import]
        tdtype = {np.dtype(np.uint32): torch.int32,
                  np.dtype(np.float32): torch.float32}[np.dtype(dtype)]
        return torch.empty(shape, dtype=tdtype, device=template.device)
    import cupy
    return cupy.empty(shape, dtype=dtype)


class Buffer(Owned):
    """A votecl_buffer: device memory of a context, either allocated by votecl or wrapping
    the caller's memory without a copy (Buffer.wrap). Freed by close(), with the object, or
    when its context closes."""

    _free = fn.buffer_free

    def __init__(self, context: Context, size: Optional[int] = None,
                 _handle: Optional[int] = None, _keep: Any = None) -> None:
        self.context = context
        self._keep = _keep
        if _handle is None:
            size = _validate.count(size, "size")
            h = ctypes.c_void_p()
            check(fn.buffer_new(context._handle, size, ctypes.byref(h)), context)
            _handle = h.value
        self._handle = _handle
        self.size: int = size if size is not None else 0

    @classmethod
    def wrap(cls, context: Context, native: int, size: int, keep: Any = None) -> "Buffer":
        """Wraps a cl_mem or CUDA device pointer (an int) of size bytes; keep (any object) is
        held as long as the buffer, e.g. the array that owns the memory."""
        context = _resolve_context(context)
        with context._lock():
            h = ctypes.c_void_p()
            check(fn.buffer_wrap_device(context._handle, native, _validate.count(size, "size"),
                                        ctypes.byref(h)), context)
            return cls(context, size, h.value, keep)

    @property
    def native(self) -> int:
        """The cl_mem or device pointer as an int."""
        return fn.buffer_get_native(self._handle) or 0

    def write(self, array: Any, offset: int = 0) -> None:
        """Copies a host array into the buffer at offset bytes."""
        arr = np.ascontiguousarray(array)
        check(fn.buffer_write(self._handle, offset, arr.ctypes.data, arr.nbytes), self.context)

    def read(self, dtype: Any = np.uint8, count: Optional[int] = None,
             offset: int = 0) -> Array:
        """count elements of dtype (all that fit: None) from offset bytes, as a new array."""
        dtype = np.dtype(dtype)
        count = (self.size - offset) // dtype.itemsize if count is None else count
        out = np.empty(count, dtype)
        check(fn.buffer_read(self._handle, offset, out.ctypes.data, out.nbytes), self.context)
        return out

    def copy_from(self, src: "Buffer", size: Optional[int] = None, offset: int = 0,
                  src_offset: int = 0) -> None:
        """Copies size bytes (None: all of src from src_offset) of another buffer of the
        same context into this one at offset, on the device (votecl_buffer_copy);
        asynchronous, ordered before the context's later work."""
        src_handle = buffer_handle(src, "src")
        if size is None:
            size = int(fn.buffer_size(src_handle)) - src_offset
        check(fn.buffer_copy(self._handle, offset, src_handle, src_offset, size), self.context)

    def close(self) -> None:
        """Frees the buffer now (the caller's wrapped memory is left alone)."""
        super().close()
        self._keep = None


def buffer_handle(obj: Any, name: str) -> Any:
    """The C handle of a votecl.Buffer argument (None stays None); anything else raises
    InvalidType, a closed buffer ClosedError."""
    if obj is None:
        return None
    if not isinstance(obj, Buffer):
        raise invalid_type("%s: a votecl.Buffer, not %s" % (name, type(obj).__name__))
    return obj._handle


class WrapCache:
    """Buffers wrapping recently seen device arrays, so that calls on the same memory (a
    pipeline's reused frames) wrap it once; keyed by (pointer, bytes), holding the arrays."""

    def __init__(self, context: Context, size: int = 8) -> None:
        self.context, self.size = context, size
        self.items: "collections.OrderedDict[Tuple[int, int], Buffer]" = \
            collections.OrderedDict()

    def get(self, dev: DeviceArray) -> Buffer:
        key = (dev.ptr, dev.nbytes)
        buf = self.items.get(key)
        if buf is not None and buf._keep is dev.obj:
            # a hit is the most recent use: left where it was, a frame wrapped once and then
            # reused would be the oldest entry, evicted (and freed) by the next new array
            self.items.move_to_end(key)
            return buf
        if buf is None or buf._keep is not dev.obj:
            if buf is not None:
                buf.close()
            buf = Buffer.wrap(self.context, dev.ptr, dev.nbytes, keep=dev.obj)
            self.items[key] = buf
            while len(self.items) > self.size:
                self.items.popitem(last=False)[1].close()
        self.items.move_to_end(key)
        return buf

    def close(self) -> None:
        for buf in self.items.values():
            buf.close()
        self.items.clear()


_libcuda = None


def _sync_stream(stream: int) -> None:
    """Waits on the host for a producer's stream (the CUDA array interface's "stream")."""
    global _libcuda
    if _libcuda is None:
        _libcuda = ctypes.CDLL("libcuda.so.1")
        _libcuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
    if _libcuda.cuStreamSynchronize(stream) != 0:
        raise VoteclError(8, "cuStreamSynchronize failed on the array's stream")


def device_input(context: Context, obj: Any, what: str) -> DeviceArray:
    """A DeviceArray of obj ready for context: the context must be a CUDA context that shares
    the caller's CUDA context (Context(backend="cuda")); work on another stream than the
    context's is waited for first (CUDA array interface, version 3)."""
    if not getattr(context, "_shares_cuda", False):
        raise invalid_type("%s: GPU arrays need votecl.Context(backend='cuda'); this context "
                           "is %s" % (what, context.backend))
    dev = DeviceArray(obj, what)
    mine = context.native_queue
    if dev.stream not in (None, 1, 2) and dev.stream != mine:
        _sync_stream(dev.stream)
    return dev


class Plan(Owned):
    """The base of every plan: holds the context (which lives as long as the plan) and
    frees the C object once: by close(), with the object, or when its context closes.
    A plan may be shared between threads: its calls hold its context's lock."""

    def __init__(self, context: Optional[Context]) -> None:
        self.context = context if context is not None else default_context()
        self._wraps: Optional[WrapCache] = None

    def _check(self, status: int) -> None:
        check(status, self.context)

    def _new_handle(self, new: Any, *args: Any) -> None:
        """Makes the plan's C object: new(context, *args, &handle), its status checked."""
        h = ctypes.c_void_p()
        self._check(new(self.context._handle, *args, ctypes.byref(h)))
        self._handle = h.value

    def _query(self, call: Any, struct_type: Any, name: str, *args: Any) -> Any:
        """The record (named name) that call(handle, *args, &struct) fills, its status
        checked: a plan's describe() and last_stats()."""
        out = struct_type()
        self._check(call(self._handle, *args, ctypes.byref(out)))
        return record(out, name)

    def _wrap(self, dev: DeviceArray) -> Buffer:
        if self._wraps is None:
            self._wraps = WrapCache(self.context)
        return self._wraps.get(dev)

    def close(self) -> None:
        """Frees the plan now (also done when it is garbage-collected or its context
        closes); later calls raise votecl.ClosedError."""
        native = self._native
        if native is None:
            return
        with native.lock:
            if self._wraps is not None:
                self._wraps.close()
            native.close()
