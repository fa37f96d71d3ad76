"""The fast path of calls at a compiled shape (Function._fast_run and
TcKernel::call): repeated calls give fresh results, see their inputs as they
are at the call, take any layout and alignment, and keep out=, incoming
values, several outputs and alternating shapes right. Every result is
checked against NumPy on fresh random data; nothing is timed."""

import gc

import numpy as np
import pytest

import comprehend
from comprehend._arrays import HOST_ALIGNMENT
from conftest import assert_close, random

MATMUL = "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }"

# Three launches and a temporary: a layer, its activation and a row sum.
CHAIN = """
def chain(float(B,I) X, float(H,I) W, float(H) bias) -> (Y, S) {
  t(b,h) +=! X(b,i) * W(h,i)
  Y(b,h) = fmax(t(b,h) + bias(h), 0.0)
  S(b) +=! Y(b,h)
}
"""

# Adds into its output: the incoming value is zeros, or out='s contents.
ACCUMULATE = "def acc(float(N,K) A) -> (R) { R(n) += A(n,k) }"


def aligned(rng, shape, offset_bytes, alignment=128):
    """A float32 array of ``shape`` whose data starts ``offset_bytes`` past an
    ``alignment``-byte boundary (in place for 0, copied otherwise)."""
    count = int(np.prod(shape))
    raw = np.empty(count * 4 + 2 * alignment, dtype=np.uint8)
    start = (-raw.ctypes.data) % alignment + offset_bytes
    array = raw[start:start + count * 4].view(np.float32).reshape(shape)
    array[...] = random(rng, shape)
    return array


def test_repeated_calls_give_fresh_correct_results(rng, cache):
    mm = comprehend.define(MATMUL, cache=cache)
    results = []
    for _ in range(5):
        a, b = random(rng, (24, 40)), random(rng, (40, 16))
        c = mm(a, b)
        assert_close(c, a @ b)
        results.append(c)
    # Each call returned a new array: earlier results were not overwritten.
    assert len({id(c) for c in results}) == 5
    assert len(mm.compiled) == 1
    assert len(mm._calls) == 1  # the later calls took the fast path


def test_input_mutated_between_calls_is_seen(rng, cache):
    mm = comprehend.define(MATMUL, cache=cache)
    for offset in (0, 16):  # in place and copied
        a, b = aligned(rng, (32, 32), offset), aligned(rng, (32, 32), offset)
        first = mm(a, b)
        assert_close(first, a @ b)
        a[...] = random(rng, a.shape)
        b[3, :] = 7.0
        second = mm(a, b)
        assert_close(second, a @ b)
        assert not np.allclose(first, second)


@pytest.mark.parametrize("offset", [0, 4, 16, 64])
def test_aligned_and_misaligned_inputs(rng, cache, offset):
    mm = comprehend.define(MATMUL, cache=cache)
    a, b = aligned(rng, (64, 48), offset), aligned(rng, (48, 80), offset)
    for _ in range(2):  # the first call binds sizes, the second is fast
        assert_close(mm(a, b), a @ b)


TRIAD = "def triad(float(L) A, float(L) B, float(L) C) -> (O) { O(i) = A(i) + B(i) * C(i) }"


@pytest.mark.parametrize("offset", [0, 64, 32])
def test_streamed_output_in_place_at_64_bytes(rng, cache, offset):
    # 2 MiB of output: the backend streams its vector stores, whose
    # alignment it proves from buffers starting at a multiple of 64 bytes
    # (MarkStreamingStores.cpp); out= at 64 bytes past a 128-byte boundary
    # is written in place, at 32 through a copy.
    triad = comprehend.define(TRIAD, cache=cache)
    length = 1 << 19
    a, b, c = (aligned(rng, (length,), offset) for _ in range(3))
    out = aligned(rng, (length,), offset)
    out[...] = np.nan
    for _ in range(2):  # the size binding's call, then the fast path
        assert triad(a, b, c, out=out) is out
        assert_close(out, a + b * c)
        out[...] = np.nan


