//===- PlanLaunches.cpp - Kernel launches of a def from isl dependences ---===//
//
// The statements of a def become poly::ScheduledStatements (concrete bounds,
// subscripts as IndexExprs) and poly::planKernels computes their dependences
// and partition into launches for a given number of group dimensions (the
// leading LHS indices on group_id). We try one, two and three group
// dimensions and keep the partition with the fewest launches.
//
// Inside a launch the plan's "same work-item" verdict assumes that both
// statements spread their remaining LHS indices over the work-items alike.
// That holds for two `foreach` loops over the same ranges, not for a BLAS
// instruction (which distributes its own way) or for different ranges, so
// those get a barrier too.
//
//===----------------------------------------------------------------------===//
#include "DefLowering.h"

#include "comprehend/polyhedral/KernelPlan.h"

#include "llvm/ADT/StringSet.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;
using poly::IndexExpr;

namespace {

/// Converts subscript \p expr to an IndexExpr over index variables; sizes
/// are constants here. What isl cannot analyse becomes Opaque over the index
/// variables it uses, which the model treats as "may touch anything".
IndexExpr toIndexExpr(const Expr &expr, const llvm::StringMap<int64_t> &sizes);

void collectVars(const Expr &expr, llvm::SmallVectorImpl<std::string> &vars) {
  if (const auto *ident = llvm::dyn_cast<IdentExpr>(&expr)) {
    if (ident->getRef() == IdentExpr::Ref::Index &&
        !llvm::is_contained(vars, ident->getName()))
      vars.push_back(ident->getName().str());
    if (ident->getRef() == IdentExpr::Ref::Let && ident->getLet())
      collectVars(ident->getLet()->getValue(), vars);
    return;
  }
  if (const auto *unary = llvm::dyn_cast<UnaryExpr>(&expr))
    return collectVars(unary->getOperand(), vars);
  if (const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr)) {
    collectVars(binary->getLhs(), vars);
    return collectVars(binary->getRhs(), vars);
  }
  if (const auto *ternary = llvm::dyn_cast<TernaryExpr>(&expr)) {
    collectVars(ternary->getCond(), vars);
    collectVars(ternary->getTrueValue(), vars);
    return collectVars(ternary->getFalseValue(), vars);
  }
  if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr)) {
    for (const ExprPtr &arg : apply->getArgs())
      collectVars(*arg, vars);
    return;
  }
  if (const auto *cast = llvm::dyn_cast<CastExpr>(&expr))
    return collectVars(cast->getOperand(), vars);
}

IndexExpr opaqueOf(const Expr &expr) {
  llvm::SmallVector<std::string, 4> vars;
  collectVars(expr, vars);
  return IndexExpr::opaque(vars);
}

IndexExpr toIndexExpr(const Expr &expr, const llvm::StringMap<int64_t> &sizes) {
  if (const auto *literal = llvm::dyn_cast<IntLitExpr>(&expr))
    return IndexExpr::constant(literal->getValue());
  if (const auto *ident = llvm::dyn_cast<IdentExpr>(&expr)) {
    switch (ident->getRef()) {
    case IdentExpr::Ref::Index:
      return IndexExpr::var(ident->getName());
    case IdentExpr::Ref::Size:
      if (sizes.count(ident->getName()))
        return IndexExpr::constant(sizes.lookup(ident->getName()));
      return opaqueOf(expr);
    case IdentExpr::Ref::Let:
      if (ident->getLet())
        return toIndexExpr(ident->getLet()->getValue(), sizes);
      return opaqueOf(expr);
    default:
      return opaqueOf(expr);
    }
  }
  if (const auto *unary = llvm::dyn_cast<UnaryExpr>(&expr))
    if (unary->getOp() == UnaryOp::Neg)
      return IndexExpr::neg(toIndexExpr(unary->getOperand(), sizes));
  const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr);
  if (!binary)
    return opaqueOf(expr);
  IndexExpr lhs = toIndexExpr(binary->getLhs(), sizes);
  IndexExpr rhs = toIndexExpr(binary->getRhs(), sizes);
  using Kind = IndexExpr::Kind;
  auto isConstant = [](const IndexExpr &e) {
    return e.getKind() == Kind::Constant;
  };
  switch (binary->getOp()) {
  case BinaryOp::Add:
    return IndexExpr::binary(Kind::Add, lhs, rhs);
  case BinaryOp::Sub:
    return IndexExpr::binary(Kind::Sub, lhs, rhs);
  case BinaryOp::Min:
    return IndexExpr::binary(Kind::Min, lhs, rhs);
  case BinaryOp::Max:
    return IndexExpr::binary(Kind::Max, lhs, rhs);
  case BinaryOp::Mul:
    if (isConstant(lhs) || isConstant(rhs))
      return IndexExpr::binary(Kind::Mul, lhs, rhs);
    break;
  case BinaryOp::Div:
    if (isConstant(rhs) && rhs.getValue() > 0)
      return IndexExpr::binary(Kind::FloorDiv, lhs, rhs);
    break;
  case BinaryOp::Mod:
    if (isConstant(rhs) && rhs.getValue() > 0)
      return IndexExpr::binary(Kind::Mod, lhs, rhs);
    break;
  default:
    break;
  }
  return opaqueOf(expr);
}

