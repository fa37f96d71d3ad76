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

/// The range of \p knob in words: "positive", "not negative", "0 or 1".
static std::string describeRange(const KnobSpec &knob) {
  if (!knob.values.empty())
    return knob.values.str();
  if (knob.minimum == 0 && knob.maximum == 1)
    return "0 or 1";
  return knob.minimum > 0 ? "positive" : "not negative";
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
