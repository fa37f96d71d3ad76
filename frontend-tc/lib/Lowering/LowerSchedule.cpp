//===- LowerSchedule.cpp - The mapper's AST to tensor-language IR ---------===//
//
// One kernel of poly::mapSchedule becomes the body of one function:
//
//   for c0 in [0, 256) : group 0       %c0 = group_id.x (+ lo)
//     for c1 in [0, 1024) : work-item  foreach (%c1) = (0), (1024) { ... }
//     for c1 in [0, 1024) : reduction  %acc = for %c1 ... init(load O) {..}
//                                      store %acc, O[...]
//     for / if / stmt                  for / if / load-compute-store
//
// Code outside every work-item loop is collective: a statement instance or
// a loop nest without work-item loops there runs in a `foreach` over one
// point (one work-item), and `barrier.global` separates consecutive parts
// of a collective block when a later part touches what an earlier one
// wrote, or writes what it read. A collective `for` containing work-item
// loops ends each iteration with a barrier.
//
// Loop iterators are non-negative here (the caller checks the ranges), so
// the IR's truncating `div` / `rem` implement isl's floor division.
//
//===----------------------------------------------------------------------===//
#include "ExprLowering.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;
using poly::AstNode;
using poly::IndexExpr;

namespace {

/// The tensors a subtree writes and reads (by the def's names).
struct Footprint {
  llvm::StringSet<> written, read;

  /// The barrier that must separate this part from \p later: global for
  /// the tensors in global memory they share, local for those in local
  /// memory (\p isLocal tells which).
  template <class IsLocal>
  Barrier barrierBefore(const Footprint &later, IsLocal isLocal) const {
    Barrier barrier;
    auto add = [&](const llvm::StringSet<> &set,
                   const llvm::StringSet<> &other) {
      for (const auto &entry : set)
        if (other.contains(entry.first()))
          (isLocal(entry.first()) ? barrier.local : barrier.global) = true;
    };
    add(written, later.read);
    add(written, later.written);
    add(read, later.written);
    return barrier;
  }
  void add(const Footprint &other) {
    for (const auto &entry : other.written)
      written.insert(entry.first());
    for (const auto &entry : other.read)
      read.insert(entry.first());
  }
};

/// Work-item coordinates inside an spmd region.
struct SubgroupIds {
  ir::Value *subgroup, *lane, *subgroupSize, *numSubgroups;
};

/// What the phases of a parallel reduction share.
struct ParallelReduction {
  /// The reduction loop.
  const AstNode *node = nullptr;
  ReductionKind kind = ReductionKind::None;
  Location loc, lhsLoc;
  const TensorBinding *lhs = nullptr;
  /// The local buffer of one partial per subgroup.
  ir::Value *buffer = nullptr;
  /// The loop's bounds.
  ir::Value *lo = nullptr, *hi = nullptr;
  /// Emits the reduction's identity.
  std::function<ir::Value *()> identity;
};

class ScheduleLowerer {
public:
  ScheduleLowerer(DefContext &def, llvm::ArrayRef<StmtContext> stmts)
      : def(def), stmts(stmts), b(def.builder) {}

