//===- BenchSupport.cpp - Shared machinery of the kernel benchmarks -------===//
#include "BenchSupport.h"

#include "comprehend/api/TcKernel.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/OpenCLPlatform.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>

using namespace comprehend;
using namespace comprehend::bench;

//===----------------------------------------------------------------------===//
// TcCase
//===----------------------------------------------------------------------===//

TcCase::TcCase(std::string kernel, std::string file, std::string entry,
               std::vector<std::pair<std::string, int64_t>> sizes,
               std::vector<std::string> outputs)
    : kernel(std::move(kernel)), file(std::move(file)), entry(std::move(entry)),
      sizes(std::move(sizes)), outputs(std::move(outputs)) {
  shape = getSizesArgument();
}

int64_t TcCase::size(llvm::StringRef name) const {
  for (const auto &[sizeName, value] : sizes)
    if (sizeName == name)
      return value;
  llvm::report_fatal_error("bench case '" + llvm::Twine(kernel) +
                           "' has no size '" + name + "'");
}

std::string TcCase::getSizesArgument() const {
  std::string result;
  for (const auto &[name, value] : sizes) {
    if (!result.empty())
      result += ",";
    result += name + "=" + std::to_string(value);
  }
  return result;
}

std::string TcCase::getName(llvm::StringRef variant) const {
  return kernel + "/" + shape + "/" + variant.str();
}

//===----------------------------------------------------------------------===//
// Environment
//===----------------------------------------------------------------------===//

namespace {
struct RuntimeHolder {
  std::unique_ptr<runtime::Runtime> runtime;
  std::string error;
};

RuntimeHolder &getRuntimeHolder() {
  static RuntimeHolder holder = [] {
    RuntimeHolder result;
    const char *device = std::getenv("COMPREHEND_DEVICE");
    auto created = runtime::Runtime::create(device ? device : "");
    if (created)
      result.runtime = std::move(*created);
    else
      result.error = "no OpenCL device: " + toString(created.takeError());
    return result;
  }();
  return holder;
}
} // namespace

runtime::Runtime *bench::getRuntime() {
  return getRuntimeHolder().runtime.get();
}

const std::string &bench::getRuntimeError() { return getRuntimeHolder().error; }

std::string bench::getTuningCachePath() {
  if (const char *path = std::getenv("COMPREHEND_BENCH_TUNING_CACHE"))
    if (*path)
      return path;
  return COMPREHEND_BENCH_SOURCE_DIR "/results/tuning.json";
}

std::string bench::getExamplePath(llvm::StringRef name) {
  return (COMPREHEND_BENCH_EXAMPLES_DIR "/" + name).str();
}

std::string bench::getBenchKernelPath(llvm::StringRef name) {
  return (COMPREHEND_BENCH_SOURCE_DIR "/kernels/" + name).str();
}

unsigned bench::getNumHostThreads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

void bench::parallelFor(int64_t n,
                        const std::function<void(int64_t, int64_t)> &body) {
  int64_t numThreads = std::min<int64_t>(getNumHostThreads(), n);
  if (numThreads <= 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(numThreads - 1);
  for (int64_t t = 1; t < numThreads; ++t)
    threads.emplace_back(body, n * t / numThreads, n * (t + 1) / numThreads);
  body(0, n / numThreads);
  for (std::thread &thread : threads)
    thread.join();
}

std::vector<float> bench::makeRandom(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float &value : values)
    value = dist(rng);
  return values;
}

std::pair<double, double> bench::getMeanAndVariance(const float *values,
                                                    int64_t count) {
  double mean = 0, var = 0;
  for (int64_t i = 0; i < count; ++i)
    mean += values[i];
  mean /= count;
  for (int64_t i = 0; i < count; ++i)
    var += (values[i] - mean) * (values[i] - mean);
  return {mean, var / count};
}

std::vector<int32_t> bench::makeRandomIndices(size_t count, int32_t bound,
                                              uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> dist(0, bound - 1);
  std::vector<int32_t> values(count);
  for (int32_t &value : values)
    value = dist(rng);
  return values;
}

//===----------------------------------------------------------------------===//
// Checking and timing
//===----------------------------------------------------------------------===//