/// Collects every tensor read of \p expr (subscript reads included).
void collectAccesses(const Expr &expr, const llvm::StringMap<int64_t> &sizes,
                     llvm::SmallVectorImpl<poly::TensorAccess> &accesses) {
  if (const auto *ident = llvm::dyn_cast<IdentExpr>(&expr)) {
    if (ident->getRef() == IdentExpr::Ref::Tensor) {
      poly::TensorAccess access;
      access.tensor = ident->getName().str();
      access.loc = ident->getLoc();
      accesses.push_back(std::move(access));
    }
    if (ident->getRef() == IdentExpr::Ref::Let && ident->getLet())
      collectAccesses(ident->getLet()->getValue(), sizes, accesses);
    return;
  }
  if (const auto *unary = llvm::dyn_cast<UnaryExpr>(&expr))
    return collectAccesses(unary->getOperand(), sizes, accesses);
  if (const auto *binary = llvm::dyn_cast<BinaryExpr>(&expr)) {
    collectAccesses(binary->getLhs(), sizes, accesses);
    return collectAccesses(binary->getRhs(), sizes, accesses);
  }
  if (const auto *ternary = llvm::dyn_cast<TernaryExpr>(&expr)) {
    collectAccesses(ternary->getCond(), sizes, accesses);
    collectAccesses(ternary->getTrueValue(), sizes, accesses);
    return collectAccesses(ternary->getFalseValue(), sizes, accesses);
  }
  if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&expr)) {
    if (apply->isTensorRead()) {
      poly::TensorAccess access;
      access.tensor = apply->getCallee().name.str();
      access.loc = apply->getLoc();
      for (const ExprPtr &arg : apply->getArgs()) {
        access.subscripts.push_back(toIndexExpr(*arg, sizes));
        access.subscriptLocs.push_back(arg->getLoc());
      }
      accesses.push_back(std::move(access));
    }
    for (const ExprPtr &arg : apply->getArgs())
      collectAccesses(*arg, sizes, accesses);
    return;
  }
  if (const auto *cast = llvm::dyn_cast<CastExpr>(&expr))
    return collectAccesses(cast->getOperand(), sizes, accesses);
}

} // namespace

