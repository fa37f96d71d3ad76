//===- Status.cpp - Statuses and the last error of the C API --------------===//
//
// Every entry point of comprehend.h returns a status and leaves the message
// of a failure in a per-thread string, so that a caller on another thread
// never sees it change underneath.
//
//===----------------------------------------------------------------------===//
#include "Handles.h"

#include "comprehend/runtime/DType.h"
#include "comprehend/runtime/Error.h"

using namespace comprehend;

namespace {
thread_local std::string lastError;
} // namespace

char capi::StatusError::ID = 0;

comprehend_status capi::fail(comprehend_status status,
                             const std::string &message) {
  lastError = message;
  return status;
}

comprehend_status capi::fail(llvm::Error error) {
  if (!error)
    return COMPREHEND_SUCCESS;
  // The most severe status of the errors in `error`, as reportError ranks
  // them: a device error wins over an input error.
  comprehend_status status = COMPREHEND_SUCCESS;
  auto rank = [&](comprehend_status next) {
    if (status == COMPREHEND_SUCCESS || next == COMPREHEND_DEVICE_ERROR ||
        next == COMPREHEND_INTERNAL_ERROR)
      status = next;
  };
  std::string message;
  auto append = [&](comprehend_status next, llvm::StringRef text) {
    rank(next);
    if (!message.empty())
      message += '\n';
    message += text.str();
  };
  llvm::handleAllErrors(
      std::move(error),
      [&](const StatusError &e) { append(e.getStatus(), e.message()); },
      [&](const runtime::RuntimeError &e) {
        append(e.getKind() == runtime::ErrorKind::Input
                   ? COMPREHEND_INPUT_ERROR
                   : COMPREHEND_DEVICE_ERROR,
               e.getMessage());
      },
      [&](const llvm::ErrorInfoBase &e) {
        append(COMPREHEND_INTERNAL_ERROR, e.message());
      });
  return fail(status, message);
}

llvm::Error capi::makeNullError(const char *what) {
  return llvm::make_error<StatusError>(COMPREHEND_INVALID_ARGUMENT,
                                       std::string(what) + " is null");
}

llvm::Error capi::makeArgumentError(const std::string &message) {
  return llvm::make_error<StatusError>(COMPREHEND_INVALID_ARGUMENT, message);
}

extern "C" const char *comprehend_last_error(void) { return lastError.c_str(); }

extern "C" const char *comprehend_status_name(comprehend_status status) {
  switch (status) {
  case COMPREHEND_SUCCESS:
    return "success";
  case COMPREHEND_INVALID_ARGUMENT:
    return "invalid argument";
  case COMPREHEND_INPUT_ERROR:
    return "input error";
  case COMPREHEND_DEVICE_ERROR:
    return "device error";
  case COMPREHEND_INTERNAL_ERROR:
    return "internal error";
  }
  return "unknown status";
}

extern "C" size_t comprehend_dtype_size(comprehend_dtype dtype) {
  switch (dtype) {
  case COMPREHEND_F32:
  case COMPREHEND_I32:
    return 4;
  case COMPREHEND_F64:
  case COMPREHEND_I64:
    return 8;
  }
  return 0;
}
