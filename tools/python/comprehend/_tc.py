"""Tensor Comprehensions as Python callables (``comprehend.define``)."""

import json
import os
import statistics
import sys
import threading

import numpy as np

from . import _autograd, _core, _cuda
from ._arrays import (as_array, as_writable, check_dtype, contiguous,
                      empty_aligned, format_shape)
from ._progress import make_writer


def read_source(source, suffix):
    """``source`` itself and "<string>", or the text of the file it names
    and its path. One line ending in ``suffix`` is a path (no source text
    ends so): FileNotFoundError where no such file exists, not a parse
    error of the path as text."""
    if (isinstance(source, os.PathLike)
            or ("\n" not in source and source.endswith(suffix))):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such {suffix} file: {path}")
        with open(path, encoding="utf-8") as file:
            return file.read(), path
    return source, "<string>"


class Timing:
    """Kernel times of repeated launches, from OpenCL profiling events (a def
    lowered to several kernels: the sum of its kernels per launch).
    ``float(timing)`` is the median in milliseconds."""

    def __init__(self, kernel_ms, wall_ms):
        self.kernel_ms = list(kernel_ms)
        self.wall_ms = list(wall_ms)

    @property
    def median_ms(self):
        return statistics.median(self.kernel_ms)

    @property
    def min_ms(self):
        return min(self.kernel_ms)

    def __float__(self):
        return float(self.median_ms)

    def __repr__(self):
        return (f"Timing(median_ms={self.median_ms:.4f}, "
                f"runs={len(self.kernel_ms)})")


class TuneResult:
    """What ``Function.tune`` found: the answer (``config``: the default
    unless a finalist confirmed a clear gain, ``improved``, ``verdict``), its
    time and the default's (median ms), the speed-up, and where it was
    cached."""

    def __init__(self, summary):
        self.config = dict(summary["config"])
        self.default_config = dict(summary["default_config"])
        self.best_ms = summary["best_ms"]
        self.default_ms = summary["default_ms"]
        self.speedup = summary["speedup"]
        self.evaluations = summary["evaluations"]
        self.failed = summary["failed"]
        self.wrong = summary["wrong"]
        self.wrong_candidates = list(summary["wrong_candidates"])
        self.improved = summary["improved"]
        self.verdict = summary["verdict"]
        self.confirm_rounds = summary["confirm_rounds"]
        self.elapsed_s = summary["elapsed_s"]
        self.cache_path = summary["cache_path"] or None

    def __repr__(self):
        return (f"TuneResult(speedup={self.speedup:.2f}, "
                f"best_ms={self.best_ms:.4f}, default_ms={self.default_ms:.4f}, "
                f"evaluations={self.evaluations}, config={self.config})")


