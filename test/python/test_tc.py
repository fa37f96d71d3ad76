"""comprehend.define: calls, out=, tune, config, ranges, ir, spirv, time."""

import io
import json
import threading
import time

import numpy as np
import pytest

import comprehend
from conftest import assert_close, example, random

MATMUL_ACC = """
def mm_acc(float(M, K) A, float(K, N) B) -> (C) {
  C(m, n) += A(m, k) * B(k, n)
}
"""

TWO_OUTPUTS = """
def stats(float(N, D) X) -> (S, Q) {
  S(n) +=! X(n, d)
  Q(n) +=! X(n, d) * X(n, d)
}
"""


def test_matmul_example_matches_numpy(rng, cache):
    mm = comprehend.define(open(example("matmul.tc")).read(), cache=cache)
    assert mm.name == "matmul"
    assert mm.inputs == ["A", "B"] and mm.outputs == ["C"]
    assert "matmul(A, B) -> (C)" in repr(mm)
    for m, k, n in [(3, 4, 5), (17, 9, 33), (1, 1, 1)]:
        a, b = random(rng, (m, k)), random(rng, (k, n))
        c = mm(a, b)
        assert isinstance(c, np.ndarray) and c.dtype == np.float32
        assert_close(c, a.astype("f8") @ b)
    # The "done when" line.
    ones = mm(np.ones((3, 4), "f4"), np.ones((4, 5), "f4"))
    np.testing.assert_array_equal(ones, np.full((3, 5), 4, "f4"))


def test_compiles_once_per_size_binding(rng, cache):
    mm = comprehend.define(example("matmul.tc"), cache=cache)
    a, b = random(rng, (5, 6)), random(rng, (6, 7))
    mm(a, b)
    mm(random(rng, (5, 6)), random(rng, (6, 7)))
    assert mm.compiled == [{"M": 5, "K": 6, "N": 7}]
    mm(random(rng, (2, 6)), b)
    assert {"M": 2, "K": 6, "N": 7} in mm.compiled
    assert len(mm.compiled) == 2


def test_softmax_and_several_outputs(rng, cache):
    softmax = comprehend.define(example("softmax.tc"), cache=cache)
    x = random(rng, (7, 19)) * 4
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert_close(softmax(x), e / e.sum(axis=1, keepdims=True))

    stats = comprehend.define(TWO_OUTPUTS, cache=cache)
    s, q = stats(x)
    assert_close(s, x.astype("f8").sum(axis=1))
    assert_close(q, (x.astype("f8") ** 2).sum(axis=1))


def test_double_and_integer_types(rng, cache):
    source = """
    def axpy(double(N) X, double(N) Y) -> (Z) { Z(i) = 2.5 * X(i) + Y(i) }
    def isum(int32(N, K) I) -> (S) { S(n) +=! I(n, k) }
    """
    axpy = comprehend.define(source, "axpy", cache=cache)
    x, y = random(rng, 31, "f8"), random(rng, 31, "f8")
    np.testing.assert_allclose(axpy(x, y), 2.5 * x + y, rtol=1e-12)
    isum = comprehend.define(source, "isum", cache=cache)
    i = rng.integers(-50, 50, size=(6, 9)).astype("i4")
    np.testing.assert_array_equal(isum(i), i.sum(axis=1))


def test_array_likes_and_non_contiguous_inputs(rng, cache):
    mm = comprehend.define(example("matmul.tc"), cache=cache)
    a, b = random(rng, (4, 6)), random(rng, (6, 5))
    want = a.astype("f8") @ b
    # Non-contiguous views are copied.
    at = np.asfortranarray(a)
    assert_close(mm(at, b[:, :]), want)
    assert_close(mm(a, np.ascontiguousarray(b.T).T), want)
    assert_close(mm(a[::1, :], b[:, ::-1][:, ::-1]), want)
    big = random(rng, (8, 6))
    assert_close(mm(big[::2], b), big[::2].astype("f8") @ b)

    class WithArray:  # the __array__ protocol
        def __init__(self, array):
            self.array = array

        def __array__(self, dtype=None):
            return self.array

    class WithDlpack:  # DLPack only
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, stream=None):
            return self.array.__dlpack__()

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    assert_close(mm(WithArray(a), WithDlpack(b)), want)
    # Nested lists are arrays too (of the right dtype only via NumPy).
    with pytest.raises(ValueError, match="float64"):
        mm(a.tolist(), b)


