//===- GradConv.cpp - The data gradient of a convolution ------------------===//
//
// The generic inversion (GradInvert.cpp) writes the adjoint of
// `O(n, m, h, w) +=! I(n, c, h + kh, w + kw) * W1(m, c, kh, kw)` with
// respect to I as one reduction over all of (m, kh, kw) with a bounds mask
// on `d_O(n, m, h - kh, w - kw)`: no pattern of the lowering matches it and
// it runs as a plain loop nest (about 50x the forward's time). Written as a
// forward convolution instead,
//
//   d_O_pad(n, m, h, w) = <in range> ? d_O(n, m, h - (KH - 1), w - (KW - 1))
//   W1_flip(m, c, kh, kw) = W1(m, c, KH - 1 - kh, KW - 1 - kw)
//   d_I(n, c, h, w) +=! d_O_pad(n, m, h + kh, w + kw) * W1_flip(m, c, kh, kw)
//
// the last statement is the shape ConvAsGemm.cpp lowers to gemms; the
// padded copy and the flipped operand are two cheap elementwise passes.
// The padded extent is I's own plus the window less one, so the reduction
// covers every point of I, as the mask did.
//
// A strided window wider than its stride, `I(n, c, 2 * h + kh, ...)`, gets
// the same by phases (GradConvPhases.cpp). Strided and dilated at once, it
// spreads d_O's points `2` apart in the padded copy, zeros between them
// (a transposed convolution's zero insertion):
//
//   d_O_pad(n, m, h, w) = (KH - 1) <= h && (h - (KH - 1)) % 2 == 0 &&
//       (h - (KH - 1)) / 2 < O_h && ... ? d_O(n, m, (h - (KH - 1)) / 2, ...)
//
// and the convolution multiplies zeros three times in four, but as gemms;
// the mask of the generic inversion skipped them one point at a time, at
// 80 times the time (examples/strided_conv.tc, 8 x 32 x 56^2, PoCL). A
// dilated window, `I(n, c, t + 2 * k)`, pads by 2 * (K - 1) and reads
// `d_O_pad(n, f, t + 2 * k)`, a dilated convolution.
//
//===----------------------------------------------------------------------===//
#include "GradConv.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

