//===- PromoteTemporaries.cpp - Temporaries of a mapped kernel on chip ----===//
//
// The mapper runs the groups of a kernel in parallel, so no dependence
// crosses from one group to another: every value a group reads from a
// temporary that only this kernel touches was written by the same group.
// Such a temporary can live in memory private to the group (an `alloca` in
// local memory) instead of global memory, as TC's memory promotion did for
// shared memory. Its dimensions that every access subscripts with the
// group's own coordinate (`mx(n)` under the group loop over `n`) shrink to
// one element; the others keep their extent.
//
// The def-level pass `promote-temporaries` picks them per kernel of each
// run of statements, in the def's order while they fit in the options'
// local memory (less what the kernel's parallel reductions take); the
// emission allocates them.
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"

#include "llvm/ADT/StringSet.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;
using poly::AstNode;
using poly::IndexExpr;

namespace {

/// What one kernel does with one temporary.
struct TemporaryUse {
  /// Per TC dimension: the group loop iterator every access so far
  /// subscripts it with, or empty once an access does not.
  llvm::SmallVector<std::string, 4> groupIterator;
  bool seen = false;
  /// An access outside every group loop, or an update that reads the
  /// temporary's incoming value: keep it in global memory.
  bool unsafe = false;
};

class PromotionAnalysis {
public:
  /// \p singleGroup: the kernel runs on one work-group, so every access is
  /// that group's, inside a group loop or not (isl leaves out a group loop
  /// of one iteration).
  PromotionAnalysis(DefContext &def, llvm::ArrayRef<StmtContext> stmts,
                    bool singleGroup)
      : def(def), stmts(stmts), singleGroup(singleGroup) {}

  /// Records the temporaries that \p node touches, under the group loops
  /// \p groups.
  void visit(const AstNode &node, llvm::SmallVectorImpl<std::string> &groups);

  llvm::StringMap<TemporaryUse> uses;

private:
  void visitInstance(const AstNode &node, llvm::ArrayRef<std::string> groups);
  /// Records one access of \p tensor with \p subscripts over the statement's
  /// iterators, which the instance binds to \p args.
  void record(llvm::StringRef tensor, llvm::ArrayRef<IndexExpr> subscripts,
              const StmtContext &stmt, const AstNode &instance,
              llvm::ArrayRef<std::string> groups, bool unsafe);

  DefContext &def;
  llvm::ArrayRef<StmtContext> stmts;
  bool singleGroup;
};

} // namespace

void PromotionAnalysis::visit(const AstNode &node,
                              llvm::SmallVectorImpl<std::string> &groups) {
  if (node.kind == AstNode::Kind::Instance)
    return visitInstance(node, groups);
  bool group = node.kind == AstNode::Kind::For &&
               node.mapping == AstNode::Mapping::Group;
  if (group)
    groups.push_back(node.iterator);
  for (const AstNode &child : node.children)
    visit(child, groups);
  for (const AstNode &child : node.elseChildren)
    visit(child, groups);
  if (group)
    groups.pop_back();
}

void PromotionAnalysis::visitInstance(const AstNode &node,
                                      llvm::ArrayRef<std::string> groups) {
  const StmtContext &stmt = stmts[node.statement];
  def.scope = stmt.scope;
  poly::ScheduledStatement scheduled = toScheduled(def, stmt);
  llvm::SmallVector<IndexExpr, 4> lhs;
  for (const std::string &index : scheduled.lhsIndices)
    lhs.push_back(IndexExpr::var(index));
  // An update that combines into the incoming value of a temporary (`+=`
  // without `!`) reads what no statement of the kernel wrote.
  record(scheduled.lhsTensor, lhs, stmt, node, groups,
         /*unsafe=*/!node.init && scheduled.readsLhs);
  if (node.init)
    return;
  for (const poly::TensorAccess &access : scheduled.reads)
    record(access.tensor, access.subscripts, stmt, node, groups,
           /*unsafe=*/false);
}

