//===- Rewriting.cpp - Statements and temporaries of the rewrites ---------===//
//
// The rewrites before scheduling (HoistToTemporaries.cpp,
// SnapshotSelfReads.cpp) build statements of their own from parts of the
// def's: copies that keep what Sema resolved (types, index / size / tensor
// references, builtin calls), some subexpressions replaced by reads of new
// temporaries, which they declare here.
//
//===----------------------------------------------------------------------===//
#include "DefLowering.h"

#include "comprehend/tc/ExprVisitor.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// Copies an expression node by node; each copy keeps the type and the
/// resolution of its original.
class Cloner : public ConstExprVisitor<Cloner, ExprPtr> {
public:
  explicit Cloner(const ExprReplacer &replace) : replace(replace) {}

  ExprPtr clone(const Expr &expr) {
    if (replace)
      if (ExprPtr replacement = replace(expr))
        return replacement;
    ExprPtr result = visit(expr);
    result->setType(expr.getType());
    return result;
  }

  ExprPtr visitIntLit(const IntLitExpr &lit) {
    return std::make_unique<IntLitExpr>(lit.getLoc(), lit.getValue(),
                                        lit.getType());
  }
  ExprPtr visitFloatLit(const FloatLitExpr &lit) {
    return std::make_unique<FloatLitExpr>(lit.getLoc(), lit.getValue(),
                                          lit.getType());
  }
  ExprPtr visitIdent(const IdentExpr &ident) {
    auto copy =
        std::make_unique<IdentExpr>(Ident{ident.getName(), ident.getLoc()});
    copy->resolve(ident.getRef(), ident.getLet());
    return copy;
  }
  ExprPtr visitDimAccess(const DimAccessExpr &dim) {
    return std::make_unique<DimAccessExpr>(dim.getLoc(), dim.getTensor(),
                                           dim.getDim());
  }
  ExprPtr visitUnary(const UnaryExpr &unary) {
    return std::make_unique<UnaryExpr>(unary.getLoc(), unary.getOp(),
                                       clone(unary.getOperand()));
  }
  ExprPtr visitBinary(const BinaryExpr &binary) {
    return std::make_unique<BinaryExpr>(binary.getLoc(), binary.getOp(),
                                        clone(binary.getLhs()),
                                        clone(binary.getRhs()));
  }
  ExprPtr visitTernary(const TernaryExpr &ternary) {
    return std::make_unique<TernaryExpr>(
        ternary.getLoc(), clone(ternary.getCond()),
        clone(ternary.getTrueValue()), clone(ternary.getFalseValue()));
  }
  ExprPtr visitApply(const ApplyExpr &apply) {
    llvm::SmallVector<ExprPtr, 4> args;
    for (const ExprPtr &arg : apply.getArgs())
      args.push_back(clone(*arg));
    auto copy = std::make_unique<ApplyExpr>(apply.getLoc(), apply.getCallee(),
                                            std::move(args));
    copy->setTarget(apply.getTarget());
    return copy;
  }
  ExprPtr visitCast(const CastExpr &cast) {
    return std::make_unique<CastExpr>(cast.getLoc(), cast.getType(),
                                      clone(cast.getOperand()));
  }

private:
  const ExprReplacer &replace;
};

} // namespace

ExprPtr lowering::cloneExpr(const Expr &expr, const ExprReplacer &replace) {
  return Cloner(replace).clone(expr);
}

ExprPtr lowering::makeTensorRead(llvm::StringRef tensor,
                                 llvm::ArrayRef<const IdentExpr *> indices,
                                 const Expr &at) {
  llvm::SmallVector<ExprPtr, 4> args;
  for (const IdentExpr *index : indices)
    args.push_back(cloneExpr(*index));
  auto read = std::make_unique<ApplyExpr>(
      at.getLoc(), Ident{tensor, at.getLoc()}, std::move(args));
  read->setTarget(ApplyExpr::Target::Tensor);
  read->setType(at.getType());
  return read;
}

ExprPtr lowering::cloneReadOf(const ApplyExpr &read, llvm::StringRef tensor) {
  llvm::SmallVector<ExprPtr, 4> args;
  for (const ExprPtr &arg : read.getArgs())
    args.push_back(cloneExpr(*arg));
  auto copy = std::make_unique<ApplyExpr>(
      read.getLoc(), Ident{tensor, read.getCallee().loc}, std::move(args));
  copy->setTarget(ApplyExpr::Target::Tensor);
  copy->setType(read.getType());
  return copy;
}

llvm::StringRef lowering::declareTemporary(DefContext &def,
                                           RewrittenStatements &created,
                                           LoweredDef &lowered,
                                           const llvm::Twine &base,
                                           TensorBinding binding) {
  std::string candidate = base.str();
  while (def.tensors.count(candidate))
    candidate += "_";
  llvm::StringRef name = created.names.emplace_back(std::move(candidate));
  binding.memref = nullptr;
  binding.temporary = true;
  def.tensors.insert({name, binding});
  LoweredTensor &tensor = lowered.tensors.emplace_back();
  tensor.name = name.str();
  tensor.role = TensorInfo::Role::Temporary;
  tensor.type = binding.type;
  tensor.shape = binding.shape;
  tensor.lowerBounds = binding.lowerBounds;
  return name;
}

