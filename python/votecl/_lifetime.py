"""Lifetimes that cannot crash, and one lock per context.

Every C object the package makes is held by a Native: its handle, the C function that frees
it, the natives it was made from (its context) and those made from it (children). Freeing a
native frees its children first, so a context is freed only after everything made from it,
whatever order Python finalizes objects in. That order is arbitrary where it matters most: in
a garbage cycle and at interpreter exit (module globals form a cycle through any function
defined beside them), __del__ runs in no particular order and weak references are cleared
before, hence the strong references from a context's native to its children's. Natives refer
to no Python object of the package, so they keep nothing else alive.

All natives of a context share the context's re-entrant lock. Every public method of an
Owned object holds it (see Owned.__init_subclass__), as close() does: a call on a closed
object raises ClosedError, and close() from another thread waits for the call in progress.
A finalizer never waits: when the lock is held elsewhere, the native is queued on its context
and freed by the holder when its call ends.
"""
import ctypes
import functools
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._errors import ClosedError, invalid


class Native:
    """A C handle, the function that frees it, and the natives freed before it."""

    __slots__ = ("handle", "free", "what", "parents", "children", "root", "lock", "pending")

    def __init__(self, handle: int, free: Optional[Callable[[int], None]], what: str,
                 parents: Tuple["Native", ...] = ()) -> None:
        self.handle: Optional[int] = handle
        self.free = free
        self.what = what
        self.parents = parents
        self.children: Dict[int, "Native"] = {}
        self.root: "Native" = parents[0].root if parents else self
        self.lock: Any = self.root.lock if parents else threading.RLock()
        self.pending: List["Native"] = []
        for p in parents:
            p.children[id(self)] = self

    def close(self) -> None:
        """Frees the children, then the handle; waits for a call in progress."""
        with self.lock:
            self.free_locked()
            self.root.drain()

    def release(self) -> None:
        """close() for finalizers: never waits (a busy context frees it after its call)."""
        if self.handle is None:
            return
        if self.lock.acquire(blocking=False):
            try:
                self.free_locked()
                self.root.drain()
            finally:
                self.lock.release()
        else:
            self.root.pending.append(self)

    def drain(self) -> None:
        """Frees what finalizers queued while the lock was busy (the lock is held)."""
        while self.pending:
            self.pending.pop().free_locked()

    def free_locked(self) -> None:
        if self.handle is None:
            return
        for child in reversed(list(self.children.values())):
            child.free_locked()
        handle, self.handle = self.handle, None
        for p in self.parents:
            p.children.pop(id(self), None)
        if self.free is not None:
            self.free(handle)


def closed_error(what: str, native: Optional[Native]) -> ClosedError:
    if native is not None and native.root is not native and native.root.handle is None:
        return ClosedError("%s: its context was closed (a context frees what was made from "
                           "it when it closes)" % what)
    return ClosedError("%s: closed" % what)


# methods left as they are: they close, or must work on a closed object
_UNLOCKED = frozenset(("close", "__del__", "__enter__", "__exit__", "__repr__", "closed"))

# set by _core once Context exists: maps the context argument of a constructor (None: the
# thread's default context) to a Context, raising InvalidArgument for anything else
resolve_context: Callable[[Any], Any] = lambda context: context


def _locked(f: Callable[..., Any]) -> Callable[..., Any]:
    """f holding its object's context lock, refused once the object is closed; ctypes'
    ArgumentError (a Python value of the wrong type reached a C argument) becomes
    InvalidArgument."""
    @functools.wraps(f)
    def call(self: "Owned", *args: Any, **kwargs: Any) -> Any:
        native = self._native
        if native is None:
            raise closed_error(type(self).__name__, None)
        with native.lock:
            if native.handle is None:
                raise closed_error(type(self).__name__, native)
            try:
                return f(self, *args, **kwargs)
            except ctypes.ArgumentError as e:
                raise invalid("%s.%s: an argument has the wrong type (%s)"
                              % (type(self).__name__, f.__name__, e)) from None
            finally:
                if native.root.pending:
                    native.root.drain()
    return call


def _locked_init(f: Callable[..., Any]) -> Callable[..., Any]:
    """A constructor holding the lock of the context it is given (its first argument)."""
    @functools.wraps(f)
    def init(self: "Owned", *args: Any, **kwargs: Any) -> None:
        if args:
            context = resolve_context(args[0])
            args = (context,) + args[1:]
        else:
            context = kwargs["context"] = resolve_context(kwargs.get("context"))
        native = context._native
        with native.lock:
            if native.handle is None:
                raise closed_error("Context", native)
            try:
                f(self, *args, **kwargs)
            except ctypes.ArgumentError as e:
                raise invalid("%s(): an argument has the wrong type (%s)"
                              % (type(self).__name__, e)) from None
    return init


class Owned:
    """The base of every Python object holding a C object: a context (a root) or something
    made from one (whose `context` attribute names it). Setting `_handle` to a new C handle
    registers it with its context; `_free` is the class's C function that frees it."""

    _free: Optional[Callable[[int], None]] = None
    _native: Optional[Native] = None
    _root = False  # a context: no parent, its own lock

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if name in _UNLOCKED or (name.startswith("_") and name not in ("__call__",
                                                                           "__init__")):
                continue
            if name == "__init__":
                if not cls._root:
                    setattr(cls, name, _locked_init(value))
            elif isinstance(value, property) and value.fget is not None:
                setattr(cls, name, property(_locked(value.fget), value.fset, value.fdel,
                                            value.__doc__))
            elif callable(value) and not isinstance(value, (classmethod, staticmethod, type)):
                setattr(cls, name, _locked(value))

    @property
    def _handle(self) -> Any:  # an int; Any as the setter also takes None
        native = self._native
        if native is None or native.handle is None:
            raise closed_error(type(self).__name__, native)
        return native.handle

    @_handle.setter
    def _handle(self, value: Any) -> None:
        if not value:
            if self._native is not None:
                self._native.close()
            return
        parents = () if self._root else (self.context._native,)  # type: ignore[attr-defined]
        self._native = Native(value, type(self)._free, type(self).__name__, parents)

    def _lock(self) -> Any:
        """The lock of the object's context (ClosedError once closed)."""
        native = self._native
        if native is None or native.handle is None:
            raise closed_error(type(self).__name__, native)
        return native.lock

    @property
    def closed(self) -> bool:
        """Whether the object (or its context) was closed: every call then raises
        votecl.ClosedError."""
        return self._native is None or self._native.handle is None

    def close(self) -> None:
        """Frees the C object now (what was made from it first); later calls raise
        votecl.ClosedError. Also done when the object is garbage-collected."""
        native = self._native
        if native is not None:
            native.close()

    def __del__(self) -> None:
        native = self._native
        if native is not None:
            native.release()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