class Function:
    """One def of a TC source, callable with arrays.

    Calling it infers the size variables from the inputs' shapes, compiles
    the def for those sizes (once per distinct binding; the tuning cache's
    configuration is used when it has one), runs it on the device and returns
    new NumPy arrays for the outputs (one array, or a tuple for several), or
    writes them into ``out=``."""

    def __init__(self, program, entry, device, config=None, cache=None,
                 source=None, backward=None):
        self._program = program
        self._signature = program.signature(entry or "")
        self._device = device
        self._config = None if config is None else dict(config)
        self._cache = cache or ""
        self._kernels = {}
        # Per call signature (the inputs' shapes and dtypes): the kernel and
        # its outputs, so that a call at a compiled shape skips size binding
        # and the checks that the signature already passed (see _fast_run).
        self._calls = {}
        self._lock = threading.Lock()
        self._last = None
        # The TC text and its path (the backward is derived from them), and
        # the backward the caller gave (see comprehend._autograd).
        self._source = source
        self._backward = _autograd.BackwardDefs(self, backward)

    # -- what the def is ---------------------------------------------------

    @property
    def name(self):
        return self._signature["name"]

    @property
    def inputs(self):
        """Input names, in order."""
        return [p["name"] for p in self._signature["inputs"]]

    @property
    def outputs(self):
        """Output names, in order."""
        return [p["name"] for p in self._signature["outputs"]]

    @property
    def size_vars(self):
        return list(self._signature["size_vars"])

    @property
    def device(self):
        return self._device.name

    @property
    def config(self):
        """The configuration of the kernel compiled last (``{}``: every knob
        at its default), or None before the first call."""
        return None if self._last is None else dict(self._last.config)

    @property
    def config_source(self):
        """"default", "given" or "tuning-cache" for the kernel compiled last."""
        return None if self._last is None else self._last.config_source

    @property
    def compiled(self):
        """The size bindings compiled so far (one kernel each)."""
        with self._lock:
            return [dict(key) for key in self._kernels]

    def __repr__(self):
        ins = ", ".join(self.inputs)
        outs = ", ".join(self.outputs)
        return f"<comprehend.Function {self.name}({ins}) -> ({outs})>"

    # -- arguments ---------------------------------------------------------

    def _inputs(self, arrays):
        params = self._signature["inputs"]
        if len(arrays) != len(params):
            raise ValueError(
                f"'{self.name}' takes {len(params)} input"
                f"{'' if len(params) == 1 else 's'} ({', '.join(self.inputs)}),"
                f" got {len(arrays)}")
        converted = []
        for param, value in zip(params, arrays):
            what = f"input '{param['name']}' of '{self.name}'"
            array = as_array(value, what)
            self._check_dtype(param, array, what)
            converted.append(contiguous(array))
        return converted

    def _check_dtype(self, param, array, what):
        if param["dtype"] is None:
            raise ValueError(f"{what} has element type {param['type']}, "
                             "which the device does not support yet")
        check_dtype(array, param["dtype"], what, param["type"])

    def _outs(self, out):
        """``out=`` as a list aligned with the outputs (None: not given)."""
        params = self._signature["outputs"]
        if out is None:
            return [None] * len(params)
        if isinstance(out, dict):
            unknown = set(out) - set(self.outputs)
            if unknown:
                raise ValueError(f"'{self.name}' has no output "
                                 f"{', '.join(sorted(map(repr, unknown)))}")
            values = [out.get(name) for name in self.outputs]
        elif isinstance(out, (list, tuple)):
            values = list(out)
        else:
            values = [out]
        if len(values) != len(params):
            raise ValueError(f"out= needs {len(params)} arrays "
                             f"({', '.join(self.outputs)}), got {len(values)}")
        result = []
        for param, value in zip(params, values):
            if value is None:
                result.append(None)
                continue
            what = f"output '{param['name']}' of '{self.name}' (out=)"
            array = as_writable(value, what)
            self._check_dtype(param, array, what)
            result.append(array)
        return result

    def _bind(self, inputs, sizes=None, outs=None):
        shapes = {p["name"]: list(a.shape)
                  for p, a in zip(self._signature["inputs"], inputs)}
        for param, array in zip(self._signature["outputs"], outs or []):
            if array is not None and param["dims"] is not None:
                shapes[param["name"]] = list(array.shape)
        return self._program.bind_sizes(self.name, shapes, dict(sizes or {}))

    def _kernel(self, sizes):
        key = tuple(sorted(sizes.items()))
        with self._lock:
            kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._program.compile(
                self._device, self.name, sizes, config=self._config,
                use_cache=True, cache_path=self._cache)
            with self._lock:
                kernel = self._kernels.setdefault(key, kernel)
        self._last = kernel
        return kernel

    def _load(self, kernel, inputs, outs):
        """Writes the inputs and the incoming values of the outputs that take
        one (from out=, else zeros); returns the kernel's output tensors."""
        tensors = {t["name"]: t for t in kernel.tensors}
        for param, array in zip(self._signature["inputs"], inputs):
            kernel.write(param["name"], array)
        outputs = []
        for param, array in zip(self._signature["outputs"], outs):
            tensor = tensors[param["name"]]
            self._check_out_shape(param, tensor, array)
            if tensor["incoming"]:
                if array is not None:
                    kernel.write(param["name"], contiguous(array))
                else:
                    kernel.fill(param["name"], 0)
            outputs.append(tensor)
        return outputs

    def _check_out_shape(self, param, tensor, array):
        if array is not None and tuple(array.shape) != tensor["shape"]:
            raise ValueError(
                f"output '{param['name']}' of '{self.name}' has shape "
                f"{format_shape(tensor['shape'])} at these sizes, but the "
                f"out= array has shape {format_shape(array.shape)}")

    def _call_outputs(self, kernel, outs):
        """The arrays kernel.call fills: the out= array where it is in C
        order, else a new one holding the incoming value (out='s, or zeros)
        for an output that takes one."""
        tensors = {t["name"]: t for t in kernel.tensors}
        arrays = []
        for param, target in zip(self._signature["outputs"], outs):
            tensor = tensors[param["name"]]
            self._check_out_shape(param, tensor, target)
            if target is not None and target.flags.c_contiguous:
                arrays.append(target)
            elif target is not None and tensor["incoming"]:
                arrays.append(contiguous(target))
            else:
                arrays.append(empty_aligned(tensor["shape"], tensor["dtype"],
                                            zero=tensor["incoming"]))
        return arrays

    # -- calls -------------------------------------------------------------

    def __call__(self, *arrays, out=None, sizes=None):
        """Runs the def on ``arrays`` (its inputs, in order).

        ``out=``: an array, a sequence of arrays (None for outputs to
        allocate) or a dict by output name; results are written there, and
        an output that the def reads before it writes it (``+=`` without
        ``!``) starts from that array's contents (zeros otherwise).
        ``sizes=``: size variables that no input's shape gives.

        With a PyTorch tensor that requires grad among the inputs (and grad
        mode on), the outputs are tensors recorded by autograd
        (comprehend._autograd); with PyTorch CUDA tensors, tensors on the
        same device, computed in place there (comprehend._cuda); otherwise
        NumPy arrays."""
        if _autograd.wants_grad(arrays):
            if out is not None:
                raise ValueError(
                    f"'{self.name}': out= is not supported when an input "
                    "requires grad (autograd records new outputs only)")
            return _autograd.apply(self, arrays, sizes)
        results = self._run(arrays, out, sizes)
        return results[0] if len(results) == 1 else tuple(results)

    def _run(self, arrays, out=None, sizes=None):
        """Runs the def; the list of its outputs (see __call__)."""
        if _cuda.has_cuda_tensor(arrays):
            return _cuda.run(self, arrays, out, sizes)
        if sizes is None and out is None:
            results = self._fast_run(arrays)
            if results is not None:
                return results
        inputs = self._inputs(arrays)
        outs = self._outs(out)
        kernel = self._kernel(self._bind(inputs, sizes, outs))
        if sizes is None and out is None:
            self._remember_call(inputs, kernel)
        arrays = self._call_outputs(kernel, outs)
        kernel.call(inputs, arrays)
        results = []
        for array, target, given in zip(arrays, outs, self._out_objects(out)):
            if target is None:
                results.append(array)
                continue
            if array is not target:
                target[...] = array
            results.append(given)
        return results

    @staticmethod
    def _call_key(arrays):
        """The call signature of ``arrays`` and them as NumPy arrays, or
        None where one is not a plain array (the full path converts it and
        says what is wrong)."""
        torch = sys.modules.get("torch")
        tensor_type = torch.Tensor if torch is not None else None
        key = []
        converted = []
        for value in arrays:
            if type(value) is not np.ndarray:
                try:
                    if type(value) is tensor_type:
                        # What np.asarray gives (Tensor.__array__ calls
                        # it), in half the time.
                        value = value.numpy()
                    elif hasattr(value, "__array__"):
                        value = np.asarray(value)
                    else:
                        return None
                except Exception:  # the full path reports it
                    return None
            key.append((value.shape, value.dtype))
            converted.append(value)
        return tuple(key), converted

    def _remember_call(self, inputs, kernel):
        """Files ``kernel`` under the signature of ``inputs`` (checked by the
        full path)."""
        key = tuple((a.shape, a.dtype) for a in inputs)
        with self._lock:
            self._calls[key] = kernel

    def _fast_run(self, arrays):
        """A call at a signature seen before: one kernel.call_fresh with the
        inputs (copied only when not in C order), which returns new outputs
        (zeros on entry where the def adds to the incoming value; aligned,
        see _arrays.HOST_ALIGNMENT); None on a miss."""
        found = self._call_key(arrays)
        if found is None:
            return None
        key, inputs = found
        kernel = self._calls.get(key)
        if kernel is None:
            return None
        inputs = [a if a.flags.c_contiguous else np.ascontiguousarray(a)
                  for a in inputs]
        results = kernel.call_fresh(inputs)
        self._last = kernel
        return results

    def _out_objects(self, out):
        """The caller's own out= objects (returned as given), aligned."""
        if out is None:
            return [None] * len(self.outputs)
        if isinstance(out, dict):
            return [out.get(name) for name in self.outputs]
        if isinstance(out, (list, tuple)):
            return list(out)
        return [out]

    def time(self, *arrays, repeat=10, sizes=None, out=None):
        """Runs the def ``repeat`` times on ``arrays`` after one warm-up
        launch and returns the Timing (``float()`` of it: the median kernel
        time in ms). Outputs that take an incoming value start from ``out=``
        (or zeros) in every launch."""
        if repeat < 1:
            raise ValueError("repeat must be at least 1")
        inputs = self._inputs(arrays)
        outs = self._outs(out)
        kernel = self._kernel(self._bind(inputs, sizes, outs))
        self._load(kernel, inputs, outs)
        kernel.run(1)
        timing = kernel.run(repeat)
        return Timing(timing["kernel_ms"], timing["wall_ms"])

    def tune(self, *arrays, sizes=None, budget=None, evals=None,
             progress=None, repeat=10, seed=1, cache=None):
        """Autotunes the def at the sizes of ``arrays`` (or ``sizes=``) as
        ``comprehend tune`` does: random inputs, every candidate checked
        against the default's outputs and timed; the best configuration goes
        into the tuning cache (the CLI's, or ``cache=``), which later calls
        at these sizes use. ``budget``: seconds; ``evals``: candidates
        (default 40 when neither is given). ``progress``: see
        comprehend._progress. Returns a TuneResult."""
        if arrays:
            inputs = self._inputs(arrays)
        else:
            inputs = []
            if sizes is None:
                raise ValueError("tune() needs the inputs or sizes=")
        bound = (self._bind(inputs, sizes) if arrays
                 else self._program.bind_sizes(self.name, {}, dict(sizes)))
        summary = self._program.tune(
            self._device, self.name, bound, evals=int(evals or 0),
            budget=float(budget or 0.0), seed=int(seed), repeat=int(repeat),
            cache_path=cache or self._cache, progress=make_writer(progress))
        if summary["warnings"]:
            import warnings
            warnings.warn(summary["warnings"], stacklevel=2)
        # The next call at these sizes compiles again and finds the result.
        with self._lock:
            self._kernels.pop(tuple(sorted(bound.items())), None)
            self._calls.clear()
        return TuneResult(summary)

    # -- what the CLI shows --------------------------------------------------

    def _kernel_for(self, arrays, sizes):
        if arrays:
            bound = self._bind(self._inputs(arrays), sizes)
        elif sizes is not None:
            bound = self._program.bind_sizes(self.name, {}, dict(sizes))
        else:
            raise ValueError("give the inputs or sizes=")
        return self._kernel(bound)

    def ranges(self, *arrays, sizes=None):
        """Each statement's index ranges and the output shapes, as
        ``comprehend ranges`` prints them (a dict; symbolic only when no
        sizes are given)."""
        if arrays:
            bound = self._bind(self._inputs(arrays), sizes)
        else:
            bound = dict(sizes or {})
        return json.loads(self._program.ranges(self.name, bound))

    def ir(self, *arrays, sizes=None, lowered=False):
        """The tensor-language IR of the def at these sizes with the
        configuration it runs with (``compile --emit ir``); ``lowered=True``:
        after the backend's passes (``--emit lowered-ir``)."""
        kernel = self._kernel_for(arrays, sizes)
        return kernel.lowered_ir() if lowered else kernel.ir()

    def spirv(self, *arrays, sizes=None, disassemble=True):
        """The SPIR-V module that runs on the device: its disassembly
        (``--emit spirv-asm``), or the binary with ``disassemble=False``."""
        kernel = self._kernel_for(arrays, sizes)
        return kernel.spirv_asm() if disassemble else kernel.spirv()

    # -- gradients (comprehend._autograd) -----------------------------------

    @property
    def backward_def(self):
        """The TC text of the backward def: derived from this def (every
        floating-point input differentiated), or the one given as
        ``backward=``. Its parameters are this def's inputs, its outputs and
        d_<O> per output; it returns d_<I> per floating-point input."""
        return self._backward.source()

    def backward_function(self, wrt=None):
        """The backward def as a comprehend Function (compiled, cached and
        tuned like any def). ``wrt``: the input names to differentiate (a
        derived backward only; default: every floating-point input)."""
        return self._backward.function(wrt)

    def tune_backward(self, *arrays, sizes=None, wrt=None, **options):
        """Autotunes the backward def at the sizes of the forward inputs
        ``arrays`` (or ``sizes=``); the options are tune()'s. Returns a
        TuneResult."""
        return self._backward.tune(arrays, sizes, wrt, options)
