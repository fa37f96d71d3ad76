//===- Error.h - Runtime errors as llvm::Error ------------------*- C++ -*-===//
//
// Every failure of the runtime is an llvm::Error of class RuntimeError. Its
// kind tells the driver which exit code to use: bad user input (a missing
// argument, a .npy file of the wrong dtype) is exit 1, everything the device,
// the OpenCL implementation or the CUDA driver refuses is exit 3. OpenCL
// status codes (and CUDA results, runtime/lib/CudaDriver.h) are reported with
// the failing call, the code's name and what the user can do.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_ERROR_H
#define COMPREHEND_RUNTIME_ERROR_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace comprehend::runtime {

enum class ErrorKind {
  /// The user's input is wrong (argument missing, dtype/shape mismatch,
  /// malformed file).
  Input,
  /// The device, driver or runtime failed (no device, build failure, OpenCL
  /// error).
  Device,
};

/// The caller-given input an error is about. Library messages name no flag
/// or keyword argument; each front end maps the subject to how its users give
/// that input (the driver: a flag, Python: a keyword argument).
enum class InputSubject {
  None,
  /// The value of a size variable; the error's subject name is the size.
  Size,
  /// An argument given for a kernel parameter.
  Argument,
  /// A kernel parameter that needs an array argument; subject name: the
  /// parameter.
  MissingArray,
  /// A kernel parameter that needs a scalar argument; subject name: the
  /// parameter.
  MissingScalar,
  /// The device spec.
  Device,
  /// The launch grid.
  Grid,
  /// The name of the kernel to launch.
  Entry,
};

/// The one error class of the runtime.
class RuntimeError : public llvm::ErrorInfo<RuntimeError> {
public:
  static char ID;

  RuntimeError(ErrorKind kind, std::string message, int32_t clCode = 0,
               InputSubject subject = InputSubject::None,
               std::string subjectName = "")
      : kind(kind), message(std::move(message)), clCode(clCode),
        subject(subject), subjectName(std::move(subjectName)) {}

  ErrorKind getKind() const { return kind; }
  /// The OpenCL status code behind the error, 0 when there is none.
  int32_t getCLCode() const { return clCode; }
  llvm::StringRef getMessage() const { return message; }
  /// What the error is about, for a front end's hint on how to give it.
  InputSubject getSubject() const { return subject; }
  /// The size or parameter the subject names, empty for none.
  llvm::StringRef getSubjectName() const { return subjectName; }

  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  ErrorKind kind;
  std::string message;
  int32_t clCode;
  InputSubject subject;
  std::string subjectName;
};

/// An error in the user's input (exit code 1).
llvm::Error makeInputError(const llvm::Twine &message,
                           InputSubject subject = InputSubject::None,
                           llvm::StringRef subjectName = "");
/// A device or runtime failure (exit code 3).
llvm::Error makeDeviceError(const llvm::Twine &message);

/// Wraps a failed OpenCL call: "clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE
/// (-11): <hint>". `detail` (e.g. a build log) is appended on its own lines.
llvm::Error makeCLError(llvm::StringRef call, int32_t code,
                        const llvm::Twine &detail = "");

/// Returns success for CL_SUCCESS, makeCLError otherwise.
inline llvm::Error checkCL(int32_t code, llvm::StringRef call) {
  if (code == 0)
    return llvm::Error::success();
  return makeCLError(call, code);
}

/// The name of an OpenCL status code (`CL_INVALID_KERNEL_ARGS`), or
/// "unknown OpenCL error" for codes no header defines.
llvm::StringRef getCLErrorName(int32_t code);

/// What a user can do about an OpenCL status code (one sentence, lower case).
llvm::StringRef getCLErrorHint(int32_t code);

/// A front end's words on how to give the input a RuntimeError is about (the
/// driver names a flag, Python a keyword argument); empty for none.
using SubjectHint = llvm::function_ref<std::string(const RuntimeError &)>;

/// Prints every error in `error` as "<prefix>: error: <message>" lines, each
/// followed by " (<hint>)" where `hint` gives one, and returns the most
/// severe kind (Device wins over Input; errors that are no RuntimeError count
/// as Device).
ErrorKind reportError(llvm::Error error, llvm::raw_ostream &os,
                      llvm::StringRef prefix, SubjectHint hint = nullptr);

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_ERROR_H
