//===- TcHandles.h - What the TC bindings share ----------------*- C++ -*-===//
//
// The Python handles of a parsed TC source and of one compiled def, shared
// by TcBindings.cpp (TcProgram: parse, sizes, compile, tune, ranges) and
// TcKernelBindings.cpp (TcKernel: transfers, launches, IR and SPIR-V).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_PYTHON_TCHANDLES_H
#define COMPREHEND_PYTHON_TCHANDLES_H

#include "Bindings.h"

#include "comprehend/api/TcKernel.h"
#include "comprehend/tc/Frontend.h"

#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace comprehend::python {

using Sizes = std::map<std::string, int64_t>;
using Config = std::map<std::string, int64_t>;

inline llvm::StringMap<int64_t> toStringMap(const Sizes &sizes) {
  llvm::StringMap<int64_t> result;
  for (const auto &[name, value] : sizes)
    result[name] = value;
  return result;
}

/// A TC source, parsed and checked once.
struct TcProgramHandle {
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<tc::Program> program;
  /// Warnings of parsing and checking (e.g. a reduction without `!`).
  std::string warnings;
  std::mutex mutex;

  const tc::Def &getDef(const std::string &entry) const {
    const tc::Def *def = tc::findEntry(*program, entry);
    if (!def)
      throw py::value_error(entry.empty() ? "the source defines no function"
                                          : "no def named '" + entry + "'");
    return *def;
  }
};
using ProgramPtr = std::shared_ptr<TcProgramHandle>;

/// One compiled def at concrete sizes.
struct TcKernelHandle {
  DevicePtr device;
  ProgramPtr program;
  std::string entry;
  Sizes sizes;
  std::unique_ptr<api::TcKernel> kernel;
};
using KernelPtr = std::shared_ptr<TcKernelHandle>;

/// "input", "output" or "temporary".
const char *getRoleName(tc::TensorInfo::Role role);
/// The NumPy dtype name of \p type, or None where NumPy has none.
py::object getNumpyDType(tc::ScalarType type);

/// The TcKernel class (TcKernelBindings.cpp).
void bindTcKernel(py::module_ &m);

} // namespace comprehend::python

#endif // COMPREHEND_PYTHON_TCHANDLES_H