namespace {

/// An index variable of a subscript and its coefficient.
struct ScaledVar {
  std::string name;
  int64_t scale = 1;
};

/// The index variable of `v`, `s * v` or `v * s` (s a positive literal).
std::optional<ScaledVar> scaledVar(const Expr &expr) {
  if (const auto *ident = llvm::dyn_cast<IdentExpr>(&expr)) {
    if (ident->getRef() != IdentExpr::Ref::Index)
      return std::nullopt;
    return ScaledVar{ident->getName().str(), 1};
  }
  const auto *product = llvm::dyn_cast<BinaryExpr>(&expr);
  if (!product || product->getOp() != BinaryOp::Mul)
    return std::nullopt;
  const Expr *factor = &product->getLhs(), *var = &product->getRhs();
  if (!llvm::isa<IntLitExpr>(factor))
    std::swap(factor, var);
  const auto *literal = llvm::dyn_cast<IntLitExpr>(factor);
  std::optional<ScaledVar> result = scaledVar(*var);
  if (!literal || literal->getValue() <= 0 || !result || result->scale != 1)
    return std::nullopt;
  result->scale = literal->getValue();
  return result;
}

/// The index variables of `v` or `a + b`, each of those as scaledVar
/// takes it; false for anything else.
bool subscriptVars(const Expr &expr, llvm::SmallVectorImpl<ScaledVar> &vars) {
  if (std::optional<ScaledVar> var = scaledVar(expr)) {
    vars.push_back(*var);
    return true;
  }
  const auto *sum = llvm::dyn_cast<BinaryExpr>(&expr);
  return sum && sum->getOp() == BinaryOp::Add && vars.empty() &&
         subscriptVars(sum->getLhs(), vars) &&
         subscriptVars(sum->getRhs(), vars) && vars.size() == 2;
}

/// Matches the target and the other factor of `O(...) +=! X(...) * Y(...)`.
bool matchProduct(const ComprehensionStmt &stmt, const Expr &target,
                  BackwardBuilder::ShiftedRead &out) {
  const auto *product = llvm::dyn_cast<BinaryExpr>(&stmt.getRhs());
  if (stmt.getReduction() != ReductionKind::Add || !stmt.hasInit() ||
      stmt.getReductionVars().empty() || !product ||
      product->getOp() != BinaryOp::Mul ||
      llvm::any_of(stmt.getWheres(), [](const WhereClause &where) {
        return where.getKind() != WhereClause::Kind::Range;
      }))
    return false;
  const auto *lhs = llvm::dyn_cast<ApplyExpr>(&product->getLhs());
  const auto *rhs = llvm::dyn_cast<ApplyExpr>(&product->getRhs());
  if (!lhs || !rhs || !lhs->isTensorRead() || !rhs->isTensorRead() ||
      (lhs != &target && rhs != &target))
    return false;
  out.target = lhs == &target ? lhs : rhs;
  out.operand = lhs == &target ? rhs : lhs;
  return true;
}

/// Fills \p out's shifts and indices; false unless the read is a
/// convolution's input: each subscript an index, or an LHS index (times its
/// stride) plus a reduction index that the other factor reads whole.
bool matchShifts(const ComprehensionStmt &stmt,
                 BackwardBuilder::ShiftedRead &out) {
  auto isLhs = [&](llvm::StringRef var) {
    return llvm::any_of(stmt.getIndices(),
                        [&](const Ident &id) { return id.name == var; });
  };
  llvm::StringSet<> seen;
  for (unsigned d = 0; d < out.target->getArgs().size(); ++d) {
    const Expr &subscript = *out.target->getArgs()[d];
    llvm::SmallVector<ScaledVar, 2> vars;
    if (!subscriptVars(subscript, vars))
      return false;
    if (vars.size() == 2 && !isLhs(vars[0].name))
      std::swap(vars[0], vars[1]);
    if (vars.size() == 2 && (!isLhs(vars[0].name) || isLhs(vars[1].name)))
      return false;
    if (vars.size() == 1 && vars[0].scale != 1)
      return false;
    for (const ScaledVar &var : vars)
      if (!seen.insert(var.name).second)
        return false;
    out.targetIndices.push_back(vars[0].name);
    if (vars.size() == 2)
      out.shifts.push_back(
          {vars[0].name, vars[1].name, d, 0, vars[0].scale, vars[1].scale});
  }
  for (unsigned d = 0; d < out.operand->getArgs().size(); ++d) {
    llvm::SmallVector<ScaledVar, 2> vars;
    if (!subscriptVars(*out.operand->getArgs()[d], vars) || vars.size() != 1 ||
        vars[0].scale != 1)
      return false;
    out.operandIndices.push_back(vars[0].name);
    for (BackwardBuilder::ShiftedRead::Shift &shift : out.shifts) {
      if (vars[0].name == shift.lhsVar)
        return false;
      if (vars[0].name == shift.reductionVar)
        shift.operandDim = d;
    }
  }
  return !out.shifts.empty() &&
         llvm::all_of(out.shifts, [&](const auto &shift) {
           return llvm::is_contained(out.operandIndices, shift.reductionVar);
         });
}

} // namespace

std::string grad::minusOne(const std::string &extent) {
  int64_t value;
  if (!llvm::StringRef(extent).getAsInteger(10, value))
    return std::to_string(value - 1);
  return "(" + extent + " - 1)";
}

std::string grad::scaled(int64_t factor, const std::string &term) {
  int64_t value;
  if (factor == 1)
    return term;
  if (!llvm::StringRef(term).getAsInteger(10, value))
    return std::to_string(factor * value);
  return std::to_string(factor) + " * " + term;
}

std::string grad::ceilDiv(const std::string &extent, int64_t stride) {
  int64_t value;
  if (!llvm::StringRef(extent).getAsInteger(10, value))
    return std::to_string((value + stride - 1) / stride);
  return "(" + extent + " + " + std::to_string(stride - 1) + ") / " +
         std::to_string(stride);
}