namespace {
/// max|got - expected| / max|expected| (NaN if either holds a NaN).
double getRelativeError(const float *got, const std::vector<float> &expected) {
  double maxError = 0, maxValue = 0;
  for (size_t i = 0, e = expected.size(); i < e; ++i) {
    double diff = std::abs(double(got[i]) - double(expected[i]));
    if (std::isnan(diff))
      return NAN;
    maxError = std::max(maxError, diff);
    maxValue = std::max(maxValue, std::abs(double(expected[i])));
  }
  return maxError / std::max(maxValue, 1e-30);
}

/// Checks `got` against the case; on failure stops `state` with an error
/// naming `what` and returns false.
bool checkResult(benchmark::State &state, const TcCase &tcCase,
                 const CaseData &data, const float *got, llvm::StringRef what) {
  double error = getRelativeError(got, data.expected);
  // Written so that a NaN error fails.
  if (error <= tcCase.tolerance)
    return true;
  std::string message;
  llvm::raw_string_ostream os(message);
  os << what << " computes a wrong '" << llvm::join(tcCase.outputs, "', '")
     << "': relative error " << llvm::format("%.3g", error) << " > "
     << llvm::format("%.3g", tcCase.tolerance);
  state.SkipWithError(os.str().c_str());
  return false;
}

/// Stops `state` with `error`'s message if it is one; returns true if so.
bool failed(benchmark::State &state, llvm::Error error) {
  if (!error)
    return false;
  state.SkipWithError(toString(std::move(error)).c_str());
  return true;
}

/// Runs the benchmark loop: `iteration()` performs one run and returns its
/// time in milliseconds (or an error, which stops the benchmark). Sets the
/// manual time per iteration and the counters of BenchSupport.h.
void timeIterations(benchmark::State &state, const TcCase &tcCase,
                    const std::function<llvm::Expected<double>()> &iteration) {
  std::vector<double> samples;
  for (auto _ : state) {
    llvm::Expected<double> ms = iteration();
    if (!ms) {
      failed(state, ms.takeError());
      return;
    }
    state.SetIterationTime(*ms * 1e-3);
    samples.push_back(*ms);
  }
  if (samples.empty())
    return;
  std::sort(samples.begin(), samples.end());
  double median = samples[samples.size() / 2];
  if (samples.size() % 2 == 0)
    median = 0.5 * (median + samples[samples.size() / 2 - 1]);
  state.counters["ms"] = median;
  state.counters["min_ms"] = samples.front();
  if (tcCase.flops > 0)
    state.counters["GFLOP/s"] = tcCase.flops / (median * 1e6);
  if (tcCase.bytes > 0)
    state.counters["GB/s"] = tcCase.bytes / (median * 1e6);
}

/// The data of the most recent case. Google Benchmark runs the variants of a
/// case one after the other (and calls each several times), so one slot
/// avoids both recomputing the reference and holding every case at once.
const CaseData &getCaseData(const TcCase &tcCase) {
  static std::string key;
  static std::unique_ptr<CaseData> data;
  std::string name = tcCase.getName("");
  if (!data || key != name) {
    data.reset();
    data = std::make_unique<CaseData>();
    tcCase.makeData(*data);
    key = name;
  }
  return *data;
}

/// A case with at least one registered variant, for --list-cases and
/// --list-tuning-jobs.
struct RegisteredCase {
  TcCase tcCase;
  bool hasComprehend = false;
};

/// The cases registered so far, in registration order.
std::vector<RegisteredCase> &getCases() {
  static std::vector<RegisteredCase> cases;
  return cases;
}

void registerVariant(const TcCase &tcCase, llvm::StringRef variant,
                     std::function<void(benchmark::State &)> body) {
  std::vector<RegisteredCase> &cases = getCases();
  auto known = llvm::find_if(cases, [&](const RegisteredCase &c) {
    return c.tcCase.getName("") == tcCase.getName("");
  });
  if (known == cases.end())
    known = cases.insert(cases.end(), RegisteredCase{tcCase});
  if (variant == "default" || variant == "tuned")
    known->hasComprehend = true;
  benchmark::RegisterBenchmark(tcCase.getName(variant).c_str(),
                               [body](benchmark::State &state) { body(state); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}
} // namespace

//===----------------------------------------------------------------------===//
// CLBlast
//===----------------------------------------------------------------------===//

namespace {
llvm::Error makeCLError(llvm::StringRef what, cl_int status) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "%s failed: %s", what.str().c_str(),
                                 runtime::getCLErrorName(status).str().c_str());
}

/// Runs `call` once and waits; returns the time from the end of a marker
/// enqueued just before the call to the end of the routine's last kernel.
llvm::Expected<double> timeClblastCall(
    const std::function<clblast::StatusCode(cl_command_queue *, cl_event *)>
        &call) {
  // runClblast checked that the device is an OpenCL one.
  cl_command_queue queue =
      static_cast<runtime::OpenCLPlatform &>(getRuntime()->getPlatform())
          .getQueue();
  cl_event marker = nullptr, done = nullptr;
  if (cl_int status = clEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker))
    return makeCLError("clEnqueueMarkerWithWaitList", status);
  clblast::StatusCode status = call(&queue, &done);
  if (status != clblast::StatusCode::kSuccess) {
    clReleaseEvent(marker);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "CLBlast failed with status %d",
                                   static_cast<int>(status));
  }
  cl_ulong begin = 0, end = 0;
  cl_int clStatus = clWaitForEvents(1, &done);
  if (!clStatus)
    clStatus = clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END,
                                       sizeof(begin), &begin, nullptr);
  if (!clStatus)
    clStatus = clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END,
                                       sizeof(end), &end, nullptr);
  clReleaseEvent(marker);
  clReleaseEvent(done);
  if (clStatus)
    return makeCLError("timing a CLBlast call", clStatus);
  return double(end - begin) * 1e-6;
}

