"""``comprehend.define``d functions inside PyTorch's autograd.

A call with a PyTorch tensor that requires grad among its inputs (grad mode
on) runs through ``ComprehendFunction``, a ``torch.autograd.Function``: its
forward runs the def and saves the inputs and the outputs
(``ctx.save_for_backward``), which is all the backward def reads, so nothing
is recomputed; its backward runs the backward def. That def is either
derived from the forward (``comprehend.tc.deriveBackward``, bound as
``_core.derive_backward``) for the inputs that need a gradient, or the one
the caller gave as ``define(..., backward=...)``. Either way it is a
comprehend ``Function`` of its own: compiled once per size binding, with the
tuning cache's configuration, and tunable (``Function.tune_backward``).

The backward def's parameters, derived or written by hand: the forward's
inputs, then the forward's outputs, then ``d_<O>`` per forward output; it
returns ``d_<I>`` per differentiated input, in the forward's order (for a
hand-written one: every floating-point input).

Calls without such a tensor never import torch and return NumPy arrays, as
before."""

import re
import sys
import threading

import numpy as np

from . import _core, _cuda
from ._arrays import as_array, contiguous


def wants_grad(arrays):
    """Whether autograd must record a call on ``arrays``: grad mode is on
    and one of them is a tensor that requires grad."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.is_grad_enabled():
        return False
    return any(isinstance(a, torch.Tensor) and a.requires_grad
               for a in arrays)


def _is_float(param):
    return param["dtype"] is not None and np.dtype(param["dtype"]).kind == "f"


class BackwardDefs:
    """The backward defs of one forward Function: the given one, or one
    derived per set of differentiated inputs (derived when first needed, so
    a def whose gradient cannot be derived still runs without autograd)."""

    def __init__(self, forward, given):
        self._forward = forward
        self._derived = {}
        # Per pattern of inputs that need a gradient (autograd's
        # needs_input_grad): what resolve() gives for it.
        self._for_call = {}
        self._lock = threading.Lock()
        self._given = None if given is None else self._resolve(given)

    def _float_inputs(self):
        return [p["name"] for p in self._forward._signature["inputs"]
                if _is_float(p)]

    def _resolve(self, given):
        """The hand-written backward as (Function, its TC text)."""
        from ._tc import Function, read_source
        forward = self._forward
        if isinstance(given, Function):
            function, text = given, given._source and given._source[0]
        elif not isinstance(given, str):
            raise ValueError("backward= takes a def name, TC text, a .tc "
                             f"path or a Function, not {type(given).__name__}")
        elif re.fullmatch(r"[A-Za-z_]\w*", given):
            if given not in forward._program.defs:
                raise ValueError(f"backward=: the source of "
                                 f"'{forward.name}' has no def '{given}'")
            function = Function(forward._program, given, forward._device,
                                cache=forward._cache, source=forward._source)
            text = forward._source and forward._source[0]
        else:
            text, path = read_source(given, ".tc")
            program = _core.TcProgram(text, path)
            if program.warnings:
                import warnings
                from . import CompileWarning
                warnings.warn(program.warnings, CompileWarning, stacklevel=4)
            function = Function(program, None, forward._device,
                                cache=forward._cache, source=(text, path))
        self._check_signature(function)
        return function, text

    def _check_signature(self, backward):
        forward = self._forward
        floats = self._float_inputs()
        want_in = len(forward.inputs) + 2 * len(forward.outputs)
        if len(backward.inputs) == want_in and \
                len(backward.outputs) == len(floats):
            return
        grads = ", ".join("d_" + name for name in forward.outputs)
        raise ValueError(
            f"the backward '{backward.name}' of '{forward.name}' takes "
            f"{len(backward.inputs)} inputs and returns "
            f"{len(backward.outputs)} outputs, but must take {want_in} "
            f"({', '.join(forward.inputs + forward.outputs)}, {grads}) and "
            f"return {len(floats)} (the gradients of "
            f"{', '.join(floats) or 'no input'})")

    def _wrt(self, wrt):
        """``wrt`` checked, in the forward's order; None: every
        floating-point input."""
        floats = self._float_inputs()
        if wrt is None:
            return floats
        wrt = [wrt] if isinstance(wrt, str) else list(wrt)
        for name in wrt:
            if name not in floats:
                raise ValueError(f"'{name}' is not a floating-point input of "
                                 f"'{self._forward.name}' ({', '.join(floats)})")
        return [name for name in floats if name in wrt]

    def _derive(self, wrt):
        """The derived backward for inputs ``wrt`` (all floating-point
        inputs: the key ()), as (Function, text), cached."""
        from ._tc import Function
        forward = self._forward
        key = () if wrt == self._float_inputs() else tuple(wrt)
        with self._lock:
            derived = self._derived.get(key)
        if derived is not None:
            return derived
        text, path = forward._source
        result = _core.derive_backward(text, forward.name, list(key), path)
        program = _core.TcProgram(result["source"],
                                  f"<backward of {forward.name}>")
        function = Function(program, result["name"], forward._device,
                            cache=forward._cache,
                            source=(result["source"], "<backward>"))
        with self._lock:
            derived = self._derived.setdefault(key, (function, result["source"]))
        return derived

    def resolve(self, wrt=None):
        """(backward Function, the input names its outputs are the gradients
        of) for the inputs ``wrt`` (None: every floating-point input)."""
        wrt = self._wrt(wrt)
        if self._given is not None:
            return self._given[0], self._float_inputs()
        return self._derive(wrt)[0], wrt

    def for_call(self, needs):
        """resolve() for an autograd call whose inputs need a gradient
        where ``needs`` holds (non-float inputs never do), cached."""
        found = self._for_call.get(needs)
        if found is None:
            params = self._forward._signature["inputs"]
            found = self.resolve([p["name"] for p, need in zip(params, needs)
                                  if need and _is_float(p)])
            with self._lock:
                found = self._for_call.setdefault(needs, found)
        return found

    def function(self, wrt=None):
        return self.resolve(wrt)[0]

    def source(self):
        if self._given is not None:
            return self._given[1]
        return self._derive(self._float_inputs())[1]

    def tune(self, arrays, sizes, wrt, options):
        """Tunes the backward at the sizes the forward has for ``arrays``
        (or ``sizes``): its parameters' shapes are the forward inputs' and
        outputs' (ranges at those sizes)."""
        forward = self._forward
        backward = self.function(wrt)
        if arrays:
            inputs = forward._inputs(arrays)
            bound = forward._bind(inputs, sizes)
            in_shapes = [list(a.shape) for a in inputs]
        elif sizes is not None:
            bound = forward._program.bind_sizes(forward.name, {}, dict(sizes))
            in_shapes = [[bound[d] if isinstance(d, str) else d
                          for d in p["dims"]]
                         for p in forward._signature["inputs"]]
        else:
            raise ValueError("tune_backward() needs the inputs or sizes=")
        outputs = forward.ranges(sizes=bound)["outputs"]
        out_shapes = [outputs[name]["shape"] for name in forward.outputs]
        shapes = dict(zip(backward.inputs,
                          in_shapes + out_shapes + out_shapes))
        bound_backward = backward._program.bind_sizes(
            backward.name, shapes, _sizes_for(backward, bound))
        return backward.tune(sizes=bound_backward, **options)