bool BackwardBuilder::addTransposedConv(unsigned index, const Expr &target) {
  const ComprehensionStmt &stmt = *stmts[index];
  ShiftedRead shifted;
  if (!matchProduct(stmt, target, shifted) || !matchShifts(stmt, shifted))
    return false;
  Rewriter names;
  names.tensorNames = readVersions[index];
  shifted.targetVersion = names.tensorName(shifted.target->getCallee().name);
  shifted.operandVersion = names.tensorName(shifted.operand->getCallee().name);
  if (!windowsFit(index, shifted))
    return false;
  bool split = splitsPhases(shifted);
  std::string pad = padAdjoint(index, shifted, split);
  std::vector<std::string> lhsIndices = shifted.targetIndices;
  std::vector<std::string> operandIndices = shifted.operandIndices;
  std::string operand;
  if (split) {
    std::string phase = "p";
    while (used.contains(phase))
      phase += "_";
    operand = phaseOperand(*shifted.operand, shifted, phase);
    lhsIndices.insert(lhsIndices.begin(), phase);
    operandIndices.insert(operandIndices.begin(), phase);
  } else {
    operand = flipOperand(*shifted.operand, shifted, shifted.operandVersion);
  }
  std::vector<std::string> padSubscripts;
  for (const Ident &lhs : stmt.getIndices()) {
    const ShiftedRead::Shift *shift = shifted.shiftOf(lhs.name);
    padSubscripts.push_back(
        shift ? shift->lhsVar + " + " +
                    scaled(shift->dilation, shift->reductionVar)
              : lhs.name.str());
  }
  const std::vector<DimRange> &targetDims = dims[shifted.targetVersion];
  std::vector<std::string> wheres;
  for (auto [var, range] : llvm::zip(shifted.targetIndices, targetDims)) {
    // A reference of its own: clang 15 does not let a lambda capture a
    // structured binding (C++20's P1091, implemented in clang 16).
    const std::string &name = var;
    if (!llvm::is_contained(shifted.operandIndices, name) &&
        llvm::none_of(stmt.getIndices(),
                      [&](const Ident &id) { return id.name == name; }))
      wheres.push_back(name + " in " + range.first + ":" + range.second);
  }
  std::string adjoint = adjointOf(shifted.targetVersion);
  bool first = hasAdjoint.insert(shifted.targetVersion).second;
  std::string lhs = split ? phasedAdjoint(shifted, adjoint) : adjoint;
  std::string text = "  " + lhs + "(" + llvm::join(lhsIndices, ", ") + ")" +
                     (first || split ? " +=! " : " += ") + pad + "(" +
                     llvm::join(padSubscripts, ", ") + ") * " + operand + "(" +
                     llvm::join(operandIndices, ", ") + ")";
  if (!wheres.empty())
    text += " where " + llvm::join(wheres, ", ");
  body.push_back(text);
  if (split)
    body.push_back(gatherPhases(shifted, lhs, adjoint, first));
  readByBody.insert(shifted.operandVersion);
  return true;
}

/// Whether each window index of \p shifted spans its operand's dimension
/// and each shifted index its output's, as in a convolution without
/// padding, and each window is wider than its stride.
bool BackwardBuilder::windowsFit(unsigned index, const ShiftedRead &shifted) {
  const ComprehensionStmt &stmt = *stmts[index];
  const std::vector<DimRange> &targetDims = dims[shifted.targetVersion];
  const std::vector<DimRange> &operandDims = dims[shifted.operandVersion];
  const std::vector<DimRange> &outputDims = dims[written[index]];
  for (const ShiftedRead::Shift &shift : shifted.shifts) {
    unsigned lhsDim = llvm::find_if(stmt.getIndices(),
                                    [&](const Ident &id) {
                                      return id.name == shift.lhsVar;
                                    }) -
                      stmt.getIndices().begin();
    if (targetDims[shift.targetDim].first != "0" ||
        operandDims[shift.operandDim].first != "0" ||
        varRange(index, shift.reductionVar) != operandDims[shift.operandDim] ||
        varRange(index, shift.lhsVar) != outputDims[lhsDim])
      return false;
    // A window no wider than its stride (2 x 2 pooling weights) splits
    // I's index into a quotient and a remainder without a reduction
    // (GradInvert.cpp): cheaper than a convolution over zeros.
    int64_t window;
    if (shift.stride > 1 && shift.dilation == 1 &&
        !llvm::StringRef(operandDims[shift.operandDim].second)
             .getAsInteger(10, window) &&
        window <= shift.stride)
      return false;
  }
  return true;
}

