"""Calls with PyTorch CUDA tensors.

A ``comprehend.define``d function on a CUDA device (``device="cuda"``) that
is called with tensors in that device's memory runs its kernels on them in
place: nothing is copied to or from the host. Its outputs are new tensors on
the same device (or the ``out=`` tensors), and its launches go to PyTorch's
current stream on that device without waiting for them, so they order with
the model's other work as PyTorch's own operations do. Inside autograd the
same holds for the backward defs (comprehend._autograd).

Inputs must all be tensors on the function's device (Python and NumPy
scalars are allowed for 0-d inputs), as PyTorch asks of its own operations.
"""

import sys

import numpy as np

from ._arrays import format_shape


def has_cuda_tensor(arrays):
    """Whether one of ``arrays`` is a PyTorch tensor in CUDA memory (torch
    is only looked at when the caller imported it)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    return any(isinstance(a, torch.Tensor) and a.is_cuda for a in arrays)


def _numpy_dtype(tensor, what):
    name = str(tensor.dtype).replace("torch.", "")
    try:
        return np.dtype(name)
    except TypeError:
        raise ValueError(f"{what} has element type {name}, which comprehend "
                         "does not support") from None


def _target(function):
    """The torch.device of ``function``'s CUDA device; a ValueError when it
    runs elsewhere."""
    import torch
    info = function._device.info
    if info["api"] != "cuda":
        raise ValueError(
            f"'{function.name}' was called with CUDA tensors, but it runs on "
            f"{info['name']} ({info['api']}): define it with device=\"cuda\" "
            "to run on them, or pass tensors in host memory")
    return torch.device("cuda", info["platform_index"])


def _inputs(function, arrays, target):
    import torch
    params = function._signature["inputs"]
    if len(arrays) != len(params):
        function._inputs(arrays)  # raises the count error
    tensors = []
    for param, value in zip(params, arrays):
        what = f"input '{param['name']}' of '{function.name}'"
        if not isinstance(value, torch.Tensor) and np.ndim(value) == 0:
            dtype = getattr(torch, np.dtype(param["dtype"]).name)
            value = torch.tensor(value, dtype=dtype, device=target)
        if not isinstance(value, torch.Tensor) or value.device != target:
            where = (value.device if isinstance(value, torch.Tensor)
                     else "host memory")
            raise ValueError(f"{what} is in {where}, but the call runs on "
                             f"{target}: pass every input on {target}")
        function._check_dtype(param, np.empty(0, _numpy_dtype(value, what)),
                              what)
        tensors.append(value.detach().contiguous())
    return tensors


def _outs(function, out, target):
    """``out=`` as tensors on ``target`` aligned with the outputs (None:
    allocate)."""
    import torch
    given = function._out_objects(out)
    if out is not None and len(given) != len(function.outputs):
        function._outs(out)  # raises the count error
    for param, value in zip(function._signature["outputs"], given):
        if value is None:
            continue
        what = f"output '{param['name']}' of '{function.name}' (out=)"
        if not isinstance(value, torch.Tensor) or value.device != target:
            raise ValueError(f"{what} must be a tensor on {target}")
        function._check_dtype(param, np.empty(0, _numpy_dtype(value, what)),
                              what)
    return given


def _overlaps(a, b):
    start_a, start_b = a.data_ptr(), b.data_ptr()
    end_a = start_a + a.numel() * a.element_size()
    end_b = start_b + b.numel() * b.element_size()
    return start_a < end_b and start_b < end_a


def _call_key(torch, arrays):
    """The call signature of tensors ``arrays`` in Function._calls (apart
    from the host path's by a leading "cuda"), or None."""
    key = ["cuda"]
    for value in arrays:
        if not isinstance(value, torch.Tensor):
            return None
        key.append((value.shape, value.dtype, value.get_device()))
    return tuple(key)


def _raw_stream(torch, index):
    """The CUstream of PyTorch's current stream on cuda:``index``, as an
    integer: torch._C's getter where this PyTorch has it (what its own
    compiled kernels launch on), a tenth of the time of building a
    torch.cuda.Stream to read it from."""
    getter = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if getter is not None:
        return getter(index)
    return torch.cuda.current_stream(index).cuda_stream


def _fast_run(torch, function, arrays, key):
    """A call at a signature seen before: its kernel and output shapes
    without size binding or the checks the signature passed; None on a
    miss. A tensor not in row-major order is copied (on the current stream,
    so that the copy is not reused before the kernels read it)."""
    entry = function._calls.get(key)
    if entry is None:
        return None
    kernel, outputs, target = entry
    inputs = [a if a.is_contiguous() else a.contiguous() for a in arrays]
    results = [torch.zeros(shape, dtype=dtype, device=target) if incoming
               else torch.empty(shape, dtype=dtype, device=target)
               for shape, dtype, incoming in outputs]
    kernel.call_on_device([t.data_ptr() for t in inputs],
                          [r.data_ptr() for r in results],
                          _raw_stream(torch, target.index))
    function._last = kernel
    return results


def run(function, arrays, out=None, sizes=None):
    """``function(*arrays, out=out, sizes=sizes)`` on CUDA tensors: the list
    of its outputs, tensors on the same device."""
    import torch
    key = _call_key(torch, arrays) if out is None and sizes is None else None
    if key is not None:
        results = _fast_run(torch, function, arrays, key)
        if results is not None:
            return results
    target = _target(function)
    inputs = _inputs(function, arrays, target)
    given = _outs(function, out, target)
    kernel = function._kernel(function._bind(inputs, sizes, given))
    tensors = {t["name"]: t for t in kernel.tensors}
    results, targets = [], []
    for param, value in zip(function._signature["outputs"], given):
        tensor = tensors[param["name"]]
        dtype = getattr(torch, np.dtype(tensor["dtype"]).name)
        if value is not None and tuple(value.shape) != tensor["shape"]:
            raise ValueError(
                f"output '{param['name']}' of '{function.name}' has shape "
                f"{format_shape(tensor['shape'])} at these sizes, but the "
                f"out= tensor has shape {format_shape(value.shape)}")
        usable = (value is not None and value.is_contiguous() and
                  not any(_overlaps(value, t) for t in inputs))
        if usable:
            result = value
        elif value is not None and tensor["incoming"]:
            result = value.clone(memory_format=torch.contiguous_format)
        elif tensor["incoming"]:
            result = torch.zeros(tensor["shape"], dtype=dtype, device=target)
        else:
            result = torch.empty(tensor["shape"], dtype=dtype, device=target)
        results.append(result)
        targets.append(None if usable or value is None else value)
    kernel.call_on_device([t.data_ptr() for t in inputs],
                          [r.data_ptr() for r in results],
                          _raw_stream(torch, target.index))
    function._last = kernel
    if key is not None:
        outputs = [(r.shape, r.dtype, tensors[p["name"]]["incoming"])
                   for r, p in zip(results, function._signature["outputs"])]
        with function._lock:
            function._calls[key] = (kernel, outputs, target)
    for i, value in enumerate(targets):
        if value is not None:
            value.copy_(results[i])
            results[i] = value
    return results
