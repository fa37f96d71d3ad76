//===- gemm_api.cpp - The Comprehend C API in one file --------------------===//
//
// Compiles a GEMM written as a Tensor Comprehension for a device through
// the installed C API (comprehend.h), runs it on random inputs with a
// NaN-poisoned output, checks it against a CPU loop and prints the time of
// a call.
//
//   gemm_api [M N K] [--device SPEC] [--repeat R]
//
//===----------------------------------------------------------------------===//
#include "comprehend/comprehend.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

static const char *const kSource =
    "def gemm(float(M, K) A, float(K, N) B) -> (C) {\n"
    "  C(m, n) +=! A(m, k) * B(k, n)\n"
    "}\n";

/// Prints the last error and returns the exit code of its status.
static int report(comprehend_status status) {
  std::fprintf(stderr, "gemm_api: error: %s\n", comprehend_last_error());
  return status == COMPREHEND_DEVICE_ERROR ? 3 : 1;
}

/// The largest relative error of row-major `c` = `a` (M x K) * `b` (K x N).
static double checkGemm(const std::vector<float> &a,
                        const std::vector<float> &b,
                        const std::vector<float> &c, int64_t m, int64_t n,
                        int64_t k) {
  double maxError = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += double(a[i * k + p]) * double(b[p * n + j]);
      double error =
          std::abs(c[i * n + j] - sum) / std::max(1.0, std::abs(sum));
      maxError = std::isnan(error) ? INFINITY : std::max(maxError, error);
    }
  return maxError;
}

/// Runs the GEMM once, checks it and times `repeat` more calls.
static int runGemm(comprehend_def_t def, int64_t m, int64_t n, int64_t k,
                   int repeat) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> a(m * k), b(k * n), c(m * n, NAN);
  for (float &v : a)
    v = dist(rng);
  for (float &v : b)
    v = dist(rng);
  const int64_t aShape[] = {m, k}, bShape[] = {k, n}, cShape[] = {m, n};
  comprehend_tensor inputs[] = {{a.data(), COMPREHEND_F32, 2, aShape},
                                {b.data(), COMPREHEND_F32, 2, bShape}};
  comprehend_tensor outputs[] = {{c.data(), COMPREHEND_F32, 2, cShape}};
  if (comprehend_status s = comprehend_def_call(def, 2, inputs, 1, outputs))
    return report(s);
  double maxError = checkGemm(a, b, c, m, n, k);
  std::printf("max relative error: %.3g\n", maxError);
  if (!(maxError < 1e-4)) {
    std::fprintf(stderr, "gemm_api: error: the result is wrong\n");
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r)
    if (comprehend_status s = comprehend_def_call(def, 2, inputs, 1, outputs))
      return report(s);
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count() /
              repeat;
  std::printf("gemm %lldx%lldx%lld: %.3f ms per call over %d calls, %.2f "
              "GFLOP/s\n",
              (long long)m, (long long)n, (long long)k, ms, repeat,
              2e-6 * m * n * k / ms);
  return 0;
}

int main(int argc, char **argv) {
  int64_t sizes[3] = {256, 256, 256};
  const char *spec = "";
  int repeat = 10, positional = 0;
  for (int i = 1; i < argc; ++i) {
    char *end = nullptr;
    if (!std::strcmp(argv[i], "--device") && i + 1 < argc) {
      spec = argv[++i];
    } else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (positional < 3 &&
               (sizes[positional] = std::strtoll(argv[i], &end, 10)) > 0 &&
               *end == 0) {
      ++positional;
    } else {
      std::fprintf(stderr,
                   "usage: gemm_api [M N K] [--device SPEC] [--repeat R]\n");
      return 2;
    }
  }
  comprehend_device_t device = nullptr;
  if (comprehend_status s = comprehend_device_create(&device, spec))
    return report(s);
  const char *name = "";
  comprehend_device_name(device, &name);
  std::printf("device: %s\n", name);
  comprehend_def_t def = nullptr;
  comprehend_status s =
      comprehend_def_create(&def, device, kSource, "gemm.tc", "gemm", nullptr);
  int code = s ? report(s) : runGemm(def, sizes[0], sizes[1], sizes[2], repeat);
  comprehend_def_release(def);
  comprehend_device_release(device);
  return code;
}
