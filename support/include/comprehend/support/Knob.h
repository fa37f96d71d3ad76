//===- Knob.h - One tuning knob, as the layer that uses it declares it -*- C++
//-*-===//
//
// A configuration (the tuner's, `--config`, Python's `config=`) is a map of
// knob values by name. Each layer that a knob steers declares it in one
// table of KnobSpec beside the code that uses it: the backend's in
// backend/lib/Knobs.cpp, the TC lowering's in frontend-tc/lib/
// LoweringKnobs.cpp. The range checks, the words of docs/knobs.md
// (tools/knob-docs) and the search domains (KnobDomain) of every layer are
// the ones of this header.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_SUPPORT_KNOB_H
#define COMPREHEND_SUPPORT_KNOB_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>

namespace comprehend {

/// Values of knobs by name (the tuner's runtime::Configuration).
using KnobValues = std::map<std::string, int64_t>;

/// One knob: its name, its range, and in words what it decides, its
/// default and any constraint beyond the range.
struct KnobSpec {
  llvm::StringLiteral name;
  int64_t minimum = 0;
  int64_t maximum = std::numeric_limits<int64_t>::max();
  /// What it decides, and its default (docs/knobs.md).
  llvm::StringLiteral decides;
  llvm::StringLiteral defaultRule;
  /// The legal values in words where the range alone does not say them
  /// (the meaning of each value of a choice, the constraints a layer checks
  /// with the core); empty: the range's words.
  llvm::StringLiteral legal = "";
  /// For a choice (a maximum of a few values): the words of its values in
  /// range messages, "0 (max), 1 (outer) or 2 (none)"; empty: numbers.
  llvm::StringLiteral values = "";
};

/// The knob of \p table named \p name, or null.
const KnobSpec *lookupKnob(llvm::ArrayRef<KnobSpec> table,
                           llvm::StringRef name);

/// Why \p value is outside the range of \p knob ("'gemm.rows' must not be
/// negative, not -1", "'tc.inner_mapping' must be 0 or 1, not 2"), or
/// nothing.
std::optional<std::string> checkKnobRange(const KnobSpec &knob, int64_t value);

/// The legal values of \p knob in words (docs/knobs.md).
std::string describeLegalValues(const KnobSpec &knob);

/// The values a search tries for one knob, and its default.
struct KnobDomain {
  llvm::StringLiteral name;
  llvm::SmallVector<int64_t, 16> values;
  int64_t defaultValue = 0;
};

} // namespace comprehend

#endif // COMPREHEND_SUPPORT_KNOB_H
