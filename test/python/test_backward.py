"""comprehend.define'd functions in autograd: hand-written backward defs
(backward=), what autograd records and what it leaves alone (NumPy inputs,
tensors without grad), saved forward values, None, non-contiguous and
integer gradients, several outputs, backward_def, backward_function and
tune_backward."""

import numpy as np
import pytest

import comprehend

torch = pytest.importorskip("torch")

# The gathers' unchecked-precondition warnings.
pytestmark = pytest.mark.filterwarnings(
    "ignore::comprehend.CompileWarning")

MATMUL = """
def mm(double(M, K) A, double(K, N) B) -> (C) {
  C(m, n) +=! A(m, k) * B(k, n)
}
"""

# The backward of mm by hand: the forward's inputs, its output, the
# output's gradient; the inputs' gradients in order.
MATMUL_GRAD = """
def mm_grad(double(M, K) A, double(K, N) B, double(M, N) C, double(M, N) d_C)
    -> (d_A, d_B) {
  d_A(m, k) +=! d_C(m, n) * B(k, n)
  d_B(k, n) +=! A(m, k) * d_C(m, n)
}
"""

# Two outputs, an integer input (a scale index) and a float input read by
# both outputs; the backward reads the saved output Y.
TWO_OUTPUTS = """
def scaled(double(N) X, double(S) scales, int32(N) which) -> (Y, Z) {
  Y(i) = exp(X(i)) * scales(which(i))
  Z(i) = X(i) * X(i)
}
"""
TWO_OUTPUTS_GRAD = """
def scaled_grad(double(N) X, double(S) scales, int32(N) which, double(N) Y,
                double(N) Z, double(N) d_Y, double(N) d_Z)
    -> (d_X, d_scales) {
  d_X(i) = d_Y(i) * Y(i) + 2 * X(i) * d_Z(i)
  d_scales(s) +=! which(i) == s ? d_Y(i) * exp(X(i)) : 0 where s in 0:S
}
"""


def double_tensor(rng, *shape, grad=True):
    return torch.from_numpy(rng.uniform(-1, 1, size=shape)).requires_grad_(
        grad)


def test_hand_written_backward_by_name_text_and_function(rng, cache):
    by_name = comprehend.define(MATMUL + MATMUL_GRAD, "mm", cache=cache,
                                backward="mm_grad")
    by_text = comprehend.define(MATMUL, cache=cache, backward=MATMUL_GRAD)
    given = comprehend.define(MATMUL_GRAD, cache=cache)
    by_function = comprehend.define(MATMUL, cache=cache, backward=given)
    a, b = double_tensor(rng, 3, 4), double_tensor(rng, 4, 5)
    for function in (by_name, by_text, by_function):
        assert function.backward_function().name == "mm_grad"
        assert "d_A(m, k) +=! d_C(m, n) * B(k, n)" in function.backward_def
        c = function(a, b)
        assert type(c.grad_fn).__name__ == "ComprehendFunctionBackward"
        np.testing.assert_allclose(c.detach().numpy(),
                                   (a @ b).detach().numpy(), rtol=1e-12)
        assert torch.autograd.gradcheck(function, (a, b))
    assert by_function.backward_function() is given


def test_backward_signature_and_source_errors(cache):
    with pytest.raises(ValueError, match=r"must take 4 \(A, B, C, d_C\) and "
                                         r"return 2 \(the gradients of A, B"):
        comprehend.define(MATMUL, cache=cache, backward="""
        def bad(double(M, K) A, double(K, N) B, double(M, N) d_C) -> (d_A) {
          d_A(m, k) +=! d_C(m, n) * B(k, n)
        }""")
    with pytest.raises(comprehend.CompileError, match=r"<string>:1:"):
        comprehend.define(MATMUL, cache=cache, backward="def g(double(N) X")
    with pytest.raises(ValueError, match="has no def 'mm_grad'"):
        comprehend.define(MATMUL, cache=cache, backward="mm_grad")
    with pytest.raises(ValueError, match="backward= takes"):
        comprehend.define(MATMUL, cache=cache, backward=3)


def test_numpy_and_tensors_without_grad_are_unchanged(rng, cache):
    function = comprehend.define(MATMUL, cache=cache, backward=MATMUL_GRAD)
    a, b = rng.uniform(size=(3, 4)), rng.uniform(size=(4, 2))
    assert isinstance(function(a, b), np.ndarray)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    assert isinstance(function(ta, tb), np.ndarray)
    with torch.no_grad():
        assert isinstance(function(ta.requires_grad_(), tb), np.ndarray)
    # A NumPy array beside a tensor that requires grad: converted, no grad.
    c = function(ta, b)
    assert isinstance(c, torch.Tensor) and c.requires_grad
    c.sum().backward()
    np.testing.assert_allclose(ta.grad.numpy(),
                               np.ones((3, 2)) @ b.T, rtol=1e-12)
    with pytest.raises(ValueError, match="out= is not supported"):
        function(ta, tb, out=np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"is double \(float64\) but the "
                                         r"array is float32"):
        function(ta, tb.float())


