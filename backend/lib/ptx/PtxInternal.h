//===- PtxInternal.h - Steps of the SPIR-V to PTX translation ---*- C++ -*-===//
//
// emitPtx (Ptx.cpp) runs these on the LLVM IR that LLVMSPIRVLib reads back
// from the SPIR-V module, in this order: retargetToNvptx, defineSubgroup-
// Builtins, defineInt64Atomics, link libclc, finishLinkedModule, O3, PTX.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_PTX_PTXINTERNAL_H
#define COMPREHEND_BACKEND_PTX_PTXINTERNAL_H

#include "comprehend/backend/Ptx.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class DataLayout;
class Function;
class Module;
} // namespace llvm

namespace comprehend::backend::ptx {

/// The triple of CUDA's 64-bit PTX.
inline constexpr const char *kNvptxTriple = "nvptx64-nvidia-cuda";

/// Lanes of a warp, the subgroup of an NVIDIA core.
inline constexpr unsigned kWarpSize = 32;

llvm::Error makePtxError(PtxError::Kind kind, const llvm::Twine &message,
                         llvm::StringRef function = "");

/// Turns the SPIR 1.2 module into an NVPTX one: triple and data layout, C
/// calling conventions instead of spir_kernel/spir_func, every kernel in
/// !nvvm.annotations with `.reqntid` from its reqd_work_group_size (else
/// `.maxntid` \p maxThreads). Fails on address spaces without an NVPTX
/// counterpart (SPIR constant 2 and generic 4; private 0, global 1 and
/// local 3 keep their numbers as generic, global and shared).
llvm::Error retargetToNvptx(llvm::Module &module,
                            const llvm::DataLayout &layout,
                            unsigned maxThreads);

/// Defines the OpenCL subgroup built-ins the module declares (reductions,
/// scans, broadcasts; libclc has none for nvptx) as warp shuffles.
llvm::Error defineSubgroupBuiltins(llvm::Module &module);

/// Defines the 64-bit atom_* / atomic_* built-ins the module declares
/// (libclc has only the 32-bit ones for nvptx) as LLVM atomics.
void defineInt64Atomics(llvm::Module &module);

/// After linking libclc: every function but the kernels becomes internal
/// (so that O3 inlines and drops them) and loses the target attributes
/// libclc was built with (sm_20 / PTX 4.2, which would block inlining into
/// kernels for a newer sm).
void finishLinkedModule(llvm::Module &module);

/// The first function the module calls but does not define (intrinsics
/// aside), as an UnresolvedFunction error; success when there is none.
llvm::Error checkResolved(const llvm::Module &module);

/// The same for `.extern .func` declarations in PTX text (what code
/// generation itself may call, e.g. a libcall for an operation NVPTX cannot
/// select).
llvm::Error checkResolvedPtx(llvm::StringRef ptx);

} // namespace comprehend::backend::ptx

#endif // COMPREHEND_BACKEND_PTX_PTXINTERNAL_H
