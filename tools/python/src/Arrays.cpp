//===- Arrays.cpp - Python buffers and device element types ---------------===//
#include "Arrays.h"

#include <pybind11/numpy.h>

using namespace comprehend;
using namespace comprehend::python;

void python::checkContiguous(const py::buffer_info &info, size_t bytes,
                             const std::string &what, bool fortran) {
  size_t total = static_cast<size_t>(info.size) * info.itemsize;
  if (total != bytes)
    throw py::value_error(what + " needs " + std::to_string(bytes) +
                          " bytes, the array has " + std::to_string(total));
  // Extents of 1 may have any stride.
  py::ssize_t expected = info.itemsize;
  for (size_t i = 0; i < info.shape.size(); ++i) {
    size_t d = fortran ? i : info.shape.size() - 1 - i;
    if (info.shape[d] != 1 && info.strides[d] != expected)
      throw py::value_error(what + " must be a contiguous array in " +
                            (fortran ? "Fortran" : "C") + " order");
    expected *= info.shape[d];
  }
}

void *python::getArrayData(py::handle object, size_t bytes, bool writable,
                           const std::string &what) {
  if (!py::isinstance<py::array>(object))
    throw py::value_error(what + " must be a NumPy array");
  auto array = py::reinterpret_borrow<py::array>(object);
  // NumPy's own nbytes: pybind11 before 2.12 reads the element size out of
  // NumPy 1's descriptor layout, which NumPy 2 changed.
  if (!(array.flags() & py::array::c_style) ||
      array.attr("nbytes").cast<size_t>() != bytes ||
      (writable && !array.writeable()))
    throw py::value_error(what + " needs a " + (writable ? "writable " : "") +
                          "C-order array of " + std::to_string(bytes) +
                          " bytes");
  return writable ? array.mutable_data() : const_cast<void *>(array.data());
}
