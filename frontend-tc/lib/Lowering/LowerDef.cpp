//===- LowerDef.cpp - Lowering of one TC def to one function --------------===//
#include "DefLowering.h"

#include "comprehend/tc/Ranges.h"

#include "llvm/ADT/StringSet.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::lowering;

const ir::Type *lowering::getIrType(ir::Context &ctx, ScalarType type) {
  if (std::optional<ir::ScalarKind> kind = toIrScalarKind(type))
    return ir::ScalarType::get(ctx, *kind);
  return ir::BoolType::get(ctx);
}

const ir::MemRefType *lowering::getMemRefType(ir::Context &ctx,
                                              ir::ScalarKind kind,
                                              llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> reversed(shape.rbegin(), shape.rend());
  return ir::MemRefType::get(ctx, kind, reversed);
}

namespace {

/// Collects the tensors read anywhere in \p expr (reads of 0-d tensors
/// included).
void collectReads(const Expr &expr, llvm::StringSet<> &reads) {
  switch (expr.getKind()) {
  case Expr::Kind::Ident: {
    const auto &ident = llvm::cast<IdentExpr>(expr);
    if (ident.getRef() == IdentExpr::Ref::Tensor)
      reads.insert(ident.getName());
    if (ident.getRef() == IdentExpr::Ref::Let && ident.getLet())
      collectReads(ident.getLet()->getValue(), reads);
    return;
  }
  case Expr::Kind::Unary:
    collectReads(llvm::cast<UnaryExpr>(expr).getOperand(), reads);
    return;
  case Expr::Kind::Binary: {
    const auto &binary = llvm::cast<BinaryExpr>(expr);
    collectReads(binary.getLhs(), reads);
    collectReads(binary.getRhs(), reads);
    return;
  }
  case Expr::Kind::Ternary: {
    const auto &ternary = llvm::cast<TernaryExpr>(expr);
    collectReads(ternary.getCond(), reads);
    collectReads(ternary.getTrueValue(), reads);
    collectReads(ternary.getFalseValue(), reads);
    return;
  }
  case Expr::Kind::Apply: {
    const auto &apply = llvm::cast<ApplyExpr>(expr);
    if (apply.isTensorRead())
      reads.insert(apply.getCallee().name);
    for (const ExprPtr &arg : apply.getArgs())
      collectReads(*arg, reads);
    return;
  }
  case Expr::Kind::Cast:
    collectReads(llvm::cast<CastExpr>(expr).getOperand(), reads);
    return;
  case Expr::Kind::IntLit:
  case Expr::Kind::FloatLit:
  case Expr::Kind::DimAccess:
    return;
  }
}

/// Lowers one def; the state of DefContext plus the def-level steps.
class DefLowerer {
public:
  DefLowerer(const Program &program, const Def &def,
             const llvm::StringMap<int64_t> &sizes, ir::Program &out,
             DiagnosticEngine &diags, const LoweringOptions &options)
      : program(program), def(def), sizes(sizes), out(out), diags(diags),
        options(options),
        builder(out.getContext()), context{builder, diags, sizes, {}} {}

  std::optional<LoweredDef> run();

private:
  LogicalResult checkSizes();
  LogicalResult declareTensors(const DefRanges &ranges, LoweredDef &result);
  std::optional<StmtContext> getStmtContext(const ComprehensionStmt &stmt,
                                            const StmtRanges &ranges);

  const Program &program;
  const Def &def;
  const llvm::StringMap<int64_t> &sizes;
  ir::Program &out;
  DiagnosticEngine &diags;
  const LoweringOptions &options;
  ir::Builder builder;
  DefContext context;
};

} // namespace

LogicalResult DefLowerer::checkSizes() {
  bool ok = true;
  for (const std::string &sizeVar : def.getSizeVars())
    if (!sizes.count(sizeVar)) {
      diags.emitError(def.getName().loc)
          << "size variable '" << sizeVar << "' of '" << def.getName().name
          << "' needs a value to lower the def; pass --sizes " << sizeVar
          << "=...";
      ok = false;
    }
  return success(ok);
}