def test_torch_tensors(rng, cache):
    torch = pytest.importorskip("torch")
    mm = comprehend.define(example("matmul.tc"), cache=cache)
    a = torch.rand(5, 3)
    b = torch.rand(7, 3).t()  # non-contiguous
    c = mm(a, b)
    assert isinstance(c, np.ndarray)
    assert_close(c, (a.double() @ b.double()).numpy())
    out = torch.full((5, 7), float("nan"))
    assert mm(a, b, out=out) is out
    assert_close(out.numpy(), (a.double() @ b.double()).numpy())


def test_dtype_count_and_shape_errors(rng, cache):
    mm = comprehend.define(example("matmul.tc"), cache=cache)
    a = random(rng, (3, 4))
    with pytest.raises(ValueError, match=r"input 'B' of 'matmul' is float "
                                         r"\(float32\) but the array is "
                                         r"float64"):
        mm(a, np.ones((4, 5)))
    with pytest.raises(ValueError, match="takes 2 inputs"):
        mm(a)
    # Disagreeing sizes: the located TC diagnostic, pointing at B's K.
    with pytest.raises(ValueError) as info:
        mm(a, random(rng, (5, 2)))
    message = str(info.value)
    assert "matmul.tc:2:33: error: size 'K' is 5 in 'B' (shape (5, 2)) " \
           "but 4 in 'A' (shape (3, 4))" in message
    assert "def matmul(float(M, K) A, float(K, N) B) -> (C) {" in message
    assert "note: 'K' bound here" in message
    assert not isinstance(info.value, comprehend.CompileError)
    with pytest.raises(ValueError, match="has rank 2 but the array has "
                                         r"shape \(3,\)"):
        mm(random(rng, 3), a.T.copy())
    with pytest.raises(ValueError, match="'X' is not a size variable"):
        mm(a, random(rng, (4, 2)), sizes={"X": 3})


def test_out_writes_into_caller_arrays(rng, cache):
    stats = comprehend.define(TWO_OUTPUTS, cache=cache)
    x = random(rng, (6, 10))
    s = np.full(6, np.nan, "f4")
    q = np.full(6, np.nan, "f4")
    result = stats(x, out=(s, q))
    assert result[0] is s and result[1] is q
    assert_close(s, x.astype("f8").sum(axis=1))
    # By name, one allocated: the other comes back new.
    q2 = np.zeros(6, "f4")
    s2, got = stats(x, out={"Q": q2})
    assert got is q2 and s2 is not s
    assert_close(q2, (x.astype("f8") ** 2).sum(axis=1))
    # A non-contiguous out= (a strided view) is written through.
    backing = np.zeros((6, 2), "f4")
    stats(x, out=(backing[:, 1], None))
    assert_close(backing[:, 1], x.astype("f8").sum(axis=1))
    assert np.all(backing[:, 0] == 0)
    with pytest.raises(ValueError, match=r"has shape \(6,\) at these sizes, "
                                         r"but the out= array has shape "
                                         r"\(5,\)"):
        stats(x, out=(np.zeros(5, "f4"), None))
    with pytest.raises(ValueError, match="read-only"):
        frozen = np.zeros(6, "f4")
        frozen.flags.writeable = False
        stats(x, out=(frozen, None))
    with pytest.raises(ValueError, match="float64"):
        stats(x, out=(np.zeros(6), None))


