//===- TcTuning.h - The tuning knobs of a TC kernel -------------*- C++ -*-===//
//
// What the autotuner may choose for one TC def at concrete sizes, and how a
// chosen configuration reaches the compilation. Knobs come from the layer
// that owns the decision, each with one table of names, ranges, search
// domains and defaults (tc::getLoweringKnobs in tc/Lowering.h,
// backend::getBackendKnobs in backend/Knobs.h; docs/tuning.md lists them):
//
//   tc.block_rows, tc.block_cols   output block of one work-group for a
//                                  BLAS statement (frontend-tc lowering)
//   tc.group_work                  LHS points per work-group of a loop
//                                  statement (frontend-tc lowering)
//   tc.conv_gemm                   0/1: a convolution as gemms over views
//                                  of its operands, or loops (frontend-tc)
//   tc.local_temporaries           0/1: temporaries in global or local
//                                  memory (default: local only where the
//                                  core has dedicated local memory)
//   gemm.rows, gemm.cols,          register tile, K step and K block of
//   gemm.k_step, gemm.k_block      the gemm lowering (backend)
//   work_group_size.0/.1,          launch shape of every kernel of the def
//   subgroup_size                  (backend attributes)
//
// A parameter is in the space only when it affects the kernel (no gemm
// knobs for a softmax), so the search never spends evaluations on knobs
// that change nothing. How a configuration becomes options is
// api::configureCompilation (Pipeline.h).
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_API_TCTUNING_H
#define COMPREHEND_API_TCTUNING_H

#include "comprehend/backend/Compiler.h"
#include "comprehend/runtime/TuningCache.h"
#include "comprehend/runtime/TuningSpace.h"
#include "comprehend/tc/Lowering.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

namespace comprehend {
namespace tc {
class Program;
class Def;
struct DefRanges;
} // namespace tc
namespace ir {
class Program;
} // namespace ir
namespace runtime {
class Runtime;
} // namespace runtime
} // namespace comprehend

namespace comprehend::api {

/// Which knobs a def has: the lowering's (tc::LoweringKnobUse) and whether
/// its IR has a gemm, whose register tiling the backend chooses.
struct TcKnobs : tc::LoweringKnobUse {
  bool gemm = false;
};

/// The knobs of a def at its sizes: the lowering knobs that its default
/// lowering `lowered` reports having consulted (tc::LoweredDef::knobs), and
/// the backend's gemm knobs where that lowering's IR `defaultLowering` has a
/// gemm.
TcKnobs findTcKnobs(const tc::LoweredDef &lowered,
                    const ir::Program &defaultLowering);

/// The search space of a def with `knobs`; `defaults` is the backend's
/// launch choice for its first kernel, which seeds the work-group
/// parameters.
llvm::Expected<runtime::SearchSpace>
makeTcSearchSpace(const TcKnobs &knobs, const backend::CoreInfo &core,
                  const backend::KernelInfo &defaults);

/// The tuning-cache key of a def: the hash of its default lowering (so that
/// formatting and comments of the source do not matter), the device, the
/// sizes in the def's order and the entry name.
runtime::TuningKey makeTcTuningKey(const ir::Program &defaultLowering,
                                   const runtime::Runtime &runtime,
                                   llvm::StringRef entry,
                                   llvm::ArrayRef<std::string> sizeVars,
                                   const llvm::StringMap<int64_t> &sizes);

} // namespace comprehend::api

#endif // COMPREHEND_API_TCTUNING_H
