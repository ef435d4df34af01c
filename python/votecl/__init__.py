"""libvotecl from Python: fast voting algorithms (histograms, Hough transforms, PClines, HOG,
the generalized Hough transform) on any OpenCL device, or CUDA, through ctypes (a held
histogram plan's calls through the compiled votecl._fast where it was built).

    import numpy as np, votecl
    counts, edges = votecl.histogram(x, bins=16)  # np.histogram's, from any thread
    ctx = votecl.Context()                        # VOTECL_BACKEND / VOTECL_DEVICE, else defaults
    h = votecl.Histogram(ctx, np.uint8, bins=256, range=(0, 256))
    counts = h(np.random.randint(0, 256, 10**6, dtype=np.uint8))
    lines = votecl.Lines(ctx, 640, 480)(gray)     # PClines
    people = votecl.HOG(ctx).detect(frame)        # OpenCV's people detector

GPU arrays (CuPy, PyTorch CUDA tensors, anything with __cuda_array_interface__ or DLPack) go
through the histograms, the generic engine, PClines and HOG without a host copy on a
votecl.Context(backend="cuda"); histogram results come back as arrays of the same library.

Errors raise votecl.VoteclError (votecl.InvalidArgument for bad input, votecl.ClosedError
for a call on a closed object, votecl.OutOfResources over a memory limit such as the GHT's
memory_limit) with the library's message. Contexts and what is made from
them may be shared between threads (their calls take turns); python/README.md says more.
The shared library is found through VOTECL_LIBRARY, the linker's path, pkg-config or the
build tree (votecl._lib).
"""
from ._core import (BACKENDS, Buffer, Context, DeviceInfo, backends, default_context, devices,
                    version)
from ._errors import (ClosedError, InvalidArgument, InvalidType, OutOfResources, Unsupported,
                      VoteclError)
from ._numpy import histogram, histogram2d, histogramdd
from ._batch import Batch
from ._lib import path as library_path
from . import _modules
# The algorithms' classes and functions (Histogram, Vote, Hough, Lines, HOG, GHT, ...), one
# module each, listed in _modules.ALGORITHMS.
from ._modules import *  # noqa: F401,F403

__all__ = [
    "BACKENDS", "Batch", "Buffer", "ClosedError", "Context", "DeviceInfo", "InvalidArgument",
    "InvalidType", "OutOfResources", "Unsupported", "VoteclError", "backends",
    "default_context", "devices",
    "version", "histogram", "histogram2d", "histogramdd", "library_path",
] + _modules.__all__
__version__ = version()
