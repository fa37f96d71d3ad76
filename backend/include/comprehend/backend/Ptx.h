//===- Ptx.h - From SPIR-V to PTX for NVIDIA GPUs ---------------*- C++ -*-===//
//
// NVIDIA's drivers take no SPIR-V. A module emitted for an NVIDIA core is
// translated back to LLVM IR (LLVMSPIRVLib), retargeted to NVPTX, linked with
// libclc's OpenCL built-ins for nvptx64, optimized and printed as PTX by
// LLVM's NVPTX target, all in process. The CUDA driver loads the PTX
// (cuModuleLoadData) and JIT-compiles it for the GPU it runs on.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_PTX_H
#define COMPREHEND_BACKEND_PTX_H

#include "comprehend/backend/CoreInfo.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>

namespace comprehend::backend {

struct PtxOptions {
  /// libclc's bitcode for nvptx64 (nvptx64--nvidiacl.bc). Empty: the
  /// COMPREHEND_LIBCLC_NVPTX environment variable, else the installed default
  /// (Debian libclc-15: /usr/lib/clc/nvptx64--nvidiacl.bc).
  std::string libclcPath;
};

/// Why emitPtx failed.
class PtxError : public llvm::ErrorInfo<PtxError> {
public:
  enum class Kind {
    /// libclc's bitcode is missing or unreadable: an installation problem.
    MissingLibclc,
    /// The kernels call a function that neither the module, libclc nor the
    /// warp implementations of the subgroup built-ins define (getFunction()
    /// names it); the driver would reject such PTX at load time.
    UnresolvedFunction,
    /// The module uses what the NVPTX path does not translate, or the core
    /// is not an NVIDIA core.
    Unsupported,
    /// The translation produced invalid IR or LLVM could not emit PTX: a
    /// compiler bug.
    Internal,
  };
  static char ID;

  PtxError(Kind kind, std::string message, std::string function = "")
      : kind(kind), text(std::move(message)), function(std::move(function)) {}

  Kind getKind() const { return kind; }
  /// The unresolved function (demangled where it is mangled), else empty.
  const std::string &getFunction() const { return function; }
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  Kind kind;
  std::string text;
  std::string function;
};

/// The libclc bitcode emitPtx links for \p options (see PtxOptions).
std::string getLibclcNvptxPath(const PtxOptions &options);

/// The PTX target LLVM 15 can emit for compute capability \p capability:
/// the newest sm_XY it knows that is not newer (sm_35 .. sm_86), with the
/// oldest PTX ISA that has that sm and the *.sync warp shuffles (7.0; 7.1
/// for sm_86), so that older drivers load it too.
struct PtxTarget {
  unsigned sm = 0;
  unsigned ptxVersion = 0; ///< major * 10 + minor
};
PtxTarget getPtxTarget(unsigned computeCapability);

/// Translates a SPIR-V module emitted for an NVIDIA core (core.isNvidia())
/// into PTX text for core's compute capability, as getPtxTarget clamps it
/// (sm_86 at most, what LLVM 15 knows; the driver JIT-compiles PTX for
/// newer GPUs).
llvm::Expected<std::string> emitPtx(llvm::ArrayRef<uint32_t> spirv,
                                    const CoreInfo &core,
                                    const PtxOptions &options = {});

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_PTX_H
