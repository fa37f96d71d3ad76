//===- IrKernel.h - Run tensor-language functions from C++ ------*- C++ -*-===//
//
// The C++ API of the `.ir` path, beside TcKernel: one function of a
// tensor-language program, compiled for a runtime's device with its
// arguments bound, launched over a fixed grid of work-groups. This is what
// `comprehend run FILE.ir` and `comprehend tune FILE.ir` are built on.
//
// Arguments are given as `comprehend run --arg` takes them: `NAME=FILE.npy`
// (an array of shape (s1, ..., sn) is a memref<... x s1 x ... x sn>) or
// `NAME=VALUE` for a scalar; a memref or float scalar not given is random.
//
// The knobs of an .ir kernel are the launch knobs (work_group_size.*,
// subgroup_size); the tuning cache files it under the program's text, the
// device, the grid and the bytes of every array argument (the sizes that
// matter for a program whose shapes may be dynamic).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_API_IRKERNEL_H
#define COMPREHEND_API_IRKERNEL_H

#include "comprehend/api/Kernel.h"
#include "comprehend/api/Pipeline.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/HostArguments.h"

#include <array>
#include <optional>

namespace comprehend {
class DiagnosticEngine;
namespace ir {
class Program;
} // namespace ir
} // namespace comprehend

namespace comprehend::api {

using IrKernelOptions = KernelOptions;

class IrKernel : public Kernel {
public:
  /// Compiles function `entry` of `program` (parsed from the main buffer
  /// of `diags`' source manager and verified; lowered in place) for
  /// `runtime`'s device, binds `args` and takes the configuration from
  /// `options`. The source manager and the program's context must outlive
  /// the kernel: `recompile` parses the text again. Compiler diagnostics go
  /// to `diags` (the result is then an input error).
  static llvm::Expected<std::unique_ptr<IrKernel>>
  compile(runtime::Runtime &runtime, ir::Program &program,
          DiagnosticEngine &diags, llvm::StringRef entry,
          std::array<size_t, 3> grid, llvm::ArrayRef<std::string> args,
          const IrKernelOptions &options = {});

  ~IrKernel() override;

  /// The launch the backend chose (or the configuration asked for).
  const backend::KernelInfo &getKernelInfo() const { return entry->info; }
  std::array<size_t, 3> getGrid() const { return grid; }
  /// Writes every memref and group argument as DIR/NAME.npy (creating
  /// DIR) and returns the paths written.
  llvm::Expected<std::vector<std::string>> writeArrays(llvm::StringRef dir);

  llvm::Expected<runtime::SearchSpace> getSearchSpace() const override;
  llvm::Expected<std::unique_ptr<Kernel>>
  recompile(const runtime::Configuration &config) const override;
  /// The contents of the array arguments as they were bound.
  llvm::Expected<KernelData> makeTuningInputs(uint64_t seed) override;
  llvm::Expected<std::vector<KernelOutput>>
  runOnInputs(const KernelData &inputs) override;
  llvm::Expected<runtime::Timing> run(unsigned repeat = 1) override;

  /// The bound arguments, shared by a kernel and its recompilations.
  struct Arguments {
    std::vector<runtime::ArgValue> values;
    /// Device memory of memref and group parameters, by parameter index.
    std::vector<std::optional<runtime::DeviceArgument>> arrays;
  };

private:
  IrKernel(runtime::Runtime &runtime, ir::Context &ctx,
           llvm::SourceMgr &sourceMgr)
      : runtime(runtime), ctx(ctx), sourceMgr(sourceMgr) {}
  /// Compiles `program` through `pipeline` and looks up the entry.
  llvm::Error build(ir::Program &program, DiagnosticEngine &diags,
                    const Pipeline &pipeline);
  /// Builds a copy of the program as given (`source`) with the launch
  /// attributes of the pipeline's configuration on the entry.
  llvm::Error rebuild(DiagnosticEngine &diags, const Pipeline &pipeline);

  runtime::Runtime &runtime;
  ir::Context &ctx;
  llvm::SourceMgr &sourceMgr;
  std::array<size_t, 3> grid = {1, 1, 1};
  /// The options every configuration refines.
  CompilationOptions base;
  std::shared_ptr<Arguments> arguments;
  /// The program as given, before any compilation (which rewrites a
  /// program in place), shared by a kernel and its recompilations: each
  /// recompilation compiles a copy instead of parsing the file again.
  std::shared_ptr<const ir::Program> source;
  std::unique_ptr<ir::Program> configured;
  std::unique_ptr<runtime::Executable> executable;
  runtime::KernelEntry *entry = nullptr;
};

} // namespace comprehend::api

#endif // COMPREHEND_API_IRKERNEL_H
