//===- Kernel.cpp - A compiled kernel of either language ------------------===//
#include "comprehend/api/Kernel.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace comprehend;
using namespace comprehend::api;

api::Kernel::~Kernel() = default;

llvm::StringRef api::getConfigSourceName(ConfigSource source) {
  switch (source) {
  case ConfigSource::Default:
    return "default";
  case ConfigSource::Given:
    return "given";
  case ConfigSource::TuningCache:
    return "tuning-cache";
  }
  return "default";
}

llvm::Error api::Kernel::chooseConfig(
    const KernelOptions &options,
    llvm::function_ref<llvm::Error(const runtime::Configuration &)> check) {
  config = options.config;
  configSource =
      options.config.empty() ? ConfigSource::Default : ConfigSource::Given;
  cachedDefaultMs = 0;
  if (options.config.empty() && options.useTuningCache) {
    runtime::TuningCache cache(options.cachePath.empty()
                                   ? runtime::TuningCache::getDefaultPath()
                                   : options.cachePath,
                               options.warnings);
    if (std::optional<runtime::TuningRecord> record = cache.lookup(key)) {
      config = record->config;
      configSource = ConfigSource::TuningCache;
      cachedDefaultMs = record->defaultMs;
    }
  }
  if (config.empty())
    return llvm::Error::success();
  llvm::Error error = check(config);
  // A cached configuration that no longer applies (an older compiler's
  // knobs) is not the user's mistake: fall back to the defaults.
  if (!error || configSource != ConfigSource::TuningCache)
    return error;
  if (options.warnings)
    *options.warnings << options.warningPrefix
                      << "ignoring the cached configuration: "
                      << llvm::toString(std::move(error)) << "\n";
  else
    llvm::consumeError(std::move(error));
  config.clear();
  configSource = ConfigSource::Default;
  cachedDefaultMs = 0;
  return llvm::Error::success();
}

bool api::sameOutputs(runtime::DType dtype, llvm::ArrayRef<unsigned char> a,
                      llvm::ArrayRef<unsigned char> b) {
  if (a.size() != b.size())
    return false;
  auto close = [](double x, double y) {
    if (std::isnan(x) || std::isnan(y))
      return std::isnan(x) && std::isnan(y);
    return std::abs(x - y) <= 1e-3 * (1 + std::abs(y));
  };
  auto compare = [&](auto zero) {
    using T = decltype(zero);
    for (size_t i = 0; i + sizeof(T) <= a.size(); i += sizeof(T)) {
      T x, y;
      std::memcpy(&x, &a[i], sizeof(T));
      std::memcpy(&y, &b[i], sizeof(T));
      if (!close(x, y))
        return false;
    }
    return true;
  };
  switch (dtype) {
  case runtime::DType::F32:
  case runtime::DType::C32:
    return compare(float());
  case runtime::DType::F64:
  case runtime::DType::C64:
    return compare(double());
  default:
    return a == b;
  }
}