void runClblast(benchmark::State &state, const TcCase &tcCase,
                llvm::ArrayRef<std::string> inputs,
                const ClblastRoutine &routine, llvm::StringRef initialOutput,
                const ResultFixup &fixup) {
  runtime::Runtime *rt = getRuntime();
  if (!rt) {
    state.SkipWithError(getRuntimeError().c_str());
    return;
  }
  if (rt->getPlatform().getKind() != runtime::PlatformKind::OpenCL) {
    state.SkipWithError("CLBlast runs on OpenCL devices only");
    return;
  }
  const CaseData &data = getCaseData(tcCase);
  std::vector<runtime::Buffer> buffers;
  auto upload = [&](const std::vector<float> &values) -> llvm::Error {
    auto buffer = rt->upload(values.data(), values.size() * sizeof(float));
    if (!buffer)
      return buffer.takeError();
    buffers.push_back(std::move(*buffer));
    return llvm::Error::success();
  };
  for (const std::string &name : inputs)
    if (failed(state, upload(data.input(name))))
      return;
  if (!initialOutput.empty()) {
    if (failed(state, upload(data.input(initialOutput))))
      return;
  } else {
    auto output = rt->allocate(data.expected.size() * sizeof(float));
    if (!output) {
      failed(state, output.takeError());
      return;
    }
    buffers.push_back(std::move(*output));
  }
  std::vector<cl_mem> mems;
  for (const runtime::Buffer &buffer : buffers)
    mems.push_back(runtime::OpenCLPlatform::getMem(buffer));
  auto call = [&](cl_command_queue *queue, cl_event *event) {
    return routine(tcCase, mems, queue, event);
  };

  // The first call also builds CLBlast's kernels for the device.
  if (llvm::Expected<double> first = timeClblastCall(call); !first) {
    failed(state, first.takeError());
    return;
  }
  std::vector<float> result(data.expected.size());
  if (failed(state, rt->read(buffers.back(), result.data(),
                             result.size() * sizeof(float))))
    return;
  if (fixup)
    fixup(tcCase, data, result);
  if (!checkResult(state, tcCase, data, result.data(), "CLBlast"))
    return;
  timeIterations(state, tcCase, [&] { return timeClblastCall(call); });
}
} // namespace

void bench::registerClblast(const TcCase &tcCase,
                            std::vector<std::string> inputs,
                            ClblastRoutine routine, std::string initialOutput,
                            ResultFixup fixup) {
  registerVariant(tcCase, "clblast", [=](benchmark::State &state) {
    runClblast(state, tcCase, inputs, routine, initialOutput, fixup);
  });
}

//===----------------------------------------------------------------------===//
// Host code
//===----------------------------------------------------------------------===//

