//===- TcTuner.cpp - Autotuning one TC def --------------------------------===//
#include "comprehend/api/TcTuner.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Program.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/TuningCache.h"
#include "comprehend/tc/AST.h"

#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace comprehend;
using namespace comprehend::api;
using runtime::Configuration;

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

namespace {
/// A compiled candidate of the def (or the default kernel itself).
class TcVariant : public runtime::TuningVariant {
public:
  TcVariant(TcKernel &kernel, std::unique_ptr<TcKernel> owned = nullptr)
      : kernel(kernel), owned(std::move(owned)) {}
  llvm::Expected<std::vector<double>> time(unsigned count) override {
    auto timing = kernel.run(std::max(1u, count));
    if (!timing)
      return timing.takeError();
    return std::move(timing->kernelMs);
  }

private:
  TcKernel &kernel;
  std::unique_ptr<TcKernel> owned;
};

/// The def as the tuner sees it: random inputs shared by every candidate,
/// the default's outputs as the reference, and the outputs of the candidate
/// prepared last.
class TcTarget : public runtime::TuningTarget {
public:
  TcTarget(runtime::Runtime &runtime, const tc::Program &program,
           const tc::Def &def, const llvm::StringMap<int64_t> &sizes,
           DiagnosticEngine &diags, const TcTuneOptions &options)
      : runtime(runtime), program(program), def(def), sizes(sizes),
        diags(diags), options(options) {}

  /// Compiles the default variant (its diagnostics are the user's) and
  /// draws the inputs.
  llvm::Error setUp() {
    auto kernel = TcKernel::compile(runtime, program, def, sizes, diags,
                                    getKernelOptions());
    if (!kernel)
      return kernel.takeError();
    defaultKernel = std::move(*kernel);
    std::mt19937_64 rng(options.tuner.search.seed + 1);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    // Inputs and the incoming values of outputs that take one.
    for (const tc::LoweredTensor &tensor : defaultKernel->getTensors()) {
      if (tensor.role != tc::TensorInfo::Role::Input &&
          !defaultKernel->takesIncomingValue(tensor.name))
        continue;
      runtime::DType dtype = *getDType(tensor.type);
      std::vector<unsigned char> bytes(defaultKernel->getSizeInBytes(tensor));
      size_t size = runtime::getDTypeSize(dtype);
      for (size_t i = 0; i * size < bytes.size(); ++i) {
        double value = dist(rng);
        // Small non-negative integers can index other tensors (gather).
        if (dtype == runtime::DType::I32) {
          int32_t v = static_cast<int32_t>(std::floor(1.5 * (value + 1)));
          std::memcpy(&bytes[i * size], &v, size);
        } else if (dtype == runtime::DType::I64) {
          int64_t v = static_cast<int64_t>(std::floor(1.5 * (value + 1)));
          std::memcpy(&bytes[i * size], &v, size);
        } else if (dtype == runtime::DType::F32) {
          float v = static_cast<float>(value);
          std::memcpy(&bytes[i * size], &v, size);
        } else {
          std::memcpy(&bytes[i * size], &value, size);
        }
      }
      inputs.emplace_back(tensor.name, std::move(bytes));
    }
    return llvm::Error::success();
  }

  void setDefaultConfig(Configuration config) {
    defaultConfig = std::move(config);
  }
  TcKernel &getDefaultKernel() { return *defaultKernel; }

  llvm::Expected<std::unique_ptr<runtime::TuningVariant>>
  prepare(const Configuration &config) override {
    if (config == defaultConfig) {
      if (llvm::Error error = runOnce(*defaultKernel, reference))
        return error;
      last = reference;
      return std::make_unique<TcVariant>(*defaultKernel);
    }
    auto compiled = compileCandidate(config);
    if (!compiled)
      return compiled.takeError();
    if (llvm::Error error = runOnce(**compiled, last))
      return error;
    TcKernel &kernel = **compiled;
    return std::make_unique<TcVariant>(kernel, std::move(*compiled));
  }

  llvm::Error check(const Configuration &config) override {
    const auto tensors = defaultKernel->getTensors();
    size_t output = 0;
    for (const tc::LoweredTensor &tensor : tensors) {
      if (tensor.role != tc::TensorInfo::Role::Output)
        continue;
      if (output >= last.size() ||
          !sameOutputs(*getDType(tensor.type), reference[output], last[output]))
        return runtime::makeInputError("'" + tensor.name +
                                       "' differs from the default's with " +
                                       runtime::formatConfiguration(config));
      ++output;
    }
    return llvm::Error::success();
  }

private:
  TcKernelOptions getKernelOptions() const {
    TcKernelOptions kernelOptions;
    kernelOptions.useTuningCache = false;
    kernelOptions.lowering = options.lowering;
    kernelOptions.compile = options.compile;
    return kernelOptions;
  }

