//===- Support.h - Small result types shared by every component -*- C++ -*-===//
#ifndef COMPREHEND_IR_SUPPORT_H
#define COMPREHEND_IR_SUPPORT_H

namespace comprehend {

/// The outcome of an operation that reports its own diagnostics: callers only
/// need to know whether it worked (the MLIR idiom; LLVM 15 has no equivalent).
class [[nodiscard]] LogicalResult {
public:
  static LogicalResult success(bool isSuccess = true) {
    return LogicalResult(isSuccess);
  }
  static LogicalResult failure(bool isFailure = true) {
    return LogicalResult(!isFailure);
  }
  bool succeeded() const { return isSuccess; }
  bool failed() const { return !isSuccess; }

private:
  explicit LogicalResult(bool isSuccess) : isSuccess(isSuccess) {}
  bool isSuccess;
};

inline LogicalResult success(bool isSuccess = true) {
  return LogicalResult::success(isSuccess);
}
inline LogicalResult failure(bool isFailure = true) {
  return LogicalResult::failure(isFailure);
}
inline bool succeeded(LogicalResult result) { return result.succeeded(); }
inline bool failed(LogicalResult result) { return result.failed(); }

} // namespace comprehend

#endif // COMPREHEND_IR_SUPPORT_H
