"""Collections over every device of a host (votecl_batch_*), as an iterator over results.

votecl_batch_run() calls load() on a loader thread, process() on one thread per worker (a
context each) and emit() in input order on the thread that runs it. Here it runs on a thread
of its own: emit() hands each result to the iterator through a small queue, whose bound keeps
the run at most a few results ahead of the consumer. The C side sees items and results as
indices (index + 1, as NULL ends the collection); the Python objects wait in dicts keyed by
index. Stopping early (a `break`, an exception) makes the next load() or emit() fail, which
ends the run; the iterator waits for its thread before it returns.
"""
import ctypes
import os
import queue
import threading
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from . import _protos
from . import _structs as S
from . import _lib
from ._core import Context, DeviceInfo, check, set_backend
from ._errors import error, invalid
from ._lib import fn

__all__ = ["Batch"]

_STOP = 1  # VOTECL_INVALID_ARGUMENT: the status a callback returns to end the run early
_END = object()  # queued after the last result


class _WorkerContext(Context):
    """A worker's context: the batch owns the C object (freed with the batch); this object
    frees only what is made from it, and holds the batch alive."""

    _free = None


def _options(backend: Optional[str], devices: Optional[str], first_device: int,
             max_devices: int, streams_per_device: int, queue_depth: int,
             kernel_path: Optional[str], cache_dir: Optional[str]) -> Tuple[Any, List[bytes]]:
    """A votecl_batch_options and the encoded strings it borrows."""
    opts = S.votecl_batch_options()
    fn.batch_options_init(ctypes.byref(opts))
    set_backend(opts, backend)
    opts.first_device, opts.max_devices = first_device, max_devices
    opts.streams_per_device, opts.queue_depth = streams_per_device, queue_depth
    if kernel_path is None:
        kernel_path = _lib.default_kernel_path()
    keep = []
    for field, value in (("devices", devices), ("kernel_path", kernel_path),
                         ("cache_dir", cache_dir)):
        if value is not None:
            keep.append(os.fsencode(value))
            setattr(opts, field, keep[-1])
    return opts, keep


class Batch:
    """One context per worker: every device of a backend matching `devices` (an OpenCV-style
    "platform:type" selector; None: every GPU, else every device), times streams_per_device
    (0: 2, so that one stream transfers while the other computes). map() runs a collection
    through them in parallel and yields the results in input order.

    >>> with votecl.Batch(backend="opencl") as batch:
    ...     plans = {c: votecl.Histogram(c, np.uint8) for c in batch.contexts}
    ...     for counts in batch.map(lambda ctx, frame: plans[ctx](frame), frames):
    ...         use(counts)

    A batch is used by one thread at a time; its contexts (batch.contexts, one per worker)
    live as long as the batch, and closing the batch closes what was made from them."""

    def __init__(self, backend: Optional[str] = None, devices: Optional[str] = None,
                 first_device: int = 0, max_devices: int = 0, streams_per_device: int = 0,
                 queue_depth: int = 0, kernel_path: Optional[str] = None,
                 cache_dir: Optional[str] = None) -> None:
        self._handle: Optional[int] = None
        self.contexts: List[Context] = []
        opts, keep = _options(backend, devices, first_device, max_devices, streams_per_device,
                              queue_depth, kernel_path, cache_dir)
        handle = ctypes.c_void_p()
        message = ctypes.create_string_buffer(1024)
        status = fn.batch_new(ctypes.byref(opts), ctypes.byref(handle), message, len(message))
        if status != 0:
            raise error(status, message.value.decode(errors="replace"))
        self._handle = handle.value
        self.contexts = [self._context(w) for w in range(fn.batch_workers(self._handle))]

    @staticmethod
    def devices(backend: Optional[str] = None, devices: Optional[str] = None,
                first_device: int = 0, max_devices: int = 0) -> List[DeviceInfo]:
        """The devices a Batch of these arguments would use (votecl_batch_devices)."""
        opts, keep = _options(backend, devices, first_device, max_devices, 0, 0, None, None)
        found = ctypes.c_size_t(0)
        check(fn.batch_devices(ctypes.byref(opts), None, 0, ctypes.byref(found)))
        infos = (S.votecl_device_info * max(found.value, 1))()
        check(fn.batch_devices(ctypes.byref(opts), infos, len(infos), ctypes.byref(found)))
        return [DeviceInfo._of(infos[i]) for i in range(min(found.value, len(infos)))]

    def _context(self, worker: int) -> Context:
        ctx = _WorkerContext.__new__(_WorkerContext)
        ctx._keep, ctx._shares_cuda, ctx._plans = [], False, None
        ctx._handle = fn.batch_context(self._handle, worker)
        ctx._queue = fn.context_get_native_queue(ctx._handle) or 0
        ctx._batch = self  # type: ignore[attr-defined]  # the batch outlives its contexts
        return ctx

    @property
    def workers(self) -> int:
        """Devices times streams: the number of contexts."""
        return len(self.contexts)

    def map(self, process: Callable[[Context, Any], Any], items: Iterable[Any],
            depth: int = 4) -> Iterator[Any]:
        """process(context, item) for every item, on the workers' threads (each call with its
        worker's context, one item at a time per worker), yielding the results in the items'
        order. The items are read on a thread of their own, a few ahead. An exception raised
        by process or by the items' iterator is raised here, at its item's place, and ends the
        run; so does leaving the loop. depth: results held for a slow consumer."""
        if self._handle is None:
            raise invalid("Batch: closed")
        run = _Run(self, process, iter(items), depth)
        return run.results()

    def close(self) -> None:
        """Frees the contexts (after what was made from them) and the batch."""
        handle, self._handle = self._handle, None
        for ctx in self.contexts:
            ctx.close()
        if handle is not None:
            fn.batch_free(handle)

    def __enter__(self) -> "Batch":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