  /// Compiles a candidate. Its diagnostics would repeat the default's, so
  /// they are dropped: a candidate that fails to compile is only skipped.
  llvm::Expected<std::unique_ptr<TcKernel>>
  compileCandidate(const Configuration &config) {
    std::string messages;
    llvm::raw_string_ostream os(messages);
    DiagnosticEngine quiet(diags.getSourceMgr(), os);
    TcKernelOptions kernelOptions = getKernelOptions();
    kernelOptions.config = config;
    return TcKernel::compile(runtime, program, def, sizes, quiet,
                             kernelOptions);
  }

  /// Writes the inputs (and incoming values), poisons everything else, launches
  /// once and reads the outputs.
  llvm::Error runOnce(TcKernel &kernel,
                      std::vector<std::vector<unsigned char>> &outputs) {
    for (const auto &[name, bytes] : inputs)
      if (llvm::Error error = kernel.write(name, bytes.data(), bytes.size()))
        return error;
    for (const tc::LoweredTensor &tensor : kernel.getTensors())
      if (tensor.role != tc::TensorInfo::Role::Input &&
          !kernel.takesIncomingValue(tensor.name))
        if (llvm::Error error = kernel.fill(tensor.name, 0xff))
          return error;
    auto timing = kernel.run(1);
    if (!timing)
      return timing.takeError();
    outputs.clear();
    for (const tc::LoweredTensor &tensor : kernel.getTensors()) {
      if (tensor.role != tc::TensorInfo::Role::Output)
        continue;
      std::vector<unsigned char> &bytes = outputs.emplace_back();
      bytes.resize(kernel.getSizeInBytes(tensor));
      if (llvm::Error error =
              kernel.read(tensor.name, bytes.data(), bytes.size()))
        return error;
    }
    return llvm::Error::success();
  }

  runtime::Runtime &runtime;
  const tc::Program &program;
  const tc::Def &def;
  const llvm::StringMap<int64_t> &sizes;
  DiagnosticEngine &diags;
  const TcTuneOptions &options;
  std::unique_ptr<TcKernel> defaultKernel;
  Configuration defaultConfig;
  std::vector<std::pair<std::string, std::vector<unsigned char>>> inputs;
  std::vector<std::vector<unsigned char>> reference, last;
};
} // namespace

llvm::Expected<TcTuneResult>
api::tuneTc(runtime::Runtime &runtime, const tc::Program &program,
            const tc::Def &def, const llvm::StringMap<int64_t> &sizes,
            DiagnosticEngine &diags, const TcTuneOptions &options) {
  auto start = std::chrono::steady_clock::now();
  TcTarget target(runtime, program, def, sizes, diags, options);
  if (llvm::Error error = target.setUp())
    return error;
  TcKernel &kernel = target.getDefaultKernel();
  llvm::StringRef firstKernel =
      kernel.getLoweredDef().kernels.front().function->getName();
  auto entry = kernel.getExecutable().getEntry(firstKernel);
  if (!entry)
    return entry.takeError();
  TcKnobs knobs;
  {
    llvm::SourceMgr sourceMgr;
    DiagnosticEngine quiet(sourceMgr, llvm::nulls());
    ir::Context ctx;
    ir::Program defaultLowering(ctx);
    tc::LoweringOptions lowering = options.lowering;
    backend::CompileOptions compile = options.compile;
    llvm::consumeError(applyCompileConfiguration({}, runtime.getCoreInfo(),
                                                 lowering, compile));
    if (tc::lowerDef(program, def, sizes, defaultLowering, quiet, lowering))
      knobs = findTcKnobs(program, def, sizes, lowering, defaultLowering);
  }
  auto space = makeTcSearchSpace(knobs, runtime.getCoreInfo(), entry->info);
  if (!space)
    return space.takeError();
  target.setDefaultConfig(space->getDefault());

  TcTuneResult result;
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
  const runtime::SearchResult &search = result.tuning.search;
  if (options.useCache) {
    if (llvm::Error error = cache.store(
            result.key,
            runtime::TuningRecord{search.best, search.bestMs, search.defaultMs},
            // This run re-measured the cached configuration beside the
            // others: its confirmed answer replaces the old one.
            /*replace=*/true)) {
      if (options.warnings)
        *options.warnings << "warning: " << llvm::toString(std::move(error))
                          << "\n";
      else
        llvm::consumeError(std::move(error));
    } else {
      result.cachePath = cachePath;
    }
  }
  return result;
}
