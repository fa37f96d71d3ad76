//===- Ranges.cpp - Range inference for the statements of a def -----------===//
#include "comprehend/tc/Ranges.h"
#include "comprehend/tc/ExprVisitor.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/TimeProfiler.h"

using namespace comprehend;
using namespace comprehend::tc;
using poly::IndexExpr;

namespace {

/// \p expr with every parameter replaced by its value in \p values
/// (parameters without a value stay).
IndexExpr substitute(const IndexExpr &expr,
                     const llvm::StringMap<IndexExpr> &values) {
  switch (expr.getKind()) {
  case IndexExpr::Kind::Param: {
    auto it = values.find(expr.getName());
    return it == values.end() ? expr : it->second;
  }
  case IndexExpr::Kind::Constant:
  case IndexExpr::Kind::Var:
  case IndexExpr::Kind::Opaque:
    return expr;
  case IndexExpr::Kind::Neg:
    return IndexExpr::neg(substitute(expr.getOperands()[0], values));
  case IndexExpr::Kind::Select:
    return IndexExpr::select(substitute(expr.getOperands()[0], values),
                             substitute(expr.getOperands()[1], values),
                             substitute(expr.getOperands()[2], values));
  default:
    return IndexExpr::binary(expr.getKind(),
                             substitute(expr.getOperands()[0], values),
                             substitute(expr.getOperands()[1], values));
  }
}

bool isConstantTree(const IndexExpr &expr) {
  if (expr.getKind() == IndexExpr::Kind::Constant)
    return true;
  if (expr.getKind() == IndexExpr::Kind::Param ||
      expr.getKind() == IndexExpr::Kind::Var ||
      expr.getKind() == IndexExpr::Kind::Opaque)
    return false;
  return llvm::all_of(expr.getOperands(), isConstantTree);
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// The value of a size expression under \p sizes, if every parameter it
/// uses is known.
std::optional<int64_t> evaluate(const IndexExpr &expr,
                                const llvm::StringMap<int64_t> &sizes) {
  switch (expr.getKind()) {
  case IndexExpr::Kind::Constant:
    return expr.getValue();
  case IndexExpr::Kind::Param: {
    auto it = sizes.find(expr.getName());
    if (it == sizes.end())
      return std::nullopt;
    return it->second;
  }
  case IndexExpr::Kind::Var:
  case IndexExpr::Kind::Opaque:
    return std::nullopt;
  case IndexExpr::Kind::Neg:
    if (std::optional<int64_t> v = evaluate(expr.getOperands()[0], sizes))
      return -*v;
    return std::nullopt;
  case IndexExpr::Kind::Select: {
    std::optional<int64_t> condition = evaluate(expr.getOperands()[0], sizes);
    if (!condition)
      return std::nullopt;
    return evaluate(expr.getOperands()[*condition ? 1 : 2], sizes);
  }
  default:
    break;
  }
  std::optional<int64_t> a = evaluate(expr.getOperands()[0], sizes);
  std::optional<int64_t> b = evaluate(expr.getOperands()[1], sizes);
  if (!a || !b)
    return std::nullopt;
  // A value past 64 bits is unknown here; checkSizes() reports the sizes
  // that overflow.
  int64_t result = 0;
  switch (expr.getKind()) {
  case IndexExpr::Kind::Add:
    return llvm::AddOverflow(*a, *b, result) ? std::nullopt
                                             : std::optional(result);
  case IndexExpr::Kind::Sub:
    return llvm::SubOverflow(*a, *b, result) ? std::nullopt
                                             : std::optional(result);
  case IndexExpr::Kind::Mul:
    return llvm::MulOverflow(*a, *b, result) ? std::nullopt
                                             : std::optional(result);
  case IndexExpr::Kind::FloorDiv:
    if (*b == 0 || (*b == -1 && *a == INT64_MIN))
      return std::nullopt;
    return floorDiv(*a, *b);
  case IndexExpr::Kind::Mod:
    if (*b == 0 || *b == -1)
      return *b == 0 ? std::nullopt : std::optional<int64_t>(0);
    return *a - *b * floorDiv(*a, *b);
  case IndexExpr::Kind::Min:
    return std::min(*a, *b);
  case IndexExpr::Kind::Max:
    return std::max(*a, *b);
  case IndexExpr::Kind::Eq:
    return *a == *b;
  case IndexExpr::Kind::Le:
    return *a <= *b;
  case IndexExpr::Kind::Ge:
    return *a >= *b;
  case IndexExpr::Kind::And:
    return *a && *b;
  case IndexExpr::Kind::Or:
    return *a || *b;
  default:
    return std::nullopt;
  }
}

IndexExpr opaqueOf(llvm::ArrayRef<const IndexExpr *> parts) {
  llvm::SmallVector<std::string, 4> vars;
  for (const IndexExpr *part : parts)
    for (std::string &var : part->getVariables())
      if (!llvm::is_contained(vars, var))
        vars.push_back(std::move(var));
  return IndexExpr::opaque(vars);
}

IndexExpr dimOf(const TensorType::Dim &dim) {
  return dim.sizeVar.empty() ? IndexExpr::constant(dim.constant)
                             : IndexExpr::param(dim.sizeVar);
}

//===----------------------------------------------------------------------===//
// Statements to StatementInfo
//===----------------------------------------------------------------------===//

/// Converts the expressions of one def for the polyhedral layer: visit()
/// turns an expression into an index expression, opaque where it is not
/// affine.
class Converter : public ConstExprVisitor<Converter, IndexExpr> {
public:
  Converter(const Def &def, const poly::RangeInference &inference)
      : def(def), inference(inference) {}

  /// The extent of dimension \p dim of \p tensor as known so far.
  IndexExpr getExtent(llvm::StringRef tensor, int64_t dim) const {
    const TensorInfo *info = def.lookupTensor(tensor);
    if (info && info->role == TensorInfo::Role::Input && info->declared)
      return dimOf(info->declared->dims[dim]);
    std::optional<poly::TensorShape> shape = inference.getShape(tensor);
    if (!shape || static_cast<size_t>(dim) >= shape->extentExprs.size())
      return IndexExpr::opaque({});
    return shape->extentExprs[dim];
  }

  IndexExpr visitIntLit(const IntLitExpr &lit) {
    return IndexExpr::constant(lit.getValue());
  }
  IndexExpr visitFloatLit(const FloatLitExpr &) {
    return IndexExpr::opaque({});
  }
  IndexExpr visitIdent(const IdentExpr &ident) {
    switch (ident.getRef()) {
    case IdentExpr::Ref::Index:
      return IndexExpr::var(ident.getName());
    case IdentExpr::Ref::Size:
      return IndexExpr::param(ident.getName());
    case IdentExpr::Ref::Let:
      return visit(ident.getLet()->getValue());
    default:
      return IndexExpr::opaque({});
    }
  }
  IndexExpr visitDimAccess(const DimAccessExpr &dim) {
    return getExtent(dim.getTensor().name, dim.getDim());
  }
  IndexExpr visitUnary(const UnaryExpr &unary) {
    IndexExpr operand = visit(unary.getOperand());
    if (unary.getOp() == UnaryOp::Neg)
      return IndexExpr::neg(std::move(operand));
    return opaqueOf({&operand});
  }
  IndexExpr visitBinary(const BinaryExpr &binary);
  /// `?:` and builtin calls: opaque over the variables of their operands
  /// (the subscripts of a read too).
  IndexExpr visitExpr(const Expr &expr) {
    llvm::SmallVector<IndexExpr, 4> operands;
    forEachOperand(
        expr, [&](const Expr &operand) { operands.push_back(visit(operand)); });
    llvm::SmallVector<const IndexExpr *, 4> parts;
    for (const IndexExpr &operand : operands)
      parts.push_back(&operand);
    return opaqueOf(parts);
  }
  IndexExpr visitCast(const CastExpr &cast) {
    IndexExpr operand = visit(cast.getOperand());
    if (isIntegral(cast.getType()) && isIntegral(cast.getOperand().getType()))
      return operand;
    return opaqueOf({&operand});
  }

  /// Appends every tensor read in \p expr (also reads nested in subscripts
  /// and reads inside the lets \p expr uses) to \p accesses.
  void collectAccesses(const Expr &expr,
                       llvm::SmallVectorImpl<poly::TensorAccess> &accesses);

  poly::StatementInfo convert(const ComprehensionStmt &stmt) {
    poly::StatementInfo info;
    info.lhsTensor = stmt.getLhs().name.str();
    for (const Ident &index : stmt.getIndices())
      info.lhsIndices.push_back(index.name.str());
    info.indexVars.assign(stmt.getIndexVars().begin(),
                          stmt.getIndexVars().end());
    info.loc = stmt.getLoc();
    collectAccesses(stmt.getRhs(), info.accesses);
    for (const WhereClause &where : stmt.getWheres()) {
      if (where.getKind() == WhereClause::Kind::Exists)
        collectAccesses(where.getValue(), info.accesses);
      if (where.getKind() != WhereClause::Kind::Range)
        continue;
      poly::WhereRange range;
      range.var = where.getVar().name.str();
      range.lo = visit(where.getLo());
      range.hi = visit(where.getHi());
      range.loc = where.getLoc();
      info.wheres.push_back(std::move(range));
    }
    return info;
  }

private:
  const Def &def;
  const poly::RangeInference &inference;
};

IndexExpr Converter::visitBinary(const BinaryExpr &binary) {
  IndexExpr lhs = visit(binary.getLhs());
  IndexExpr rhs = visit(binary.getRhs());
  switch (binary.getOp()) {
  case BinaryOp::Add:
    return IndexExpr::binary(IndexExpr::Kind::Add, lhs, rhs);
  case BinaryOp::Sub:
    return IndexExpr::binary(IndexExpr::Kind::Sub, lhs, rhs);
  case BinaryOp::Min:
    return IndexExpr::binary(IndexExpr::Kind::Min, lhs, rhs);
  case BinaryOp::Max:
    return IndexExpr::binary(IndexExpr::Kind::Max, lhs, rhs);
  case BinaryOp::Mul:
    // Affine only when one factor is a constant (isl parameters may not
    // multiply variables or each other).
    if (isConstantTree(lhs) || isConstantTree(rhs))
      return IndexExpr::binary(IndexExpr::Kind::Mul, lhs, rhs);
    break;
  case BinaryOp::Div:
    if (isConstantTree(rhs))
      return IndexExpr::binary(IndexExpr::Kind::FloorDiv, lhs, rhs);
    break;
  case BinaryOp::Mod:
    if (isConstantTree(rhs))
      return IndexExpr::binary(IndexExpr::Kind::Mod, lhs, rhs);
    break;
  default:
    break;
  }
  return opaqueOf({&lhs, &rhs});
}

/// A comparison as poly::IndexComparison states it: `lhs op rhs` with op
/// one of <, <=, ==, the sides swapped for > and >=.
struct OrientedKind {
  poly::IndexComparison::Kind kind;
  bool swapSides;
};

/// Each comparison operator, as the comparison that holds where it holds
/// and where it fails (none for `==` failing, or `!=`).
struct ComparisonForm {
  BinaryOp op;
  std::optional<OrientedKind> holds, fails;
};

using ComparisonKind = poly::IndexComparison::Kind;
const ComparisonForm kComparisonForms[] = {
    {BinaryOp::Less, OrientedKind{ComparisonKind::Less, false},
     OrientedKind{ComparisonKind::LessEqual, true}},
    {BinaryOp::LessEqual, OrientedKind{ComparisonKind::LessEqual, false},
     OrientedKind{ComparisonKind::Less, true}},
    {BinaryOp::Greater, OrientedKind{ComparisonKind::Less, true},
     OrientedKind{ComparisonKind::LessEqual, false}},
    {BinaryOp::GreaterEqual, OrientedKind{ComparisonKind::LessEqual, true},
     OrientedKind{ComparisonKind::Less, false}},
    {BinaryOp::Equal, OrientedKind{ComparisonKind::Equal, false}, std::nullopt},
};

/// Collects the tensor reads of an expression; below a branch of `?:` or
/// the right operand of `&&` / `||` (or with the conditional argument set)
/// as conditional reads, with the comparisons that hold there as guards.
class AccessCollector : public ConstExprVisitor<AccessCollector, void, bool> {
public:
  AccessCollector(Converter &converter,
                  llvm::SmallVectorImpl<poly::TensorAccess> &accesses)
      : converter(converter), accesses(accesses) {}

  void visitExpr(const Expr &expr, bool conditional) {
    forEachOperand(expr,
                   [&](const Expr &operand) { visit(operand, conditional); });
  }
  void visitIdent(const IdentExpr &ident, bool conditional) {
    if (ident.getRef() == IdentExpr::Ref::Let)
      visit(ident.getLet()->getValue(), conditional);
  }
  void visitBinary(const BinaryExpr &binary, bool conditional) {
    bool isAnd = binary.getOp() == BinaryOp::And;
    bool shortCircuit = isAnd || binary.getOp() == BinaryOp::Or;
    visit(binary.getLhs(), conditional);
    if (!shortCircuit) {
      visit(binary.getRhs(), conditional);
      return;
    }
    visitGuarded(binary.getRhs(), binary.getLhs(), /*holds=*/isAnd);
  }
  void visitTernary(const TernaryExpr &ternary, bool conditional) {
    visit(ternary.getCond(), conditional);
    visitGuarded(ternary.getTrueValue(), ternary.getCond(), /*holds=*/true);
    visitGuarded(ternary.getFalseValue(), ternary.getCond(), /*holds=*/false);
  }
  void visitApply(const ApplyExpr &apply, bool conditional) {
    if (apply.isTensorRead() && !apply.getArgs().empty()) {
      poly::TensorAccess access;
      access.tensor = apply.getCallee().name.str();
      access.loc = apply.getLoc();
      access.conditional = conditional;
      access.guards.assign(guards.begin(), guards.end());
      for (const ExprPtr &arg : apply.getArgs()) {
        access.subscripts.push_back(converter.visit(*arg));
        access.subscriptLocs.push_back(arg->getLoc());
      }
      accesses.push_back(std::move(access));
    }
    visitExpr(apply, conditional);
  }

private:
  /// Visits \p expr, conditionally, where \p condition holds (or, without
  /// \p holds, does not).
  void visitGuarded(const Expr &expr, const Expr &condition, bool holds) {
    size_t depth = guards.size();
    addImplied(condition, holds);
    visit(expr, /*conditional=*/true);
    guards.resize(depth);
  }
  /// Adds to the guards the comparisons that \p condition being \p holds
  /// implies: each of a conjunction's that hold, each of a disjunction's
  /// that fail, a comparison itself or its negation (none for `!=`, or
  /// `==` failing, which no single comparison states).
  void addImplied(const Expr &condition, bool holds) {
    if (const auto *unary = llvm::dyn_cast<UnaryExpr>(&condition)) {
      if (unary->getOp() == UnaryOp::Not)
        addImplied(unary->getOperand(), !holds);
      return;
    }
    const auto *binary = llvm::dyn_cast<BinaryExpr>(&condition);
    if (!binary)
      return;
    if (binary->getOp() == (holds ? BinaryOp::And : BinaryOp::Or)) {
      addImplied(binary->getLhs(), holds);
      addImplied(binary->getRhs(), holds);
      return;
    }
    const ComparisonForm *entry =
        llvm::find_if(kComparisonForms, [&](const ComparisonForm &candidate) {
          return candidate.op == binary->getOp();
        });
    if (entry == std::end(kComparisonForms))
      return;
    const std::optional<OrientedKind> &form =
        holds ? entry->holds : entry->fails;
    if (!form)
      return;
    IndexExpr lhs = converter.visit(binary->getLhs());
    IndexExpr rhs = converter.visit(binary->getRhs());
    if (form->swapSides)
      std::swap(lhs, rhs);
    guards.push_back({std::move(lhs), std::move(rhs), form->kind});
  }

  Converter &converter;
  llvm::SmallVectorImpl<poly::TensorAccess> &accesses;
  /// The comparisons that hold where the visit is.
  llvm::SmallVector<poly::IndexComparison, 4> guards;
};

void Converter::collectAccesses(
    const Expr &expr, llvm::SmallVectorImpl<poly::TensorAccess> &accesses) {
  AccessCollector(*this, accesses).visit(expr, /*conditional=*/false);
}

//===----------------------------------------------------------------------===//
// Defs
//===----------------------------------------------------------------------===//

/// Range inference of one def (and, through calls, of the defs it calls).
class DefInference {
public:
  DefInference(const Program &program, const Def &def,
               const llvm::StringMap<int64_t> &sizes, DiagnosticEngine &diags)
      : program(program), def(def), sizes(sizes), diags(diags),
        inference(def.getSizeVars(), diags, sizes), converter(def, inference) {}

  std::optional<DefRanges> run();

private:
  LogicalResult inferCall(const CallStmt &call);
  /// Reports each tensor whose size in bytes, and each statement whose
  /// iteration count, does not fit in 64 bits at concrete sizes.
  LogicalResult checkSizes(const DefRanges &ranges);

  const Program &program;
  const Def &def;
  const llvm::StringMap<int64_t> &sizes;
  DiagnosticEngine &diags;
  poly::RangeInference inference;
  Converter converter;
};

std::optional<DefRanges> DefInference::run() {
  for (const Param &input : def.getInputs()) {
    llvm::SmallVector<IndexExpr, 4> extents;
    for (const TensorType::Dim &dim : input.type->dims)
      extents.push_back(dimOf(dim));
    inference.declareInput(input.name.name, extents);
  }
  DefRanges result;
  for (const std::unique_ptr<Stmt> &stmt : def.getBody()) {
    StmtRanges ranges;
    ranges.stmt = stmt.get();
    if (const auto *call = llvm::dyn_cast<CallStmt>(stmt.get())) {
      if (failed(inferCall(*call)))
        return std::nullopt;
    } else {
      std::optional<poly::StatementRanges> inferred = inference.inferStatement(
          converter.convert(*llvm::cast<ComprehensionStmt>(stmt.get())));
      if (!inferred)
        return std::nullopt;
      ranges.ranges = std::move(*inferred);
    }
    result.statements.push_back(std::move(ranges));
  }
  for (const auto &entry : def.getTensors())
    if (std::optional<poly::TensorShape> shape =
            inference.getShape(entry.first))
      result.shapes.insert({entry.first, std::move(*shape)});
  if (failed(checkSizes(result)))
    return std::nullopt;
  return result;
}

/// The product of \p factors (0 counting as 1) times \p scale, or none if
/// a factor is negative (an overflowed count) or it does not fit in 64 bits.
static std::optional<int64_t> product(llvm::ArrayRef<int64_t> factors,
                                      int64_t scale) {
  for (int64_t factor : factors)
    if (factor < 0 ||
        llvm::MulOverflow(scale, std::max<int64_t>(factor, 1), scale))
      return std::nullopt;
  return scale;
}

LogicalResult DefInference::checkSizes(const DefRanges &ranges) {
  bool failedAny = false;
  for (const auto &[name, info] : def.getTensors()) {
    auto it = ranges.shapes.find(name);
    if (it == ranges.shapes.end() ||
        !llvm::all_of(it->second.extent, [](auto e) { return e.has_value(); }))
      continue;
    llvm::SmallVector<int64_t, 4> extents;
    for (std::optional<int64_t> extent : it->second.extent)
      extents.push_back(*extent);
    int64_t bytes = std::max(1u, getBitWidth(info.type) / 8);
    if (product(extents, bytes))
      continue;
    failedAny = true;
    diags.emitError(info.loc)
        << "tensor '" << name
        << "' has more than 2^63 - 1 bytes at these sizes ("
        << llvm::join(llvm::map_range(
                          extents, [](int64_t e) { return std::to_string(e); }),
                      " x ")
        << " elements of " << bytes << " bytes)";
  }
  for (const StmtRanges &stmt : ranges.statements) {
    llvm::SmallVector<int64_t, 4> counts;
    for (const poly::VarRange &range : stmt.ranges.ranges) {
      int64_t count = 0;
      if (range.lo && range.hi &&
          llvm::SubOverflow(*range.hi, *range.lo, count))
        count = -1; // past 64 bits: no product of counts fits
      counts.push_back(count);
    }
    if (product(counts, 1))
      continue;
    failedAny = true;
    diags.emitError(stmt.stmt->getLoc())
        << "the iteration count of this statement (the product of its index "
           "ranges) does not fit in 64 bits at these sizes";
  }
  return failure(failedAny);
}

LogicalResult DefInference::inferCall(const CallStmt &call) {
  const Def &callee = *call.getCalleeDef();
  llvm::StringRef calleeName = callee.getName().name;
  // Bind the callee's size variables to the extents of the arguments.
  llvm::StringMap<int64_t> calleeSizes;
  llvm::StringMap<IndexExpr> calleeExtents;
  for (auto [arg, param] : llvm::zip(call.getArgs(), callee.getInputs())) {
    for (size_t d = 0; d < param.type->dims.size(); ++d) {
      const TensorType::Dim &paramDim = param.type->dims[d];
      IndexExpr extent = converter.getExtent(arg.name, d);
      std::optional<int64_t> value = evaluate(extent, sizes);
      if (paramDim.sizeVar.empty()) {
        if (value && *value != paramDim.constant)
          return diags.emitError(arg.loc)
                 << "argument '" << arg.name << "' has extent " << *value
                 << " in dimension " << d << " where parameter '"
                 << param.name.name << "' of '" << calleeName << "' requires "
                 << paramDim.constant;
        continue;
      }
      if (value) {
        auto [it, inserted] = calleeSizes.try_emplace(paramDim.sizeVar, *value);
        if (!inserted && it->second != *value)
          return diags.emitError(arg.loc)
                 << "size variable '" << paramDim.sizeVar << "' of '"
                 << calleeName << "' is " << it->second
                 << " for an earlier argument but " << *value << " for '"
                 << arg.name << "'";
      }
      calleeExtents.try_emplace(paramDim.sizeVar, extent);
    }
  }
  bool concrete = llvm::all_of(callee.getSizeVars(), [&](const std::string &v) {
    return calleeSizes.count(v) != 0;
  });
  llvm::StringMap<int64_t> noSizes;
  DefInference nested(program, callee, concrete ? calleeSizes : noSizes, diags);
  std::optional<DefRanges> calleeRanges = nested.run();
  if (!calleeRanges)
    return diags.emitError(call.getLoc())
           << "range inference failed for the call of '" << calleeName << "'";
  for (auto [result, output] :
       llvm::zip(call.getResults(), callee.getOutputs())) {
    const poly::TensorShape &shape = calleeRanges->shapes[output.name.name];
    // The callee's symbolic extents in the caller's sizes, so the caller's
    // ranges stay symbolic; the caller's concrete sizes still apply.
    llvm::SmallVector<IndexExpr, 4> extents;
    for (const IndexExpr &extent : shape.extentExprs)
      extents.push_back(substitute(extent, calleeExtents));
    inference.declareInput(result.name, extents);
  }
  return success();
}

} // namespace

std::optional<DefRanges> tc::inferRanges(const Program &program, const Def &def,
                                         const llvm::StringMap<int64_t> &sizes,
                                         DiagnosticEngine &diags) {
  llvm::TimeTraceScope scope("TC range inference");
  return DefInference(program, def, sizes, diags).run();
}

int64_t tc::getLongestReduction(const DefRanges &ranges) {
  int64_t longest = 1;
  for (const StmtRanges &stmt : ranges.statements) {
    const auto *comprehension =
        llvm::dyn_cast_or_null<ComprehensionStmt>(stmt.stmt);
    if (!comprehension)
      continue;
    int64_t terms = 1; // fits: checkSizes() bounds every iteration count
    for (const std::string &var : comprehension->getReductionVars())
      if (const poly::VarRange *range = stmt.ranges.lookup(var);
          range && range->lo && range->hi)
        terms *= std::max<int64_t>(1, *range->hi - *range->lo);
    longest = std::max(longest, terms);
  }
  return longest;
}
