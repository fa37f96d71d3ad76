//===- Kernel.h - A compiled kernel of either language ----------*- C++ -*-===//
//
// What TcKernel (a TC def) and IrKernel (a tensor-language function) have in
// common, and all that the tuner (Tuner.h) and the driver's `run` see of
// them: a kernel at fixed sizes, compiled for one device with a
// configuration of its knobs (given, from the tuning cache, or the
// defaults), the knobs that change it (its search space), its tuning-cache
// key, and launches on its own device buffers.
//
//===----------------------------------------------------------------------===//
#ifndef COMPREHEND_API_KERNEL_H
#define COMPREHEND_API_KERNEL_H

#include "comprehend/backend/Compiler.h"
#include "comprehend/runtime/DType.h"
#include "comprehend/runtime/Runtime.h"
#include "comprehend/runtime/TuningCache.h"
#include "comprehend/runtime/TuningSpace.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace comprehend::api {

/// Where the configuration of a kernel came from.
enum class ConfigSource { Default, Given, TuningCache };
/// "default", "given" or "tuning-cache".
llvm::StringRef getConfigSourceName(ConfigSource source);

/// How a kernel of either language is compiled.
struct KernelOptions {
  /// Values of tuning parameters (docs/tuning.md); a parameter it does not
  /// name keeps its default. An unknown name or an illegal value is an input
  /// error.
  runtime::Configuration config;
  /// With an empty `config`: take the configuration from the tuning cache
  /// when it has one for this kernel, sizes and device.
  bool useTuningCache = true;
  /// The tuning cache file; empty: runtime::TuningCache::getDefaultPath().
  std::string cachePath;
  /// Where warnings go (a corrupt cache file, a cached configuration that no
  /// longer applies); null: dropped.
  llvm::raw_ostream *warnings = nullptr;
  /// What starts a warning (the driver names itself for .ir files).
  std::string warningPrefix = "warning: ";
  /// Base options of the backend, which `config` refines.
  backend::CompileOptions compile;
};

/// The values one launch left in an output, as the tuner compares them.
struct KernelOutput {
  /// The name messages use (`'C'` for a TC tensor, `'%C'` for a parameter).
  std::string name;
  runtime::DType dtype;
  std::vector<unsigned char> bytes;
};

/// Named tensor contents (e.g. the inputs every candidate of a tuning run
/// is checked on).
using KernelData =
    std::vector<std::pair<std::string, std::vector<unsigned char>>>;

class Kernel {
public:
  virtual ~Kernel();

  /// The entry (def or function) name.
  llvm::StringRef getEntryName() const { return entryName; }
  /// The entry the tuning cache files this kernel under.
  const runtime::TuningKey &getTuningKey() const { return key; }
  /// The configuration the kernel was compiled with (empty: every knob at
  /// its default) and where it came from.
  const runtime::Configuration &getConfig() const { return config; }
  ConfigSource getConfigSource() const { return configSource; }
  /// For a configuration from the tuning cache: the default's time when it
  /// was tuned (0 when the entry does not record it).
  double getCachedDefaultMs() const { return cachedDefaultMs; }

  /// The knobs that change this kernel, their domains and defaults (the
  /// compiler's choices for this kernel).
  virtual llvm::Expected<runtime::SearchSpace> getSearchSpace() const = 0;
  /// The same kernel (same source, sizes and tuning key) compiled with
  /// `config`. Its diagnostics would repeat this kernel's and are dropped:
  /// a configuration that does not compile is only an error.
  virtual llvm::Expected<std::unique_ptr<Kernel>>
  recompile(const runtime::Configuration &config) const = 0;

  /// The inputs a tuning run checks every configuration on: random ones
  /// drawn from `seed`, or the arguments the kernel was given.
  virtual llvm::Expected<KernelData> makeTuningInputs(uint64_t seed) = 0;
  /// Writes `inputs`, poisons whatever else the kernel writes, launches
  /// once and reads back the outputs.
  virtual llvm::Expected<std::vector<KernelOutput>>
  runOnInputs(const KernelData &inputs) = 0;
  /// Launches `repeat` times; one time per repetition (summed over the
  /// kernel's launches when it has several).
  virtual llvm::Expected<runtime::Timing> run(unsigned repeat = 1) = 0;

protected:
  /// Takes the configuration from `options`, else from the tuning cache
  /// (under `key`, which must be set), and checks it with `check`: an error
  /// in a given configuration is returned, a cached one that no longer
  /// applies (an older compiler's knobs) is dropped with a warning.
  llvm::Error chooseConfig(
      const KernelOptions &options,
      llvm::function_ref<llvm::Error(const runtime::Configuration &)> check);

  std::string entryName;
  runtime::TuningKey key;
  runtime::Configuration config;
  ConfigSource configSource = ConfigSource::Default;
  double cachedDefaultMs = 0;
};

/// Whether two outputs agree: floats within a relative 1e-3 (another work
/// split may reorder a sum), NaN only where the other has NaN; integers
/// bit-exact.
bool sameOutputs(runtime::DType dtype, llvm::ArrayRef<unsigned char> a,
                 llvm::ArrayRef<unsigned char> b);

} // namespace comprehend::api

#endif // COMPREHEND_API_KERNEL_H