def test_non_contiguous_inputs(rng, cache):
    mm = comprehend.define(MATMUL, cache=cache)
    a, b = random(rng, (40, 24)), random(rng, (40, 32))[:, ::2]
    for _ in range(2):
        assert_close(mm(a.T, b), a.T @ b)
    torch = pytest.importorskip("torch")
    ta, tb = torch.from_numpy(a), torch.from_numpy(random(rng, (40, 16)))
    for _ in range(2):
        assert_close(mm(ta.t(), tb), a.T @ tb.numpy())


def test_two_shapes_alternating(rng, cache):
    mm = comprehend.define(MATMUL, cache=cache)
    shapes = [((8, 12), (12, 20)), ((33, 5), (5, 7))]
    for step in range(6):
        sa, sb = shapes[step % 2]
        a, b = random(rng, sa), random(rng, sb)
        c = mm(a, b)
        assert c.shape == (sa[0], sb[1])
        assert_close(c, a @ b)
    assert len(mm.compiled) == 2


def test_several_launches_temporaries_and_outputs(rng, cache):
    chain = comprehend.define(CHAIN, cache=cache)
    for _ in range(3):
        x, w, bias = random(rng, (16, 24)), random(rng, (12, 24)), \
            random(rng, (12,))
        y, s = chain(x, w, bias)
        want = np.maximum(x @ w.T + bias, 0)
        assert_close(y, want)
        assert_close(s, want.sum(axis=1))


def test_out_and_incoming_values_after_fast_calls(rng, cache):
    acc = comprehend.define(ACCUMULATE, cache=cache)
    a = random(rng, (10, 6))
    for _ in range(3):  # zeros as the incoming value, every time
        assert_close(acc(a), a.sum(axis=1))
    start = random(rng, (10,))
    out = start.copy()
    assert acc(a, out=out) is out
    assert_close(out, start + a.sum(axis=1))
    assert_close(acc(a), a.sum(axis=1))
    mm = comprehend.define(MATMUL, cache=cache)
    b = random(rng, (6, 4))
    c = np.full((10, 4), np.nan, dtype=np.float32)
    mm(a, b)
    assert mm(a, b, out=c) is c
    assert_close(c, a @ b)


def test_errors_after_a_fast_call_are_unchanged(rng, cache):
    mm = comprehend.define(MATMUL, cache=cache)
    a, b = random(rng, (4, 5)), random(rng, (5, 6))
    mm(a, b)
    with pytest.raises(ValueError, match="float32|float"):
        mm(a.astype("f8"), b)
    with pytest.raises(ValueError, match="size 'K'"):
        mm(a, random(rng, (4, 6)))
    with pytest.raises(ValueError, match="takes 2 inputs"):
        mm(a)
    assert_close(mm(a, b), a @ b)


def test_out_not_in_c_order_and_aliasing_an_input(rng, cache):
    acc = comprehend.define(ACCUMULATE, cache=cache)
    a = random(rng, (8, 3))
    # A strided out= of an output that adds to its incoming value.
    storage = random(rng, (8, 2))
    start = storage[:, 0].copy()
    assert acc(a, out=storage[:, 0]) is not None
    assert_close(storage[:, 0], start + a.sum(axis=1))
    # out= is one of the inputs: the inputs are read before it is written.
    mm = comprehend.define(MATMUL, cache=cache)
    x, y = random(rng, (16, 16)), random(rng, (16, 16))
    want = x @ y
    mm(x, y, out=x)
    assert_close(x, want)


def test_fast_outputs_are_aligned_owned_and_writable(rng, cache):
    mm = comprehend.define(MATMUL.replace("float", "double"), cache=cache)
    a, b = rng.standard_normal((24, 40)), rng.standard_normal((40, 16))
    mm(a, b)
    c = mm(a, b)  # made by TcKernel.call_fresh
    assert len(mm._calls) == 1
    assert c.dtype == np.float64 and c.shape == (24, 16)
    assert c.flags.c_contiguous and c.flags.writeable
    assert c.ctypes.data % HOST_ALIGNMENT == 0
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)
    # The array owns its memory: it outlives the Function and its kernel.
    del mm
    gc.collect()
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)
    c[...] = 1.0
    assert (c == 1.0).all()


