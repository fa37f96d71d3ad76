//===- Knob.cpp - One tuning knob, as the layer that uses it declares it --===//
#include "comprehend/support/Knob.h"

#include "llvm/ADT/Twine.h"

using namespace comprehend;

const KnobSpec *comprehend::lookupKnob(llvm::ArrayRef<KnobSpec> table,
                                       llvm::StringRef name) {
  for (const KnobSpec &knob : table)
    if (knob.name == name)
      return &knob;
  return nullptr;
}

/// The range of \p knob in words: "positive", "not negative", "0 or 1",
/// "0, 1 or 2", "from 1 to 64".
static std::string describeRange(const KnobSpec &knob) {
  if (!knob.values.empty())
    return knob.values.str();
  if (knob.maximum == std::numeric_limits<int64_t>::max())
    return knob.minimum > 0 ? "positive" : "not negative";
  // A few values are listed; a bounded range of more names its ends.
  if (knob.maximum - knob.minimum > 3)
    return ("from " + llvm::Twine(knob.minimum) + " to " +
            llvm::Twine(knob.maximum))
        .str();
  std::string words = std::to_string(knob.minimum);
  for (int64_t value = knob.minimum + 1; value <= knob.maximum; ++value)
    words += (value == knob.maximum ? " or " : ", ") + std::to_string(value);
  return words;
}

std::optional<std::string> comprehend::checkKnobRange(const KnobSpec &knob,
                                                      int64_t value) {
  if (value >= knob.minimum && value <= knob.maximum)
    return std::nullopt;
  std::string range = describeRange(knob);
  std::string rule =
      range == "not negative" ? "must not be negative" : "must be " + range;
  return ("'" + knob.name + "' " + rule + ", not " + llvm::Twine(value)).str();
}

std::string comprehend::describeLegalValues(const KnobSpec &knob) {
  return knob.legal.empty() ? describeRange(knob) : knob.legal.str();
}
