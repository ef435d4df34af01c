"""The algorithms: histograms, the generic voting engine, theta-rho Hough, PClines, HOG, GHT,
circles, the edge step.

Every plan takes a Context (None: votecl.default_context()) and its parameters as keyword
arguments named as the fields of the C params struct (votecl_hist_params, votecl_hough_params,
votecl_lines_params, votecl_hog_params, votecl_ght_params), which start at the library's
defaults (its params_init functions). NumPy arrays go in and NumPy arrays or records come out;
on a Context(backend="cuda") CuPy arrays and PyTorch CUDA tensors are used where they lie
(histograms, the generic engine, PClines and HOG), and histogram results stay on the GPU.
"""
import importlib

# The algorithms, one module each (votecl._<name>); adding one is one name here. Each module's
# __all__ is the public names it adds to votecl.
ALGORITHMS = ("hist", "vote", "hough", "lines", "hog", "ght", "circles", "edges", "reduce")

__all__ = []
for _name in ALGORITHMS:
    _module = importlib.import_module("._" + _name, __package__)
    globals().update({symbol: getattr(_module, symbol) for symbol in _module.__all__})
    __all__ += _module.__all__