poly::ScheduledStatement lowering::toScheduled(const DefContext &def,
                                               const StmtContext &stmt) {
  const ComprehensionStmt &comp = stmt.stmt;
  const llvm::StringMap<int64_t> &sizes =
      stmt.scope ? stmt.scope->sizes : def.sizes;
  poly::ScheduledStatement result;
  result.lhsTensor = def.resolve(comp.getLhs().name).str();
  for (const Ident &index : comp.getIndices())
    result.lhsIndices.push_back(index.name.str());
  for (const IndexRange &range : stmt.ranges) {
    result.iterators.push_back(range.var);
    result.lo.push_back(IndexExpr::constant(range.lo));
    result.hi.push_back(IndexExpr::constant(range.hi));
  }
  collectAccesses(comp.getRhs(), sizes, result.reads);
  for (const WhereClause &where : comp.getWheres())
    if (where.getKind() == WhereClause::Kind::Exists)
      collectAccesses(where.getValue(), sizes, result.reads);
  for (poly::TensorAccess &access : result.reads)
    access.tensor = def.resolve(access.tensor).str();
  result.readsLhs =
      comp.getReduction() != ReductionKind::None && !comp.hasInit();
  result.reduction = comp.getReduction() != ReductionKind::None;
  result.hasInit = comp.hasInit();
  return result;
}

namespace {

/// Whether two loop statements give each point of their LHS to the same
/// work-item: same rank and the same ranges (the group dimensions have
/// equal ranges already).
bool sameWorkItems(const StmtContext &a, const StmtContext &b) {
  size_t rank = a.stmt.getIndices().size();
  if (rank != b.stmt.getIndices().size())
    return false;
  for (size_t d = 0; d < rank; ++d)
    if (a.ranges[d].lo != b.ranges[d].lo || a.ranges[d].hi != b.ranges[d].hi)
      return false;
  return true;
}

/// One launch in one work-group, barriers wherever a statement touches what
/// an earlier one wrote or reads: always correct, used when isl cannot
/// model the def.
Launch singleGroupLaunch(DefContext &def, llvm::ArrayRef<StmtContext> stmts) {
  Launch launch;
  llvm::StringSet<> written, read;
  for (unsigned index = 0; index < stmts.size(); ++index) {
    llvm::StringSet<> reads;
    collectReads(stmts[index], reads);
    def.scope = stmts[index].scope;
    llvm::StringRef lhs = def.resolve(stmts[index].stmt.getLhs().name);
    bool barrier = written.contains(lhs) || read.contains(lhs) ||
                   llvm::any_of(reads, [&](const auto &entry) {
                     return written.contains(entry.first());
                   });
    if (barrier) {
      written.clear();
      read.clear();
    }
    written.insert(lhs);
    for (const auto &entry : reads)
      read.insert(entry.first());
    launch.statements.push_back(index);
    launch.barrierBefore.push_back({/*global=*/barrier, /*local=*/false});
  }
  return launch;
}

/// Whether \p stmt covers group dimension \p dim of \p tensor exactly: the
/// index's range is the tensor's range along the dimension, so that the
/// group's slice starts where the statement's group origin is.
bool coversDim(const StmtContext &stmt, const TensorBinding &tensor,
               unsigned dim) {
  const IndexRange &range = stmt.ranges[dim];
  return range.lo == tensor.lowerBounds[dim] &&
         range.hi - range.lo == tensor.shape[dim];
}

/// Whether the accesses of \p stmt to \p tensor stay within the slice of
/// the work-group running it: every read subscripts the first \p groupDims
/// dimensions by the statement's own group indices, in order.
bool accessesOwnSlice(const poly::ScheduledStatement &stmt,
                      llvm::StringRef tensor, unsigned rank,
                      unsigned groupDims) {
  if (stmt.lhsIndices.size() < groupDims)
    return false;
  for (const poly::TensorAccess &read : stmt.reads) {
    if (read.tensor != tensor)
      continue;
    if (read.subscripts.size() != rank)
      return false;
    for (unsigned d = 0; d < groupDims; ++d)
      if (read.subscripts[d].getKind() != IndexExpr::Kind::Var ||
          read.subscripts[d].getName() != stmt.lhsIndices[d])
        return false;
  }
  return true;
}

bool touches(const poly::ScheduledStatement &stmt, llvm::StringRef tensor) {
  return stmt.lhsTensor == tensor ||
         llvm::any_of(stmt.reads, [&](const poly::TensorAccess &read) {
           return read.tensor == tensor;
         });
}

/// Fills Launch::localTensors of \p launch (several statements sharing
/// group dimensions): the temporaries that only its statements touch, that
/// its first statement touching them writes from scratch (`=` or `!`,
/// nothing read before), that no BLAS instruction takes, and whose every
/// access stays within the work-group's slice. isl's plan already keeps
/// their dependences within a group; the subscript check makes the slice
/// the group touches a fixed box at the group's origin. Slices are taken in
/// the def's order while their bytes fit in \p limit.
void placeLocalTensors(const DefContext &def, llvm::ArrayRef<StmtContext> stmts,
                       llvm::ArrayRef<poly::ScheduledStatement> scheduled,
                       llvm::ArrayRef<bool> isBlas, int64_t limit,
                       const llvm::StringSet<> &touchedElsewhere,
                       Launch &launch) {
  unsigned groupDims = launch.groupDims;
  int64_t bytes = 0;
  for (const auto &[name, tensor] : def.tensors) {
    if (!tensor.temporary || tensor.shape.size() < groupDims ||
        touchedElsewhere.contains(name))
      continue;
    bool seen = false, ok = true;
    unsigned firstUse = 0, lastUse = 0;
    for (unsigned index = 0; index < stmts.size() && ok; ++index) {
      const poly::ScheduledStatement &stmt = scheduled[index];
      if (!touches(stmt, name))
        continue;
      auto *pos = llvm::find(launch.statements, index);
      if (pos == launch.statements.end() ||
          (launch.tile == 1 && isBlas[index]) ||
          !accessesOwnSlice(stmt, name, tensor.shape.size(), groupDims)) {
        ok = false;
        break;
      }
      // Local memory starts undefined: the first access must write every
      // element of the slice without reading it.
      if (!seen && (stmt.lhsTensor != name || stmt.readsLhs ||
                    // An init-capture: Clang 15 cannot capture a binding.
                    llvm::any_of(stmt.reads, [&name = name](const auto &read) {
                      return read.tensor == name;
                    })))
        ok = false;
      unsigned covered =
          stmt.lhsTensor == name && !seen ? tensor.shape.size() : groupDims;
      for (unsigned d = 0; d < covered && ok; ++d)
        ok = coversDim(stmts[index], tensor, d);
      if (!seen)
        firstUse = pos - launch.statements.begin();
      seen = true;
      lastUse = pos - launch.statements.begin();
    }
    if (!seen || !ok)
      continue;
    LocalTensor local;
    local.name = name.str();
    local.sliceDims = groupDims;
    local.firstUse = firstUse;
    local.lastUse = lastUse;
    for (unsigned d = 0; d < tensor.shape.size(); ++d) {
      int64_t extent = tensor.shape[d];
      if (d + 1 < groupDims)
        extent = 1;
      else if (d + 1 == groupDims)
        extent = std::min(extent, launch.tile);
      local.sliceShape.push_back(extent);
    }
    int64_t size =
        getMemRefType(def.builder.getContext(), tensor.kind, local.sliceShape)
            ->getSizeInBytes();
    if (bytes + size > limit)
      continue;
    bytes += size;
    launch.localTensors.push_back(std::move(local));
  }
}

} // namespace

