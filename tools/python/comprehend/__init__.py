"""Comprehend from Python: Tensor Comprehensions and tensor-language kernels,
compiled to SPIR-V, run through OpenCL and autotuned.

    import comprehend, numpy as np
    mm = comprehend.define('''
        def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }
    ''')
    C = mm(np.ones((3, 4), 'f4'), np.ones((4, 5), 'f4'))
    mm.tune(A, B, budget=30)        # stored in the tuning cache the CLI uses
    print(mm.time(A, B, repeat=20))

docs/python.md has the whole API.
"""

import os
import re
import threading
import warnings as _warnings

try:
    from . import _core
except ImportError as _error:  # pragma: no cover - depends on the build
    raise ImportError(
        "comprehend's extension module did not load; it is built by CMake "
        "for one Python version (see docs/python.md): " + str(_error)
    ) from _error

from ._ir import IrProgram, Kernel
from ._tc import Function, Timing, TuneResult
from ._tc import read_source as _read_source

CompileError = _core.CompileError
DeviceError = _core.DeviceError

__all__ = [
    "CompileError", "CompileWarning", "DeviceError", "Function", "IrProgram",
    "Kernel", "Timing", "TuneResult", "check", "define", "devices",
    "load_ir", "release_memory",
]
__version__ = "0.1.0"


class CompileWarning(UserWarning):
    """A warning of the TC or tensor-language checker (the located text)."""


_devices = {}
_devices_lock = threading.Lock()


def _device(device):
    """The opened device for ``device``: None (the default: the
    COMPREHEND_DEVICE environment variable, else the first device that runs
    kernels), an index into devices(), a name substring, or a devices()
    entry."""
    if isinstance(device, dict):
        device = device["index"]
    spec = "" if device is None else str(device)
    with _devices_lock:
        opened = _devices.get(spec)
        if opened is None:
            opened = _devices[spec] = _core.Device(spec)
        return opened


def devices():
    """Every OpenCL device, then every CUDA device: a list of dicts (index,
    ``api``: "opencl" or "cuda", name, platform, type, versions, ``core``: the
    core info the backend compiles for). ``device=`` takes an index, "cuda",
    "cuda:N", "opencl:N" or a name substring."""
    return _core.list_devices()


def release_memory():
    """Frees the host memory that the outputs of earlier calls left for
    reuse, and returns the bytes freed. An output of 1 MiB or more keeps its
    memory when it dies (up to 512 MiB in all, or a sixteenth of the
    machine's memory where that is less) for the next output of its size,
    whose pages are then already mapped; from 2 MiB on that memory is in
    huge pages unless COMPREHEND_HUGE_PAGES=0 (docs/python.md)."""
    return _core.release_output_memory()


def _warn(text):
    if text:
        _warnings.warn(text, CompileWarning, stacklevel=3)


def define(source, name=None, device=None, *, config=None, cache=None,
           backward=None):
    """A callable Function for def ``name`` of TC ``source`` (text or a path
    to a .tc file; default: the last def, as the CLI picks).

    ``device``: see devices(); ``config``: tuning parameters by name
    (docs/tuning.md) instead of the tuning cache's; ``cache``: a tuning cache
    file instead of the CLI's default. ``backward``: the backward def that
    autograd runs instead of the derived one: the name of a def of
    ``source``, TC text or a .tc path (its last def), or a Function; it
    takes this def's inputs, its outputs and the outputs' gradients, and
    returns the gradients of the floating-point inputs, in order. Raises
    CompileError with the located diagnostics when the source is invalid."""
    text, path = _read_source(source, ".tc")
    program = _core.TcProgram(text, path)
    _warn(program.warnings)
    return Function(program, name, _device(device), config=config,
                    cache=cache, source=(text, path), backward=backward)


def load_ir(source_or_path, device=None):
    """Parses, verifies and compiles a tensor-language program (text or a
    path to a .ir file) for ``device``; its functions become kernels callable
    with arrays and a grid."""
    text, path = _read_source(source_or_path, ".ir")
    program = _core.IrProgram(_device(device), text, path)
    _warn(program.warnings)
    return IrProgram(program)


def _guess_language(text):
    if re.search(r"^\s*def\s", text, re.MULTILINE):
        return "tc"
    return "ir"


def check(source, lang=None):
    """Parses and checks TC or tensor-language ``source`` (text or a path;
    ``lang`` "tc" or "ir", else from the file's suffix or the text). Raises
    CompileError whose message is the located diagnostics; returns the
    warnings' text ("" when there are none)."""
    if isinstance(source, os.PathLike) or (
            "\n" not in source and os.path.isfile(source)):
        path = os.fspath(source)
        with open(path, encoding="utf-8") as file:
            text = file.read()
        if lang is None:
            lang = "ir" if path.endswith(".ir") else "tc"
    else:
        text, path = source, "<string>"
    lang = lang or _guess_language(text)
    if lang == "tc":
        return _core.TcProgram(text, path).warnings
    if lang == "ir":
        return _core.check_ir(text, path)
    raise ValueError(f"lang= takes 'tc' or 'ir', not {lang!r}")
