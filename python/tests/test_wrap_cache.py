"""The device-array wrap cache keeps what a call is using (no GPU needed: fake buffers)."""
from votecl import _core


class FakeBuffer:
    def __init__(self, keep):
        self._keep, self._handle = keep, 1

    def close(self):
        self._handle, self._keep = None, None


class FakeArray:
    def __init__(self, ptr, nbytes):
        self.ptr, self.nbytes, self.obj = ptr, nbytes, object()


def test_reused_input_survives_new_outputs(monkeypatch):
    # one input frame reused call after call, a new result array each call (CuPy's pattern):
    # the input's wrap must never be the entry evicted and freed
    monkeypatch.setattr(_core.Buffer, "wrap",
                        classmethod(lambda cls, ctx, ptr, n, keep=None: FakeBuffer(keep)))
    cache = _core.WrapCache(None, size=4)
    frame = FakeArray(1, 1 << 20)
    for i in range(20):
        wrapped = cache.get(frame)
        cache.get(FakeArray(1000 + i, 1024))
        assert wrapped._handle is not None, "call %d: the input's buffer was freed" % i
    assert len(cache.items) == 4


def _fake_tensor_type():
    class Tensor:
        """PyTorch's shape of a tensor: the interface a property that raises on the CPU."""
        is_sparse = requires_grad = False

        def __init__(self, cuda):
            self.is_cuda, self.reads = cuda, 0

        @property
        def __cuda_array_interface__(self):
            self.reads += 1
            if not self.is_cuda:
                raise AttributeError("Tensor is not on cuda device")
            return {"data": (4096, False), "shape": (3, 5), "typestr": "|u1", "version": 2}
    Tensor.__module__ = "torch"
    return Tensor


def test_torch_tensors_told_apart_without_their_interface():
    tensor = _fake_tensor_type()
    cpu, gpu = tensor(False), tensor(True)
    assert not _core.is_device_array(cpu)
    assert _core.is_device_array(gpu)
    assert cpu.reads == 0 and gpu.reads == 0


def test_device_array_of_a_tensor_equals_its_interface():
    import numpy as np
    tensor = _fake_tensor_type()
    t = tensor(True)
    t.dtype, t.shape = "torch.uint8", (3, 5)
    t.is_contiguous = lambda: True
    t.data_ptr = lambda: 4096
    t.numel = lambda: 15
    fast = _core.DeviceArray(t, "x")
    assert t.reads == 0
    slow = _core.DeviceArray.__new__(_core.DeviceArray)
    t.__class__.__module__ = "other"
    slow.__init__(t, "x")
    assert t.reads == 1
    assert (fast.ptr, fast.shape, fast.dtype, fast.stream, fast.nbytes) == \
        (slow.ptr, slow.shape, slow.dtype, slow.stream, slow.nbytes) == \
        (4096, (3, 5), np.dtype(np.uint8), None, 15)


def test_device_array_of_a_cupy_array_equals_its_interface(monkeypatch):
    import sys
    import types
    import numpy as np
    current = types.SimpleNamespace(ptr=0)
    cuda = types.SimpleNamespace(get_current_stream=lambda: current)
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=cuda))

    class ndarray:
        """CuPy's shape of an array: the interface (version 3) built on each access."""
        size, nbytes, shape, dtype = 15, 15, (3, 5), np.dtype(np.uint8)
        flags = types.SimpleNamespace(c_contiguous=True)
        data = types.SimpleNamespace(ptr=8192)
        reads = 0

        @property
        def __cuda_array_interface__(self):
            self.reads += 1
            return {"data": (8192, False), "shape": (3, 5), "typestr": "|u1", "strides": None,
                    "version": 3, "stream": current.ptr or 1}
    ndarray.__module__ = "cupy"
    a = ndarray()
    assert _core.is_device_array(a) and a.reads == 0
    for stream in (0, 77):
        current.ptr = stream
        fast = _core.DeviceArray(a, "x")
        ndarray.__module__ = "other"
        slow = _core.DeviceArray(a, "x")
        ndarray.__module__ = "cupy"
        assert a.reads == 1
        a.reads = 0
        # the legacy default stream: 1 through the interface, None here; both mean "no wait"
        assert (fast.ptr, fast.shape, fast.dtype, fast.nbytes, fast.stream or 1) == \
            (slow.ptr, slow.shape, slow.dtype, slow.nbytes, slow.stream)