llvm::SmallVector<Launch, 2>
lowering::planLaunches(DefContext &def, llvm::ArrayRef<StmtContext> stmts,
                       bool matchBlas, int64_t localMemoryBytes,
                       const llvm::StringSet<> &touchedElsewhere) {
  if (stmts.size() <= 1)
    return {singleGroupLaunch(def, stmts)};
  llvm::SmallVector<poly::ScheduledStatement, 4> scheduled;
  size_t maxRank = 0;
  for (const StmtContext &stmt : stmts) {
    def.scope = stmt.scope;
    scheduled.push_back(toScheduled(def, stmt));
    maxRank = std::max(maxRank, stmt.stmt.getIndices().size());
  }

  // The fewest launches; among equals the group dimensions closest to those
  // a single statement would use (all LHS indices but the last two).
  unsigned preferred =
      std::clamp<unsigned>(maxRank > 2 ? maxRank - 2 : 1, 1, 3);
  std::optional<poly::KernelPlan> best;
  unsigned bestDims = 0;
  for (unsigned groupDims = 1; groupDims <= 3; ++groupDims) {
    poly::PlanOptions options;
    options.groupDims = groupDims;
    llvm::Expected<poly::KernelPlan> plan =
        poly::planKernels({}, scheduled, options);
    if (!plan) {
      llvm::consumeError(plan.takeError());
      continue;
    }
    auto distance = [&](unsigned dims) {
      return dims > preferred ? dims - preferred : preferred - dims;
    };
    if (!best || plan->kernels.size() < best->kernels.size() ||
        (plan->kernels.size() == best->kernels.size() &&
         distance(groupDims) < distance(bestDims))) {
      best = std::move(*plan);
      bestDims = groupDims;
    }
  }
  if (!best)
    return {singleGroupLaunch(def, stmts)};

  llvm::SmallVector<bool, 8> isBlas;
  for (const StmtContext &stmt : stmts) {
    def.scope = stmt.scope;
    isBlas.push_back(matchBlas && lowerAsBlas(def, stmt, /*dryRun=*/true,
                                              /*groupDims=*/bestDims));
  }

  llvm::SmallVector<Launch, 2> launches;
  for (const poly::Kernel &kernel : best->kernels) {
    Launch &launch = launches.emplace_back();
    launch.groupDims = kernel.statements.size() > 1 ? bestDims : 0;
    // Statements that have nothing but group dimensions would leave one
    // point per group: tile the last one so that a group has a row of work.
    if (launch.groupDims > 0 &&
        llvm::all_of(kernel.statements, [&](unsigned stmt) {
          return stmts[stmt].stmt.getIndices().size() == bestDims;
        })) {
      launch.tile = def.groupWork;
      def.knobsUsed.groupWork = true;
    }
    launch.statements.assign(kernel.statements.begin(),
                             kernel.statements.end());
    if (launch.groupDims > 0 && localMemoryBytes > 0)
      placeLocalTensors(def, stmts, scheduled, isBlas, localMemoryBytes,
                        touchedElsewhere, launch);
    // tc.local_temporaries matters where some temporary would go to local
    // memory under the lowering's own budget.
    if (launch.groupDims > 0 && !def.knobsUsed.localTemporaries) {
      Launch withLocals = launch;
      placeLocalTensors(
          def, stmts, scheduled, isBlas,
          std::max(localMemoryBytes, LoweringOptions().localMemoryBytes),
          touchedElsewhere, withLocals);
      def.knobsUsed.localTemporaries = !withLocals.localTensors.empty();
    }
    auto isLocal = [&](llvm::StringRef tensor) {
      return llvm::any_of(launch.localTensors, [&](const LocalTensor &local) {
        return local.name == tensor;
      });
    };
    // A dependence is ordered by a barrier of its memory's kind after its
    // source: the positions of the last global and local barriers.
    unsigned lastGlobal = 0, lastLocal = 0;
    for (unsigned pos = 0; pos < launch.statements.size(); ++pos) {
      unsigned target = launch.statements[pos];
      Barrier barrier;
      for (const poly::Dependence &dep : best->dependences) {
        if (dep.target != target)
          continue;
        auto *source = llvm::find(launch.statements, dep.source);
        if (source == launch.statements.end())
          continue;
        bool local = isLocal(dep.tensor);
        if (source - launch.statements.begin() <
            (local ? lastLocal : lastGlobal))
          continue;
        bool blas = launch.tile == 1 && (isBlas[dep.source] || isBlas[target]);
        if (dep.sync != poly::SyncKind::None || blas ||
            !sameWorkItems(stmts[dep.source], stmts[target]))
          (local ? barrier.local : barrier.global) = true;
      }
      if (barrier.global)
        lastGlobal = pos;
      if (barrier.local)
        lastLocal = pos;
      launch.barrierBefore.push_back(barrier);
    }
  }
  return launches;
}