def test_large_output_memory_is_reused_and_released(rng, cache):
    # 512 x 512 float32 outputs (1 MiB): a dead output's memory goes to the
    # next output of its size, pages mapped (OutputMemory.h); its old values
    # never show, in a plain output or in one that adds to zeros. (The
    # first call at a signature takes the full path, which allocates with
    # NumPy.)
    mm = comprehend.define(MATMUL, cache=cache)
    acc = comprehend.define(ACCUMULATE, cache=cache)
    a, b = random(rng, (512, 64)), random(rng, (64, 512))
    rows = random(rng, (512 * 512, 3))
    mm(a, b), acc(rows)
    gc.collect()
    comprehend.release_memory()
    first = mm(a, b)
    address = first.ctypes.data
    first[...] = np.nan
    del first
    gc.collect()
    assert comprehend._core.kept_output_bytes() >= 512 * 512 * 4
    second = mm(a, b)
    assert second.ctypes.data == address
    assert second.ctypes.data % HOST_ALIGNMENT == 0
    assert_close(second, a @ b)
    second[...] = np.nan
    del second
    summed = acc(rows)
    assert summed.ctypes.data == address
    assert_close(summed, rows.sum(axis=1))
    # Two live outputs of one size get distinct memory.
    other = acc(rows)
    assert other.ctypes.data != summed.ctypes.data
    del summed, other
    gc.collect()
    assert comprehend.release_memory() >= 2 * 512 * 512 * 4
    assert comprehend._core.kept_output_bytes() == 0


def test_outputs_of_huge_pages_start_at_a_huge_page_boundary(rng, cache):
    # An output of 2 MiB or more lives in memory aligned to (and marked for)
    # 2 MiB pages (OutputMemory.cpp); its values are the def's.
    mm = comprehend.define(MATMUL, cache=cache)
    a, b = random(rng, (1024, 16)), random(rng, (16, 1024))
    mm(a, b)
    c = mm(a, b)
    assert c.nbytes == 4 << 20
    assert c.ctypes.data % (2 << 20) == 0
    assert_close(c, a @ b)


def test_torch_tensors_on_the_fast_path(rng, cache):
    torch = pytest.importorskip("torch")
    mm = comprehend.define(MATMUL, cache=cache)
    for _ in range(3):
        a, b = random(rng, (24, 40)), random(rng, (40, 16))
        c = mm(torch.from_numpy(a), torch.from_numpy(b))
        assert isinstance(c, np.ndarray)
        assert_close(c, a @ b)
    assert len(mm._calls) == 1
    # Outside grad mode a tensor that requires grad is viewed like any
    # other (autograd records nothing).
    needs_grad = torch.from_numpy(a).requires_grad_()
    with torch.no_grad():
        assert_close(mm(needs_grad, torch.from_numpy(b)), a @ b)
    assert len(mm._calls) == 1


@pytest.mark.parametrize("placement", ["workers", "caller-thread", "measured"])
def test_calls_on_each_placement(rng, cache, placement):
    """On the device's workers, on the calling thread (PoCL's `basic` device
    beside `pthread`; the workers elsewhere) and wherever calls measure
    faster: the same results, call after call, through a measured decision."""
    chain = comprehend.define(CHAIN, cache=cache)
    x, w, bias = (random(rng, (8, 12)), random(rng, (16, 12)),
                  random(rng, (16,)))
    chain(x, w, bias)
    kernel = chain._last
    kernel.call_placement = placement
    assert kernel.call_placement in (placement, "measuring")
    for _ in range(12):
        x = random(rng, (8, 12))
        y, s = chain(x, w, bias)
        want = np.maximum(x @ w.T + bias, 0)
        assert_close(y, want)
        assert_close(s, want.sum(axis=1))
    if placement == "measured" and chain.device.startswith("pthread-"):
        # PoCL's CPU device: both places measured, one kept.
        assert kernel.call_placement.startswith("measured: ")


def test_call_placement_names_its_modes(cache):
    mm = comprehend.define(MATMUL, cache=cache)
    mm(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="'measured', 'workers' or"):
        mm._last.call_placement = "gpu"