  LogicalResult lowerBlock(const std::vector<AstNode> &nodes, bool collective);
  /// Creates the local buffers of the parallel reductions in \p node.
  void createReductionBuffers(const AstNode &node, bool collective);
  /// The bytes of local memory those buffers take.
  int64_t reductionBufferBytes(const AstNode &node);

private:
  LogicalResult lower(const AstNode &node, bool collective);
  LogicalResult lowerFor(const AstNode &node, bool collective);
  LogicalResult lowerWorkItems(const AstNode &node);
  LogicalResult lowerReduction(const AstNode &node);
  /// A reduction loop at the group level, spread over its work-items.
  LogicalResult lowerParallelReduction(const AstNode &node);
  /// Its first phase: every work-item's partial, reduced over its subgroup
  /// into the local buffer; a barrier.
  LogicalResult reduceIntoSubgroupBuffer(const ParallelReduction &r);
  /// The partial of one work-item (inside the spmd region).
  ir::Value *workItemPartial(const ParallelReduction &r,
                             const SubgroupIds &ids);
  /// Its second phase: the first subgroup combines the buffer and one
  /// work-item updates the LHS element; a barrier.
  void combineSubgroupBuffer(const ParallelReduction &r);
  /// Emits `for iterator = lo, hi, step` over reduction \p loopNode,
  /// carrying \p init and combining the right-hand side of its statement
  /// instance into it; returns the loop's result (the insertion point after
  /// the loop), or null when the right-hand side cannot be lowered.
  ir::Value *accumulate(const AstNode &loopNode, ir::Value *lo, ir::Value *hi,
                        ir::Value *step, ir::Value *init);
  /// The memref indices of the LHS element that statement instance
  /// \p instance of a reduction updates.
  llvm::SmallVector<ir::Value *, 4> lhsSubscripts(const AstNode &instance,
                                                  const TensorBinding &lhs);
  /// Whether \p node is a reduction that lowerParallelReduction takes.
  bool isParallelReduction(const AstNode &node) const;
  LogicalResult lowerIf(const AstNode &node, bool collective);
  LogicalResult lowerInstance(const AstNode &node);
  /// Runs \p nodes in a foreach over one point (one work-item).
  LogicalResult lowerOnOneWorkItem(llvm::ArrayRef<AstNode> nodes);
  /// Whether \p node, at the group level, runs on one work-item: a
  /// statement instance, or a sequential loop without work-item loops or a
  /// parallel reduction.
  bool runsOnOneWorkItem(const AstNode &node) const;
  /// Computes the subexpressions of the statements directly in the body
  /// of the loops \p chain (work-item loops, or one loop inside a
  /// work-item) that do not depend on those loops, once per work-item
  /// before them (PoCL, for one, does not hoist the
  /// builtins out of its work-item loops: `rsqrt(var(n) + eps)` of layer
  /// norm costs more than the memory traffic when computed per point).
  /// Inside a work-item (\p hoistReads) lone reads move too: TC's tensors
  /// never overlap, but the OpenCL compiler cannot know that a store in
  /// the loop leaves them alone, and a divisor read outside the loop lets
  /// the vectorizer take its reciprocal once (softmax's `s(n)`).
  /// Returns the region where the code after the loops goes: where a
  /// loop's bounds are not constants (a tile clipped at the edge), the
  /// hoisted code and the loops go into an `if` that they run at all, so
  /// that a hoisted read touches nothing that no point of the loops would.
  /// \p bounds holds the lowered [lo, hi) of each loop of \p chain, or is
  /// empty: the guard then lowers them itself.
  ir::Region *
  hoistInvariants(llvm::ArrayRef<const AstNode *> chain,
                  llvm::ArrayRef<std::pair<ir::Value *, ir::Value *>> bounds,
                  bool hoistReads = false);

  ir::Value *index(const IndexExpr &expr);
  template <class Inst> ir::Value *binary(const IndexExpr &expr);
  ir::Value *condition(const poly::AstCondition &condition);
  ir::Value *constant(int64_t value) {
    return b.createIndexConstant(loc(), value);
  }
  Location loc() const { return stmts.front().stmt.getLoc(); }
  void footprint(const AstNode &node, Footprint &out);
  /// Whether tensor \p name lives in local memory in this kernel.
  bool isLocal(llvm::StringRef name) const {
    auto it = def.tensors.find(name);
    if (it == def.tensors.end() || !it->second.memref)
      return false;
    const auto *type =
        llvm::dyn_cast<ir::MemRefType>(it->second.memref->getType());
    return type && type->getAddressSpace() == ir::AddressSpace::Local;
  }
  void createBarrier(Barrier barrier) {
    if (barrier)
      b.create<ir::BarrierInst>(loc(), barrier.global, barrier.local);
  }
  static bool hasWorkItems(const AstNode &node);
  /// Calls \p visit on each parallel reduction in \p node (the element
  /// kind of its LHS, which picks its buffer).
  void forEachParallelReduction(const AstNode &node, bool collective,
                                llvm::function_ref<void(ir::ScalarKind)> visit);
  /// Binds the index variables of statement instance \p node in \p lowerer.
  void bindInstance(const AstNode &node, ExprLowerer &lowerer);

  DefContext &def;
  llvm::ArrayRef<StmtContext> stmts;
  ir::Builder &b;
  llvm::StringMap<ir::Value *> iterators;
  /// Per element kind: one partial result per subgroup (local memory).
  llvm::DenseMap<unsigned, ir::Value *> reductionBuffers;
  /// Per statement instance: its subexpressions computed before its loops.
  llvm::DenseMap<const AstNode *,
                 llvm::SmallVector<std::pair<const Expr *, ir::Value *>, 2>>
      hoisted;
};

} // namespace

bool ScheduleLowerer::hasWorkItems(const AstNode &node) {
  if (node.kind == AstNode::Kind::For &&
      node.mapping == AstNode::Mapping::WorkItem)
    return true;
  return llvm::any_of(node.children, hasWorkItems) ||
         llvm::any_of(node.elseChildren, hasWorkItems);
}

void ScheduleLowerer::footprint(const AstNode &node, Footprint &out) {
  if (node.kind == AstNode::Kind::Instance) {
    const StmtContext &stmt = stmts[node.statement];
    def.scope = stmt.scope;
    out.written.insert(def.resolve(stmt.stmt.getLhs().name));
    if (!node.init)
      collectReads(stmt, out.read);
    return;
  }
  for (const AstNode &child : node.children)
    footprint(child, out);
  for (const AstNode &child : node.elseChildren)
    footprint(child, out);
}

template <class Inst>
ir::Value *ScheduleLowerer::binary(const IndexExpr &expr) {
  ir::Value *lhs = index(expr.getOperands()[0]);
  ir::Value *rhs = index(expr.getOperands()[1]);
  if (!lhs || !rhs)
    return nullptr;
  return b.create<Inst>(loc(), lhs, rhs)->getResult(0);
}

