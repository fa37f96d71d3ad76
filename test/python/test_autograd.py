"""comprehend.define'd functions inside PyTorch's autograd: grad_fn, derived
and hand-written backward defs, gradcheck (float64) of every example and of
the defs of grad_defs.tc, saved forward values, None and non-contiguous
gradients, several outputs, integer inputs, tune_backward."""

import os
import re

import numpy as np
import pytest

import comprehend
from conftest import EXAMPLES

torch = pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
GRAD_DEFS = os.path.join(HERE, "grad_defs.tc")

pytestmark = pytest.mark.filterwarnings(
    "ignore::comprehend.CompileWarning")


def as_double(source):
    """A TC source in float64 (gradcheck's finite differences need it)."""
    return re.sub(r"\bfloat\(", "double(", source)


def make_inputs(function, sizes, rng, positive=(), index=None):
    """Random tensors for ``function``'s inputs at ``sizes``: floating-point
    ones require grad (in [0.5, 2) for names in ``positive``, else [-1, 1)),
    integer ones are indices below the size ``index[name]``."""
    tensors = []
    for param in function._signature["inputs"]:
        shape = [sizes[d] if isinstance(d, str) else d for d in param["dims"]]
        dtype = np.dtype(param["dtype"])
        if dtype.kind == "i":
            values = rng.integers(0, sizes[index[param["name"]]], size=shape)
            tensors.append(torch.from_numpy(values.astype(dtype)))
            continue
        low, high = (0.5, 2.0) if param["name"] in positive else (-1.0, 1.0)
        values = rng.uniform(low, high, size=shape).astype(dtype)
        tensors.append(torch.from_numpy(values).requires_grad_())
    return tensors


def check_gradients(function, sizes, rng, **options):
    inputs = make_inputs(function, sizes, rng, **options)
    outputs = function(*inputs)
    for output in outputs if isinstance(outputs, tuple) else (outputs,):
        assert isinstance(output, torch.Tensor)
        assert type(output.grad_fn).__name__ == "ComprehendFunctionBackward"
    assert torch.autograd.gradcheck(lambda *xs: function(*xs), inputs,
                                    eps=1e-6, atol=1e-6, rtol=1e-4)


# Sizes of the examples' defs (all of examples/*.tc), in float64.
EXAMPLE_SIZES = {
    "batch_matmul": dict(B=2, N=2, M=3, K=2),
    "batch_norm": dict(N=4, C=3),
    "conv1d": dict(N=6, K=3),
    "conv2d": dict(N=1, C=2, H=4, W=4, M=2, KH=2, KW=2),
    "gather": dict(N=5, D=3, L=6),
    "grouped_conv": dict(N=1, G=2, C=1, H=4, W=4, F=2, KH=2, KW=2),
    "kronecker": dict(M=2, N=2, P=2, Q=3),
    "layer_norm": dict(N=3, D=4),
    "matmul": dict(M=3, K=4, N=2),
    "max_pool": dict(N=1, C=2, H=4, W=4),
    "fcrelu": dict(B=2, M=3, N=4),
    "mlp": dict(B=2, M=3, N=4, P=2),
    "moments": dict(N=3, K=4),
    "softmax": dict(N=3, D=4),
    "strided_conv": dict(N=1, C=2, H=5, W=5, M=2, KH=3, KW=3),
    "transpose": dict(M=3, N=2),
}
EXAMPLE_FILES = {"fcrelu": "mlp", "mlp": "mlp"}


def test_every_example_def_is_listed():
    defs = set()
    for name in os.listdir(EXAMPLES):
        if name.endswith(".tc"):
            defs.update(re.findall(r"^def (\w+)",
                                   open(os.path.join(EXAMPLES, name)).read(),
                                   re.MULTILINE))
    assert defs == set(EXAMPLE_SIZES)


@pytest.mark.parametrize("entry", sorted(EXAMPLE_SIZES))
def test_gradcheck_example(entry, rng, cache):
    path = os.path.join(EXAMPLES, EXAMPLE_FILES.get(entry, entry) + ".tc")
    function = comprehend.define(as_double(open(path).read()), entry,
                                 cache=cache)
    # The gather's 6 indices below 5 repeat one row: its gradient adds up.
    check_gradients(function, EXAMPLE_SIZES[entry], rng,
                    index={"idx": "N"})


# Sizes (and input domains) of the defs of grad_defs.tc.
DEF_SIZES = {
    "conv_strided": (dict(N=1, C=2, H=5, W=5, M=2, KH=2, KW=2), {}),
    "conv_dilated": (dict(N=1, C=2, H=6, W=6, M=2, KH=2, KW=2), {}),
    "conv_strided_dilated": (dict(C=2, L=9, M=2, K=2), {}),
    "conv_phases_stride3": (dict(N=2, C=2, T=13, F=2), {}),
    "conv_phases_mixed": (dict(N=1, C=2, H=8, W=4, M=2, KH=3, KW=2), {}),
    "shift": (dict(N=6), {}),
    "avg_pool": (dict(N=1, C=2, H=4, W=4), {}),
    "max_pool_overlap": (dict(C=2, H=5, W=5), {}),
    "min_reduce": (dict(N=3, K=4), {}),
    "log_softmax": (dict(N=3, D=4), {}),
    "softmax_shift_2d": (dict(N=2, H=3, W=4), {}),
    "shift_along_sum": (dict(N=3, D=4), {}),
    "softmax_scaled": (dict(N=3, D=4), {}),
    "softmax_whole": (dict(D=5), {}),
    "softmax_read_later": (dict(N=3, D=4), {}),
    "group_norm": (dict(N=2, G=2, C=2, S=3), {}),
    "rms_norm": (dict(N=3, D=4), {}),
    "embedding": (dict(V=5, D=3, B=2, L=3), {"index": {"idx": "V"}}),
    "embedding_bag": (dict(V=5, D=3, B=2, L=3), {"index": {"idx": "V"}}),
    "outer": (dict(M=3, N=4), {}),
    "permute3": (dict(A=2, B=3, C=4), {}),
    "matmul_transposed": (dict(K=3, M=2, N=4), {}),
    "bilinear": (dict(N=2, P=3, Q=2, O=2), {}),
    "trace_product": (dict(N=3), {}),
    "multi_stmt": (dict(N=5), {}),
    "squared_norms": (dict(N=3, D=4), {}),
    "mlp_layer_tanh": (dict(B=3, M=4, N=2), {}),
    "mse": (dict(N=3, D=2), {}),
    "cross_entropy": (dict(N=3, C=4), {"positive": ("Y",)}),
    "lower_triangle_sum": (dict(N=4), {}),
    "window_sum": (dict(N=6), {}),
    "relu_ternary": (dict(N=6), {}),
    "select_by_sign": (dict(N=6), {}),
    "fmax_fmin": (dict(N=6), {}),
    "clamp": (dict(N=8), {}),
    "unary_builtins": (dict(N=5), {"positive": ("P",)}),
    "quotient": (dict(N=5), {"positive": ("P",)}),
    "sigmoid": (dict(N=2, D=3), {}),
}