LogicalResult DefLowerer::declareTensors(const DefRanges &ranges,
                                         LoweredDef &result) {
  ir::Context &ctx = out.getContext();
  llvm::SmallVector<ir::FunctionParam, 8> params;
  bool ok = true;
  for (const auto &[name, info] : def.getTensors()) {
    std::optional<ir::ScalarKind> kind = toIrScalarKind(info.type);
    if (!kind) {
      diags.emitError(info.loc)
          << "tensor '" << name << "' of type '" << getSpelling(info.type)
          << "' cannot be lowered; memrefs of bool do not exist";
      ok = false;
      continue;
    }
    LoweredTensor tensor;
    tensor.name = name.str();
    tensor.role = info.role;
    tensor.type = info.type;
    auto shapeIt = ranges.shapes.find(name);
    if (shapeIt == ranges.shapes.end()) {
      diags.emitError(info.loc)
          << "the shape of tensor '" << name << "' is unknown";
      ok = false;
      continue;
    }
    const poly::TensorShape &shape = shapeIt->second;
    for (unsigned d = 0; d < info.rank; ++d) {
      std::optional<int64_t> extent =
          d < shape.extent.size() ? shape.extent[d] : std::nullopt;
      std::optional<int64_t> lo = d < shape.lo.size() ? shape.lo[d] : 0;
      if (!extent || !lo || *extent <= 0) {
        diags.emitError(info.loc)
            << "dimension " << d << " of tensor '" << name
            << "' has no positive constant extent with the given sizes";
        ok = false;
        break;
      }
      tensor.shape.push_back(*extent);
      tensor.lowerBounds.push_back(*lo);
    }
    if (!ok)
      continue;
    TensorBinding binding;
    binding.type = info.type;
    binding.kind = *kind;
    binding.shape = tensor.shape;
    binding.lowerBounds = tensor.lowerBounds;
    context.tensors.insert({name, binding});
    params.push_back({name, getMemRefType(ctx, *kind, tensor.shape)});
    result.tensors.push_back(std::move(tensor));
  }
  if (!ok)
    return failure();
  result.function =
      &builder.createFunction(out, def.getName().name, params, def.getLoc());
  for (unsigned i = 0; i < context.tensors.size(); ++i)
    context.tensors.begin()[i].second.memref = result.function->getParameter(i);
  return success();
}

std::optional<StmtContext>
DefLowerer::getStmtContext(const ComprehensionStmt &stmt,
                           const StmtRanges &ranges) {
  StmtContext result{stmt, {}};
  for (const std::string &var : stmt.getIndexVars()) {
    const poly::VarRange *range = ranges.ranges.lookup(var);
    if (!range || !range->lo || !range->hi) {
      diags.emitError(stmt.getLoc())
          << "the range of index '" << var << "' is not constant";
      return std::nullopt;
    }
    result.ranges.push_back({var, *range->lo, *range->hi});
  }
  return result;
}

std::optional<LoweredDef> DefLowerer::run() {
  if (failed(checkSizes()))
    return std::nullopt;
  for (const std::unique_ptr<Stmt> &stmt : def.getBody())
    if (auto *call = llvm::dyn_cast<CallStmt>(stmt.get())) {
      diags.emitError(call->getLoc())
          << "call of '" << call->getCallee().name
          << "' cannot be lowered yet; inline the callee by hand";
      return std::nullopt;
    }
  std::optional<DefRanges> ranges = inferRanges(program, def, sizes, diags);
  if (!ranges)
    return std::nullopt;

  LoweredDef result;
  if (failed(declareTensors(*ranges, result)))
    return std::nullopt;

  // A single statement owns the launch grid and may spread its batch
  // indices over work-groups; several statements share one work-group so
  // that a barrier orders them.
  context.mayUseGroups = ranges->statements.size() == 1;
  // Tensors written and read since the last barrier.
  llvm::StringSet<> written, read;
  bool ok = true;
  for (const StmtRanges &stmtRanges : ranges->statements) {
    const auto &stmt = llvm::cast<ComprehensionStmt>(*stmtRanges.stmt);
    std::optional<StmtContext> stmtContext = getStmtContext(stmt, stmtRanges);
    if (!stmtContext) {
      ok = false;
      continue;
    }
    // Work-items of one statement are not those of the next, so every
    // dependence through global memory (read or write after write, write
    // after read) needs a barrier.
    llvm::StringSet<> reads;
    collectReads(stmt.getRhs(), reads);
    for (const WhereClause &where : stmt.getWheres())
      if (where.getKind() != WhereClause::Kind::Range)
        collectReads(where.getValue(), reads);
    llvm::StringRef lhs = stmt.getLhs().name;
    if (written.contains(lhs) || read.contains(lhs) ||
        llvm::any_of(reads, [&](const auto &entry) {
          return written.contains(entry.first());
        })) {
      builder.create<ir::BarrierInst>(stmt.getLoc(), /*global=*/true,
                                      /*local=*/false);
      written.clear();
      read.clear();
    }
    written.insert(lhs);
    for (const auto &entry : reads)
      read.insert(entry.first());

    if (options.matchBlas && lowerAsBlas(context, *stmtContext))
      continue;
    if (failed(lowerAsLoops(context, *stmtContext)))
      ok = false;
  }
  if (!ok)
    return std::nullopt;
  result.grid = context.grid;
  return result;
}

std::optional<LoweredDef> tc::lowerDef(const Program &program, const Def &def,
                                       const llvm::StringMap<int64_t> &sizes,
                                       ir::Program &out,
                                       DiagnosticEngine &diags,
                                       const LoweringOptions &options) {
  return DefLowerer(program, def, sizes, out, diags, options).run();
}