def test_incoming_values_of_reductions_without_bang(rng, cache):
    with pytest.warns(comprehend.CompileWarning,
                      match="reduction without initialization"):
        acc = comprehend.define(MATMUL_ACC, cache=cache)
    a, b = random(rng, (5, 3)), random(rng, (3, 4))
    c0 = random(rng, (5, 4))
    c = c0.copy()
    assert acc(a, b, out=c) is c
    assert_close(c, c0.astype("f8") + a.astype("f8") @ b)
    # Accumulating again adds again: out= is read each call.
    acc(a, b, out=c)
    assert_close(c, c0.astype("f8") + 2 * (a.astype("f8") @ b))
    # Without out=, C starts from zeros (the reference evaluator's choice),
    # also after a call that had out=.
    assert_close(acc(a, b), a.astype("f8") @ b)
    # time() runs from the same incoming value every launch.
    c = c0.copy()
    acc.time(a, b, out=c, repeat=3)
    np.testing.assert_array_equal(c, c0)  # time() does not write out=
    acc(a, b, out=c)
    assert_close(c, c0.astype("f8") + a.astype("f8") @ b)


def test_config_tune_and_tuning_cache(rng, cache):
    mm = comprehend.define(example("matmul.tc"), cache=cache)
    assert mm.config is None and mm.config_source is None
    a, b = random(rng, (33, 20)), random(rng, (20, 17))
    mm(a, b)
    assert mm.config == {} and mm.config_source == "default"

    progress = io.StringIO()
    result = mm.tune(a, b, evals=4, progress=progress)
    assert isinstance(result, comprehend.TuneResult)
    assert result.evaluations == 4 and result.failed == 0
    assert result.wrong == 0
    assert result.best_ms > 0 and result.default_ms > 0
    assert result.speedup == pytest.approx(result.default_ms / result.best_ms)
    assert result.cache_path == cache
    assert "[tune]" in progress.getvalue()
    with open(cache) as file:
        assert "matmul" in json.dumps(json.load(file))

    # Later calls at these sizes use the cached configuration.
    assert_close(mm(a, b), a.astype("f8") @ b)
    assert mm.config_source == "tuning-cache"
    assert mm.config == result.config
    # So does a new Function over the same cache, and other sizes do not.
    again = comprehend.define(example("matmul.tc"), cache=cache)
    again(a, b)
    assert again.config_source == "tuning-cache"
    again(a[:5], b)
    assert again.config_source == "default"

    # tune() from sizes alone, quiet.
    quiet = io.StringIO()
    softmax = comprehend.define(example("softmax.tc"), cache=cache)
    tuned = softmax.tune(sizes={"N": 9, "D": 40}, evals=3, progress=False)
    assert tuned.evaluations == 3 and quiet.getvalue() == ""


def test_given_config(rng, cache):
    # 32: a multiple of every subgroup size, a GPU's warp included.
    mm = comprehend.define(example("matmul.tc"), cache=cache,
                           config={"work_group_size.0": 32,
                                   "work_group_size.1": 4})
    a, b = random(rng, (9, 7)), random(rng, (7, 11))
    assert_close(mm(a, b), a.astype("f8") @ b)
    assert mm.config_source == "given"
    assert mm.config["work_group_size.1"] == 4
    bad = comprehend.define(example("matmul.tc"), cache=cache,
                            config={"no_such_knob": 1})
    with pytest.raises(ValueError, match="unknown tuning parameter"):
        bad(a, b)


def test_ranges_ir_spirv_time(rng, cache):
    conv = comprehend.define(example("conv1d.tc"), cache=cache)
    ranges = conv.ranges(sizes={"N": 23, "K": 5})
    assert ranges["outputs"]["O"] == {"symbolic": ["N - K + 1"],
                                      "shape": [19]}
    symbolic = conv.ranges()
    assert "shape" not in symbolic["outputs"]["O"]
    i, w = random(rng, 23), random(rng, 5)
    assert conv.ranges(i, w)["sizes"] == {"N": 23, "K": 5}

    mm = comprehend.define(example("matmul.tc"), cache=cache)
    a, b = random(rng, (16, 8)), random(rng, (8, 12))
    ir = mm.ir(a, b)
    assert ir.startswith("func @matmul(%A: memref<f32x8x16>")
    assert "gemm" in ir
    lowered = mm.ir(sizes={"M": 16, "K": 8, "N": 12}, lowered=True)
    assert "func @matmul" in lowered and lowered != ir
    asm = mm.spirv(a, b)
    assert "OpEntryPoint Kernel" in asm
    words = mm.spirv(a, b, disassemble=False)
    assert isinstance(words, bytes) and len(words) % 4 == 0
    assert int.from_bytes(words[:4], "little") == 0x07230203

    timing = mm.time(a, b, repeat=7)
    assert isinstance(timing, comprehend.Timing)
    assert len(timing.kernel_ms) == 7
    assert float(timing) == timing.median_ms > 0
    with pytest.raises(ValueError):
        mm.time(a, b, repeat=0)


