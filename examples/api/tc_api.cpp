//===- tc_api.cpp - A Tensor Comprehension from C++ -----------------------===//
//
// Compiles a batched matrix product written as a Tensor Comprehension for
// the default OpenCL device, runs it on random inputs, checks it against a
// CPU loop and prints the kernel time. When `comprehend tune` has tuned the
// same def at the same sizes on this device, the tuned configuration is
// used (the tuning cache, or --cache PATH).
//
//   tc_api [B M N K] [--cache PATH] [--repeat R]
//
//===----------------------------------------------------------------------===//
#include "comprehend/api/TcKernel.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace comprehend;

static constexpr llvm::StringLiteral kSource = R"TC(
def batch_matmul(float(B, M, K) X, float(B, K, N) Y) -> (Z) {
  Z(b, m, n) +=! X(b, m, k) * Y(b, k, n)
}
)TC";

int main(int argc, char **argv) {
  std::vector<int64_t> dims = {100, 16, 16, 16};
  api::TcKernelOptions options;
  unsigned repeat = 10;
  for (int i = 1, d = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--cache" && i + 1 < argc)
      options.cachePath = argv[++i];
    else if (arg == "--repeat" && i + 1 < argc)
      repeat = std::atoi(argv[++i]);
    else if (d < 4)
      dims[d++] = std::atoll(argv[i]);
  }
  const int64_t b = dims[0], m = dims[1], n = dims[2], k = dims[3];
  options.warnings = &llvm::errs();

  auto runtime = runtime::Runtime::create();
  if (!runtime) {
    llvm::errs() << "tc_api: " << llvm::toString(runtime.takeError()) << "\n";
    return 3;
  }
  auto kernel = api::TcKernel::compileText(
      **runtime, kSource, "batch_matmul",
      {{"B", b}, {"M", m}, {"N", n}, {"K", k}}, options);
  if (!kernel) {
    llvm::errs() << "tc_api: " << llvm::toString(kernel.takeError()) << "\n";
    return 1;
  }

  // Row-major, as TC reads them.
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> x(b * m * k), y(b * k * n), z(b * m * n);
  for (float &v : x)
    v = dist(rng);
  for (float &v : y)
    v = dist(rng);
  auto check = [](llvm::Error error) {
    if (error) {
      llvm::errs() << "tc_api: " << llvm::toString(std::move(error)) << "\n";
      std::exit(3);
    }
  };
  check((*kernel)->write("X", x.data(), x.size() * sizeof(float)));
  check((*kernel)->write("Y", y.data(), y.size() * sizeof(float)));
  check((*kernel)->fill("Z", 0xff)); // NaN: an unwritten element shows
  auto timing = (*kernel)->run(repeat);
  if (!timing)
    check(timing.takeError());
  check((*kernel)->read("Z", z.data(), z.size() * sizeof(float)));

  double maxError = 0;
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t mi = 0; mi < m; ++mi)
      for (int64_t ni = 0; ni < n; ++ni) {
        double want = 0;
        for (int64_t ki = 0; ki < k; ++ki)
          want += double(x[(bi * m + mi) * k + ki]) * y[(bi * k + ki) * n + ni];
        double got = z[(bi * m + mi) * n + ni];
        double error = std::abs(got - want) / std::max(1.0, std::abs(want));
        maxError = std::isnan(error) ? INFINITY : std::max(maxError, error);
      }
  double ms = timing->getMedianKernelMs();
  llvm::outs() << "batch_matmul " << b << " x " << m << "x" << n << "x" << k
               << " (" << api::getConfigSourceName((*kernel)->getConfigSource())
               << " configuration): " << llvm::format("%.4f", ms) << " ms, "
               << llvm::format("%.1f", 2e-6 * b * m * n * k / ms)
               << " GFLOP/s, max relative error "
               << llvm::format("%.2e", maxError) << "\n";
  return maxError <= 1e-4 ? 0 : 1;
}