void bench::registerHost(const TcCase &tcCase, llvm::StringRef variant,
                         HostRoutine routine, unsigned openblasThreads,
                         std::string label) {
  std::string what = variant == "openblas"  ? "OpenBLAS"
                     : variant == "libxsmm" ? "LIBXSMM"
                                            : "the C++ loop";
  registerVariant(
      tcCase, variant,
      [tcCase, routine, openblasThreads, what, label](benchmark::State &state) {
        if (!label.empty())
          state.SetLabel(label);
        const CaseData &data = getCaseData(tcCase);
        if (openblasThreads)
          openblas_set_num_threads(openblasThreads);
        std::vector<float> result(data.expected.size());
        routine(tcCase, data, result);
        if (checkResult(state, tcCase, data, result.data(), what))
          timeIterations(state, tcCase, [&]() -> llvm::Expected<double> {
            auto start = std::chrono::steady_clock::now();
            routine(tcCase, data, result);
            auto end = std::chrono::steady_clock::now();
            return std::chrono::duration<double, std::milli>(end - start)
                .count();
          });
        if (openblasThreads)
          openblas_set_num_threads(getNumHostThreads());
      });
}

//===----------------------------------------------------------------------===//
// Comprehend
//===----------------------------------------------------------------------===//

namespace {
/// The compiled Comprehend kernel of one benchmark, or why there is none,
/// kept across the calls Google Benchmark makes for that benchmark (each
/// call still uploads the inputs and checks the result).
struct PreparedKernel {
  std::string name;
  std::unique_ptr<api::TcKernel> kernel;
  std::string error;
};

PreparedKernel &prepareKernel(const TcCase &tcCase, bool tuned) {
  static std::unique_ptr<PreparedKernel> slot;
  std::string name = tcCase.getName(tuned ? "tuned" : "default");
  if (slot && slot->name == name)
    return *slot;
  slot.reset();
  slot = std::make_unique<PreparedKernel>();
  slot->name = name;
  auto fail = [&](std::string message) -> PreparedKernel & {
    slot->kernel.reset();
    slot->error = std::move(message);
    return *slot;
  };

  runtime::Runtime *rt = getRuntime();
  if (!rt)
    return fail(getRuntimeError());
  auto source = llvm::MemoryBuffer::getFile(tcCase.file);
  if (!source)
    return fail("cannot read '" + tcCase.file +
                "': " + source.getError().message());
  llvm::StringMap<int64_t> sizes;
  for (const auto &[sizeName, value] : tcCase.sizes)
    sizes[sizeName] = value;
  api::TcKernelOptions options;
  options.useTuningCache = tuned;
  if (tuned)
    options.cachePath = getTuningCachePath();
  auto kernel = api::TcKernel::compileText(
      *rt, (*source)->getBuffer(), tcCase.entry, sizes, options, tcCase.file);
  if (!kernel)
    return fail(toString(kernel.takeError()));
  if (tuned && (*kernel)->getConfigSource() != api::ConfigSource::TuningCache)
    return fail("no entry in the tuning cache '" + getTuningCachePath() +
                "' (run bench/run-benchmarks.sh or comprehend tune)");
  slot->kernel = std::move(*kernel);
  return *slot;
}

void runComprehend(benchmark::State &state, const TcCase &tcCase, bool tuned) {
  PreparedKernel &prepared = prepareKernel(tcCase, tuned);
  if (!prepared.kernel) {
    state.SkipWithError(prepared.error.c_str());
    return;
  }
  api::TcKernel &kernel = *prepared.kernel;
  const CaseData &data = getCaseData(tcCase);
  std::string config = runtime::formatConfiguration(kernel.getConfig());
  state.SetLabel(config.empty() ? "-" : config);

  // Upload the inputs, poison the outputs, run once and read the outputs
  // back one after the other. This runs on every call Google Benchmark
  // makes, which also serves as the warm-up.
  std::vector<float> result(data.expected.size());
  auto prepare = [&]() -> llvm::Error {
    for (const auto &entry : data.inputs)
      if (llvm::Error err =
              kernel.write(entry.getKey(), entry.getValue().data(),
                           entry.getValue().size() * sizeof(float)))
        return err;
    for (const auto &entry : data.indexInputs)
      if (llvm::Error err =
              kernel.write(entry.getKey(), entry.getValue().data(),
                           entry.getValue().size() * sizeof(int32_t)))
        return err;
    for (const std::string &output : tcCase.outputs)
      if (llvm::Error err = kernel.fill(output, 0xff))
        return err;
    if (llvm::Expected<runtime::Timing> first = kernel.run(); !first)
      return first.takeError();
    size_t offset = 0;
    for (const std::string &output : tcCase.outputs) {
      const tc::LoweredTensor *tensor = kernel.lookupTensor(output);
      if (!tensor)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "the def has no output '%s'",
                                       output.c_str());
      size_t bytes = kernel.getSizeInBytes(*tensor);
      if (offset + bytes > result.size() * sizeof(float))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "the outputs are larger than the expected result");
      if (llvm::Error err = kernel.read(
              output, result.data() + offset / sizeof(float), bytes))
        return err;
      offset += bytes;
    }
    if (offset != result.size() * sizeof(float))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the outputs are smaller than the expected result");
    return llvm::Error::success();
  };
  if (llvm::Error err = prepare()) {
    state.SkipWithError(toString(std::move(err)).c_str());
    return;
  }
  if (!checkResult(state, tcCase, data, result.data(), "Comprehend"))
    return;

  timeIterations(state, tcCase, [&]() -> llvm::Expected<double> {
    llvm::Expected<runtime::Timing> timing = kernel.run();
    if (!timing)
      return timing.takeError();
    return timing->kernelMs.front();
  });
}
} // namespace

