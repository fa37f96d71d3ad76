//===- GradConvPhases.cpp - A strided convolution's gradient by phases ---===//
//
// The data gradient of a strided convolution, `I(n, c, 2 * h + kh, 2 * w +
// kw)` (GradConv.cpp has the stride-1 one), as a transposed convolution
// spreads d_O's points 2 apart with zeros between them, and its
// convolution multiplies zeros three times in four. Where each strided
// window is wider than its stride and not dilated, the gradient splits by
// the phase of I's index instead (a polyphase decomposition): the points
// `2 * q + p` of one phase p take only the taps `kh = 2 * a + p` and read
// d_O at `q - a`, so per phase it is a stride-1 convolution with
// A = ceil(KH / 2) taps over d_O padded by A - 1:
//
//   d_O_pad(n, m, i, j) = <in range> ? d_O(n, m, i - (A - 1), j - (B - 1))
//   W1_phases(p, m, c, a, b) = <tap in W1> ?
//       W1(m, c, 2 * (A - 1 - a) + p / 2, 2 * (B - 1 - b) + p % 2) : 0
//   d_I_phases(p, n, c, h, w) +=! d_O_pad(n, m, h + a, w + b) *
//       W1_phases(p, m, c, a, b)
//   d_I(n, c, h, w) = d_I_phases((h % 2) * 2 + w % 2, n, c, h / 2, w / 2)
//
// The convolution has the forward's shape (gemms, ConvAsGemm.cpp), none
// over inserted zeros; the taps past KH are zero weights (16 taps for 9
// with a 3 x 3 window). examples/strided_conv.tc's d_I at 8 x 32 x 56^2
// (PoCL, 2 cores): 1.3-1.8 -> 0.8-0.9 ms. The gather reads the phases
// through `%`, which starts a kernel of its own (SegmentStatements.cpp).
//
//===----------------------------------------------------------------------===//
#include "GradConv.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace comprehend;
using namespace comprehend::tc;
using namespace comprehend::tc::grad;

bool grad::splitsPhases(const BackwardBuilder::ShiftedRead &shifted) {
  using Shift = BackwardBuilder::ShiftedRead::Shift;
  return llvm::any_of(shifted.shifts,
                      [](const Shift &shift) { return shift.stride != 1; }) &&
         llvm::all_of(shifted.shifts, [](const Shift &shift) {
           return shift.stride == 1 || shift.dilation == 1;
         });
}

namespace {

/// How many phases the strided dimensions of \p shifted have together.
int64_t phaseCount(const BackwardBuilder::ShiftedRead &shifted) {
  int64_t count = 1;
  for (const BackwardBuilder::ShiftedRead::Shift &shift : shifted.shifts)
    count *= shift.stride;
  return count;
}

/// The phase index numbers the phases of the strided dimensions in mixed
/// radix, the first strided dimension's digit slowest. Per shift of
/// \p shifted: the value of its digit's unit (0 for an unstrided shift).
std::vector<int64_t> phaseRadices(const BackwardBuilder::ShiftedRead &shifted) {
  std::vector<int64_t> radices(shifted.shifts.size(), 0);
  int64_t unit = 1;
  for (unsigned i = shifted.shifts.size(); i-- > 0;) {
    if (shifted.shifts[i].stride == 1)
      continue;
    radices[i] = unit;
    unit *= shifted.shifts[i].stride;
  }
  return radices;
}

/// Per shift of \p shifted: its digit of the phase index \p phase as text
/// (empty for an unstrided shift).
std::vector<std::string>
phaseDigits(const BackwardBuilder::ShiftedRead &shifted,
            const std::string &phase) {
  int64_t count = phaseCount(shifted);
  std::vector<int64_t> radices = phaseRadices(shifted);
  std::vector<std::string> digits(radices.size());
  for (unsigned i = 0; i < radices.size(); ++i) {
    if (radices[i] == 0)
      continue;
    std::string stride = std::to_string(shifted.shifts[i].stride);
    std::string quotient =
        radices[i] == 1 ? phase : phase + " / " + std::to_string(radices[i]);
    if (radices[i] * shifted.shifts[i].stride == count)
      digits[i] = quotient; // The slowest digit: the quotient is below stride.
    else
      digits[i] = llvm::formatv(radices[i] == 1 ? "{0} % {1}" : "({0}) % {1}",
                                quotient, stride);
  }
  return digits;
}

} // namespace