def _sizes_for(function, sizes):
    """The entries of ``sizes`` that are size variables of ``function``, or
    None where there are none (a call without sizes= takes the fast path of
    a signature seen before)."""
    given = {k: v for k, v in (sizes or {}).items() if k in function.size_vars}
    return given or None


def _host_array(tensor):
    """A CPU tensor as the NumPy array sharing its memory, which a CPU
    device reads in place; a tensor NumPy cannot view as it is (the call's
    checks say why). CUDA tensors never come here: comprehend._cuda runs
    them in place."""
    try:
        return tensor.detach().numpy()
    except (RuntimeError, TypeError):
        return tensor.detach()


def _run_on_host(function, tensors, sizes):
    """The forward on host memory: NumPy views of the tensors; its outputs
    as tensors sharing the arrays' memory."""
    import torch
    arrays = [_host_array(t) for t in tensors]
    return [torch.from_numpy(r) for r in function._run(arrays, None, sizes)]


def _run_backward_on_host(backward, saved, grads, sizes):
    """The backward on host memory: the forward's inputs, its outputs and
    their gradients as NumPy views; the gradients it returns, as tensors."""
    import torch
    arrays = [_host_array(t) for t in [*saved, *grads]]
    return [torch.from_numpy(r) for r in backward._run(arrays, None, sizes)]


_function_class = None
_function_class_lock = threading.Lock()


def _make_function_class():
    import torch
    from torch.autograd.function import once_differentiable

    class ComprehendFunction(torch.autograd.Function):
        """One call of a comprehend Function, recorded by autograd: the
        first two arguments are the Function and its sizes=, then the input
        tensors."""

        @staticmethod
        def forward(ctx, function, sizes, *tensors):
            ctx.function, ctx.sizes = function, sizes
            ctx.backward = function._backward.for_call(
                tuple(ctx.needs_input_grad[2:]))
            ctx.cuda = any(t.is_cuda for t in tensors)
            if ctx.cuda:
                # In place on the device, tensors out (comprehend._cuda).
                outputs = _cuda.run(function, tensors, None, sizes)
            else:
                outputs = _run_on_host(function, tensors, sizes)
            constant = [o for o in outputs if not o.is_floating_point()]
            if constant:
                ctx.mark_non_differentiable(*constant)
            ctx.save_for_backward(*tensors, *outputs)
            return outputs[0] if len(outputs) == 1 else tuple(outputs)

        @staticmethod
        @once_differentiable
        def backward(ctx, *grads):
            function = ctx.function
            saved = ctx.saved_tensors
            outputs = saved[len(function.inputs):]
            grads = [torch.zeros_like(o) if g is None else g
                     for g, o in zip(grads, outputs)]
            backward, names = ctx.backward
            sizes = _sizes_for(backward, ctx.sizes)
            if ctx.cuda:
                results = _cuda.run(backward, [*saved, *grads], None, sizes)
            else:
                results = _run_backward_on_host(backward, saved, grads, sizes)
            by_name = dict(zip(names, results))
            d_inputs = [by_name[name] if need and name in by_name else None
                        for name, need in zip(function.inputs,
                                              ctx.needs_input_grad[2:])]
            return (None, None, *d_inputs)

    return ComprehendFunction


def apply(function, arrays, sizes):
    """``function(*arrays, sizes=sizes)`` recorded by autograd: tensors out,
    with a grad_fn where a differentiable input requires grad."""
    global _function_class
    import torch
    if _function_class is None:
        with _function_class_lock:
            if _function_class is None:
                _function_class = _make_function_class()
    params = function._signature["inputs"]
    if len(arrays) != len(params):
        function._inputs(arrays)  # raises the count error
    tensors = []
    for param, value in zip(params, arrays):
        if not isinstance(value, torch.Tensor):
            what = f"input '{param['name']}' of '{function.name}'"
            value = torch.from_numpy(contiguous(as_array(value, what)))
        tensors.append(value)
    return _function_class.apply(function, sizes, *tensors)