ir::Value *ScheduleLowerer::index(const IndexExpr &expr) {
  using Kind = IndexExpr::Kind;
  switch (expr.getKind()) {
  case Kind::Constant:
    return constant(expr.getValue());
  case Kind::Var:
    return iterators.lookup(expr.getName());
  case Kind::Add:
    return binary<ir::AddInst>(expr);
  case Kind::Sub:
    return binary<ir::SubInst>(expr);
  case Kind::Mul:
    return binary<ir::MulInst>(expr);
  case Kind::FloorDiv:
    return binary<ir::DivInst>(expr);
  case Kind::Mod:
    return binary<ir::RemInst>(expr);
  case Kind::Min:
    return binary<ir::MinInst>(expr);
  case Kind::Max:
    return binary<ir::MaxInst>(expr);
  case Kind::Neg: {
    ir::Value *operand = index(expr.getOperands()[0]);
    return operand ? b.create<ir::NegInst>(loc(), operand)->getResult(0)
                   : nullptr;
  }
  case Kind::Param:
  case Kind::Opaque:
  case Kind::Eq:
  case Kind::Le:
  case Kind::Ge:
  case Kind::And:
  case Kind::Or:
  case Kind::Select: // Only in inferred bounds, never in isl's AST.
    break;
  }
  return nullptr;
}

ir::Value *ScheduleLowerer::condition(const poly::AstCondition &cond) {
  using Kind = poly::AstCondition::Kind;
  Location l = loc();
  if (cond.kind == Kind::And || cond.kind == Kind::Or) {
    ir::Value *result = nullptr;
    for (const poly::AstCondition &operand : cond.operands) {
      ir::Value *value = condition(operand);
      if (!value)
        return nullptr;
      if (!result)
        result = value;
      else if (cond.kind == Kind::And)
        result = b.create<ir::AndInst>(l, result, value)->getResult(0);
      else
        result = b.create<ir::OrInst>(l, result, value)->getResult(0);
    }
    return result;
  }
  ir::Value *lhs = index(cond.lhs), *rhs = index(cond.rhs);
  if (!lhs || !rhs)
    return nullptr;
  switch (cond.kind) {
  case Kind::Eq:
    return b.create<ir::EqualInst>(l, lhs, rhs)->getResult(0);
  case Kind::Le:
    return b.create<ir::LessThanEqualInst>(l, lhs, rhs)->getResult(0);
  case Kind::Lt:
    return b.create<ir::LessThanInst>(l, lhs, rhs)->getResult(0);
  case Kind::Ge:
    return b.create<ir::GreaterThanEqualInst>(l, lhs, rhs)->getResult(0);
  case Kind::Gt:
    return b.create<ir::GreaterThanInst>(l, lhs, rhs)->getResult(0);
  default:
    return nullptr;
  }
}

LogicalResult ScheduleLowerer::lowerBlock(const std::vector<AstNode> &nodes,
                                          bool collective) {
  Footprint pending;
  for (auto node = nodes.begin(); node != nodes.end();) {
    // Consecutive parts that each run on one work-item run on the same one,
    // in order: no barriers between them.
    auto end = std::next(node);
    if (collective && runsOnOneWorkItem(*node))
      while (end != nodes.end() && runsOnOneWorkItem(*end))
        ++end;
    if (collective) {
      Footprint current;
      for (auto part = node; part != end; ++part)
        footprint(*part, current);
      Barrier barrier = pending.barrierBefore(
          current, [&](llvm::StringRef name) { return isLocal(name); });
      if (barrier) {
        createBarrier(barrier);
        pending = Footprint();
      }
      pending.add(current);
    }
    LogicalResult result =
        collective && runsOnOneWorkItem(*node)
            ? lowerOnOneWorkItem(llvm::ArrayRef<AstNode>(&*node, end - node))
            : lower(*node, collective);
    if (failed(result))
      return failure();
    node = end;
  }
  return success();
}

bool ScheduleLowerer::runsOnOneWorkItem(const AstNode &node) const {
  return node.kind == AstNode::Kind::Instance ||
         (node.kind == AstNode::Kind::For &&
          node.mapping == AstNode::Mapping::Sequential && !hasWorkItems(node) &&
          !isParallelReduction(node));
}

LogicalResult ScheduleLowerer::lower(const AstNode &node, bool collective) {
  switch (node.kind) {
  case AstNode::Kind::Block:
    return lowerBlock(node.children, collective);
  case AstNode::Kind::For:
    return lowerFor(node, collective);
  case AstNode::Kind::If:
    return lowerIf(node, collective);
  case AstNode::Kind::Instance:
    return collective ? lowerOnOneWorkItem(node) : lowerInstance(node);
  }
  return failure();
}

