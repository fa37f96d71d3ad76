//===- TcTuner.cpp - Autotuning one TC def --------------------------------===//
#include "comprehend/api/TcTuner.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Program.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/TuningCache.h"
#include "comprehend/tc/AST.h"

#include "llvm/Support/SourceMgr.h"

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
/// Random inputs shared by every candidate, the default's outputs, and the
/// outputs of the candidate evaluated last.
class Tuner {
public:
  Tuner(runtime::Runtime &runtime, const tc::Program &program,
        const tc::Def &def, const llvm::StringMap<int64_t> &sizes,
        DiagnosticEngine &diags, const TcTuneOptions &options)
      : runtime(runtime), program(program), def(def), sizes(sizes),
        diags(diags), options(options) {}

  /// Compiles and runs the default variant; its outputs are the reference.
  llvm::Error setUp() {
    TcKernelOptions kernelOptions = getKernelOptions();
    auto kernel =
        TcKernel::compile(runtime, program, def, sizes, diags, kernelOptions);
    if (!kernel)
      return kernel.takeError();
    defaultKernel = std::move(*kernel);
    std::mt19937_64 rng(options.search.seed + 1);
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
    if (llvm::Error error = runOnce(*defaultKernel, reference))
      return error;
    return llvm::Error::success();
  }

  llvm::Expected<double> evaluate(const Configuration &config) {
    last.clear();
    TcKernel *kernel = defaultKernel.get();
    std::unique_ptr<TcKernel> candidate;
    if (config != getDefaultConfig()) {
      auto compiled = compileCandidate(config);
      if (!compiled)
        return compiled.takeError();
      candidate = std::move(*compiled);
      kernel = candidate.get();
      if (llvm::Error error = runOnce(*kernel, last))
        return error;
    } else {
      last = reference;
    }
    // A candidate far slower than the best so far cannot win: one launch
    // tells, and the budget goes to the next candidate.
    auto probe = kernel->run(1);
    if (!probe)
      return probe.takeError();
    double probeMs = probe->getMedianKernelMs();
    if (probeMs > kHopeless * bestSoFar)
      return probeMs;
    auto timing = kernel->run(std::max(1u, options.repeat));
    if (!timing)
      return timing.takeError();
    double ms = timing->getMedianKernelMs();
    // Only a candidate that passes the check may lower the bar; the check
    // runs after this returns, so the bar is the default's until then.
    if (config == getDefaultConfig())
      bestSoFar = ms;
    pendingMs = ms;
    return ms;
  }

  /// Called when a candidate passed the check.
  void accept() { bestSoFar = std::min(bestSoFar, pendingMs); }

  llvm::Error check(const Configuration &config) {
    if (llvm::Error error = compareOutputs(config))
      return error;
    accept();
    return llvm::Error::success();
  }

  llvm::Error compareOutputs(const Configuration &config) const {
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

  /// Times `finalists` again, `rounds` times each in alternation so that a
  /// burst of load on the machine hits all of them alike; returns the
  /// median over all their launches (infinity for one that now fails).
  std::vector<double> confirm(llvm::ArrayRef<Configuration> finalists,
                              unsigned rounds) {
    std::vector<std::unique_ptr<TcKernel>> kernels;
    for (const Configuration &config : finalists) {
      if (config == getDefaultConfig()) {
        kernels.push_back(nullptr);
        continue;
      }
      auto compiled = compileCandidate(config);
      std::vector<std::vector<unsigned char>> outputs;
      if (!compiled || runOnce(**compiled, outputs)) {
        if (!compiled)
          llvm::consumeError(compiled.takeError());
        kernels.push_back(nullptr);
        continue;
      }
      kernels.push_back(std::move(*compiled));
    }
    std::vector<std::vector<double>> times(finalists.size());
    for (unsigned round = 0; round < rounds; ++round)
      for (size_t i = 0; i < finalists.size(); ++i) {
        TcKernel *kernel = kernels[i] ? kernels[i].get()
                           : finalists[i] == getDefaultConfig()
                               ? defaultKernel.get()
                               : nullptr;
        if (!kernel)
          continue;
        auto timing = kernel->run(std::max(1u, options.repeat));
        if (!timing) {
          llvm::consumeError(timing.takeError());
          continue;
        }
        llvm::append_range(times[i], timing->kernelMs);
      }
    std::vector<double> medians;
    for (std::vector<double> &samples : times) {
      if (samples.empty()) {
        medians.push_back(std::numeric_limits<double>::infinity());
        continue;
      }
      std::nth_element(samples.begin(), samples.begin() + samples.size() / 2,
                       samples.end());
      medians.push_back(samples[samples.size() / 2]);
    }
    return medians;
  }

  TcKernel &getDefaultKernel() { return *defaultKernel; }
  void setDefaultConfig(Configuration config) {
    defaultConfig = std::move(config);
  }
  const Configuration &getDefaultConfig() const { return defaultConfig; }

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
  /// How much slower than the best a first launch may be and still be
  /// timed in full.
  static constexpr double kHopeless = 4;
  double bestSoFar = std::numeric_limits<double>::infinity();
  double pendingMs = std::numeric_limits<double>::infinity();
  std::vector<std::pair<std::string, std::vector<unsigned char>>> inputs;
  std::vector<std::vector<unsigned char>> reference, last;
};
} // namespace

llvm::Expected<TcTuneResult>
api::tuneTc(runtime::Runtime &runtime, const tc::Program &program,
            const tc::Def &def, const llvm::StringMap<int64_t> &sizes,
            DiagnosticEngine &diags, const TcTuneOptions &options) {
  Tuner tuner(runtime, program, def, sizes, diags, options);
  if (llvm::Error error = tuner.setUp())
    return error;
  TcKernel &kernel = tuner.getDefaultKernel();
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
  tuner.setDefaultConfig(space->getDefault());

  TcTuneResult result;
  result.key = kernel.getTuningKey();
  std::string cachePath = options.cachePath.empty()
                              ? runtime::TuningCache::getDefaultPath()
                              : options.cachePath;
  runtime::TuningCache cache(cachePath, options.warnings);
  runtime::SearchOptions search = options.search;
  // A configuration cached by an earlier run is re-measured first, so a
  // short second run starts from it.
  if (options.useCache)
    if (std::optional<runtime::TuningRecord> cached = cache.lookup(result.key))
      search.seeds.push_back(cached->config);
  auto found = runtime::runGeneticSearch(
      *space,
      [&](const Configuration &config) { return tuner.evaluate(config); },
      [&](const Configuration &config) { return tuner.check(config); }, search);
  if (!found)
    return found.takeError();
  result.search = std::move(*found);

  // The fastest of many noisy timings is optimistic (the winner's curse):
  // the best few candidates and the default are timed again, side by side,
  // and those times decide and are reported.
  if (options.confirmRounds > 0) {
    std::vector<Configuration> finalists = {result.search.defaultConfig};
    for (const auto &entry : result.search.measured)
      if (entry.first != result.search.defaultConfig &&
          finalists.size() <= options.numFinalists)
        finalists.push_back(entry.first);
    std::vector<double> medians =
        tuner.confirm(finalists, options.confirmRounds);
    result.search.defaultMs = medians[0];
    result.search.best = finalists[0];
    result.search.bestMs = medians[0];
    for (size_t i = 1; i < finalists.size(); ++i)
      if (medians[i] < result.search.bestMs) {
        result.search.best = finalists[i];
        result.search.bestMs = medians[i];
      }
  }
  if (options.useCache) {
    if (llvm::Error error = cache.store(
            result.key,
            runtime::TuningRecord{result.search.best, result.search.bestMs})) {
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
