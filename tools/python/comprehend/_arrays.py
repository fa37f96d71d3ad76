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


# A CPU device reads an input array in place, without copying it into a
# buffer of its own, where the array starts at a multiple of IN_PLACE_ALIGNMENT
# bytes (runtime/lib/OpenCLPlatform.cpp, wrapHostMemory and
# kMaxInPlaceAlignment; PyTorch's CPU tensors are aligned so). The arrays
# this package allocates start at a multiple of HOST_ALIGNMENT, so that an
# output passed on to another call (a forward's output to its backward) is
# not copied again. The outputs of a call at a compiled shape are allocated
# by TcKernel.call_fresh (tools/python/src/TcKernelBindings.cpp,
# kHostAlignment) at the same alignment.
IN_PLACE_ALIGNMENT = 64
HOST_ALIGNMENT = 256


def is_aligned(array):
    return array.ctypes.data % IN_PLACE_ALIGNMENT == 0


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


def aligned_copy(array):
    """``array`` itself where it is in C order and aligned, else a copy
    that is."""
    if array.flags.c_contiguous and is_aligned(array):
        return array
    copy = empty_aligned(array.shape, array.dtype)
    np.copyto(copy, array)
    return copy


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