LogicalResult
ScheduleLowerer::lowerOnOneWorkItem(llvm::ArrayRef<AstNode> nodes) {
  ir::Region *outer = b.getInsertionRegion();
  auto foreach =
      b.create<ir::ForeachInst>(loc(), llvm::ArrayRef<ir::Value *>{constant(0)},
                                llvm::ArrayRef<ir::Value *>{constant(1)});
  b.setInsertionPointToEnd(foreach.getBody());
  LogicalResult result = success();
  for (const AstNode &node : nodes)
    if (failed(lower(node, /*collective=*/false)))
      result = failure();
  b.setInsertionPointToEnd(*outer);
  return result;
}

LogicalResult ScheduleLowerer::lowerFor(const AstNode &node, bool collective) {
  Location l = loc();
  if (node.mapping == AstNode::Mapping::Group && collective) {
    ir::Value *group =
        b.create<ir::GroupIdInst>(l, static_cast<ir::Comp3>(node.mappedDim))
            ->getResult(0);
    ir::Value *lo = index(node.lo);
    if (!lo)
      return failure();
    iterators[node.iterator] =
        b.create<ir::AddInst>(l, group, lo)->getResult(0);
    return lowerBlock(node.children, collective);
  }
  if (node.mapping == AstNode::Mapping::WorkItem && collective)
    return lowerWorkItems(node);
  if (collective && !hasWorkItems(node) && !isParallelReduction(node))
    return lowerOnOneWorkItem(node);
  if (node.reduction && !collective)
    return lowerReduction(node);
  if (collective && isParallelReduction(node))
    return lowerParallelReduction(node);
  ir::Value *lo = index(node.lo), *hi = index(node.hi);
  if (!lo || !hi)
    return failure();
  ir::Value *step = node.step == 1 ? nullptr : constant(node.step);
  ir::Region *after = collective ? b.getInsertionRegion()
                                 : hoistInvariants({&node}, {{lo, hi}},
                                                   /*hoistReads=*/true);
  // A loop of statement instances only, inside a work-item: vector lanes
  // may take consecutive iterations, since TC's tensors never overlap and
  // its reductions may run in any order (the backend checks the accesses).
  bool simd = !collective && llvm::all_of(node.children, [](const AstNode &n) {
    return n.kind == AstNode::Kind::Instance;
  });
  auto loop = b.create<ir::ForInst>(
      l, lo, hi, step, llvm::ArrayRef<ir::Value *>{},
      simd ? ir::getSimdLoopAttributes(b.getContext()) : nullptr);
  iterators[node.iterator] = loop.getBody().getParameter(0);
  b.setInsertionPointToEnd(loop.getBody());
  LogicalResult result = lowerBlock(node.children, collective);
  // The next iteration's work-items may touch what this one wrote.
  if (collective) {
    Footprint body;
    footprint(node, body);
    Barrier barrier = body.barrierBefore(
        body, [&](llvm::StringRef name) { return isLocal(name); });
    if (!barrier)
      barrier.global = true;
    createBarrier(barrier);
  }
  b.setInsertionPointToEnd(*after);
  return result;
}

LogicalResult ScheduleLowerer::lowerWorkItems(const AstNode &node) {
  // The chain of directly nested work-item loops is one foreach; its modes
  // list the innermost loop first, the one that walks contiguous memory,
  // so that it lands on the x work-items.
  llvm::SmallVector<const AstNode *, 3> chain = {&node};
  while (chain.back()->children.size() == 1 &&
         chain.back()->children[0].kind == AstNode::Kind::For &&
         chain.back()->children[0].mapping == AstNode::Mapping::WorkItem)
    chain.push_back(&chain.back()->children[0]);
  llvm::SmallVector<ir::Value *, 3> from, to;
  llvm::SmallVector<std::pair<ir::Value *, ir::Value *>, 3> bounds;
  for (const AstNode *loop : chain) {
    ir::Value *lo = index(loop->lo), *hi = index(loop->hi);
    if (!lo || !hi)
      return failure();
    bounds.push_back({lo, hi});
  }
  for (auto [lo, hi] : llvm::reverse(bounds)) {
    from.push_back(lo);
    to.push_back(hi);
  }
  ir::Region *after = hoistInvariants(chain, bounds);
  auto foreach = b.create<ir::ForeachInst>(loc(), from, to);
  for (unsigned i = 0; i < chain.size(); ++i)
    iterators[chain[chain.size() - 1 - i]->iterator] =
        foreach.getBody().getParameter(i);
  b.setInsertionPointToEnd(foreach.getBody());
  LogicalResult result = lowerBlock(chain.back()->children, false);
  b.setInsertionPointToEnd(*after);
  return result;
}

void ScheduleLowerer::bindInstance(const AstNode &node, ExprLowerer &lowerer) {
  const StmtContext &stmt = stmts[node.statement];
  for (unsigned i = 0; i < node.args.size() && i < stmt.ranges.size(); ++i)
    lowerer.bindIndex(stmt.ranges[i].var, index(node.args[i]));
  for (auto [expr, value] : hoisted.lookup(&node))
    lowerer.bindValue(expr, value);
}

