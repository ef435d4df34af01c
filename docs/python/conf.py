"""Sphinx configuration of the Python reference manual (make doc, make check-doc).

The package is imported from the source tree (python/ on sys.path) and finds the build
tree's library the way python/tests do: VOTECL_LIBRARY, set by the make rule, else votecl._lib's
search. make check-doc runs sphinx with -W, so a warning (a broken cross-reference, a
malformed docstring) fails it.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "python"))

from sphinx.util import logging  # noqa: E402

import votecl  # noqa: E402  (after the path is set)

logger = logging.getLogger(__name__)

project = "libvotecl"
author = "the libvotecl authors"
copyright = "the libvotecl authors"
release = votecl.__version__
version = release

extensions = ["sphinx.ext.autodoc"]
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
# The docstrings are plain text with examples indented as literal blocks; no other markup.
default_role = "literal"
html_theme = "alabaster"
html_show_sourcelink = False
html_copy_source = False
templates_path = []
exclude_patterns = []


def _undocumented(app, what, name, obj, options, lines):
    """An undocumented public callable is a warning (an error under -W)."""
    public = not any(part.startswith("_") for part in name.split(".")[1:])
    if public and what in ("function", "class", "exception", "method") and not lines:
        logger.warning("%s %s has no docstring", what, name)


def setup(app):
    app.connect("autodoc-process-docstring", _undocumented)