/// The output's adjoint with `K - 1` zeros on both sides of each shifted
/// dimension, and `stride - 1` zeros between its points; with
/// \p splitStrides, a strided dimension's points stay adjacent, with
/// `ceil(K / stride) - 1` zeros on both sides (the phases' padding).
std::string BackwardBuilder::padAdjoint(unsigned index,
                                        const ShiftedRead &shifted,
                                        bool splitStrides) {
  const ComprehensionStmt &stmt = *stmts[index];
  std::string seed = adjointOf(written[index]);
  std::string name = fresh(seed + "_pad");
  std::vector<DimRange> padDims;
  std::vector<std::string> indices, subscripts, conditions, wheres;
  for (unsigned d = 0; d < stmt.getIndices().size(); ++d) {
    const Ident &lhs = stmt.getIndices()[d];
    std::string var = indexName(d);
    const DimRange &range = dims[seed][d];
    indices.push_back(var);
    padDims.push_back(range);
    subscripts.push_back(var);
    if (const ShiftedRead::Shift *shift = shifted.shiftOf(lhs.name)) {
      bool phased = splitStrides && shift->stride != 1;
      const std::string &window =
          dims[shifted.operandVersion][shift->operandDim].second;
      const std::string &extent =
          dims[shifted.targetVersion][shift->targetDim].second;
      std::string before = phased ? minusOne(ceilDiv(window, shift->stride))
                                  : scaled(shift->dilation, minusOne(window));
      padDims.back().second =
          (phased ? ceilDiv(extent, shift->stride) : extent) + " + " + before;
      subscripts.back() = llvm::formatv("{0} - {1}", var, before);
      conditions.push_back(llvm::formatv("{0} <= {1}", before, var));
      if (shift->stride != 1 && !phased) {
        std::string stride = std::to_string(shift->stride);
        conditions.push_back("(" + subscripts.back() + ") % " + stride +
                             " == 0");
        subscripts.back() = "(" + subscripts.back() + ") / " + stride;
      }
      conditions.push_back(subscripts.back() + " < " + range.second);
    }
    wheres.push_back(var + " in 0:" + padDims.back().second);
  }
  dims[name] = padDims;
  body.push_back("  " + name + "(" + llvm::join(indices, ", ") +
                 ") = " + llvm::join(conditions, " && ") + " ? " + seed + "(" +
                 llvm::join(subscripts, ", ") + ") : 0 where " +
                 llvm::join(wheres, ", "));
  return name;
}

/// The other factor, reversed along each window dimension.
std::string BackwardBuilder::flipOperand(const ApplyExpr &operand,
                                         const ShiftedRead &shifted,
                                         const std::string &version) {
  std::string name = fresh(version + "_flip");
  dims[name] = dims[version];
  std::vector<std::string> indices, subscripts, wheres;
  for (unsigned d = 0; d < operand.getArgs().size(); ++d) {
    const DimRange &range = dims[version][d];
    indices.push_back(indexName(d));
    subscripts.push_back(indices.back());
    wheres.push_back(indices.back() + " in " + range.first + ":" +
                     range.second);
    if (llvm::any_of(shifted.shifts, [&](const ShiftedRead::Shift &shift) {
          return shift.operandDim == d;
        }))
      subscripts.back() = minusOne(range.second) + " - " + indices.back();
  }
  body.push_back("  " + name + "(" + llvm::join(indices, ", ") +
                 ") = " + version + "(" + llvm::join(subscripts, ", ") +
                 ") where " + llvm::join(wheres, ", "));
  return name;
}