ir::Region *ScheduleLowerer::hoistInvariants(
    llvm::ArrayRef<const AstNode *> chain,
    llvm::ArrayRef<std::pair<ir::Value *, ir::Value *>> bounds,
    bool hoistReads) {
  ir::Region *after = b.getInsertionRegion();
  bool surelyRuns = true;
  for (const AstNode *loop : chain) {
    if (loop->lo.getKind() != IndexExpr::Kind::Constant ||
        loop->hi.getKind() != IndexExpr::Kind::Constant)
      surelyRuns = false;
    else if (loop->lo.getValue() >= loop->hi.getValue())
      return after;
  }
  llvm::StringSet<> loopIterators;
  for (const AstNode *loop : chain)
    loopIterators.insert(loop->iterator);
  Footprint body;
  footprint(*chain.back(), body);
  struct Pending {
    const AstNode *node;
    llvm::StringSet<> variant;
    llvm::SmallVector<const Expr *, 2> invariants;
  };
  std::vector<Pending> pending;
  for (const AstNode &node : chain.back()->children) {
    if (node.kind != AstNode::Kind::Instance || node.init)
      continue;
    const StmtContext &stmt = stmts[node.statement];
    def.scope = stmt.scope;
    Pending entry{&node, {}, {}};
    for (unsigned i = 0; i < node.args.size() && i < stmt.ranges.size(); ++i)
      for (const std::string &var : node.args[i].getVariables())
        if (loopIterators.contains(var))
          entry.variant.insert(stmt.ranges[i].var);
    collectInvariantSubexprs(def, stmt, entry.variant, body.written,
                             entry.invariants, hoistReads);
    if (!entry.invariants.empty())
      pending.push_back(std::move(entry));
  }
  if (pending.empty())
    return after;
  if (!surelyRuns) {
    Location l = loc();
    ir::Value *runs = nullptr;
    for (unsigned i = 0; i < chain.size(); ++i) {
      ir::Value *lo = i < bounds.size() ? bounds[i].first : index(chain[i]->lo);
      ir::Value *hi =
          i < bounds.size() ? bounds[i].second : index(chain[i]->hi);
      if (!lo || !hi)
        return after;
      ir::Value *nonEmpty = b.create<ir::LessThanInst>(l, lo, hi)->getResult(0);
      runs = runs ? b.create<ir::AndInst>(l, runs, nonEmpty)->getResult(0)
                  : nonEmpty;
    }
    auto guard =
        b.create<ir::IfInst>(l, llvm::ArrayRef<const ir::Type *>(), runs);
    b.setInsertionPointToEnd(guard.getThen());
  }
  for (const Pending &entry : pending) {
    const AstNode &node = *entry.node;
    const StmtContext &stmt = stmts[node.statement];
    def.scope = stmt.scope;
    ExprLowerer lowerer(def, stmt);
    for (unsigned i = 0; i < node.args.size() && i < stmt.ranges.size(); ++i)
      if (!entry.variant.contains(stmt.ranges[i].var))
        lowerer.bindIndex(stmt.ranges[i].var, index(node.args[i]));
    for (const Expr *expr : entry.invariants)
      if (ir::Value *value = lowerer.lowerValue(*expr))
        hoisted[&node].push_back({expr, value});
  }
  return after;
}

LogicalResult ScheduleLowerer::lowerInstance(const AstNode &node) {
  const StmtContext &stmtContext = stmts[node.statement];
  const ComprehensionStmt &stmt = stmtContext.stmt;
  Location l = stmt.getLoc();
  def.scope = stmtContext.scope;
  const TensorBinding *lhs = lookupLhsForLowering(def, stmt);
  if (!lhs)
    return failure();
  ExprLowerer lowerer(def, stmtContext);
  bindInstance(node, lowerer);
  llvm::SmallVector<ir::Value *, 4> subscripts =
      lowerer.lowerLhsSubscripts(*lhs);
  ReductionKind kind = stmt.getReduction();
  ir::Value *result = nullptr;
  if (node.init) {
    result = lowerer.constant(l, lhs->type, getIdentity(kind, lhs->type));
  } else {
    ir::Value *value = lowerer.lowerValueAs(stmt.getRhs(), lhs->type);
    if (value && kind != ReductionKind::None) {
      ir::Value *acc =
          b.create<ir::LoadInst>(l, lhs->memref, subscripts)->getResult(0);
      value = combine(b, l, kind, acc, value);
    }
    result = value;
  }
  if (!result || lowerer.hasFailed())
    return failure();
  b.create<ir::StoreInst>(stmt.getLhs().loc, result, lhs->memref, subscripts);
  return success();
}