/// The other factor per phase \p phase (its first index): along each
/// strided window, the taps of that phase, reversed; taps past the window
/// are zeros.
std::string BackwardBuilder::phaseOperand(const ApplyExpr &operand,
                                          const ShiftedRead &shifted,
                                          const std::string &phase) {
  const std::string &version = shifted.operandVersion;
  std::string name = fresh(version + "_phases");
  std::vector<std::string> digits = phaseDigits(shifted, phase);
  std::vector<DimRange> phaseDims{{"0", std::to_string(phaseCount(shifted))}};
  std::vector<std::string> indices{phase}, subscripts, conditions;
  for (unsigned d = 0; d < operand.getArgs().size(); ++d) {
    const DimRange &range = dims[version][d];
    std::string var = indexName(d);
    indices.push_back(var);
    phaseDims.push_back(range);
    subscripts.push_back(var);
    auto shift = llvm::find_if(shifted.shifts, [&](const auto &candidate) {
      return candidate.operandDim == d;
    });
    if (shift == shifted.shifts.end())
      continue;
    if (shift->stride == 1) {
      subscripts.back() = minusOne(range.second) + " - " + var;
      continue;
    }
    std::string taps = ceilDiv(range.second, shift->stride);
    phaseDims.back().second = taps;
    std::string reversedTap = llvm::formatv("({0} - {1})", minusOne(taps), var);
    subscripts.back() =
        llvm::formatv("{0} + {1}", scaled(shift->stride, reversedTap),
                      digits[shift - shifted.shifts.begin()]);
    int64_t window;
    if (llvm::StringRef(range.second).getAsInteger(10, window) ||
        window % shift->stride != 0)
      conditions.push_back(subscripts.back() + " < " + range.second);
  }
  dims[name] = phaseDims;
  std::vector<std::string> wheres;
  for (auto [var, range] : llvm::zip(indices, phaseDims))
    wheres.push_back(var + " in " + range.first + ":" + range.second);
  std::string read = version + "(" + llvm::join(subscripts, ", ") + ")";
  if (!conditions.empty())
    read = llvm::join(conditions, " && ") + " ? " + read + " : 0";
  body.push_back("  " + name + "(" + llvm::join(indices, ", ") + ") = " + read +
                 " where " + llvm::join(wheres, ", "));
  return name;
}

/// The tensor of the phases of \p adjoint: the phase first, then the
/// target's dimensions, each strided one ceil(extent / stride) long.
std::string BackwardBuilder::phasedAdjoint(const ShiftedRead &shifted,
                                           const std::string &adjoint) {
  std::string name = fresh(adjoint + "_phases");
  std::vector<DimRange> phaseDims = dims[shifted.targetVersion];
  for (const ShiftedRead::Shift &shift : shifted.shifts)
    if (shift.stride != 1)
      phaseDims[shift.targetDim].second =
          ceilDiv(phaseDims[shift.targetDim].second, shift.stride);
  phaseDims.insert(phaseDims.begin(),
                   {"0", std::to_string(phaseCount(shifted))});
  dims[name] = phaseDims;
  return name;
}

/// `adjoint(..., h, ...) = phases(<h's phase>, ..., h / stride, ...)`: the
/// phases back in the target's order (`+=` where \p adjoint has a value).
std::string BackwardBuilder::gatherPhases(const ShiftedRead &shifted,
                                          const std::string &phases,
                                          const std::string &adjoint,
                                          bool first) {
  std::vector<int64_t> radices = phaseRadices(shifted);
  const std::vector<DimRange> &targetDims = dims[shifted.targetVersion];
  std::vector<std::string> subscripts = shifted.targetIndices, terms, wheres;
  for (auto [shift, radix] : llvm::zip(shifted.shifts, radices)) {
    if (radix == 0)
      continue;
    std::string stride = std::to_string(shift.stride);
    std::string digit = shift.lhsVar + " % " + stride;
    terms.push_back(radix == 1 ? digit
                               : "(" + digit + ") * " + std::to_string(radix));
    subscripts[shift.targetDim] = shift.lhsVar + " / " + stride;
    wheres.push_back(shift.lhsVar +
                     " in 0:" + targetDims[shift.targetDim].second);
  }
  subscripts.insert(subscripts.begin(), llvm::join(terms, " + "));
  return "  " + adjoint + "(" + llvm::join(shifted.targetIndices, ", ") + ")" +
         (first ? " = " : " += ") + phases + "(" +
         llvm::join(subscripts, ", ") + ") where " + llvm::join(wheres, ", ");
}
