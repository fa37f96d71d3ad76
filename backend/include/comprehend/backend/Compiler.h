//===- Compiler.h - From verified IR to SPIR-V ------------------*- C++ -*-===//
//
// The backend's entry points: run the pass pipeline on a verified program
// for a target core, then emit one SPIR-V module with an OpenCL kernel per
// function, plus what the runtime needs to launch each kernel.
//
//   comprehend::backend::CompileOptions options;
//   auto compiled = comprehend::backend::compileProgram(program, core,
//                                                       options, diags);
//   if (!compiled) return failure();   // diagnostics were reported
//   clCreateProgramWithIL(ctx, compiled->spirv.data(), ...);
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_COMPILER_H
#define COMPREHEND_BACKEND_COMPILER_H

#include "comprehend/backend/CoreInfo.h"
#include "comprehend/backend/GemmTiling.h"
#include "comprehend/ir/Diagnostics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace comprehend::ir {
class Program;
} // namespace comprehend::ir

namespace comprehend::backend {

/// Knobs of one compilation.
struct CompileOptions {
  /// 0: only what correctness needs; 1: + constant folding and DCE;
  /// 2: + everything else.
  unsigned optLevel = 2;
  /// Pass names (see `getPassNames`) that replace the default pipeline, for
  /// testing one pass at a time (`--passes=a,b`). Empty: default pipeline.
  llvm::SmallVector<std::string, 4> passes;
  /// Validate the module with SPIRV-Tools; a failure is a compiler bug and is
  /// reported as one.
  bool validate = true;
  /// Run the IR verifier after every pass (a failure is a compiler bug).
  bool verifyEachPass = false;
  /// Overrides of the gemm register tile; an illegal one is reported at the
  /// gemm (checkGemmTiling) and fails the compilation.
  GemmTiling gemmTiling;
};

/// One kernel argument in the order of `clSetKernelArg` (docs/design.md
/// "Calling convention").
struct KernelArg {
  enum class Kind {
    Scalar,        ///< the parameter's value
    Pointer,       ///< memref: global pointer to the first element
    GroupPointer,  ///< group: global pointer to global pointers
    DynamicShape,  ///< memref: i64 mode size `mode`
    DynamicStride, ///< memref: i64 stride of mode `mode`
    GroupShape,    ///< group: global pointer to i64[size], shape of `mode`
    GroupStride,   ///< group: global pointer to i64[size], stride of `mode`
    GroupSize,     ///< group: i64 number of memrefs
    GroupOffset,   ///< group: i64 element offset
  };
  Kind kind;
  /// Index of the IR function parameter this argument belongs to.
  unsigned paramIndex;
  /// Mode for DynamicShape/DynamicStride/GroupShape/GroupStride, else 0.
  unsigned mode = 0;
  /// Bytes passed to clSetKernelArg (8 for pointers and i64 values).
  unsigned sizeInBytes;
};

/// What the runtime needs to know about one kernel.
struct KernelInfo {
  std::string name;
  /// Local work size (x, y); z is 1.
  std::array<unsigned, 2> workGroupSize = {1, 1};
  unsigned subgroupSize = 1;
  /// Bytes of local memory the kernel allocates statically.
  uint64_t localMemoryBytes = 0;
  std::vector<KernelArg> args;
};

/// The output of a compilation.
struct CompiledProgram {
  std::vector<uint32_t> spirv;
  std::vector<KernelInfo> kernels;
};

/// Runs the pass pipeline on \p program in place (what `--emit lowered-ir`
/// prints). Reports errors through \p diags.
LogicalResult lowerProgram(ir::Program &program, const CoreInfo &core,
                           const CompileOptions &options,
                           DiagnosticEngine &diags);

/// Emits SPIR-V for a lowered program (the output of `lowerProgram`).
std::optional<CompiledProgram> emitProgram(const ir::Program &program,
                                           const CoreInfo &core,
                                           const CompileOptions &options,
                                           DiagnosticEngine &diags);

/// `lowerProgram` followed by `emitProgram`.
std::optional<CompiledProgram> compileProgram(ir::Program &program,
                                              const CoreInfo &core,
                                              const CompileOptions &options,
                                              DiagnosticEngine &diags);

/// Name and one-line description of every registered pass, in registration
/// order.
struct PassDescription {
  llvm::StringRef name;
  llvm::StringRef description;
};
llvm::ArrayRef<PassDescription> getPassDescriptions();

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_COMPILER_H