LogicalResult ScheduleLowerer::lowerReduction(const AstNode &node) {
  // `for` carrying the LHS element: load before, combine inside, store
  // after (the LHS subscripts do not use the loop's iterator).
  ir::Region *after = hoistInvariants({&node}, {}, /*hoistReads=*/true);
  const AstNode &instance = node.children.front();
  const StmtContext &stmtContext = stmts[instance.statement];
  const ComprehensionStmt &stmt = stmtContext.stmt;
  Location l = stmt.getLoc();
  def.scope = stmtContext.scope;
  const TensorBinding *lhs = def.lookup(stmt.getLhs().name);
  if (!lhs)
    return failure();
  llvm::SmallVector<ir::Value *, 4> subscripts = lhsSubscripts(instance, *lhs);
  ir::Value *init =
      b.create<ir::LoadInst>(l, lhs->memref, subscripts)->getResult(0);
  ir::Value *lo = index(node.lo), *hi = index(node.hi);
  if (!lo || !hi)
    return failure();
  ir::Value *step = node.step == 1 ? nullptr : constant(node.step);
  ir::Value *total = accumulate(node, lo, hi, step, init);
  if (!total)
    return failure();
  b.create<ir::StoreInst>(stmt.getLhs().loc, total, lhs->memref, subscripts);
  b.setInsertionPointToEnd(*after);
  return success();
}

llvm::SmallVector<ir::Value *, 4>
ScheduleLowerer::lhsSubscripts(const AstNode &instance,
                               const TensorBinding &lhs) {
  const StmtContext &stmt = stmts[instance.statement];
  ExprLowerer lowerer(def, stmt);
  for (unsigned i = 0; i < stmt.stmt.getIndices().size(); ++i)
    lowerer.bindIndex(stmt.ranges[i].var, index(instance.args[i]));
  return lowerer.lowerLhsSubscripts(lhs);
}

ir::Value *ScheduleLowerer::accumulate(const AstNode &loopNode, ir::Value *lo,
                                       ir::Value *hi, ir::Value *step,
                                       ir::Value *init) {
  const AstNode &instance = loopNode.children.front();
  const StmtContext &stmt = stmts[instance.statement];
  Location l = stmt.stmt.getLoc();
  const TensorBinding *lhs = def.lookup(stmt.stmt.getLhs().name);
  auto loop =
      b.create<ir::ForInst>(l, lo, hi, step, llvm::ArrayRef<ir::Value *>{init},
                            ir::getSimdLoopAttributes(b.getContext()));
  ir::Region *outer = b.getInsertionRegion();
  iterators[loopNode.iterator] = loop.getBody().getParameter(0);
  b.setInsertionPointToEnd(loop.getBody());
  ExprLowerer lowerer(def, stmt);
  bindInstance(instance, lowerer);
  ir::Value *value = lowerer.lowerValueAs(stmt.stmt.getRhs(), lhs->type);
  if (value && !lowerer.hasFailed())
    b.create<ir::YieldInst>(l, llvm::ArrayRef<ir::Value *>{combine(
                                   b, l, stmt.stmt.getReduction(),
                                   loop.getBody().getParameter(1), value)});
  b.setInsertionPointToEnd(*outer);
  return value && !lowerer.hasFailed() ? loop->getResult(0) : nullptr;
}

bool ScheduleLowerer::isParallelReduction(const AstNode &node) const {
  if (node.kind != AstNode::Kind::For || !node.reduction || node.step != 1)
    return false;
  const StmtContext &stmt = stmts[node.children.front().statement];
  // `*` has no subgroup reduction.
  ReductionKind kind = stmt.stmt.getReduction();
  if (kind != ReductionKind::Add && kind != ReductionKind::Max &&
      kind != ReductionKind::Min)
    return false;
  def.scope = stmt.scope;
  const TensorBinding *lhs = def.lookup(stmt.stmt.getLhs().name);
  return lhs && lhs->type != ScalarType::Bool;
}

void ScheduleLowerer::forEachParallelReduction(
    const AstNode &node, bool collective,
    llvm::function_ref<void(ir::ScalarKind)> visit) {
  if (collective && isParallelReduction(node)) {
    const StmtContext &stmt = stmts[node.children.front().statement];
    def.scope = stmt.scope;
    visit(def.lookup(stmt.stmt.getLhs().name)->kind);
    return;
  }
  bool inner = collective && !(node.kind == AstNode::Kind::For &&
                               node.mapping == AstNode::Mapping::WorkItem);
  for (const AstNode &child : node.children)
    forEachParallelReduction(child, inner, visit);
  for (const AstNode &child : node.elseChildren)
    forEachParallelReduction(child, inner, visit);
}

void ScheduleLowerer::createReductionBuffers(const AstNode &node,
                                             bool collective) {
  forEachParallelReduction(node, collective, [&](ir::ScalarKind kind) {
    unsigned key = static_cast<unsigned>(kind);
    if (reductionBuffers.count(key))
      return;
    const auto *type = ir::MemRefType::get(
        b.getContext(), kind, {def.maxSubgroups}, {}, ir::AddressSpace::Local);
    reductionBuffers[key] = b.create<ir::AllocaInst>(loc(), type)->getResult(0);
  });
}