void PromotionAnalysis::record(llvm::StringRef tensor,
                               llvm::ArrayRef<IndexExpr> subscripts,
                               const StmtContext &stmt, const AstNode &instance,
                               llvm::ArrayRef<std::string> groups,
                               bool unsafe) {
  auto found = def.tensors.find(tensor);
  if (found == def.tensors.end() || !found->second.temporary)
    return;
  const TensorBinding *binding = &found->second;
  TemporaryUse &use = uses[tensor];
  if ((groups.empty() && !singleGroup) || unsafe ||
      subscripts.size() != binding->shape.size()) {
    use.unsafe = true;
    return;
  }
  // The group iterator a subscript stands for, if it is exactly one.
  auto groupOf = [&](const IndexExpr &subscript) -> std::string {
    if (subscript.getKind() != IndexExpr::Kind::Var)
      return "";
    for (unsigned i = 0; i < stmt.ranges.size() && i < instance.args.size();
         ++i) {
      if (stmt.ranges[i].var != subscript.getName())
        continue;
      const IndexExpr &arg = instance.args[i];
      if (arg.getKind() == IndexExpr::Kind::Var &&
          llvm::is_contained(groups, arg.getName().str()))
        return arg.getName().str();
    }
    return "";
  };
  if (!use.seen) {
    use.seen = true;
    for (const IndexExpr &subscript : subscripts)
      use.groupIterator.push_back(groupOf(subscript));
    return;
  }
  for (unsigned d = 0; d < subscripts.size(); ++d)
    if (use.groupIterator[d] != groupOf(subscripts[d]))
      use.groupIterator[d].clear();
}

llvm::SmallVector<PromotedTensor, 2> lowering::findPromotedTemporaries(
    DefContext &def, llvm::ArrayRef<StmtContext> stmts,
    llvm::ArrayRef<poly::MappedKernel> kernels, unsigned kernelIndex,
    int64_t localMemoryBytes) {
  llvm::SmallVector<PromotedTensor, 2> result;
  if (localMemoryBytes <= 0)
    return result;
  // Temporaries that another kernel's launch takes stay in global memory.
  llvm::StringSet<> elsewhere;
  for (unsigned k = 0; k < kernels.size(); ++k) {
    if (k == kernelIndex)
      continue;
    llvm::SmallVector<unsigned, 8> statements;
    collectKernelStatements(kernels[k].root, statements);
    collectLaunchTensors(stmts, statements, elsewhere);
  }
  const std::array<int64_t, 3> &grid = kernels[kernelIndex].grid;
  PromotionAnalysis analysis(def, stmts,
                             /*singleGroup=*/grid[0] * grid[1] * grid[2] == 1);
  llvm::SmallVector<std::string, 3> groups;
  analysis.visit(kernels[kernelIndex].root, groups);
  int64_t budget = localMemoryBytes;
  // In the def's order, so that the choice does not depend on hashing.
  for (auto &[name, binding] : def.tensors) {
    auto it = analysis.uses.find(name);
    if (it == analysis.uses.end() || it->second.unsafe ||
        elsewhere.contains(name))
      continue;
    PromotedTensor promoted;
    promoted.name = name.str();
    int64_t elements = 1;
    for (unsigned d = 0; d < binding.shape.size(); ++d) {
      bool fixed = !it->second.groupIterator[d].empty();
      if (fixed)
        promoted.fixedDims |= 1u << d;
      promoted.sliceShape.push_back(fixed ? 1 : binding.shape[d]);
      elements *= promoted.sliceShape.back();
    }
    int64_t bytes = elements * ir::getSizeInBytes(binding.kind);
    if (bytes > budget)
      continue;
    budget -= bytes;
    result.push_back(std::move(promoted));
  }
  return result;
}

llvm::SmallVector<PromotedTensor, 2>
lowering::findSegmentPromotions(DefLoweringState &state, const Segment &segment,
                                llvm::ArrayRef<poly::MappedKernel> kernels,
                                unsigned index, int64_t bytes) {
  // What the kernel's parallel reductions keep in local memory is not
  // there for temporaries.
  bytes -=
      getReductionBufferBytes(state.context, segment.stmts, kernels[index]);
  llvm::SmallVector<PromotedTensor, 2> tensors = findPromotedTemporaries(
      state.context, segment.stmts, kernels, index, bytes);
  llvm::erase_if(tensors, [&](const PromotedTensor &tensor) {
    return segment.touchedElsewhere.contains(tensor.name);
  });
  return tensors;
}

LogicalResult lowering::promoteTemporaries(DefLoweringState &state) {
  LoweringKnobUse &knobs = state.context.knobsUsed;
  int64_t bytes = state.options.localMemoryBytes;
  for (Segment &segment : state.segments) {
    if (segment.kind != Segment::Kind::Mapped)
      continue;
    llvm::ArrayRef<poly::MappedKernel> kernels = segment.schedule->kernels;
    segment.promoted.clear();
    for (unsigned index = 0; index < kernels.size(); ++index) {
      segment.promoted.push_back(
          findSegmentPromotions(state, segment, kernels, index, bytes));
      // tc.local_temporaries matters where some temporary would go to
      // local memory under the lowering's own budget.
      if (!knobs.localTemporaries)
        knobs.localTemporaries =
            !findSegmentPromotions(
                 state, segment, kernels, index,
                 std::max(bytes, LoweringOptions().localMemoryBytes))
                 .empty();
    }
  }
  return success();
}
