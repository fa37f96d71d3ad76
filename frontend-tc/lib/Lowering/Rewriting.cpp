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

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

class Cloner {
public:
  explicit Cloner(const ExprReplacer &replace) : replace(replace) {}

  ExprPtr clone(const Expr &expr) {
    if (replace)
      if (ExprPtr replacement = replace(expr))
        return replacement;
    ExprPtr result = cloneNode(expr);
    result->setType(expr.getType());
    return result;
  }

private:
  ExprPtr cloneNode(const Expr &expr) {
    switch (expr.getKind()) {
    case Expr::Kind::IntLit: {
      const auto &lit = llvm::cast<IntLitExpr>(expr);
      return std::make_unique<IntLitExpr>(lit.getLoc(), lit.getValue(),
                                          lit.getType());
    }
    case Expr::Kind::FloatLit: {
      const auto &lit = llvm::cast<FloatLitExpr>(expr);
      return std::make_unique<FloatLitExpr>(lit.getLoc(), lit.getValue(),
                                            lit.getType());
    }
    case Expr::Kind::Ident: {
      const auto &ident = llvm::cast<IdentExpr>(expr);
      auto copy =
          std::make_unique<IdentExpr>(Ident{ident.getName(), ident.getLoc()});
      copy->resolve(ident.getRef(), ident.getLet());
      return copy;
    }
    case Expr::Kind::DimAccess: {
      const auto &dim = llvm::cast<DimAccessExpr>(expr);
      return std::make_unique<DimAccessExpr>(dim.getLoc(), dim.getTensor(),
                                             dim.getDim());
    }
    case Expr::Kind::Unary: {
      const auto &unary = llvm::cast<UnaryExpr>(expr);
      return std::make_unique<UnaryExpr>(unary.getLoc(), unary.getOp(),
                                         clone(unary.getOperand()));
    }
    case Expr::Kind::Binary: {
      const auto &binary = llvm::cast<BinaryExpr>(expr);
      return std::make_unique<BinaryExpr>(binary.getLoc(), binary.getOp(),
                                          clone(binary.getLhs()),
                                          clone(binary.getRhs()));
    }
    case Expr::Kind::Ternary: {
      const auto &ternary = llvm::cast<TernaryExpr>(expr);
      return std::make_unique<TernaryExpr>(
          ternary.getLoc(), clone(ternary.getCond()),
          clone(ternary.getTrueValue()), clone(ternary.getFalseValue()));
    }
    case Expr::Kind::Apply: {
      const auto &apply = llvm::cast<ApplyExpr>(expr);
      llvm::SmallVector<ExprPtr, 4> args;
      for (const ExprPtr &arg : apply.getArgs())
        args.push_back(clone(*arg));
      auto copy = std::make_unique<ApplyExpr>(apply.getLoc(), apply.getCallee(),
                                              std::move(args));
      copy->setTarget(apply.getTarget());
      return copy;
    }
    case Expr::Kind::Cast: {
      const auto &cast = llvm::cast<CastExpr>(expr);
      return std::make_unique<CastExpr>(cast.getLoc(), cast.getType(),
                                        clone(cast.getOperand()));
    }
    }
    llvm_unreachable("unknown expression kind");
  }

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

bool lowering::hasLetsOrExists(const ComprehensionStmt &stmt) {
  return llvm::any_of(stmt.getWheres(), [](const WhereClause &where) {
    return where.getKind() != WhereClause::Kind::Range;
  });
}

const ComprehensionStmt &lowering::rewriteRhs(const ComprehensionStmt &stmt,
                                              const ExprReplacer &replace,
                                              RewrittenStatements &created) {
  auto &rewritten =
      created.stmts.emplace_back(std::make_unique<ComprehensionStmt>(
          stmt.getLoc(), stmt.getLhs(),
          llvm::SmallVector<Ident, 4>(stmt.getIndices().begin(),
                                      stmt.getIndices().end()),
          stmt.getReduction(), stmt.hasInit(), stmt.getOpLoc(),
          cloneExpr(stmt.getRhs(), replace), std::vector<WhereClause>{}));
  llvm::ArrayRef<std::string> vars = stmt.getIndexVars();
  rewritten->setIndexVars(
      llvm::SmallVector<std::string, 4>(vars.begin(), vars.end()));
  return *rewritten;
}
