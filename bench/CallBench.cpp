//===- CallBench.cpp - What a call of a compiled TC def costs the host ----===//
//
// The per-call overhead of the C++ API at a shape that is already compiled
// (issue 33, "calls that cost microseconds"): api::TcKernel::call, the fast
// path, beside the write / run(1) / read sequence that `run` offers, for a
// 64^3 and a 256^3 matmul and a three-layer perceptron at batch 128 (one def,
// three launches on CPU cores, its bias and ReLU steps in its products'
// launches; the counter `launches` says how many). Every benchmark reports
// the wall time per call (real time) and the counters `kernel_ms` (the
// median sum of the def's kernel times from profiling events, run(20)) and
// `kernel_share` (kernel time over wall time: 1/1.3 = 0.77 is the issue's
// bound for a def of several launches).
// Inputs are 128-byte aligned, as the CPU device asks for the in-place path;
// the `copied` variants offset them by 16 bytes, which forces one copy per
// input. `opencl_floor` is the device's own floor on the same queue: an
// empty kernel queued and waited for with raw OpenCL calls (on PoCL's
// pthread device, the wake-up of its worker threads and of the host thread;
// no Comprehend code runs between the calls). Timings are reported, never
// asserted.
//
//===----------------------------------------------------------------------===//
#include "comprehend/api/TcKernel.h"
#include "comprehend/runtime/OpenCLPlatform.h"

#include "llvm/Support/MemoryBuffer.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

using namespace comprehend;

namespace {

const char *const kMatmul = R"(
def matmul(float(M,K) A, float(K,N) B) -> (C) {
  C(m,n) +=! A(m,k) * B(k,n)
}
)";

/// bench/call_mlp.tc, read once.
std::string readMlp() {
  auto buffer =
      llvm::MemoryBuffer::getFile(COMPREHEND_BENCH_SOURCE_DIR "/call_mlp.tc");
  if (!buffer) {
    llvm::errs() << "bench-call: cannot read call_mlp.tc\n";
    std::exit(1);
  }
  return (*buffer)->getBuffer().str();
}
const std::string kMlpText = readMlp();
const char *const kMlp = kMlpText.c_str();

runtime::Runtime &getRuntime() {
  static std::unique_ptr<runtime::Runtime> runtime = [] {
    auto created = runtime::Runtime::create();
    if (!created) {
      llvm::errs() << llvm::toString(created.takeError()) << "\n";
      std::exit(3);
    }
    return std::move(*created);
  }();
  return *runtime;
}

/// Host memory at 128 bytes past an alignment of 128 plus `offset` bytes.
struct HostArray {
  HostArray(size_t bytes, size_t offset)
      : storage(
            static_cast<unsigned char *>(std::aligned_alloc(128, bytes + 256)),
            std::free),
        data(storage.get() + 128 + offset) {}
  std::unique_ptr<unsigned char, void (*)(void *)> storage;
  unsigned char *data;
};

enum class Path { Call, CallCopied, WriteRunRead };

void benchCall(benchmark::State &state, const char *source, const char *entry,
               llvm::StringMap<int64_t> sizes, Path path) {
  auto kernel = api::TcKernel::compileText(getRuntime(), source, entry, sizes);
  if (!kernel) {
    state.SkipWithError(llvm::toString(kernel.takeError()).c_str());
    return;
  }
  api::TcKernel &tc = **kernel;
  std::mt19937 rng(33);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<HostArray> arrays;
  std::vector<const void *> inputs;
  std::vector<void *> outputs;
  size_t offset = path == Path::CallCopied ? 16 : 0;
  for (const tc::LoweredTensor &tensor : tc.getTensors()) {
    if (tensor.role == tc::TensorInfo::Role::Temporary)
      continue;
    size_t bytes = tc.getSizeInBytes(tensor);
    HostArray &array = arrays.emplace_back(bytes, offset);
    auto *floats = reinterpret_cast<float *>(array.data);
    for (size_t i = 0; i < bytes / sizeof(float); ++i)
      floats[i] = dist(rng);
    if (tensor.role == tc::TensorInfo::Role::Input)
      inputs.push_back(array.data);
    else
      outputs.push_back(array.data);
  }
  auto timing = tc.run(20);
  if (!timing) {
    state.SkipWithError(llvm::toString(timing.takeError()).c_str());
    return;
  }
  auto once = [&]() -> llvm::Error {
    if (path != Path::WriteRunRead)
      return tc.call(inputs, outputs);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const tc::LoweredTensor &tensor = tc.getTensors()[i];
      if (llvm::Error error =
              tc.write(tensor.name, inputs[i], tc.getSizeInBytes(tensor)))
        return error;
    }
    if (auto ran = tc.run(1); !ran)
      return ran.takeError();
    size_t j = 0;
    for (const tc::LoweredTensor &tensor : tc.getTensors())
      if (tensor.role == tc::TensorInfo::Role::Output)
        if (llvm::Error error =
                tc.read(tensor.name, outputs[j++], tc.getSizeInBytes(tensor)))
          return error;
    return llvm::Error::success();
  };
  for (auto _ : state)
    if (llvm::Error error = once()) {
      state.SkipWithError(llvm::toString(std::move(error)).c_str());
      return;
    }
  double kernelMs = timing->getMedianKernelMs();
  state.counters["kernel_ms"] = kernelMs;
  state.counters["launches"] = double(tc.getLoweredDef().kernels.size());
  // The kernels' share of the wall time: kernel seconds over all iterations
  // as a rate, which Google Benchmark divides by the elapsed (real) time.
  state.counters["kernel_share"] =
      benchmark::Counter(kernelMs * 1e-3 * double(state.iterations()),
                         benchmark::Counter::kIsRate);
}

