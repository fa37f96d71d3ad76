//===- tc_api.cpp - A Tensor Comprehension from C++ -----------------------===//
//
// Compiles a batched matrix product written as a Tensor Comprehension for
// the default device through the installed C++ API (comprehend.hpp), runs
// it on random inputs, checks it against a CPU loop and prints the time of
// a call. With --tune SECONDS it first tunes the def at these sizes and
// stores the result in the tuning cache (the default one, or --cache PATH),
// which later calls and later runs at the same sizes use.
//
//   tc_api [B M N K] [--cache PATH] [--repeat R] [--tune SECONDS]
//
//===----------------------------------------------------------------------===//
#include "comprehend/comprehend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

static const char *const kSource = R"TC(
def batch_matmul(float(B, M, K) X, float(B, K, N) Y) -> (Z) {
  Z(b, m, n) +=! X(b, m, k) * Y(b, k, n)
}
)TC";

namespace {
struct Options {
  std::vector<std::int64_t> dims = {100, 16, 16, 16};
  std::string cachePath;
  int repeat = 10;
  double tuneSeconds = 0;
};

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1, d = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--cache" && i + 1 < argc)
      options.cachePath = argv[++i];
    else if (arg == "--repeat" && i + 1 < argc)
      options.repeat = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--tune" && i + 1 < argc)
      options.tuneSeconds = std::atof(argv[++i]);
    else if (d < 4)
      options.dims[d++] = std::atoll(argv[i]);
  }
  return options;
}

/// The largest relative error of `z` against a double-precision loop
/// (infinite where an element is NaN).
double checkBatchMatmul(const comprehend::Tensor<float> &x,
                        const comprehend::Tensor<float> &y,
                        const comprehend::Tensor<float> &z) {
  const std::int64_t b = x.shape()[0], m = x.shape()[1], k = x.shape()[2],
                     n = y.shape()[2];
  double maxError = 0;
  for (std::int64_t bi = 0; bi < b; ++bi)
    for (std::int64_t mi = 0; mi < m; ++mi)
      for (std::int64_t ni = 0; ni < n; ++ni) {
        double want = 0;
        for (std::int64_t ki = 0; ki < k; ++ki)
          want += double(x.data()[(bi * m + mi) * k + ki]) *
                  y.data()[(bi * k + ki) * n + ni];
        double got = z.data()[(bi * m + mi) * n + ni];
        double error = std::abs(got - want) / std::max(1.0, std::abs(want));
        maxError = std::isnan(error) ? INFINITY : std::max(maxError, error);
      }
  return maxError;
}
} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  const std::int64_t b = options.dims[0], m = options.dims[1],
                     n = options.dims[2], k = options.dims[3];
  try {
    comprehend::Device device;
    comprehend::Def def(device, kSource, "batch_matmul", options.cachePath);
    comprehend::Tensor<float> x({b, m, k}), y({b, k, n});
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1, 1);
    for (float &v : x.data())
      v = dist(rng);
    for (float &v : y.data())
      v = dist(rng);
    if (options.tuneSeconds > 0) {
      comprehend::TuneResult tuned =
          def.tune({x.view(), y.view()}, options.tuneSeconds);
      std::printf("tuned: %.4f ms (default %.4f ms)\n", tuned.bestMs,
                  tuned.defaultMs);
    }
    comprehend::Tensor<float> z(def.output({x.view(), y.view()}, 0).shape);
    // NaN: an element the kernel never writes shows in the check.
    std::fill(z.data().begin(), z.data().end(),
              std::numeric_limits<float>::quiet_NaN());
    def.call({x.view(), y.view()}, {z.view()});
    double maxError = checkBatchMatmul(x, y, z);

    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < options.repeat; ++r)
      def.call({x.view(), y.view()}, {z.view()});
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count() /
                options.repeat;
    std::printf("batch_matmul %lld x %lldx%lldx%lld on %s: %.4f ms per call, "
                "%.1f GFLOP/s, max relative error %.2e\n",
                (long long)b, (long long)m, (long long)n, (long long)k,
                device.name().c_str(), ms, 2e-6 * b * m * n * k / ms, maxError);
    return maxError <= 1e-4 ? 0 : 1;
  } catch (const comprehend::Error &error) {
    std::fprintf(stderr, "tc_api: error: %s\n", error.what());
    return error.status() == COMPREHEND_DEVICE_ERROR ? 3 : 1;
  }
}
