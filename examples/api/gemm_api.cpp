//===- gemm_api.cpp - The Comprehend C++ API in one file ------------------===//
//
// Compiles a GEMM written in the tensor language for the default OpenCL
// device, runs it on random inputs, checks it against a CPU loop and prints
// the kernel time.
//
//   gemm_api [M N K] [--device N|name] [--repeat R]
//
//===----------------------------------------------------------------------===//
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/HostArguments.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <random>
#include <string>

using namespace comprehend::runtime;

/// C := A * B with column-major A (M x K), B (K x N), C (M x N).
static std::string makeSource(int64_t m, int64_t n, int64_t k) {
  return "func @gemm(%A: memref<f32x" + std::to_string(m) + "x" +
         std::to_string(k) + ">, %B: memref<f32x" + std::to_string(k) + "x" +
         std::to_string(n) + ">, %C: memref<f32x" + std::to_string(m) + "x" +
         std::to_string(n) +
         ">) {\n"
         "  %one = constant 1.0 : f32\n"
         "  %zero = constant 0.0 : f32\n"
         "  gemm.n.n %one, %A, %B, %zero, %C\n"
         "}\n";
}

int main(int argc, char **argv) {
  int64_t sizes[3] = {256, 256, 256};
  std::string device;
  unsigned repeat = 10;
  unsigned positional = 0;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--device" && i + 1 < argc) {
      device = argv[++i];
    } else if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::stoul(argv[++i]);
    } else if (positional < 3 && !arg.getAsInteger(10, sizes[positional]) &&
               sizes[positional] > 0) {
      ++positional;
    } else {
      llvm::errs() << "usage: gemm_api [M N K] [--device N|name] "
                      "[--repeat R]\n";
      return 2;
    }
  }
  int64_t m = sizes[0], n = sizes[1], k = sizes[2];

  // 1. A device: --device, else $COMPREHEND_DEVICE, else the first that
  //    runs SPIR-V.
  auto runtime = Runtime::create(device);
  if (!runtime) {
    reportError(runtime.takeError(), llvm::errs(), "gemm_api");
    return 3;
  }
  llvm::outs() << "device: " << (*runtime)->getDevice().getInfo().name << "\n";

  // 2. Compile the tensor-language source for that device and build it.
  auto executable =
      Executable::compileText(**runtime, makeSource(m, n, k), "gemm.ir");
  if (!executable) {
    reportError(executable.takeError(), llvm::errs(), "gemm_api");
    return 1;
  }
  auto entry = (*executable)->getEntry("gemm");
  if (!entry) {
    reportError(entry.takeError(), llvm::errs(), "gemm_api");
    return 1;
  }

  // 3. Tensors: random A and B, C poisoned with NaN.
  std::mt19937_64 rng(42);
  HostTensor a = makeRandomTensor(DType::F32, {m, k}, rng);
  HostTensor b = makeRandomTensor(DType::F32, {k, n}, rng);
  HostTensor c(DType::F32, {m, n});
  std::fill(c.getData<float>(), c.getData<float>() + m * n, NAN);
  auto da = uploadArgument(**runtime, entry->params[0], a);
  auto db = uploadArgument(**runtime, entry->params[1], b);
  auto dc = uploadArgument(**runtime, entry->params[2], c);
  if (!da || !db || !dc) {
    llvm::Error err = llvm::joinErrors(
        da ? llvm::Error::success() : da.takeError(),
        llvm::joinErrors(db ? llvm::Error::success() : db.takeError(),
                         dc ? llvm::Error::success() : dc.takeError()));
    reportError(std::move(err), llvm::errs(), "gemm_api");
    return 3;
  }

  // 4. Launch once, read back and check.
  std::vector<ArgValue> values = {da->value, db->value, dc->value};
  auto first = (*executable)->run("gemm", {1, 1, 1}, values);
  if (!first) {
    reportError(first.takeError(), llvm::errs(), "gemm_api");
    return 3;
  }
  auto result = downloadArgument(**runtime, *dc);
  if (!result) {
    reportError(result.takeError(), llvm::errs(), "gemm_api");
    return 3;
  }
  double maxError = 0;
  const float *pa = a.getData<float>(), *pb = b.getData<float>();
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += double(pa[i + p * m]) * double(pb[p + j * k]);
      double got = result->getData<float>()[i + j * m];
      maxError = std::max(maxError,
                          std::abs(got - sum) / std::max(1.0, std::abs(sum)));
    }
  llvm::outs() << "max relative error: " << llvm::format("%.3g", maxError)
               << "\n";
  if (!(maxError < 1e-4)) {
    llvm::errs() << "gemm_api: error: the result is wrong\n";
    return 1;
  }

  // 5. Time: the median of `repeat` launches from profiling events.
  auto timing = (*executable)->run("gemm", {1, 1, 1}, values, repeat);
  if (!timing) {
    reportError(timing.takeError(), llvm::errs(), "gemm_api");
    return 3;
  }
  double ms = timing->getMedianKernelMs();
  llvm::outs() << "gemm " << m << "x" << n << "x" << k << ": median "
               << llvm::format("%.3f", ms) << " ms over " << repeat << " runs, "
               << llvm::format("%.2f", 2e-6 * m * n * k / ms) << " GFLOP/s\n";
  return 0;
}
