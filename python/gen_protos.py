#!/usr/bin/env python3
"""Writes votecl/_protos.py: the ctypes prototypes of libvotecl's public functions.

The C headers are the one source of the signatures, as they are of the structs
(gen_structs.py). This script reads every ``VOTECL_API`` declaration and every function
pointer typedef of include/votecl/*.h (votecl-version.h from its template) and emits each
function's restype and argtypes, so a function added to a header reaches Python by running

    python3 python/gen_protos.py include/votecl > python/votecl/_protos.py

(python/tests/test_votecl.py fails while the committed file differs from what this prints).

The mapping, one rule per C type:
  votecl_status and every enum       ctypes.c_int
  an opaque handle X *               ctypes.c_void_p (X: a typedef struct X X; without a body);
                                     X ** a POINTER to c_void_p
  a public struct T *                POINTER(_structs.T)
  void * / const void *              ctypes.c_void_p (buffers of any element type)
  char * / const char *              ctypes.c_char_p (bytes in, bytes out)
  a scalar T * / const T *           POINTER(the scalar); T ** a POINTER of that
  a callback typedef                 a CFUNCTYPE of the same name
A type outside these rules stops the script (as does a VOTECL_API line it cannot read): map
it here rather than guess.

Usage: gen_protos.py HEADER_DIR
"""
import os
import re
import sys

from gen_structs import ENUM_RE, SCALARS, STRUCT_RE, strip_comments

API_RE = re.compile(r"VOTECL_API\s+([^;{}]*?)\(([^;{}]*?)\)\s*;", re.S)
CALLBACK_RE = re.compile(r"typedef\s+([\w\s\*]+?)\(\s*\*\s*(\w+)\s*\)\s*\(([^)]*)\)\s*;", re.S)
OPAQUE_RE = re.compile(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;")
DECL_RE = re.compile(r"^(.*?)(\w+)$")
# every VOTECL_API but the export header's definitions: what API_RE must have read
USE_RE = re.compile(r"^(?!#).*\bVOTECL_API\b", re.M)


class Types:
    """What each name of the headers is: enum, public struct, opaque handle or callback."""

    def __init__(self, texts):
        self.enums = {m.group(3) for t in texts for m in ENUM_RE.finditer(t)}
        self.structs = {m.group(3) for t in texts for m in STRUCT_RE.finditer(t)}
        self.opaque = {m.group(2) for t in texts for m in OPAQUE_RE.finditer(t)} - self.structs
        self.callbacks = set()

    def base(self, name):
        """The ctypes expression of a type named without pointers; None for void."""
        if name == "void":
            return None
        if name == "votecl_status" or name in self.enums:
            return "ctypes.c_int"
        if name in SCALARS:
            return SCALARS[name]
        if name in self.callbacks:
            return name
        raise SystemExit("gen_protos.py: no ctypes mapping for %r" % name)

    def ctype(self, decl):
        """The ctypes expression of a C type: 'const votecl_image *', 'size_t', ..."""
        words = decl.replace("*", " * ").split()
        stars = words.count("*")
        name = " ".join(w for w in words if w not in ("const", "*"))
        if stars == 0:
            return self.base(name)
        if name in self.opaque or name == "void":
            inner, stars = "ctypes.c_void_p", stars - 1
        elif name == "char" and stars == 1:
            return "ctypes.c_char_p"
        elif name in self.structs:
            inner, stars = "P(S.%s)" % name, stars - 1
        else:
            inner, stars = "P(%s)" % self.base(name), stars - 1
        for _ in range(stars):
            inner = "P(%s)" % inner
        return inner


def split_params(params):
    """['const votecl_image *', ...]: each parameter's type without its name."""
    params = " ".join(params.split())
    if params in ("", "void"):
        return []
    types = []
    for p in params.split(","):
        m = DECL_RE.match(p.strip())
        if m is None or not m.group(1).strip():
            raise SystemExit("gen_protos.py: cannot parse parameter %r" % p)
        types.append(m.group(1).strip())
    return types


def split_name(head):
    """('const char *', 'votecl_status_name') of 'const char *votecl_status_name'."""
    m = DECL_RE.match(" ".join(head.split()))
    if m is None:
        raise SystemExit("gen_protos.py: cannot parse declaration %r" % head)
    return m.group(1).strip(), m.group(2)


def ctypes_list(types, params):
    return "[%s]" % ", ".join(str(types.ctype(p)) for p in split_params(params))


def headers(directory):
    """(name, path) of each header, a template (votecl-version.h.in) read in place of what
    configure made of it, so a configured source tree gives the same output as a clean one."""
    names = os.listdir(directory)
    found = {f[:-3] for f in names if f.endswith(".h.in")}
    found |= {f for f in names if f.endswith(".h")}
    return [(h, os.path.join(directory, h + ".in" if h + ".in" in names else h))
            for h in sorted(found)]


def wrap(line, opener):
    """line cut after commas to fit 99 columns, continued under the first opener + 1."""
    indent = line.index(opener) + 1
    lines = []
    while len(line) > 99:
        cut = line.rindex(", ", 0, 99) + 1
        lines.append(line[:cut])
        line = " " * indent + line[cut:].lstrip()
    return lines + [line]


def short(code):
    """ctypes.c_int -> c_int: the generated file imports the names it uses."""
    return code.replace("ctypes.", "")


def main(argv):
    if len(argv) != 2:
        raise SystemExit(__doc__)
    texts = [(h, strip_comments(open(path, encoding="utf-8").read()))
             for h, path in headers(argv[1])]
    types = Types([t for _, t in texts])
    body = ["# Callbacks: wrap a Python function in one and keep it alive while C holds it."]
    for _, text in texts:
        for m in CALLBACK_RE.finditer(text):
            ret, name, params = m.group(1).strip(), m.group(2), m.group(3)
            args = [str(types.ctype(ret))] + [str(types.ctype(p)) for p in split_params(params)]
            body += wrap("%s = CFUNCTYPE(%s)" % (name, short(", ".join(args))), "(")
            types.callbacks.add(name)
    body += ["", "# name: (restype, argtypes), in the headers' order.",
             "FUNCTIONS: Dict[str, Tuple[Any, List[Any]]] = {"]
    for header, text in texts:
        decls = list(API_RE.finditer(text))
        if len(decls) != len(USE_RE.findall(text)):
            raise SystemExit("gen_protos.py: %s has a VOTECL_API declaration this script "
                             "cannot read" % header)
        if decls:
            body.append("    # %s" % header)
        for m in decls:
            ret, name = split_name(m.group(1))
            line = '    "%s": (%s, %s),' % (name, types.ctype(ret), ctypes_list(types, m.group(2)))
            body += wrap(short(line), "[")
    body.append("}")
    used = sorted(set(re.findall(r"\bc_\w+", "\n".join(body))) | {"CFUNCTYPE", "POINTER as P"})
    head = [
        '"""ctypes prototypes of libvotecl\'s public functions.',
        "",
        "Generated by python/gen_protos.py from include/votecl/*.h: do not edit; run",
        "    python3 python/gen_protos.py include/votecl > python/votecl/_protos.py",
        '"""',
    ] + wrap("from ctypes import (%s)" % ", ".join(used), "(") + [
        "from typing import Any, Dict, List, Tuple",
        "",
        "from . import _structs as S",
        "",
    ]
    sys.stdout.write("\n".join(head + body) + "\n")


if __name__ == "__main__":
    main(sys.argv)
