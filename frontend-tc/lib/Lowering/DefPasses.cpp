//===- DefPasses.cpp - The def-level pass pipeline
//-------------------------===//
#include "DefPasses.h"

#include "llvm/Support/TimeProfiler.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

llvm::ArrayRef<DefPass> lowering::getDefPasses() {
  static const DefPass passes[] = {
      {"inline-calls",
       "lists the def's statements with their ranges, the statements of "
       "each called def in place of the call",
       inlineCalls},
      {"merge-pointwise-updates",
       "folds a pointwise `T = a` and the pointwise `T += b` after it into "
       "one statement `T = a + b` where that computes the same",
       mergePointwiseUpdates},
      {"snapshot-self-reads",
       "points a statement's reads of its own LHS at other points than it "
       "writes to a copy made just before",
       snapshotSelfReads},
      {"hoist-to-temporaries",
       "moves builtin calls that vary with the last LHS index but not with "
       "all indices into temporaries of their own",
       hoistToTemporaries},
      {"transpose-gemm-operands",
       "copies the A operand of a gemm statement that reads it transposed "
       "into a temporary with its rows contiguous (GPU cores)",
       transposeGemmOperands},
      {"split-batch-reductions",
       "sums a convolution's weight gradient per image into a temporary "
       "first (GPU cores)",
       splitBatchReductions},
      {"transpose-weight-gradients",
       "computes a convolution's weight gradient with its channels last, "
       "from a copy of the output gradient with them last (CPU cores)",
       transposeWeightGradients},
      {"split-column-reductions",
       "sums a reduction over rows whose reads run along the output's "
       "columns per block of rows into a temporary first (GPU cores)",
       splitColumnReductions},
      {"segment",
       "splits the statements into BLAS launches, identity fills and runs, "
       "and maps the isl schedule of each run",
       segmentStatements},
      {"share-output-storage",
       "keeps temporaries in the memory of an output that nothing touches "
       "before their last reader writes it",
       shareOutputStorage},
      {"promote-temporaries",
       "keeps the temporaries that one kernel touches within each "
       "work-group in local memory",
       promoteTemporaries},
  };
  return passes;
}

llvm::ArrayRef<DefPassDescription> tc::getDefPassDescriptions() {
  static const llvm::SmallVector<DefPassDescription, 8> descriptions = [] {
    llvm::SmallVector<DefPassDescription, 8> result;
    for (const DefPass &pass : getDefPasses())
      result.push_back({pass.name, pass.description});
    return result;
  }();
  return descriptions;
}

void lowering::rewriteEachStatement(
    DefLoweringState &state,
    llvm::function_ref<bool(const StmtContext &,
                            llvm::SmallVectorImpl<StmtContext> &)>
        rewrite) {
  llvm::SmallVector<StmtContext, 8> result;
  for (const StmtContext &stmt : state.stmts)
    if (!rewrite(stmt, result))
      result.push_back(stmt);
  // StmtContext holds a reference: the vector is rebuilt, not assigned.
  state.stmts.assign(result.begin(), result.end());
}

LogicalResult lowering::runDefPasses(DefLoweringState &state) {
  for (const DefPass &pass : getDefPasses()) {
    llvm::TimeTraceScope scope("TC def pass", pass.name);
    if (failed(pass.run(state)))
      return failure();
    if (!state.options.printDefAfter)
      continue;
    if (llvm::raw_ostream *os = state.options.printDefAfter(pass.name)) {
      *os << "# after " << pass.name << "\n";
      printDefState(state, *os);
    }
  }
  return success();
}
