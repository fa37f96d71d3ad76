//===- Bindings.h - Shared pieces of the Python module ----------*- C++ -*-===//
//
// The Python module `comprehend._core` wraps the C++ API (api::TcKernel,
// api::tuneTc, runtime::Executable); the pure-Python package `comprehend`
// on top of it converts arrays, caches kernels and formats results.
//
// Conventions every binding follows:
//  - Work that may take long (parsing and checking, lowering, compiling,
//    tuning, device transfers, launches) runs with the GIL released, under
//    the device's mutex: one OpenCL queue is never used by two threads.
//  - Nothing throws while the GIL is released; errors are carried out as
//    an `Outcome` and raised once the GIL is held again.
//  - User errors raise `CompileError` (a ValueError: located diagnostics of
//    the source) or ValueError (a wrong argument), device failures
//    `DeviceError` (a RuntimeError). No error ends the interpreter.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_PYTHON_BINDINGS_H
#define COMPREHEND_PYTHON_BINDINGS_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/runtime/Runtime.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>

namespace comprehend::python {

namespace py = pybind11;

/// Raised as comprehend.CompileError (a ValueError).
struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// Raised as comprehend.DeviceError (a RuntimeError).
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What a call without the GIL hands back: nothing, or the error to raise.
struct Outcome {
  enum class Kind { Ok, Compile, Value, Device };
  Kind kind = Kind::Ok;
  std::string message;

  static Outcome compile(std::string message) {
    return {Kind::Compile, std::move(message)};
  }
  static Outcome value(std::string message) {
    return {Kind::Value, std::move(message)};
  }
  /// An llvm::Error (consumed): input errors become ValueError (or
  /// CompileError when `diagnostics` is non-empty, which then is the
  /// message), everything else DeviceError.
  static Outcome fromError(llvm::Error error, llvm::StringRef diagnostics = {});

  explicit operator bool() const { return kind != Kind::Ok; }
  /// Throws the Python exception (with the GIL held).
  [[noreturn]] void raise() const;
};

/// Throws `outcome` if it is an error.
inline void check(const Outcome &outcome) {
  if (outcome)
    outcome.raise();
}

/// An OpenCL device opened for the module: the runtime plus the mutex that
/// serialises its use.
struct DeviceHandle {
  std::unique_ptr<runtime::Runtime> runtime;
  std::mutex mutex;
};
using DevicePtr = std::shared_ptr<DeviceHandle>;

/// Diagnostics of one operation, printed into a string.
struct DiagnosticBuffer {
  std::string text;
  llvm::raw_string_ostream os{text};
  DiagnosticEngine diags;

  explicit DiagnosticBuffer(llvm::SourceMgr &sourceMgr)
      : diags(sourceMgr, os) {}
  /// The diagnostics so far, without the trailing newline.
  std::string take() {
    os.flush();
    return llvm::StringRef(text).rtrim().str();
  }
};

/// A raw_ostream that hands each write to a Python callable (e.g. the
/// tuner's progress bar), taking the GIL for it. Exceptions of the callable
/// are dropped: progress output never stops the work.
class CallbackStream : public llvm::raw_ostream {
public:
  explicit CallbackStream(py::object callback) : callback(std::move(callback)) {
    SetUnbuffered();
  }
  ~CallbackStream() override;

private:
  void write_impl(const char *ptr, size_t size) override;
  uint64_t current_pos() const override { return position; }

  py::object callback;
  uint64_t position = 0;
};

void bindDevices(py::module_ &m);
void bindTc(py::module_ &m);
void bindIr(py::module_ &m);
/// derive_backward: tc::deriveBackward (GradBindings.cpp).
void bindGrad(py::module_ &m);

/// Opens the device that `spec` selects ("" for the default; an index or a
/// name substring), without the GIL.
DevicePtr openDevice(const std::string &spec);

} // namespace comprehend::python

#endif // COMPREHEND_PYTHON_BINDINGS_H
