//===- Handles.h - What the C API's opaque handles hold ---------*- C++ -*-===//
//
// The structs behind comprehend_device_t and comprehend_def_t, and the
// helpers every entry point of comprehend.h uses: the per-thread last
// error, and `guard`, which turns an llvm::Error or a C++ exception into a
// status so that nothing escapes through the C ABI.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_CAPI_HANDLES_H
#define COMPREHEND_CAPI_HANDLES_H

#include "comprehend/comprehend.h"

#include "comprehend/api/TcKernel.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/tc/AST.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

struct comprehend_device_impl {
  /// Shared with every def created on the device, so that releasing the
  /// device handle first is safe.
  std::shared_ptr<comprehend::runtime::Runtime> runtime;
  std::string name;
};

struct comprehend_def_impl {
  std::shared_ptr<comprehend::runtime::Runtime> runtime;
  /// The parsed and checked source (TcKernel::compile refers to it).
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<comprehend::tc::Program> program;
  const comprehend::tc::Def *def = nullptr;
  std::string cachePath;
  /// The def compiled per binding of its size variables (in the order of
  /// def->getSizeVars()).
  std::map<std::vector<int64_t>, std::unique_ptr<comprehend::api::TcKernel>>
      kernels;
};

namespace comprehend::capi {

/// Records `message` as this thread's last error and returns `status`.
comprehend_status fail(comprehend_status status, const std::string &message);
/// The status of `error` (an input or a device error of the runtime, else
/// internal), recording its message; success for no error.
comprehend_status fail(llvm::Error error);

/// Runs `body` (returning llvm::Error), mapping its error or any exception
/// to a status.
template <typename Body> comprehend_status guard(Body &&body) noexcept {
  try {
    return fail(body());
  } catch (const std::bad_alloc &) {
    return fail(COMPREHEND_INTERNAL_ERROR, "out of memory");
  } catch (const std::exception &e) {
    return fail(COMPREHEND_INTERNAL_ERROR, e.what());
  } catch (...) {
    return fail(COMPREHEND_INTERNAL_ERROR, "unknown exception");
  }
}

/// An error with the C API's own status (invalid arguments).
class StatusError : public llvm::ErrorInfo<StatusError> {
public:
  static char ID;
  StatusError(comprehend_status status, std::string message)
      : status(status), text(std::move(message)) {}
  comprehend_status getStatus() const { return status; }
  void log(llvm::raw_ostream &os) const override { os << text; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  comprehend_status status;
  std::string text;
};

/// An invalid-argument error: "`what` is null".
llvm::Error makeNullError(const char *what);
/// An invalid-argument error with `message`.
llvm::Error makeArgumentError(const std::string &message);

} // namespace comprehend::capi

#endif // COMPREHEND_CAPI_HANDLES_H
