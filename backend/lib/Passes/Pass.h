//===- Pass.h - Backend passes over tensor-language functions ---*- C++ -*-===//
//
// A pass transforms one function in place. Each pass lives in its own file in
// this folder and is made by a `create...Pass()` function listed once in
// Registry.cpp, which feeds the default pipeline, `--passes=a,b` and the
// pass list in the documentation.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_BACKEND_PASSES_PASS_H
#define COMPREHEND_BACKEND_PASSES_PASS_H

#include "KernelShape.h"
#include "comprehend/backend/Compiler.h"
#include "comprehend/backend/CoreInfo.h"
#include "comprehend/ir/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>

namespace comprehend::ir {
class Function;
} // namespace comprehend::ir

namespace comprehend::backend {

/// What a pass may consult besides the function it transforms.
struct PassContext {
  const CoreInfo &core;
  const CompileOptions &options;
  DiagnosticEngine &diags;
};

class Pass {
public:
  virtual ~Pass();
  /// Transforms \p function; reports a diagnostic before failing.
  virtual LogicalResult run(ir::Function &function, PassContext &context) = 0;
};

/// A pass that works from the function's kernel shape: the shape is selected
/// (reporting why the function's attributes cannot be honoured) before
/// runOnShape, so no such pass runs on a function without one.
class KernelShapePass : public Pass {
public:
  LogicalResult run(ir::Function &function, PassContext &context) final {
    std::optional<KernelShape> shape =
        selectKernelShape(function, context.core, context.diags);
    if (!shape)
      return failure();
    return runOnShape(function, context, *shape);
  }

protected:
  virtual LogicalResult runOnShape(ir::Function &function, PassContext &context,
                                   KernelShape &shape) = 0;
};

/// One entry of the pass table.
struct PassInfo {
  llvm::StringRef name;
  llvm::StringRef description;
  std::unique_ptr<Pass> (*create)();
  /// Lowest -O level at which the default pipeline runs the pass.
  unsigned minOptLevel;
};

/// Every pass, in default pipeline order.
llvm::ArrayRef<PassInfo> getPassTable();
/// The entry named \p name, or null.
const PassInfo *lookupPass(llvm::StringRef name);

std::unique_ptr<Pass> createWorkGroupSizePass();
std::unique_ptr<Pass> createConstantFoldingPass();
std::unique_ptr<Pass> createDeadCodeEliminationPass();
std::unique_ptr<Pass> createLowerCollectivePass();
std::unique_ptr<Pass> createInsertBarriersPass();
std::unique_ptr<Pass> createSplitBarrierGuardsPass();
std::unique_ptr<Pass> createLowerForeachPass();
std::unique_ptr<Pass> createLowerCoopMatrixPass();
std::unique_ptr<Pass> createPlaceLocalMemoryPass();
std::unique_ptr<Pass> createVectorizeLoopsPass();
std::unique_ptr<Pass> createMarkStreamingStoresPass();

} // namespace comprehend::backend

#endif // COMPREHEND_BACKEND_PASSES_PASS_H