ExprPtr lowering::copyToPermutedTemporary(
    DefContext &def, RewrittenStatements &created, LoweredDef &lowered,
    const StmtContext &consumer, const ApplyExpr &read,
    llvm::ArrayRef<const IdentExpr *> order,
    llvm::SmallVectorImpl<StmtContext> &result) {
  const TensorBinding &source = *def.lookup(read.getCallee().name);
  TensorBinding binding;
  binding.type = source.type;
  binding.kind = source.kind;
  llvm::SmallVector<Ident, 4> indices;
  llvm::SmallVector<std::string, 4> vars;
  llvm::SmallVector<IndexRange, 4> ranges;
  for (const IdentExpr *index : order) {
    const IndexRange &range = *consumer.lookup(index->getName());
    binding.shape.push_back(range.hi - range.lo);
    binding.lowerBounds.push_back(range.lo);
    indices.push_back(Ident{index->getName(), index->getLoc()});
    vars.push_back(index->getName().str());
    ranges.push_back(range);
  }
  llvm::StringRef name = declareTemporary(
      def, created, lowered, read.getCallee().name + "_t", std::move(binding));
  const ComprehensionStmt &copy = createStatement(
      created, read.getLoc(), read.getLoc(), Ident{name, read.getLoc()},
      indices, ReductionKind::None, /*init=*/false, cloneExpr(read), vars);
  result.push_back(StmtContext{copy, ranges, nullptr});
  return makeTensorRead(name, order, read);
}

llvm::StringRef lowering::declareLhsTemporary(DefContext &def,
                                              RewrittenStatements &created,
                                              LoweredDef &lowered,
                                              const StmtContext &stmt,
                                              llvm::ArrayRef<Ident> indices,
                                              const llvm::Twine &base) {
  const TensorBinding &lhs = *def.lookup(stmt.stmt.getLhs().name);
  TensorBinding binding;
  binding.type = lhs.type;
  binding.kind = lhs.kind;
  for (const Ident &index : indices) {
    const IndexRange &range = *stmt.lookup(index.name);
    binding.shape.push_back(range.hi - range.lo);
    binding.lowerBounds.push_back(range.lo);
  }
  return declareTemporary(def, created, lowered, base, std::move(binding));
}

void lowering::appendLhsStatement(RewrittenStatements &created,
                                  const StmtContext &stmt,
                                  ReductionKind reduction, bool init,
                                  ExprPtr rhs,
                                  llvm::ArrayRef<llvm::StringRef> reductionVars,
                                  llvm::SmallVectorImpl<StmtContext> &result) {
  const ComprehensionStmt &comp = stmt.stmt;
  llvm::SmallVector<std::string, 4> vars;
  for (const Ident &index : comp.getIndices())
    vars.push_back(index.name.str());
  for (llvm::StringRef var : reductionVars)
    vars.push_back(var.str());
  llvm::SmallVector<IndexRange, 4> ranges;
  for (const std::string &var : vars)
    ranges.push_back(*stmt.lookup(var));
  const ComprehensionStmt &written =
      createStatement(created, comp.getLoc(), comp.getOpLoc(), comp.getLhs(),
                      comp.getIndices(), reduction, init, std::move(rhs), vars);
  result.push_back(StmtContext{written, ranges, nullptr});
}

void lowering::forgetTemporary(DefContext &def, LoweredDef &lowered,
                               llvm::StringRef name) {
  llvm::erase_if(lowered.tensors, [&](const LoweredTensor &tensor) {
    return tensor.name == name;
  });
  def.tensors.erase(name);
}

const IdentExpr *lowering::findIndexExpr(const Expr &expr,
                                         llvm::StringRef var) {
  const IdentExpr *found = nullptr;
  walk<IdentExpr>(expr, [&](const IdentExpr &ident) {
    if (ident.getRef() != IdentExpr::Ref::Index || ident.getName() != var)
      return WalkResult::advance();
    found = &ident;
    return WalkResult::interrupt();
  });
  return found;
}

bool lowering::hasLetsOrExists(const ComprehensionStmt &stmt) {
  return llvm::any_of(stmt.getWheres(), [](const WhereClause &where) {
    return where.getKind() != WhereClause::Kind::Range;
  });
}

const ComprehensionStmt &lowering::createStatement(
    RewrittenStatements &created, Location loc, Location opLoc, Ident lhs,
    llvm::ArrayRef<Ident> indices, ReductionKind reduction, bool init,
    ExprPtr rhs, llvm::ArrayRef<std::string> vars) {
  auto &stmt = created.stmts.emplace_back(std::make_unique<ComprehensionStmt>(
      loc, lhs, llvm::SmallVector<Ident, 4>(indices.begin(), indices.end()),
      reduction, init, opLoc, std::move(rhs), std::vector<WhereClause>{}));
  stmt->setIndexVars(
      llvm::SmallVector<std::string, 4>(vars.begin(), vars.end()));
  return *stmt;
}

const ComprehensionStmt &
lowering::restateStatement(const ComprehensionStmt &like,
                           ReductionKind reduction, bool init, ExprPtr rhs,
                           RewrittenStatements &created) {
  return createStatement(created, like.getLoc(), like.getOpLoc(), like.getLhs(),
                         like.getIndices(), reduction, init, std::move(rhs),
                         like.getIndexVars());
}

const ComprehensionStmt &lowering::rewriteRhs(const ComprehensionStmt &stmt,
                                              const ExprReplacer &replace,
                                              RewrittenStatements &created) {
  return restateStatement(stmt, stmt.getReduction(), stmt.hasInit(),
                          cloneExpr(stmt.getRhs(), replace), created);
}