def test_every_grad_def_is_listed():
    program = comprehend._core.TcProgram(open(GRAD_DEFS).read(), GRAD_DEFS)
    assert set(program.defs) == set(DEF_SIZES)
    assert len(DEF_SIZES) >= 25


@pytest.mark.parametrize("entry", sorted(DEF_SIZES))
def test_gradcheck_def(entry, rng, cache):
    function = comprehend.define(GRAD_DEFS, entry, cache=cache)
    sizes, options = DEF_SIZES[entry]
    check_gradients(function, sizes, rng, **options)


def test_gradcheck_conv2d_whose_weight_gradient_has_its_channels_last(
        rng, cache):
    """At EXAMPLE_SIZES' conv2d the weight gradient's reductions are too
    short for gemms over views and keep the panel; from 8 output columns a
    CPU computes it with its channels last (TransposeWeightGradients.cpp:
    a copy of d_O, `d_O_t`, then gemms per tap)."""
    path = os.path.join(EXAMPLES, "conv2d.tc")
    function = comprehend.define(as_double(open(path).read()), cache=cache)
    sizes = dict(N=1, C=3, H=10, W=11, M=2, KH=3, KW=3)
    inputs = make_inputs(function, sizes, rng)
    output = function(*inputs)
    device = next(d for d in comprehend.devices()
                  if d["name"] == function.device)
    if device["type"] == "cpu":
        arrays = [t.detach() for t in inputs]
        ir = function.backward_function().ir(
            *arrays, output.detach(), torch.ones_like(output))
        assert "d_O_t" in ir
    check_gradients(function, sizes, rng)


MATMUL = """
def mm(double(M, K) A, double(K, N) B) -> (C) {
  C(m, n) +=! A(m, k) * B(k, n)
}
"""


def test_derived_backward_def_per_set_of_inputs(rng, cache):
    function = comprehend.define(MATMUL, cache=cache)
    text = function.backward_def
    assert text.startswith("def mm_grad(double(M, K) A, double(K, N) B, "
                           "double(M, N) C, double(M, N) d_C) -> (d_A, d_B)")
    comprehend.check(text)
    assert function.backward_function().outputs == ["d_A", "d_B"]
    only_a = function.backward_function(wrt=["A"])
    assert only_a.outputs == ["d_A"]
    with pytest.raises(ValueError, match="'C' is not a floating-point input"):
        function.backward_function(wrt=["C"])
    # B does not require grad: the backward that computes d_A alone runs.
    a = torch.from_numpy(rng.uniform(size=(3, 4))).requires_grad_()
    b = torch.from_numpy(rng.uniform(size=(4, 2)))
    function(a, b).sum().backward()
    assert only_a.compiled == [{"M": 3, "K": 4, "N": 2}]
    assert function.backward_function().compiled == []
    np.testing.assert_allclose(a.grad.numpy(),
                               np.ones((3, 2)) @ b.numpy().T, rtol=1e-12)


def test_derived_backward_is_tunable(rng, cache):
    function = comprehend.define(MATMUL, cache=cache)
    a = torch.from_numpy(rng.uniform(size=(6, 5))).requires_grad_()
    b = torch.from_numpy(rng.uniform(size=(5, 4))).requires_grad_()
    result = function.tune_backward(a.detach(), b.detach(), evals=3,
                                    progress=False)
    assert result.evaluations >= 1
    function(a, b).sum().backward()
    assert function.backward_function().config_source == "tuning-cache"


PRODUCT = """
def prod(double(N, K) A) -> (O) {
  O(n) *=! A(n, k)
}
"""


def test_underivable_def_raises_at_the_call_and_runs_without_grad(rng,
                                                                  cache):
    function = comprehend.define(PRODUCT, cache=cache)
    a = torch.from_numpy(rng.uniform(0.5, 2, size=(3, 4))).requires_grad_()
    with pytest.raises(comprehend.CompileError) as info:
        function(a)
    assert str(info.value).startswith(
        "<string>:3:8: error: product reductions have no derived gradient")
    assert "O(n) *=! A(n, k)" in str(info.value)
    with pytest.raises(comprehend.CompileError, match="product reductions"):
        function.backward_def
    # The call without grad is as before.
    output = function(a.detach())
    assert isinstance(output, np.ndarray)
    np.testing.assert_allclose(output, a.detach().numpy().prod(axis=1),
                               rtol=1e-12)
