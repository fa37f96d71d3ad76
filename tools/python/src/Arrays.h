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

} // namespace comprehend::python

#endif // COMPREHEND_PYTHON_ARRAYS_H
