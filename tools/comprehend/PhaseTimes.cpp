//===- PhaseTimes.cpp - --time-phases: where a command spends its time ----===//
#include "PhaseTimes.h"
#include "Options.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/TimeProfiler.h"

#include <chrono>

using namespace llvm;

namespace comprehend::tools {

namespace {
struct PhaseTotal {
  std::string name;
  unsigned calls = 0;
  double microseconds = 0;
};
} // namespace

static std::chrono::steady_clock::time_point commandStart;

/// llvm::format takes pointers, not arrays.
static const char *text(const char *literal) { return literal; }

void startPhaseTimes() {
  if (!TimePhases)
    return;
  commandStart = std::chrono::steady_clock::now();
  // Granularity 0: keep every scope, however short.
  timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0, "comprehend");
}

/// Sums the complete events ("ph": "X") of the trace by name, in the order
/// they began; the profiler's own "Total ..." summaries are skipped.
static std::vector<PhaseTotal> sumPhases(const json::Value &trace) {
  std::vector<PhaseTotal> phases;
  const json::Object *root = trace.getAsObject();
  const json::Array *events = root ? root->getArray("traceEvents") : nullptr;
  if (!events)
    return phases;
  std::vector<std::pair<double, const json::Object *>> complete;
  for (const json::Value &value : *events) {
    const json::Object *event = value.getAsObject();
    if (!event || event->getString("ph") != StringRef("X"))
      continue;
    Optional<StringRef> name = event->getString("name");
    if (!name || name->startswith("Total "))
      continue;
    complete.push_back({event->getNumber("ts").value_or(0), event});
  }
  llvm::stable_sort(
      complete, [](const auto &a, const auto &b) { return a.first < b.first; });
  StringMap<size_t> indexOf;
  for (const auto &[start, event] : complete) {
    StringRef name = *event->getString("name");
    auto [it, inserted] = indexOf.try_emplace(name, phases.size());
    if (inserted)
      phases.push_back({name.str()});
    PhaseTotal &total = phases[it->second];
    ++total.calls;
    total.microseconds += event->getNumber("dur").value_or(0);
  }
  return phases;
}

void reportPhaseTimes(raw_ostream &os) {
  if (!TimePhases || !timeTraceProfilerEnabled())
    return;
  double commandMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - commandStart)
                         .count();
  SmallString<0> traceText;
  raw_svector_ostream traceStream(traceText);
  timeTraceProfilerWrite(traceStream);
  timeTraceProfilerCleanup();
  Expected<json::Value> trace = json::parse(traceText);
  if (!trace) {
    consumeError(trace.takeError());
    return;
  }
  os << "phase times (nested phases are included in their parent's time):\n";
  os << format("  %-40s %6s %10s\n", text("phase"), text("calls"), text("ms"));
  for (const PhaseTotal &total : sumPhases(*trace))
    os << format("  %-40s %6u %10.3f\n", total.name.c_str(), total.calls,
                 total.microseconds / 1000.0);
  os << format("  %-40s %6s %10.3f\n", text("command (after start-up)"),
               text(""), commandMs);
}

} // namespace comprehend::tools
