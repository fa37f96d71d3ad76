//===- TuneReport.cpp - What `comprehend tune` prints ---------------------===//
#include "TuneReport.h"
#include "Options.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace comprehend;
using namespace comprehend::runtime;

/// Seeds the quality report replays the search with.
static constexpr unsigned kQualitySeeds = 20;

TunerOptions tools::getTunerOptions() {
  TunerOptions options;
  options.search.maxEvaluations = Evals;
  options.search.timeBudgetSeconds = Budget;
  if (Exhaustive)
    options.exhaustive = true;
  else if (!Evals && Budget <= 0)
    options.search.maxEvaluations = 40;
  options.search.seed = 1;
  options.search.progress = &llvm::errs();
  options.repeat = std::max(1u, unsigned(Repeat));
  return options;
}

static llvm::json::Value toJSON(const SearchQuality &quality) {
  llvm::json::Array evaluationsTo95;
  for (unsigned count : quality.evaluationsTo95)
    evaluationsTo95.push_back(int64_t(count));
  return llvm::json::Object{{"points", int64_t(quality.numPoints)},
                            {"best_ms", quality.bestMs},
                            {"evaluations", int64_t(quality.evaluations)},
                            {"seeds", int64_t(quality.numSeeds)},
                            {"median_quality", quality.medianQuality},
                            {"share_at_95", quality.shareAt95},
                            {"evaluations_to_95", std::move(evaluationsTo95)}};
}

void tools::printTuneReport(llvm::StringRef entry, llvm::StringRef label,
                            llvm::StringRef device, const SearchSpace &space,
                            const TunerResult &result,
                            llvm::StringRef cachePath) {
  const SearchResult &search = result.search;
  // The search skips a candidate whose outputs differ from the default's.
  // For a TC def that is a miscompilation; for an .ir kernel it may also be
  // a kernel whose result depends on its work-group shape. Either way the
  // user should hear of it, not only count it.
  constexpr size_t kShownWrong = 5;
  for (const std::string &reason :
       llvm::ArrayRef(search.wrongCandidates).take_front(kShownWrong))
    llvm::errs() << "comprehend tune: warning: a candidate was skipped: "
                 << reason << "\n";
  if (search.wrongCandidates.size() > kShownWrong)
    llvm::errs() << "comprehend tune: warning: "
                 << search.wrongCandidates.size() - kShownWrong
                 << " more candidates were skipped for the same reason "
                    "(--json lists them all)\n";
  std::optional<SearchQuality> quality;
  if (Exhaustive)
    quality = measureSearchQuality(space, result.table, kQualitySeeds);
  if (Json) {
    llvm::json::OStream json(llvm::outs(), 2);
    json.object([&] {
      json.attribute("entry", entry);
      json.attribute("device", device);
      json.attribute("runs", int64_t(result.repeat));
      json.attribute("median_ms", search.bestMs);
      json.attribute("default_ms", search.defaultMs);
      json.attribute("speedup", search.getSpeedup());
      json.attribute("config", toJSON(search.best));
      json.attribute("default_config", toJSON(search.defaultConfig));
      json.attribute("improved", result.improved);
      json.attribute("verdict", result.verdict);
      json.attribute("confirm_rounds", int64_t(result.confirmRounds));
      json.attribute("elapsed_s", result.elapsedSeconds);
      json.attribute("evaluations", int64_t(search.numEvaluations));
      json.attribute("failed", int64_t(search.numFailed));
      json.attribute("wrong", int64_t(search.numWrong));
      json.attributeArray("wrong_candidates", [&] {
        for (const std::string &reason : search.wrongCandidates)
          json.value(reason);
      });
      json.attribute("cache", cachePath.empty() ? llvm::json::Value(nullptr)
                                                : llvm::json::Value(cachePath));
      if (quality)
        json.attribute("search_quality", toJSON(*quality));
    });
    llvm::outs() << "\n";
    return;
  }
  llvm::outs() << label << " on " << device << ": default "
               << llvm::format("%.4f", search.defaultMs) << " ms, best "
               << llvm::format("%.4f", search.bestMs) << " ms, speed-up "
               << llvm::format("%.2f", search.getSpeedup()) << "x ("
               << search.numEvaluations << " candidates, " << search.numFailed
               << " failed, " << search.numWrong << " wrong, "
               << llvm::format("%.1f", result.elapsedSeconds) << " s)\n";
  llvm::outs() << result.verdict << "\n";
  llvm::outs() << "config: " << formatConfiguration(search.best) << "\n";
  if (quality && quality->numPoints) {
    llvm::outs() << "search quality: " << quality->numPoints
                 << " points measured, best "
                 << llvm::format("%.4f", quality->bestMs)
                 << " ms; replayed over " << quality->numSeeds << " seeds with "
                 << quality->evaluations
                 << " evaluations (10%), the genetic search reached "
                 << llvm::format("%.1f", 100 * quality->medianQuality)
                 << "% of the best (median), 95% of it in "
                 << llvm::format("%.0f", 100 * quality->shareAt95)
                 << "% of the seeds\n";
  }
  if (!cachePath.empty())
    llvm::outs() << "cached in " << cachePath << "\n";
}