void bench::registerComprehend(const TcCase &tcCase) {
  for (bool tuned : {false, true})
    registerVariant(tcCase, tuned ? "tuned" : "default",
                    [tcCase, tuned](benchmark::State &state) {
                      runComprehend(state, tcCase, tuned);
                    });
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

int main(int argc, char **argv) {
  registerSuite();
  // `--list-tuning-jobs`: one line per case, "FILE<TAB>ENTRY<TAB>SIZES", for
  // bench/run-benchmarks.sh to tune exactly what the benchmarks run.
  // `--list-cases`: every case (tuned or not) as a JSON array, for the
  // baselines that run outside this binary (bench/pytorch_bench.py), so that
  // they run the same shapes and count the same flops and bytes.
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--list-tuning-jobs") {
      for (const RegisteredCase &c : getCases())
        if (c.hasComprehend)
          llvm::outs() << c.tcCase.file << "\t" << c.tcCase.entry << "\t"
                       << c.tcCase.getSizesArgument() << "\n";
      return 0;
    }
    if (arg == "--list-cases") {
      llvm::json::Array cases;
      for (const RegisteredCase &c : getCases()) {
        const TcCase &tcCase = c.tcCase;
        llvm::json::Object sizes;
        for (const auto &[name, value] : tcCase.sizes)
          sizes[name] = value;
        cases.push_back(llvm::json::Object{{"kernel", tcCase.kernel},
                                           {"shape", tcCase.shape},
                                           {"sizes", std::move(sizes)},
                                           {"flops", tcCase.flops},
                                           {"bytes", tcCase.bytes},
                                           {"tolerance", tcCase.tolerance}});
      }
      llvm::outs() << llvm::formatv("{0:2}",
                                    llvm::json::Value(std::move(cases)))
                   << "\n";
      return 0;
    }
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  if (runtime::Runtime *rt = getRuntime()) {
    const runtime::DeviceInfo &info = rt->getDevice().getInfo();
    benchmark::AddCustomContext("device", info.getFullName());
    benchmark::AddCustomContext("device_version", info.deviceVersion);
    benchmark::AddCustomContext("driver_version", info.driverVersion);
    benchmark::AddCustomContext("compute_units",
                                std::to_string(info.computeUnits));
  } else {
    llvm::errs() << "warning: " << getRuntimeError() << "\n";
  }
  benchmark::AddCustomContext("tuning_cache", getTuningCachePath());
  // OpenBLAS picks its kernels when it is loaded; on a CPU it does not know
  // it falls back to generic SSE3 ones, which would make a poor baseline.
  std::string openblasConfig = openblas_get_config();
  benchmark::AddCustomContext("openblas", openblasConfig);
  if (llvm::StringRef(openblasConfig).contains("Prescott"))
    llvm::errs() << "warning: OpenBLAS runs its generic 'Prescott' kernels; "
                    "set OPENBLAS_CORETYPE (e.g. SkylakeX, Haswell) for a "
                    "fair baseline (bench/run-benchmarks.sh does)\n";
  benchmark::AddCustomContext("host_threads",
                              std::to_string(getNumHostThreads()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
