//===- Executable.h - Compiled tensor-language programs on a device -*- C++
//-*-===//
//
// Joins the compiler and the runtime: an ir::Program compiled by the backend
// for the runtime's device, its SPIR-V built into a program, and per kernel
// the launch information (work-group size, argument layout) plus the
// parameter types that bound values are checked against.
//
//   auto rt = Runtime::create();
//   auto exe = Executable::compileText(**rt, "func @axpy(...) { ... }");
//   auto time = (*exe)->run("axpy", {grid, 1, 1}, {ScalarArg::f32(2), ...});
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_RUNTIME_EXECUTABLE_H
#define COMPREHEND_RUNTIME_EXECUTABLE_H

#include "comprehend/backend/Compiler.h"
#include "comprehend/runtime/Runtime.h"

#include "llvm/ADT/StringMap.h"

namespace comprehend {
class DiagnosticEngine;
namespace ir {
class Program;
class Value;
} // namespace ir
} // namespace comprehend

namespace comprehend::runtime {

/// The parameter type of a function parameter; an input error for types no
/// kernel can take (coopmatrix, void).
llvm::Expected<ParamType> getParamType(const ir::Value &param);

/// One kernel of an Executable.
struct KernelEntry {
  backend::KernelInfo info;
  std::vector<ParamType> params;
  Kernel *kernel = nullptr;
};

class Executable {
public:
  /// Compiles `program` (lowered in place) for `runtime`'s device and builds
  /// it. Compiler diagnostics go to `diags`; their failure is an input
  /// error.
  static llvm::Expected<std::unique_ptr<Executable>>
  compile(Runtime &runtime, ir::Program &program, DiagnosticEngine &diags,
          const backend::CompileOptions &options = {});

  /// Parses, verifies and compiles tensor-language source. Diagnostics are
  /// returned in the error's message.
  static llvm::Expected<std::unique_ptr<Executable>>
  compileText(Runtime &runtime, llvm::StringRef source,
              llvm::StringRef bufferName = "<string>",
              const backend::CompileOptions &options = {});

  /// The kernel compiled from function `name` (input error if none).
  llvm::Expected<KernelEntry &> getEntry(llvm::StringRef name);
  llvm::ArrayRef<uint32_t> getSpirv() const { return spirv; }
  std::vector<std::string> getEntryNames() const;

  /// Checks `values` against the kernel's parameters, binds them and
  /// launches `repeat` times over `grid` work-groups.
  llvm::Expected<Timing> run(llvm::StringRef entry, std::array<size_t, 3> grid,
                             llvm::ArrayRef<ArgValue> values,
                             unsigned repeat = 1);

  /// Checks `values` against the kernel's parameters like `run` and plans
  /// the launch over `grid` work-groups (Runtime::planLaunch) for calls that
  /// give new buffers each time (Runtime::enqueue).
  llvm::Expected<LaunchPlan> plan(llvm::StringRef entry,
                                  std::array<size_t, 3> grid,
                                  llvm::ArrayRef<ArgValue> values);

  /// Releases the program (Runtime::releaseProgram).
  ~Executable();

private:
  Executable(Runtime &runtime) : runtime(runtime) {}

  Runtime &runtime;
  std::vector<uint32_t> spirv;
  Program *program = nullptr;
  llvm::StringMap<KernelEntry> entries;
  std::vector<std::string> order;
};

} // namespace comprehend::runtime

#endif // COMPREHEND_RUNTIME_EXECUTABLE_H