def test_forward_values_are_saved_not_recomputed(rng, cache):
    function = comprehend.define(TWO_OUTPUTS, cache=cache,
                                 backward=TWO_OUTPUTS_GRAD)
    forward_runs = []
    run = function._run
    function._run = lambda *args: forward_runs.append(1) or run(*args)
    x, scales = double_tensor(rng, 6), double_tensor(rng, 3)
    which = torch.tensor([0, 2, 2, 1, 0, 2], dtype=torch.int32)
    y, z = function(x, scales, which)
    (y.sum() + z.sum()).backward()
    assert len(forward_runs) == 1
    want_x = x.detach().exp() * scales.detach()[which.long()] \
        + 2 * x.detach()
    np.testing.assert_allclose(x.grad.numpy(), want_x.numpy(), rtol=1e-12)


def test_unused_output_integer_input_and_non_contiguous_grad(rng, cache):
    function = comprehend.define(TWO_OUTPUTS, cache=cache,
                                 backward=TWO_OUTPUTS_GRAD)
    x, scales = double_tensor(rng, 6), double_tensor(rng, 3)
    which = torch.tensor([0, 2, 2, 1, 0, 2], dtype=torch.int32)
    y, z = function(x, scales, which)
    assert not which.requires_grad
    # Only Y is used: Z's gradient is None and becomes zeros. The incoming
    # gradient is a strided view (every other element of a longer tensor).
    grad = torch.from_numpy(rng.uniform(size=12))[::2]
    assert not grad.is_contiguous()
    torch.autograd.backward([y], [grad])
    ex = x.detach().exp()
    np.testing.assert_allclose(x.grad.numpy(), (grad * ex *
                               scales.detach()[which.long()]).numpy(),
                               rtol=1e-12)
    want_scales = np.zeros(3)
    np.add.at(want_scales, which.numpy(), (grad * ex).numpy())
    np.testing.assert_allclose(scales.grad.numpy(), want_scales, rtol=1e-12)
    # The integer input has no gradient, whatever is asked.
    assert torch.autograd.gradcheck(lambda a, b: function(a, b, which),
                                    (x, scales))


def test_inputs_that_do_not_require_grad_get_none(rng, cache):
    function = comprehend.define(MATMUL, cache=cache, backward=MATMUL_GRAD)
    a, b = double_tensor(rng, 2, 3), double_tensor(rng, 3, 2, grad=False)
    function(a, b).sum().backward()
    assert a.grad is not None and b.grad is None


def test_misaligned_inputs_outputs_and_in_place_changes(rng, cache):
    from comprehend._arrays import HOST_ALIGNMENT
    function = comprehend.define(MATMUL, cache=cache)
    # One element into a longer tensor: 8 bytes past an aligned start, which
    # a CPU device reads in place, in the forward and in the backward.
    raw = torch.from_numpy(rng.uniform(-1, 1, size=3 * 4 + 1))
    a = raw[1:].view(3, 4).requires_grad_()
    b = double_tensor(rng, 4, 5)
    assert a.data_ptr() % HOST_ALIGNMENT
    c = function(a, b)
    assert c.data_ptr() % HOST_ALIGNMENT == 0
    grad = torch.from_numpy(rng.uniform(size=(3, 5)))
    c.backward(grad)
    np.testing.assert_allclose(a.grad.numpy(), (grad @ b.detach().T).numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), (a.detach().T @ grad).numpy(),
                               rtol=1e-12)
    assert torch.autograd.gradcheck(function, (a, b))
    # The inputs stay saved for autograd: changing one in place after the
    # forward is an error at the backward, copied or not.
    for changed in (a, b):
        c = function(a, b)
        with torch.no_grad():
            changed.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace"):
            c.sum().backward()


def test_backward_is_compiled_once_and_tunable(rng, cache):
    function = comprehend.define(MATMUL, cache=cache, backward=MATMUL_GRAD)
    a, b = double_tensor(rng, 5, 6), double_tensor(rng, 6, 7)
    for _ in range(2):
        function(a, b).sum().backward()
    backward = function.backward_function()
    assert backward.compiled == [{"M": 5, "K": 6, "N": 7}]
    # Both directions reuse their call at this signature (the fast path of
    # a compiled shape), as a plain call does.
    assert len(function._calls) == 1 and len(backward._calls) == 1
    result = function.tune_backward(a.detach(), b.detach(), evals=3,
                                    progress=False)
    assert isinstance(result, comprehend.TuneResult)
    assert result.evaluations >= 1
    function(a, b).sum().backward()
    assert backward.config_source == "tuning-cache"
    # By sizes alone: the same binding, found in the cache again.
    again = function.tune_backward(sizes={"M": 5, "K": 6, "N": 7}, evals=2,
                                   progress=False)
    assert again.cache_path == result.cache_path
