//===- Registry.cpp - The one table of backend passes ---------------------===//
#include "Passes/Pass.h"

#include "llvm/ADT/STLExtras.h"

using namespace comprehend::backend;

Pass::~Pass() = default;

/// Default pipeline order. Lowering passes run at every level (the emitter
/// needs their output); clean-ups from -O1.
static const PassInfo passTable[] = {
    {"work-group-size",
     "choose subgroup and work-group size, honouring function attributes",
     createWorkGroupSizePass, 0},
    {"constant-folding", "fold and propagate constants",
     createConstantFoldingPass, 1},
    {"lower-collective",
     "lower axpby, cumsum, gemm, gemv, ger, hadamard and sum to SPMD code",
     createLowerCollectivePass, 0},
    {"insert-barriers",
     "insert barriers between collective code touching the same memory",
     createInsertBarriersPass, 0},
    {"split-barrier-guards",
     "move barriers out of if-branches: the part after one becomes a "
     "second if with the same condition",
     createSplitBarrierGuardsPass, 0},
    {"lower-foreach",
     "map foreach and foreach_tile onto work-items and subgroups",
     createLowerForeachPass, 0},
    {"lower-coopmatrix",
     "split cooperative matrices into per-work-item parts (numbers and "
     "vectors) for the core's subgroup size",
     createLowerCoopMatrixPass, 0},
    {"vectorize-loops",
     "run `simd` loops on vectors of the core's native width, with a "
     "scalar loop for the remaining iterations",
     createVectorizeLoopsPass, 1},
    {"constant-folding", "fold and propagate constants",
     createConstantFoldingPass, 1},
    {"dce", "remove dead instructions", createDeadCodeEliminationPass, 1},
    {"mark-streaming-stores",
     "on CPU cores, stream aligned vector stores into large outputs the "
     "kernel never reads past the caches",
     createMarkStreamingStoresPass, 1},
    {"place-local-memory",
     "place allocas in one local-memory arena, sharing bytes between "
     "allocas whose lifetimes do not overlap",
     createPlaceLocalMemoryPass, 0},
};

llvm::ArrayRef<PassInfo> comprehend::backend::getPassTable() {
  return passTable;
}

const PassInfo *comprehend::backend::lookupPass(llvm::StringRef name) {
  for (const PassInfo &info : passTable)
    if (info.name == name)
      return &info;
  return nullptr;
}

llvm::ArrayRef<PassDescription> comprehend::backend::getPassDescriptions() {
  static const llvm::SmallVector<PassDescription, 8> descriptions = [] {
    llvm::SmallVector<PassDescription, 8> result;
    for (const PassInfo &info : passTable)
      if (llvm::none_of(result, [&](const PassDescription &d) {
            return d.name == info.name;
          }))
        result.push_back({info.name, info.description});
    return result;
  }();
  return descriptions;
}