int64_t ScheduleLowerer::reductionBufferBytes(const AstNode &node) {
  llvm::SmallDenseSet<unsigned, 2> kinds;
  int64_t bytes = 0;
  forEachParallelReduction(node, /*collective=*/true, [&](ir::ScalarKind kind) {
    if (kinds.insert(static_cast<unsigned>(kind)).second)
      bytes += def.maxSubgroups * ir::getSizeInBytes(kind);
  });
  return bytes;
}

/// The reduction of \p value over a subgroup.
static ir::Value *subgroupReduce(ir::Builder &b, Location loc,
                                 ReductionKind kind, ir::Value *value) {
  switch (kind) {
  case ReductionKind::Max:
    return b.create<ir::SubgroupReduceMaxInst>(loc, value)->getResult(0);
  case ReductionKind::Min:
    return b.create<ir::SubgroupReduceMinInst>(loc, value)->getResult(0);
  default:
    return b.create<ir::SubgroupReduceAddInst>(loc, value)->getResult(0);
  }
}

static SubgroupIds subgroupIds(ir::Builder &b, Location l) {
  auto toIndex = [&](ir::Value *value) {
    return b.create<ir::CastInst>(l, b.getIndexType(), value)->getResult(0);
  };
  SubgroupIds result;
  result.subgroup =
      toIndex(b.create<ir::SubgroupLinearIdInst>(l)->getResult(0));
  result.lane = toIndex(b.create<ir::SubgroupLocalIdInst>(l)->getResult(0));
  result.subgroupSize =
      toIndex(b.create<ir::SubgroupSizeInst>(l)->getResult(0));
  ir::Value *x =
      toIndex(b.create<ir::NumSubgroupsInst>(l, ir::Comp3::X)->getResult(0));
  ir::Value *y =
      toIndex(b.create<ir::NumSubgroupsInst>(l, ir::Comp3::Y)->getResult(0));
  result.numSubgroups = b.create<ir::MulInst>(l, x, y)->getResult(0);
  return result;
}

/// `if (lhs == rhs) { ... }`; leaves the insertion point in its then-region.
static void beginIfEqual(ir::Builder &b, Location l, ir::Value *lhs,
                         ir::Value *rhs) {
  auto branch =
      b.create<ir::IfInst>(l, llvm::ArrayRef<const ir::Type *>(),
                           b.create<ir::EqualInst>(l, lhs, rhs)->getResult(0));
  b.setInsertionPointToEnd(branch.getThen());
}

ir::Value *ScheduleLowerer::workItemPartial(const ParallelReduction &r,
                                            const SubgroupIds &ids) {
  Location l = r.loc;
  auto add = [&](ir::Value *x, ir::Value *y) {
    return b.create<ir::AddInst>(l, x, y)->getResult(0);
  };
  ir::Value *workItem = add(
      b.create<ir::MulInst>(l, ids.subgroup, ids.subgroupSize)->getResult(0),
      ids.lane);
  ir::Value *workItems =
      b.create<ir::MulInst>(l, ids.numSubgroups, ids.subgroupSize)
          ->getResult(0);
  if (!def.contiguousPartials)
    return accumulate(*r.node, add(r.lo, workItem), r.hi, workItems,
                      r.identity());
  // A chunk of consecutive iterations per work-item: its loop walks
  // memory contiguously, on vector lanes.
  ir::Value *count = b.create<ir::SubInst>(l, r.hi, r.lo)->getResult(0);
  ir::Value *lastItem =
      b.create<ir::SubInst>(l, workItems, constant(1))->getResult(0);
  ir::Value *chunk =
      b.create<ir::DivInst>(l, add(count, lastItem), workItems)->getResult(0);
  ir::Value *start =
      add(r.lo, b.create<ir::MulInst>(l, workItem, chunk)->getResult(0));
  ir::Value *end =
      b.create<ir::MinInst>(l, r.hi, add(start, chunk))->getResult(0);
  return accumulate(*r.node, start, end, nullptr, r.identity());
}

LogicalResult
ScheduleLowerer::reduceIntoSubgroupBuffer(const ParallelReduction &r) {
  Location l = r.loc;
  ir::Region *outer = b.getInsertionRegion();
  auto partials = b.create<ir::ParallelInst>(l);
  b.setInsertionPointToEnd(partials.getBody());
  SubgroupIds ids = subgroupIds(b, l);
  ir::Value *partial = workItemPartial(r, ids);
  if (!partial) {
    b.setInsertionPointToEnd(*outer);
    return failure();
  }
  ir::Value *mine = subgroupReduce(b, l, r.kind, partial);
  beginIfEqual(b, l, ids.lane, constant(0));
  b.create<ir::StoreInst>(l, mine, r.buffer,
                          llvm::ArrayRef<ir::Value *>{ids.subgroup});
  b.setInsertionPointToEnd(*outer);
  b.create<ir::BarrierInst>(l, /*global=*/false, /*local=*/true);
  return success();
}

