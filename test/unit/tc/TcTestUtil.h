//===- TcTestUtil.h - Shared helpers of the TC unit tests -------*- C++ -*-===//
#ifndef COMPREHEND_TEST_UNIT_TC_TCTESTUTIL_H
#define COMPREHEND_TEST_UNIT_TC_TCTESTUTIL_H

#include "comprehend/ir/Diagnostics.h"
#include "comprehend/tc/Frontend.h"

#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace comprehend::tc::test {

/// One TC source in memory, its diagnostics collected as
/// "line:col: message" strings (warnings prefixed with "warning: ").
class TcSource {
public:
  explicit TcSource(llvm::StringRef text) {
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "test.tc"), llvm::SMLoc());
    diags.setHandler([this](const Diagnostic &diag) {
      auto [line, col] = sourceMgr.getLineAndColumn(diag.loc.Start);
      std::string text =
          std::to_string(line) + ":" + std::to_string(col) + ": " +
          (diag.severity == Severity::Warning ? "warning: " : "") +
          diag.message;
      messages.push_back(text);
    });
  }

  /// Parses, checks and (by default) infers the ranges of every def.
  Program *load(bool inferAllRanges = true) {
    program = loadProgram(diags, sourceMgr.getMainFileID(), inferAllRanges);
    return program.get();
  }

  llvm::StringRef getBuffer() const {
    return sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  }

  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  std::vector<std::string> messages;
  std::unique_ptr<Program> program;
};

#ifdef COMPREHEND_EXAMPLES_DIR
/// The text of `examples/<name>`, empty when it cannot be read.
inline std::string readExample(llvm::StringRef name) {
  std::string path = std::string(COMPREHEND_EXAMPLES_DIR) + "/" + name.str();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}
#endif

} // namespace comprehend::tc::test

#endif // COMPREHEND_TEST_UNIT_TC_TCTESTUTIL_H
