//===- Tuner.cpp - Autotuning a kernel of either language -----------------===//
#include "comprehend/api/Tuner.h"

#include "comprehend/runtime/Error.h"

using namespace comprehend;
using namespace comprehend::api;
using runtime::Configuration;

namespace {
/// A compiled candidate (or the default kernel itself).
class KernelVariant : public runtime::TuningVariant {
public:
  KernelVariant(Kernel &kernel, std::unique_ptr<Kernel> owned = nullptr)
      : kernel(kernel), owned(std::move(owned)) {}
  llvm::Expected<std::vector<double>> time(unsigned count) override {
    auto timing = kernel.run(std::max(1u, count));
    if (!timing)
      return timing.takeError();
    return std::move(timing->kernelMs);
  }

private:
  Kernel &kernel;
  std::unique_ptr<Kernel> owned;
};

/// The kernel as runtime::tune sees it: inputs shared by every candidate,
/// the default's outputs as the reference, and the outputs of the candidate
/// prepared last.
class KernelTarget : public runtime::TuningTarget {
public:
  KernelTarget(Kernel &defaultKernel, Configuration defaultConfig,
               KernelData inputs)
      : defaultKernel(defaultKernel), defaultConfig(std::move(defaultConfig)),
        inputs(std::move(inputs)) {}

  llvm::Expected<std::unique_ptr<runtime::TuningVariant>>
  prepare(const Configuration &config) override {
    if (config == defaultConfig) {
      auto outputs = defaultKernel.runOnInputs(inputs);
      if (!outputs)
        return outputs.takeError();
      reference = last = std::move(*outputs);
      return std::make_unique<KernelVariant>(defaultKernel);
    }
    auto compiled = defaultKernel.recompile(config);
    if (!compiled)
      return compiled.takeError();
    auto outputs = (*compiled)->runOnInputs(inputs);
    if (!outputs)
      return outputs.takeError();
    last = std::move(*outputs);
    Kernel &kernel = **compiled;
    return std::make_unique<KernelVariant>(kernel, std::move(*compiled));
  }

  llvm::Error check(const Configuration &config) override {
    for (size_t i = 0; i < reference.size(); ++i)
      if (i >= last.size() ||
          !sameOutputs(reference[i].dtype, reference[i].bytes, last[i].bytes))
        return runtime::makeInputError(reference[i].name +
                                       " differs from the default's with " +
                                       runtime::formatConfiguration(config));
    return llvm::Error::success();
  }

private:
  Kernel &defaultKernel;
  Configuration defaultConfig;
  KernelData inputs;
  std::vector<KernelOutput> reference, last;
};
} // namespace

llvm::Expected<TuneResult> api::tuneKernel(Kernel &kernel,
                                           const TuneOptions &options) {
  auto start = std::chrono::steady_clock::now();
  auto inputs = kernel.makeTuningInputs(options.tuner.search.seed + 1);
  if (!inputs)
    return inputs.takeError();
  auto space = kernel.getSearchSpace();
  if (!space)
    return space.takeError();
  KernelTarget target(kernel, space->getDefault(), std::move(*inputs));

  TuneResult result;
  result.key = kernel.getTuningKey();
  std::string cachePath = options.cachePath.empty()
                              ? runtime::TuningCache::getDefaultPath()
                              : options.cachePath;
  runtime::TuningCache cache(cachePath, options.warnings);
  runtime::TunerOptions tuner = options.tuner;
  if (!tuner.start)
    tuner.start = start;
  // A configuration cached by an earlier run is re-measured first, so a
  // short second run starts from it.
  if (options.useCache)
    if (std::optional<runtime::TuningRecord> cached = cache.lookup(result.key))
      tuner.search.seeds.push_back(cached->config);
  auto tuned = runtime::tune(*space, target, tuner);
  if (!tuned)
    return tuned.takeError();
  result.tuning = std::move(*tuned);
  result.space = std::move(*space);
  if (!options.useCache)
    return result;
  const runtime::SearchResult &search = result.tuning.search;
  if (llvm::Error error = cache.store(
          result.key,
          runtime::TuningRecord{search.best, search.bestMs, search.defaultMs},
          // This run re-measured the cached configuration beside the
          // others: its confirmed answer replaces the old one.
          /*replace=*/true))
    result.cacheError = llvm::toString(std::move(error));
  else
    result.cachePath = cachePath;
  return result;
}
