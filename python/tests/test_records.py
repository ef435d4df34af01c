"""Records read through NumPy (votecl._core.records) equal the field-by-field reading for every
struct a call returns in bulk, nested structs included (no device needed)."""
import ctypes
import random

from votecl import _core
from votecl import _structs as S


def filled(struct_type, n, seed):
    rng = random.Random(seed)
    arr = (struct_type * n)()

    def fill(s):
        for name, t in s._fields_:
            if isinstance(t, type) and issubclass(t, ctypes.Structure):
                fill(getattr(s, name))
            elif t in (ctypes.c_double, ctypes.c_float):
                setattr(s, name, rng.uniform(-1e6, 1e6))
            elif t in (ctypes.c_uint32, ctypes.c_uint, ctypes.c_uint64, ctypes.c_size_t):
                setattr(s, name, rng.randrange(0, 1 << 32))
            else:
                setattr(s, name, rng.randrange(-(1 << 31), 1 << 31))
    for i in range(n):
        fill(arr[i])
    return arr


def test_records_equal_field_by_field():
    for struct_type, name in ((S.votecl_lines_line, "Line"), (S.votecl_hough_line, "HoughLine"),
                              (S.votecl_ght_pose, "Pose"), (S.votecl_hog_detection, "Detection")):
        arr = filled(struct_type, 37, hash(name) & 0xffff)
        for count in (0, 1, 36, 37):
            got = _core.records(arr, count, name)
            want = [_core.record(arr[i], name) for i in range(count)]
            assert got == want, (name, count)
            assert all(type(a) is type(b) for g, w in zip(got, want) for a, b in zip(g, w))


def test_flat_structs_take_the_bulk_path():
    _core.records(filled(S.votecl_lines_line, 2, 1), 2, "Line")
    _core.records(filled(S.votecl_hog_detection, 2, 1), 2, "Detection")
    assert _core._FLAT[S.votecl_lines_line] is True
    assert _core._FLAT[S.votecl_hog_detection] is False  # a nested rectangle: field by field


def test_records_are_also_structured_arrays():
    """Issue 25.6: results as NumPy arrays with named fields, record access kept."""
    import numpy as np
    arr = filled(S.votecl_hog_detection, 5, 3)
    got = _core.records(arr, 4, "Detection")
    assert isinstance(got, list) and len(got) == 4
    a = np.asarray(got)
    assert a is got.array and a.shape == (4,)
    assert a["box"]["x"].tolist() == [d.box.x for d in got]
    assert a["score"].tolist() == [d.score for d in got]
    lines = _core.records(filled(S.votecl_lines_line, 3, 4), 3, "Line")
    assert lines.array["votes"].tolist() == [l.votes for l in lines]
    assert _core.records(arr, 0, "Detection").array.shape == (0,)
