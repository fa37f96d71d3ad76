//===- Arrays.h - Python buffers and device element types -------*- C++ -*-===//
#ifndef COMPREHEND_PYTHON_ARRAYS_H
#define COMPREHEND_PYTHON_ARRAYS_H

#include "Bindings.h"

#include "comprehend/runtime/DType.h"

#include <pybind11/pybind11.h>

namespace comprehend::python {

/// Checks that `info` is one contiguous block in C order (`fortran`: in
/// Fortran order) of `bytes` bytes; a ValueError naming `what` otherwise.
void checkContiguous(const py::buffer_info &info, size_t bytes,
                     const std::string &what, bool fortran = false);

/// The data of `object`, which must be a NumPy array in C order of `bytes`
/// bytes (writable for `writable`); nothing is converted, the caller's
/// memory is used. A ValueError naming `what` otherwise.
void *getArrayData(py::handle object, size_t bytes, bool writable,
                   const std::string &what);

} // namespace comprehend::python

#endif // COMPREHEND_PYTHON_ARRAYS_H