class _Run:
    """One votecl_batch_run: its callbacks (kept alive while C holds them) and their state."""

    def __init__(self, batch: Batch, process: Callable[[Context, Any], Any],
                 items: Iterator[Any], depth: int) -> None:
        self.batch, self.process, self.items = batch, process, items
        self.loaded: Dict[int, Any] = {}
        self.done: Dict[int, Tuple[bool, Any]] = {}
        self.out: "queue.Queue[Any]" = queue.Queue(max(depth, 1))
        self.stop = False
        self.load_error: Optional[BaseException] = None
        self.callbacks = (_protos.votecl_batch_load_fn(self.load),
                          _protos.votecl_batch_process_fn(self.work),
                          _protos.votecl_batch_emit_fn(self.emit),
                          _protos.votecl_batch_discard_fn(self.discard))

    def load(self, user: Any, index: int, item: Any) -> int:
        if self.stop:
            return _STOP
        try:
            self.loaded[index] = next(self.items)
        except StopIteration:
            item[0] = None
            return 0
        except BaseException as e:
            self.load_error = e
            return _STOP
        item[0] = index + 1
        return 0

    def work(self, user: Any, context: Any, worker: int, index: int, item: Any,
             result: Any) -> int:
        try:
            self.done[index] = (True, self.process(self.batch.contexts[worker],
                                                   self.loaded.pop(index)))
        except BaseException as e:
            self.done[index] = (False, e)
        result[0] = index + 1
        return 0

    def emit(self, user: Any, index: int, item: Any, result: Any, status: int,
             worker: int) -> int:
        outcome = self.done.pop(index, None)
        while not self.stop:
            try:
                self.out.put(outcome, timeout=0.05)
                return 0
            except queue.Full:
                continue
        return _STOP

    def discard(self, user: Any, item: Any, result: Any) -> None:
        for index in (item, result):
            if index:
                self.loaded.pop(index - 1, None)
                self.done.pop(index - 1, None)

    def run(self) -> None:
        status = -1
        try:
            status = fn.batch_run(self.batch._handle, *self.callbacks, None, None)
        finally:
            self.out.put((_END, status))

    def results(self) -> Iterator[Any]:
        thread = threading.Thread(target=self.run, name="votecl-batch", daemon=True)
        thread.start()
        try:
            while True:
                ok, value = self.out.get()
                if ok is _END:
                    if self.load_error is not None:
                        raise self.load_error
                    if value != 0:
                        raise error(value, "votecl_batch_run failed")
                    return
                if not ok:
                    raise value
                yield value
        finally:
            self.stop = True
            while thread.is_alive():
                try:
                    self.out.get(timeout=0.05)
                except queue.Empty:
                    pass
            thread.join()
