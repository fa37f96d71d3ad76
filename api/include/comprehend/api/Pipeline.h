//===- Pipeline.h - From a def or a program to a launch ---------*- C++ -*-===//
//
// The one compilation pipeline. Every caller goes through it: the driver's
// `compile`, `run` and `tune`, the Python module, the C API, api::TcKernel
// and api::IrKernel, and the tuner (which recompiles a kernel per
// candidate). Pipeline.cpp reads top to bottom as the steps:
//
//   configuration ── configure ──→ options of the lowering and the backend
//                                  (from the core's cost rules), and the
//                                  launch attributes of every kernel
//   TC def + sizes ── range inference ── lowering ── verifier
//                                  ──→ ir::Program, one function per launch,
//                                      and tc::LoweredDef (tensors, grids)
//   ir::Program ── backend passes ── SPIR-V ── the device's program
//                                  ──→ runtime::Executable (per kernel: its
//                                      work-group, argument layout, handle)
//
// A `.ir` program enters at the last step. The driver's offline `compile`
// (a `--target` core, no device) stops before it and hands the program and
// getOptions().compile to the backend itself, to print what it asks for.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_API_PIPELINE_H
#define COMPREHEND_API_PIPELINE_H

#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/CoreInfo.h"
#include "comprehend/ir/Context.h"
#include "comprehend/ir/Program.h"
#include "comprehend/runtime/DType.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/TuningSpace.h"
#include "comprehend/tc/Lowering.h"
#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>

namespace comprehend {
class DiagnosticEngine;
namespace tc {
class Program;
class Def;
} // namespace tc
} // namespace comprehend

namespace comprehend::api {

/// What a configuration makes of a compilation: the lowering's and the
/// backend's options. Work-group and subgroup sizes are function
/// attributes (Pipeline::configureLaunch).
struct CompilationOptions {
  tc::LoweringOptions lowering;
  backend::CompileOptions compile;
};

/// The one place a configuration becomes options: `base` with the cost
/// rules of `core` (tc::LoweringOptions::forCore, backend::
/// getDefaultGroupWork) and the knobs of `config` applied, its names and
/// values checked (an input error for an unknown name or an illegal value).
/// An empty configuration gives the defaults for `core`, which differ from
/// the plain option defaults.
llvm::Expected<CompilationOptions>
configureCompilation(const backend::CoreInfo &core,
                     const runtime::Configuration &config,
                     const CompilationOptions &base = {});

/// The device element type of a TC scalar type, if the runtime handles it.
std::optional<runtime::DType> getDType(tc::ScalarType type);
/// Number of elements of a lowered tensor.
int64_t getNumElements(const tc::LoweredTensor &tensor);

/// One checked TC def at concrete sizes: what the pipeline lowers.
struct TcSource {
  const tc::Program *program = nullptr;
  const tc::Def *def = nullptr;
  llvm::StringMap<int64_t> sizes;
  /// The def's ranges at `sizes`, when inferred already (inferRanges): a
  /// caller that lowers the def several times (the tuner) infers them once.
  /// Unset: the lowering infers them and reports why it cannot.
  std::optional<tc::DefRanges> ranges;

  /// Infers `ranges`, quietly: where inference fails they stay unset and
  /// the lowering reports why, in its order.
  void inferRanges();
};

/// A TC def lowered to the tensor language, before the backend.
struct LoweredProgram {
  std::unique_ptr<ir::Context> context;
  /// One function per kernel launch, verified, with the launch attributes
  /// of the configuration.
  std::unique_ptr<ir::Program> program;
  /// The tensors, the kernels' launches and the knobs the lowering
  /// consulted.
  tc::LoweredDef def;
};

/// A TC def compiled for a device: everything a launch needs.
struct CompiledDef : LoweredProgram {
  /// `program` after the backend (lowered in place), built on the device.
  std::unique_ptr<runtime::Executable> executable;
};

/// A configuration turned into options for one core, and the steps that
/// use them.
class Pipeline {
public:
  /// The pipeline of `config` on `core` (configureCompilation).
  static llvm::Expected<Pipeline>
  configure(const backend::CoreInfo &core, const runtime::Configuration &config,
            const CompilationOptions &base = {});
  /// A check for Kernel::chooseConfig: configures the configuration it is
  /// given on `core` over `base` and keeps the pipeline in `chosen`.
  static std::function<llvm::Error(const runtime::Configuration &)>
  configureInto(std::optional<Pipeline> &chosen, const backend::CoreInfo &core,
                const CompilationOptions &base);

  const backend::CoreInfo &getCore() const { return core; }
  const runtime::Configuration &getConfig() const { return config; }
  const CompilationOptions &getOptions() const { return options; }

  /// Lowers the def of `source`, verifies the result and sets the launch
  /// attributes. Errors in the def are reported through `diags`; the result
  /// is then an input error.
  llvm::Expected<LoweredProgram> lower(const TcSource &source,
                                       DiagnosticEngine &diags) const;
  /// Prints the mapped schedule of the def (`compile --emit schedule`);
  /// fails, reporting through `diags`, where it has none.
  LogicalResult printSchedule(const TcSource &source, llvm::raw_ostream &os,
                              DiagnosticEngine &diags) const;
  /// Sets the `work_group_size` and `subgroup_size` attributes of `function`
  /// from the configuration (nothing for an empty one).
  void configureLaunch(ir::Function &function) const;
  /// Runs the backend on `program` (in place) for `runtime`'s device, whose
  /// core the pipeline was configured for, and builds the result there.
  /// Compiler diagnostics go to `diags` (the result is then an input
  /// error); a failure of the device is a device error.
  llvm::Expected<std::unique_ptr<runtime::Executable>>
  build(runtime::Runtime &runtime, ir::Program &program,
        DiagnosticEngine &diags) const;
  /// `build` for a lowered def, once its tensors are known to fit the
  /// device and the host (a device error naming the first that does not).
  llvm::Expected<CompiledDef> build(runtime::Runtime &runtime,
                                    LoweredProgram lowered,
                                    DiagnosticEngine &diags) const;
  /// All of it: `lower`, then `build` on `runtime`'s device.
  llvm::Expected<CompiledDef> compile(runtime::Runtime &runtime,
                                      const TcSource &source,
                                      DiagnosticEngine &diags) const;

private:
  Pipeline(backend::CoreInfo core, runtime::Configuration config,
           CompilationOptions options)
      : core(std::move(core)), config(std::move(config)),
        options(std::move(options)) {}

  backend::CoreInfo core;
  runtime::Configuration config;
  CompilationOptions options;
};

} // namespace comprehend::api

#endif // COMPREHEND_API_PIPELINE_H
