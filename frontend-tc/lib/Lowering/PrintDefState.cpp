//===- PrintDefState.cpp - The def between def-level passes as TC ---------===//
//
// What `--print-def-after` shows: the def's signature and its statements as
// the passes left them, each a TC statement that names the tensors as the
// def does (an inlined callee's names resolved through its scope, a
// temporary renamed to the output that holds it) and gives every index its
// concrete range as a `where` clause. What TC cannot say (the launches,
// where temporaries live) follows as `#` comments, so the text still
// parses.
//
//===----------------------------------------------------------------------===//
#include "DefPasses.h"

#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

namespace {

/// A copy of \p expr whose tensor names resolve through \p scope.
ExprPtr cloneResolved(const Expr &expr, const CallScope *scope) {
  if (!scope)
    return cloneExpr(expr);
  ExprReplacer rename;
  rename = [&](const Expr &old) -> ExprPtr {
    if (const auto *apply = llvm::dyn_cast<ApplyExpr>(&old)) {
      if (!apply->isTensorRead())
        return nullptr;
      llvm::SmallVector<ExprPtr, 4> args;
      for (const ExprPtr &arg : apply->getArgs())
        args.push_back(cloneExpr(*arg, rename));
      llvm::StringRef name = scope->resolve(apply->getCallee().name);
      auto read = std::make_unique<ApplyExpr>(
          apply->getLoc(), Ident{name, apply->getCallee().loc},
          std::move(args));
      read->setTarget(ApplyExpr::Target::Tensor);
      read->setType(apply->getType());
      return read;
    }
    if (const auto *ident = llvm::dyn_cast<IdentExpr>(&old)) {
      if (ident->getRef() != IdentExpr::Ref::Tensor)
        return nullptr;
      auto read = std::make_unique<IdentExpr>(
          Ident{scope->resolve(ident->getName()), ident->getLoc()});
      read->resolve(IdentExpr::Ref::Tensor);
      read->setType(ident->getType());
      return read;
    }
    if (const auto *dim = llvm::dyn_cast<DimAccessExpr>(&old))
      return std::make_unique<DimAccessExpr>(
          dim->getLoc(),
          Ident{scope->resolve(dim->getTensor().name), dim->getTensor().loc},
          dim->getDim());
    return nullptr;
  };
  return cloneExpr(expr, rename);
}

/// Prints \p stmt with the tensor names of the def and its ranges as
/// `where` clauses, before its lets and `exists` clauses.
void printStatement(const StmtContext &stmt, llvm::raw_ostream &os) {
  const ComprehensionStmt &comp = stmt.stmt;
  const CallScope *scope = stmt.scope;
  std::vector<WhereClause> wheres;
  for (const IndexRange &range : stmt.ranges) {
    Location loc = comp.getLoc();
    wheres.emplace_back(
        WhereClause::Kind::Range, loc, Ident{range.var, loc},
        std::make_unique<IntLitExpr>(loc, range.lo, ScalarType::Int64),
        std::make_unique<IntLitExpr>(loc, range.hi, ScalarType::Int64));
  }
  for (const WhereClause &where : comp.getWheres())
    if (where.getKind() != WhereClause::Kind::Range)
      wheres.emplace_back(where.getKind(), where.getLoc(), where.getVar(),
                          cloneResolved(where.getValue(), scope));
  llvm::StringRef lhs =
      scope ? scope->resolve(comp.getLhs().name) : comp.getLhs().name;
  ComprehensionStmt printed(
      comp.getLoc(), Ident{lhs, comp.getLhs().loc},
      llvm::SmallVector<Ident, 4>(comp.getIndices().begin(),
                                  comp.getIndices().end()),
      comp.getReduction(), comp.hasInit(), comp.getOpLoc(),
      cloneResolved(comp.getRhs(), scope), std::move(wheres));
  print(printed, os);
}

/// The comment line that says what kernels \p segment makes.
void printSegmentHeader(const Segment &segment, llvm::raw_ostream &os) {
  os << "  # ";
  switch (segment.kind) {
  case Segment::Kind::IdentityFill:
    os << "a kernel that fills '" << segment.stmts.front().stmt.getLhs().name
       << "' with the identity of its reduction";
    break;
  case Segment::Kind::Blas:
    os << "a kernel of BLAS instructions";
    if (segment.stmts.size() > 1)
      os << ", then the next statement over each work-group's block";
    break;
  case Segment::Kind::Mapped:
    os << "a run of statements: " << segment.getNumKernels()
       << " kernel(s) of its isl schedule (fusion "
       << poly::getFusionStrategyName(segment.fusion) << ")";
    break;
  }
  os << "\n";
}

/// The comment lines that say which temporaries the kernels of \p segment
/// keep in local memory; \p kernel is the def's first kernel of it.
void printPromotions(const Segment &segment, unsigned kernel,
                     llvm::raw_ostream &os) {
  for (unsigned index = 0; index < segment.promoted.size(); ++index)
    for (const PromotedTensor &tensor : segment.promoted[index]) {
      os << "  # kernel " << kernel + index << " keeps '" << tensor.name
         << "' in local memory, a slice of (";
      llvm::interleaveComma(tensor.sliceShape, os);
      os << ") per work-group\n";
    }
}

} // namespace

void lowering::printDefState(const DefLoweringState &state,
                             llvm::raw_ostream &os) {
  printSignature(state.def, os);
  os << " {\n";
  for (const StmtContext &stmt : state.stmts)
    printStatement(stmt, os);
  unsigned kernel = 0;
  for (const Segment &segment : state.segments) {
    printSegmentHeader(segment, os);
    // A fill writes its statement's LHS; the statement follows it.
    if (segment.kind != Segment::Kind::IdentityFill)
      for (const StmtContext &stmt : segment.stmts)
        printStatement(stmt, os);
    printPromotions(segment, kernel, os);
    kernel += segment.getNumKernels();
  }
  for (const auto &[temporary, lhs] : state.result.hoisted)
    os << "  # '" << temporary << "' holds a subexpression of the statement "
       << "of '" << lhs << "'\n";
  for (const auto &[temporary, output] : state.result.storedInOutputs)
    os << "  # '" << temporary << "' lives in the memory of output '" << output
       << "'\n";
  os << "}\n";
}
