"""Turning what callers pass (NumPy arrays, PyTorch CPU tensors, anything with
``__array__`` or DLPack, Python numbers) into what the C++ side takes."""

import numpy as np


def as_array(value, what):
    """A NumPy array viewing ``value`` where possible (no copy for NumPy
    arrays and PyTorch CPU tensors)."""
    if isinstance(value, np.ndarray):
        return value
    try:
        if not hasattr(value, "__array__") and hasattr(value, "__dlpack__"):
            return np.from_dlpack(value)
        return np.asarray(value)
    except Exception as error:  # the producer's own message says why
        raise ValueError(
            f"{what}: cannot use {type(value).__name__} as an array: {error}"
        ) from error


def contiguous(array):
    """``array`` in row-major order, copied only when it is not; a 0-d array
    stays 0-d (np.ascontiguousarray would make it 1-d)."""
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)


# A CPU device reads an input array in place at any address (its elements'
# alignment) and writes an output in place where it starts at a multiple of
# 64 bytes (runtime/lib/OpenCLPlatform.cpp, wrapHostMemory and
# kMaxInPlaceAlignment). The arrays this package allocates start at a
# multiple of HOST_ALIGNMENT. The outputs of a call at a compiled shape are
# allocated by TcKernel.call_fresh (tools/python/src/TcKernelBindings.cpp,
# kHostAlignment) at the same alignment.
HOST_ALIGNMENT = 256


def empty_aligned(shape, dtype, zero=False):
    """A new C-order array of ``shape`` starting at a multiple of
    HOST_ALIGNMENT; zeros with ``zero``."""
    dtype = np.dtype(dtype)
    count = 1
    for extent in shape:
        count *= extent
    nbytes = max(count * dtype.itemsize, 1)
    raw = (np.zeros if zero else np.empty)(nbytes + HOST_ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % HOST_ALIGNMENT
    return raw[start:start + count * dtype.itemsize].view(dtype).reshape(shape)


def as_writable(value, what):
    """Like as_array, but the result must share memory with ``value`` and be
    writable (an ``out=`` array, or an array a tensor-language kernel
    updates)."""
    array = as_array(value, what)
    if not array.flags.writeable:
        raise ValueError(f"{what} is read-only")
    return array


def check_dtype(array, dtype, what, type_name=None):
    """A ValueError unless ``array`` has element type ``dtype``."""
    expected = np.dtype(dtype)
    if array.dtype != expected:
        spelled = f"{type_name} ({expected})" if type_name else str(expected)
        raise ValueError(f"{what} is {spelled} but the array is {array.dtype}")


def scalar_text(value, what):
    """A Python or NumPy number as the text the runtime parses."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, complex):
        return f"({value.real!r},{value.imag!r})"
    raise ValueError(f"{what} takes a number, not {type(value).__name__}")


def format_shape(shape):
    shape = tuple(shape)
    return str(shape)
