"""comprehend.load_ir and comprehend.check."""

import numpy as np
import pytest

import comprehend
from conftest import assert_close, example, random

AXPY = """
func @axpy(%alpha: f32, %X: memref<f32x?>, %Y: memref<f32x?>) {
  %one = constant 1.0 : f32
  axpby.n %alpha, %X, %one, %Y
}
func @scale(%a: f64, %X: memref<f64x8x4>) {
  %zero = constant 0.0 : f64
  axpby.n %a, %X, %zero, %X
}
"""


def test_gemm_example_with_grid(rng):
    program = comprehend.load_ir(example("gemm.ir"))
    assert program.entries == ["batched_gemm"]
    kernel = program.batched_gemm
    assert program["batched_gemm"] is kernel
    assert [p["name"] for p in kernel.params] == ["A", "B", "C"]
    assert "memref<f32x64x32x?>" in repr(kernel)
    a, b = random(rng, (64, 32, 3)), random(rng, (32, 48, 3))
    c = np.full((64, 48, 3), np.nan, "f4")
    assert kernel(a, b, c, grid=3) is None
    assert_close(c, np.einsum("mkb,knb->mnb", a.astype("f8"), b))
    # A C-ordered array is staged in Fortran order and written back.
    c2 = np.full((64, 48, 3), np.nan, "f4")
    assert not c2.flags.f_contiguous
    kernel(np.ascontiguousarray(a), b, c2, grid=(3, 1, 1))
    assert_close(c2, c)
    timing = kernel.time(a, b, c, grid=[3], repeat=4)
    assert len(timing.kernel_ms) == 4 and float(timing) > 0
    assert "OpEntryPoint" in program.spirv()
    assert program.spirv(disassemble=False)[:4] == b"\x03\x02\x23\x07"
    assert "func @batched_gemm" in program.lowered_ir()


def test_scalars_and_dynamic_shapes(rng):
    program = comprehend.load_ir(AXPY)
    assert program.entries == ["axpy", "scale"]
    x, y = random(rng, 37), random(rng, 37)
    want = 0.5 * x.astype("f8") + y
    program.axpy(0.5, x, y)
    assert_close(y, want)
    x8 = random(rng, (8, 4), "f8")
    want = 3 * x8
    program.scale(np.float64(3), x8)
    np.testing.assert_allclose(x8, want, rtol=1e-12)
    # Torch tensors are updated in place too.
    torch = pytest.importorskip("torch")
    t = torch.ones(37)
    program.axpy(2, torch.ones(37), t)
    assert torch.all(t == 3)


def test_ir_argument_errors(rng):
    program = comprehend.load_ir(AXPY)
    x = random(rng, 5)
    with pytest.raises(ValueError, match="takes 3 arguments, got 2"):
        program.axpy(1.0, x)
    with pytest.raises(ValueError, match="float64"):
        program.axpy(1.0, x, np.ones(5))
    with pytest.raises(ValueError, match="takes a number"):
        program.axpy("one", x, x.copy())
    with pytest.raises(ValueError):
        program.scale(1.0, np.ones((4, 8)))  # static sizes 8x4
    with pytest.raises(ValueError, match="grid"):
        program.axpy(1.0, x, x.copy(), grid=(0,))
    with pytest.raises(AttributeError, match="no function '@nope'"):
        program.nope
    with pytest.raises(KeyError):
        program["nope"]


def test_unknown_device_names_the_listing_not_a_flag():
    # The runtime's message names no CLI flag; the Python layer adds how to
    # find a device in its own terms.
    with pytest.raises(ValueError) as info:
        comprehend.load_ir(AXPY, device="no such device 1234")
    message = str(info.value)
    assert message == ("device 'no such device 1234' matches no device "
                       "(see comprehend.devices())")


def test_check_raises_located_diagnostics(tmp_path):
    assert comprehend.check(example("matmul.tc")) == ""
    assert comprehend.check(example("gemm.ir")) == ""
    assert comprehend.check(open(example("gemm.ir")).read()) == ""
    with pytest.raises(comprehend.CompileError) as info:
        comprehend.check("def f(float(N) A) -> (B) {\n  B(i) = C(i)\n}")
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert message.startswith("<string>:2:10: error:")
    assert "  B(i) = C(i)" in message and "^" in message

    bad = tmp_path / "bad.ir"
    bad.write_text("func @f(%a: memref<f32x4>) {\n  %b = nope %a\n}\n")
    with pytest.raises(comprehend.CompileError, match=r"bad\.ir:2:8: error"):
        comprehend.check(str(bad))
    with pytest.raises(comprehend.CompileError, match=r"bad\.ir:2:8: error"):
        comprehend.load_ir(str(bad))
    with pytest.raises(comprehend.CompileError, match="<string>:1:"):
        comprehend.define("def f(float(N) A) -> (B) { B(i) = A(i) +  }")
    # A warning is returned, and raised as CompileWarning by define().
    text = "def f(float(N,K) A) -> (B) {\n  B(i) += A(i,k)\n}"
    assert "warning: reduction without initialization" in \
        comprehend.check(text)
    with pytest.raises(ValueError, match="lang="):
        comprehend.check(text, lang="c")


def test_errors_do_not_crash_the_interpreter(rng, cache):
    # Sizes at which the def cannot be compiled: the located diagnostic; the
    # Function stays usable at other sizes.
    odd = comprehend.define(
        "def f(float(N) A) -> (B) { B(i) = A(i) + A(i + 1) }", cache=cache)
    with pytest.raises(comprehend.CompileError,
                       match="<string>:1:37: error: inferred an empty range"):
        odd(random(rng, 1))
    assert_close(odd(np.ones(5, "f4")), np.full(4, 2.0))
    # Element types the device does not take yet.
    half = comprehend.define("def h(half(N) A) -> (B) { B(i) = A(i) }",
                             cache=cache)
    with pytest.raises(ValueError, match="element type half"):
        half(np.zeros(3, "f2"))
    with pytest.raises(comprehend.CompileError):
        comprehend.load_ir("func @f() { %x = constant 1 : i32\n")
