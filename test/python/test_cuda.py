"""Calls with PyTorch CUDA tensors (comprehend._cuda): in place on the CUDA
device, outputs on it, launches on PyTorch's current stream, inside
autograd too. These need a CUDA device that PyTorch sees; scripts/gpu-check.sh
(GPU_CHECK_PYTHON=1) runs them on the GPU machine. Elsewhere only the tests
of the last section run."""

import numpy as np
import pytest

import comprehend
from conftest import example

torch = pytest.importorskip("torch")

needs_cuda = pytest.mark.skipif(
    not torch.cuda.is_available() or
    not any(d["api"] == "cuda" for d in comprehend.devices()),
    reason="needs a CUDA device seen by PyTorch and comprehend")

pytestmark = pytest.mark.filterwarnings(
    "ignore::comprehend.CompileWarning")

CHAIN = """
def scaled_rowsum(float(M, N) A, float(M) w) -> (T, S) {
  S(m) +=! A(m, n)
  T(m, n) = A(m, n) * S(m) * w(m)
}
def accumulate(float(N, K) A) -> (R) {
  R(n) += A(n, k)
}
"""


def reference_chain(a, w):
    s = a.double().sum(1)
    return a.double() * (s * w.double())[:, None], s


@needs_cuda
def test_cuda_tensors_in_and_out(cache):
    fn = comprehend.define(CHAIN, "scaled_rowsum", device="cuda", cache=cache)
    a = torch.randn(37, 29, device="cuda")
    w = torch.randn(37, device="cuda")
    t, s = fn(a, w)
    assert t.device == a.device and s.device == a.device
    assert t.dtype == torch.float32 and tuple(t.shape) == (37, 29)
    want_t, want_s = reference_chain(a, w)
    torch.testing.assert_close(t.double(), want_t, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(s.double(), want_s, rtol=1e-4, atol=1e-4)
    # A transposed (not contiguous) input, then a second shape.
    at = torch.randn(29, 37, device="cuda").t()
    t, _ = fn(at, w)
    torch.testing.assert_close(t.double(), reference_chain(at, w)[0],
                               rtol=1e-4, atol=1e-4)
    b = torch.randn(5, 3, device="cuda")
    t, _ = fn(b, torch.ones(5, device="cuda"))
    torch.testing.assert_close(t.double(), reference_chain(b, torch.ones(
        5, device="cuda"))[0], rtol=1e-4, atol=1e-4)


@needs_cuda
def test_out_and_incoming_values_on_the_device(cache):
    acc = comprehend.define(CHAIN, "accumulate", device="cuda", cache=cache)
    a = torch.randn(8, 6, device="cuda")
    r = torch.full((8,), 2.0, device="cuda")
    got = acc(a, out=r)
    assert got is r
    torch.testing.assert_close(r, 2 + a.sum(1), rtol=1e-5, atol=1e-5)
    # Without out=, the incoming value is zeros.
    torch.testing.assert_close(acc(a), a.sum(1), rtol=1e-5, atol=1e-5)
    # A strided out= gets the result through a contiguous copy.
    wide = torch.ones(8, 2, device="cuda")
    acc(a, out=wide[:, 0])
    torch.testing.assert_close(wide[:, 0], 1 + a.sum(1), rtol=1e-5,
                               atol=1e-5)
    torch.testing.assert_close(wide[:, 1], torch.ones(8, device="cuda"))


@needs_cuda
def test_launches_order_with_the_current_stream(cache):
    """On a side stream, the kernels run after the work queued before them
    there and before the work queued after them, with no host wait."""
    mm = comprehend.define(example("matmul.tc"), device="cuda", cache=cache)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        a = torch.randn(512, 256, device="cuda")
        b = torch.randn(256, 128, device="cuda")
        a = a * 2  # queued on the side stream before the call
        c = mm(a, b)
        d = c + 1  # queued after it
    side.synchronize()
    torch.testing.assert_close(d, a @ b + 1, rtol=1e-3, atol=1e-3)


@needs_cuda
def test_gradients_of_cuda_tensors(cache):
    source = CHAIN.replace("float(", "double(")
    fn = comprehend.define(source, "scaled_rowsum", device="cuda",
                           cache=cache)
    a = torch.randn(4, 3, device="cuda", dtype=torch.float64,
                    requires_grad=True)
    w = torch.randn(4, device="cuda", dtype=torch.float64,
                    requires_grad=True)
    t, _ = fn(a, w)
    assert t.grad_fn is not None and t.device == a.device
    assert torch.autograd.gradcheck(lambda x, y: fn(x, y)[0], (a, w))


@needs_cuda
def test_mixed_devices_are_refused(cache):
    fn = comprehend.define(CHAIN, "scaled_rowsum", device="cuda", cache=cache)
    a = torch.randn(3, 2, device="cuda")
    with pytest.raises(ValueError, match=r"input 'w' of 'scaled_rowsum' is "
                                         r"in cpu, but the call runs on "
                                         r"cuda:0"):
        fn(a, torch.randn(3))
    with pytest.raises(ValueError, match="must be a tensor on cuda:0"):
        fn(a, torch.randn(3, device="cuda"), out=(np.zeros((3, 2), "f4"),
                                                  None))
    others = [d["index"] for d in comprehend.devices()
              if d["api"] == "opencl" and d["can_run_kernels"]]
    if others:  # an OpenCL device beside the GPU
        host = comprehend.define(CHAIN, "scaled_rowsum", device=others[0],
                                 cache=cache)
        with pytest.raises(ValueError, match="define it with device="):
            host(a, torch.randn(3, device="cuda"))


def test_host_tensors_take_the_host_path(cache, rng):
    """Without CUDA tensors nothing changes: NumPy results."""
    fn = comprehend.define(CHAIN, "scaled_rowsum", cache=cache)
    a = torch.randn(4, 3)
    t, s = fn(a, torch.ones(4))
    assert isinstance(t, np.ndarray) and isinstance(s, np.ndarray)
    np.testing.assert_allclose(s, a.sum(1).numpy(), rtol=1e-5, atol=1e-5)