void ScheduleLowerer::combineSubgroupBuffer(const ParallelReduction &r) {
  Location l = r.loc;
  ir::Region *outer = b.getInsertionRegion();
  auto total = b.create<ir::ParallelInst>(l);
  b.setInsertionPointToEnd(total.getBody());
  SubgroupIds ids = subgroupIds(b, l);
  beginIfEqual(b, l, ids.subgroup, constant(0));
  ir::Region *combineRegion = b.getInsertionRegion();
  auto gather =
      b.create<ir::ForInst>(l, ids.lane, ids.numSubgroups, ids.subgroupSize,
                            llvm::ArrayRef<ir::Value *>{r.identity()});
  b.setInsertionPointToEnd(gather.getBody());
  ir::Value *part =
      b.create<ir::LoadInst>(
           l, r.buffer,
           llvm::ArrayRef<ir::Value *>{gather.getBody().getParameter(0)})
          ->getResult(0);
  b.create<ir::YieldInst>(
      l, llvm::ArrayRef<ir::Value *>{
             combine(b, l, r.kind, gather.getBody().getParameter(1), part)});
  b.setInsertionPointToEnd(*combineRegion);
  ir::Value *sum = subgroupReduce(b, l, r.kind, gather->getResult(0));
  beginIfEqual(b, l, ids.lane, constant(0));
  const AstNode &instance = r.node->children.front();
  llvm::SmallVector<ir::Value *, 4> subscripts =
      lhsSubscripts(instance, *r.lhs);
  ir::Value *old =
      b.create<ir::LoadInst>(l, r.lhs->memref, subscripts)->getResult(0);
  b.create<ir::StoreInst>(r.lhsLoc, combine(b, l, r.kind, old, sum),
                          r.lhs->memref, subscripts);
  b.setInsertionPointToEnd(*outer);
  // The buffer is free for the next reduction once everyone has read it.
  b.create<ir::BarrierInst>(l, /*global=*/false, /*local=*/true);
}

LogicalResult ScheduleLowerer::lowerParallelReduction(const AstNode &node) {
  // Each work-item accumulates every work-group-size-th iteration (a
  // chunk of consecutive ones with DefContext::contiguousPartials), the
  // subgroups reduce their work-items' partials and leave one per subgroup
  // in local memory; after a barrier the first subgroup combines those and
  // one work-item updates the LHS element.
  const StmtContext &stmtContext = stmts[node.children.front().statement];
  const ComprehensionStmt &stmt = stmtContext.stmt;
  def.scope = stmtContext.scope;
  ParallelReduction r;
  r.node = &node;
  r.kind = stmt.getReduction();
  r.loc = stmt.getLoc();
  r.lhsLoc = stmt.getLhs().loc;
  r.lhs = def.lookup(stmt.getLhs().name);
  if (!r.lhs)
    return failure();
  r.buffer = reductionBuffers.lookup(static_cast<unsigned>(r.lhs->kind));
  r.lo = index(node.lo);
  r.hi = index(node.hi);
  if (!r.buffer || !r.lo || !r.hi)
    return failure();
  ExprLowerer identityLowerer(def, stmtContext);
  r.identity = [&, type = r.lhs->type, kind = r.kind]() {
    return identityLowerer.constant(r.loc, type, getIdentity(kind, type));
  };
  if (failed(reduceIntoSubgroupBuffer(r)))
    return failure();
  combineSubgroupBuffer(r);
  return success();
}

LogicalResult ScheduleLowerer::lowerIf(const AstNode &node, bool collective) {
  ir::Value *cond = condition(node.condition);
  if (!cond)
    return failure();
  ir::Region *outer = b.getInsertionRegion();
  auto branch =
      b.create<ir::IfInst>(loc(), llvm::ArrayRef<const ir::Type *>(), cond);
  b.setInsertionPointToEnd(branch.getThen());
  LogicalResult result = lowerBlock(node.children, collective);
  if (succeeded(result) && !node.elseChildren.empty()) {
    b.setInsertionPointToEnd(branch.getElse());
    result = lowerBlock(node.elseChildren, collective);
  }
  b.setInsertionPointToEnd(*outer);
  return result;
}

LogicalResult lowering::lowerScheduledKernel(DefContext &def,
                                             llvm::ArrayRef<StmtContext> stmts,
                                             const poly::MappedKernel &kernel) {
  def.grid = kernel.grid;
  ScheduleLowerer lowerer(def, stmts);
  lowerer.createReductionBuffers(kernel.root, /*collective=*/true);
  return lowerer.lowerBlock(kernel.root.children, /*collective=*/true);
}

int64_t lowering::getReductionBufferBytes(DefContext &def,
                                          llvm::ArrayRef<StmtContext> stmts,
                                          const poly::MappedKernel &kernel) {
  ScheduleLowerer lowerer(def, stmts);
  return lowerer.reductionBufferBytes(kernel.root);
}
