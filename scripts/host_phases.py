"""Where the host's time goes in a forward + backward through comprehend's
autograd path (scripts/gpu-autograd.py --host).

The wall time of back-to-back iterations is the host's whenever the host is
slower than the device: this module times the Python layer's phases of such
iterations, each phase wrapped by a timer (inclusive: a phase's time holds
the phases it calls), and beside them two baselines of the same iterations'
machinery: PyTorch's autograd engine running an identity
``torch.autograd.Function`` whose backward is Python, and the backward def
called directly, outside autograd. Works on any device (CPU tensors take
the host-memory path, CUDA tensors comprehend._cuda's)."""

import statistics
import time

import torch

from comprehend import _autograd, _core, _cuda


class _Timers:
    def __init__(self):
        self.seconds = {}
        self.counts = {}
        self.undo = []

    def wrap(self, owner, attribute, name, static=False):
        """Replaces ``owner.attribute`` with a timed wrapper (undone by
        restore()); nothing where ``owner`` has no such attribute (an
        earlier package, timed as a baseline)."""
        if not hasattr(owner, attribute):
            return
        original = owner.__dict__[attribute] if static else getattr(
            owner, attribute)
        inner = original.__func__ if static else original
        seconds, counts = self.seconds, self.counts
        seconds.setdefault(name, 0.0)
        counts.setdefault(name, 0)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                seconds[name] += time.perf_counter() - start
                counts[name] += 1

        try:
            setattr(owner, attribute, staticmethod(timed) if static else timed)
        except (AttributeError, TypeError):  # a type that refuses it
            return
        self.undo.append((owner, attribute, original))

    def restore(self):
        for owner, attribute, original in reversed(self.undo):
            setattr(owner, attribute, original)
        self.undo.clear()


def _loop_ms(step, calls, rounds, synchronize):
    step()
    synchronize()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            step()
        synchronize()
        times.append((time.perf_counter() - start) / calls * 1e3)
    return statistics.median(times)


class _Identity(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor):
        return tensor.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad


def _forward_backward(function, inputs, grad):
    for tensor in inputs:
        tensor.grad = None
    function(*inputs).backward(grad)


def host_phases(function, inputs, grad, calls=50, rounds=5):
    """{"wall_ms", "phases": [[name, us per iteration, calls per
    iteration]], "identity_ms", "backward_direct_ms", "forward_direct_ms"}
    for ``function`` (a comprehend Function) on ``inputs`` (tensors that
    require grad) with output gradient ``grad``."""
    cuda = grad.is_cuda
    synchronize = torch.cuda.synchronize if cuda else (lambda: None)
    results = {"wall_ms": _loop_ms(
        lambda: _forward_backward(function, inputs, grad), calls, rounds,
        synchronize)}
    timers = _Timers()
    cls = _autograd._function_class
    timers.wrap(torch.Tensor, "backward", "Tensor.backward")
    timers.wrap(_autograd, "apply", "_autograd.apply")
    timers.wrap(cls, "forward", "ComprehendFunction.forward", static=True)
    timers.wrap(cls, "backward", "ComprehendFunction.backward", static=True)
    timers.wrap(_cuda, "run", "_cuda.run")
    timers.wrap(_cuda, "_fast_run", "_cuda._fast_run")
    timers.wrap(_core.TcKernel, "call_on_device", "TcKernel.call_on_device")
    timers.wrap(_core.TcKernel, "call_fresh", "TcKernel.call_fresh")
    timers.wrap(_cuda, "_raw_stream", "_cuda._raw_stream")
    iterations = calls * rounds
    try:
        for _ in range(iterations):
            _forward_backward(function, inputs, grad)
        synchronize()
    finally:
        timers.restore()
    results["phases"] = sorted(
        ([name, timers.seconds[name] / iterations * 1e6,
          timers.counts[name] / iterations]
         for name in timers.seconds if timers.counts[name]),
        key=lambda phase: -phase[1])
    probe = [torch.zeros_like(grad, requires_grad=True)]
    results["identity_ms"] = _loop_ms(
        lambda: _forward_backward(_Identity.apply, probe, grad), calls,
        rounds, synchronize)
    with torch.no_grad():
        plain = [t.detach() for t in inputs]
        outputs = function(*plain)
        outputs = list(outputs) if isinstance(outputs, tuple) else [outputs]
        backward, _ = function._backward.for_call(
            tuple(t.requires_grad for t in inputs))
        arrays = plain + outputs + [grad]
        results["forward_direct_ms"] = _loop_ms(
            lambda: function(*plain), calls, rounds, synchronize)
        results["backward_direct_ms"] = _loop_ms(
            lambda: backward(*arrays), calls, rounds, synchronize)
    results["micro"] = host_micro(function, inputs)
    return results


def _micro_us(step, count=2000):
    step()
    start = time.perf_counter()
    for _ in range(count):
        step()
    return (time.perf_counter() - start) / count * 1e6


def host_micro(function, inputs):
    """Microseconds per call of the host operations a call on ``inputs``
    makes (the operations' own cost, the device not waited for)."""
    tensor = inputs[0].detach()
    costs = {"Tensor.get_device": _micro_us(tensor.get_device),
             "Tensor.is_contiguous": _micro_us(tensor.is_contiguous),
             "Tensor.data_ptr": _micro_us(tensor.data_ptr),
             "torch.empty like input": _micro_us(lambda: torch.empty(
                 tensor.shape, dtype=tensor.dtype, device=tensor.device))}
    if tensor.is_cuda:
        index = tensor.get_device()
        costs["torch.cuda.current_stream().cuda_stream"] = _micro_us(
            lambda: torch.cuda.current_stream(index).cuda_stream)
        raw_stream = getattr(_cuda, "_raw_stream", None)
        if raw_stream is not None:
            costs["_cuda._raw_stream"] = _micro_us(
                lambda: raw_stream(torch, index))
        kernel = function._last
        plain = [t.detach() for t in inputs]
        with torch.no_grad():
            outputs = function(*plain)
        outputs = list(outputs) if isinstance(outputs, tuple) else [outputs]
        in_pointers = [t.data_ptr() for t in plain]
        out_pointers = [t.data_ptr() for t in outputs]
        stream = torch.cuda.current_stream(index).cuda_stream
        # Device-bound kernels fill the launch queue: time few calls.
        costs["TcKernel.call_on_device (same pointers)"] = _micro_us(
            lambda: kernel.call_on_device(in_pointers, out_pointers, stream),
            count=20)
        torch.cuda.synchronize()
    return costs


def print_host_phases(name, phases):
    print(f"host time of {name}: wall {phases['wall_ms']:.3f} ms per "
          f"iteration; identity Function fwd+bwd {phases['identity_ms']:.3f}; "
          f"forward def alone {phases['forward_direct_ms']:.3f}, backward def "
          f"alone {phases['backward_direct_ms']:.3f} (no autograd)")
    for phase, us, count in phases["phases"]:
        print(f"    {us:9.1f} us  x{count:g}  {phase}")
    for operation, us in phases.get("micro", {}).items():
        print(f"    {us:9.2f} us  alone  {operation}")