def test_devices_and_device_argument(rng, cache):
    devices = comprehend.devices()
    assert devices and all("core" in d and "name" in d for d in devices)
    usable = [d for d in devices if d["can_run_kernels"]]
    assert usable
    mm = comprehend.define(example("matmul.tc"), device=usable[0]["index"],
                           cache=cache)
    assert mm.device == usable[0]["name"]
    a, b = random(rng, (3, 2)), random(rng, (2, 3))
    assert_close(mm(a, b), a.astype("f8") @ b)
    mm = comprehend.define(example("matmul.tc"), device=usable[0],
                           cache=cache)
    assert_close(mm(a, b), a.astype("f8") @ b)
    with pytest.raises((ValueError, comprehend.DeviceError)):
        comprehend.define(example("matmul.tc"), device="no such device")


def test_missing_source_file_is_named(tmp_path):
    # A path that names no file is reported as such, not parsed as TC text
    # ("expected 'def' but found '/'").
    missing = str(tmp_path / "nowhere" / "matmul.tc")
    with pytest.raises(FileNotFoundError, match="no such .tc file: .*nowhere"):
        comprehend.define(missing)
    with pytest.raises(FileNotFoundError, match="no such .ir file"):
        comprehend.load_ir(str(tmp_path / "kernel.ir"))
    with pytest.raises(FileNotFoundError):
        comprehend.define(tmp_path / "matmul.tc")


def test_cuda_device_without_a_driver(cache):
    devices = comprehend.devices()
    assert {d["api"] for d in devices} <= {"opencl", "cuda"}
    if any(d["api"] == "cuda" for d in devices):
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(comprehend.DeviceError,
                       match=r"no CUDA driver \(libcuda.so.1\) on this "
                             r"machine"):
        comprehend.define(example("matmul.tc"), device="cuda:0", cache=cache)


def test_gil_is_released_while_tuning(cache):
    """Another Python thread keeps running while one tunes."""
    mm = comprehend.define(example("matmul.tc"), cache=cache)
    done = threading.Event()
    result = {}

    def tune():
        try:
            result["tuned"] = mm.tune(sizes={"M": 96, "K": 64, "N": 80},
                                      evals=8, progress=False)
        finally:
            done.set()

    worker = threading.Thread(target=tune)
    start = time.perf_counter()
    worker.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    elapsed = time.perf_counter() - start
    assert result["tuned"].evaluations == 8
    # With the GIL held by the tuner, this thread would not run until the
    # tuner finished (a tick or two); released, it ticks about once a
    # millisecond (sleep() lets the tuner thread in between).
    assert ticks >= max(5, 0.1 * elapsed / 0.001), (ticks, elapsed)


def test_rank_zero_inputs_and_outputs(cache):
    # A 0-d array stays 0-d (a scalar loss is one).
    scale = comprehend.define(
        "def scale(float(N) X, float s) -> (Y, T) {\n"
        "  Y(i) = s() * X(i)\n  T() +=! Y(i)\n}", cache=cache)
    y, t = scale(np.arange(4, dtype="f4"), np.float32(2))
    np.testing.assert_array_equal(y, [0, 2, 4, 6])
    assert t.shape == () and t == 12


def test_too_large_output_is_a_device_error_before_allocation(cache):
    # B is 300000 x 300000 floats (360 GB): the limits are checked before
    # anything is allocated, and the error names the tensor and its bytes.
    f = comprehend.define(
        "def outer(float(N) A) -> (B) { B(i, j) = A(i) * A(j) }",
        cache=cache)
    with pytest.raises(comprehend.DeviceError,
                       match=r"tensor 'B' needs 360000000000 bytes[,;]"):
        f(np.ones(300000, np.float32))