/// An empty kernel, built from OpenCL C on the runtime's own context.
const char *kEmptyKernel = "kernel void empty(global float *a) {}";

/// clEnqueueNDRangeKernel of one work-item and clFinish, nothing else.
void benchOpenCLFloor(benchmark::State &state) {
  runtime::Platform &platform = getRuntime().getPlatform();
  if (platform.getKind() != runtime::PlatformKind::OpenCL) {
    state.SkipWithError("not an OpenCL device");
    return;
  }
  auto &opencl = static_cast<runtime::OpenCLPlatform &>(platform);
  cl_context context = opencl.getContext();
  cl_command_queue queue = opencl.getQueue();
  cl_int err = CL_SUCCESS;
  cl_program program =
      clCreateProgramWithSource(context, 1, &kEmptyKernel, nullptr, &err);
  if (!err)
    err = clBuildProgram(program, 0, nullptr, "", nullptr, nullptr);
  cl_kernel kernel = err ? nullptr : clCreateKernel(program, "empty", &err);
  cl_mem buffer =
      err ? nullptr
          : clCreateBuffer(context, CL_MEM_READ_WRITE, 4096, nullptr, &err);
  if (!err)
    err = clSetKernelArg(kernel, 0, sizeof(buffer), &buffer);
  size_t one = 1;
  for (auto _ : state)
    if (!err)
      err = clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, 0,
                                   nullptr, nullptr) ||
            clFinish(queue);
  if (err)
    state.SkipWithError(("OpenCL error " + std::to_string(err)).c_str());
  if (buffer)
    clReleaseMemObject(buffer);
  if (kernel)
    clReleaseKernel(kernel);
  if (program)
    clReleaseProgram(program);
}

} // namespace

BENCHMARK(benchOpenCLFloor)
    ->Name("opencl_floor")
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(benchCall, matmul64_call, kMatmul, "matmul",
                  {{"M", 64}, {"N", 64}, {"K", 64}}, Path::Call)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(benchCall, matmul64_call_copied, kMatmul, "matmul",
                  {{"M", 64}, {"N", 64}, {"K", 64}}, Path::CallCopied)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(benchCall, matmul64_write_run_read, kMatmul, "matmul",
                  {{"M", 64}, {"N", 64}, {"K", 64}}, Path::WriteRunRead)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(benchCall, matmul256_call, kMatmul, "matmul",
                  {{"M", 256}, {"N", 256}, {"K", 256}}, Path::Call)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(benchCall, matmul256_write_run_read, kMatmul, "matmul",
                  {{"M", 256}, {"N", 256}, {"K", 256}}, Path::WriteRunRead)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(benchCall, mlp3_b128_call, kMlp, "mlp3",
                  {{"B", 128}, {"I", 256}, {"H", 256}, {"O", 64}}, Path::Call)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(benchCall, mlp3_b128_write_run_read, kMlp, "mlp3",
                  {{"B", 128}, {"I", 256}, {"H", 256}, {"O", 64}},
                  Path::WriteRunRead)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
