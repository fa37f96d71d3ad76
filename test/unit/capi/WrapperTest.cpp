//===- WrapperTest.cpp - The header-only C++ wrapper ----------------------===//
#include "comprehend/comprehend.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <unistd.h>

namespace {

const char *const kMatmul = R"TC(
def mm(double(M, K) A, double(K, N) B) -> (C) {
  C(m, n) +=! A(m, k) * B(k, n)
}
)TC";

void fillRandom(comprehend::Tensor<double> &tensor) {
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> dist(-1, 1);
  for (double &v : tensor.data())
    v = dist(rng);
}

/// Checks `c` = `a` * `b` (row-major) within `tolerance`.
void expectMatmul(const comprehend::Tensor<double> &a,
                  const comprehend::Tensor<double> &b,
                  const comprehend::Tensor<double> &c) {
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t p = 0; p < k; ++p)
        want += a.data()[i * k + p] * b.data()[p * n + j];
      EXPECT_NEAR(c.data()[i * n + j], want, 1e-10) << i << ", " << j;
    }
}

TEST(WrapperTest, CallsAndTunes) {
  comprehend::Device device;
  EXPECT_FALSE(device.name().empty());
  std::string cache = ::testing::TempDir() + "capi-tuning-" +
                      std::to_string(getpid()) + ".json";
  comprehend::Def mm(device, kMatmul, "mm", cache);
  EXPECT_EQ(mm.numInputs(), 2u);
  EXPECT_EQ(mm.numOutputs(), 1u);
  comprehend::Tensor<double> a({9, 5}), b({5, 11});
  fillRandom(a);
  fillRandom(b);
  comprehend::OutputInfo info = mm.output({a.view(), b.view()}, 0);
  EXPECT_EQ(info.dtype, COMPREHEND_F64);
  ASSERT_EQ(info.shape, (std::vector<int64_t>{9, 11}));
  comprehend::Tensor<double> c(info.shape);
  std::fill(c.data().begin(), c.data().end(),
            std::numeric_limits<double>::quiet_NaN());
  mm.call({a.view(), b.view()}, {c.view()});
  expectMatmul(a, b, c);

  // Tuning stores into the cache, and the next call compiles from it.
  comprehend::TuneResult tuned = mm.tune({a.view(), b.view()}, 1.0);
  EXPECT_GT(tuned.bestMs, 0);
  EXPECT_GT(tuned.defaultMs, 0);
  std::FILE *file = std::fopen(cache.c_str(), "r");
  EXPECT_NE(file, nullptr) << cache;
  if (file)
    std::fclose(file);
  std::fill(c.data().begin(), c.data().end(),
            std::numeric_limits<double>::quiet_NaN());
  mm.call({a.view(), b.view()}, {c.view()});
  expectMatmul(a, b, c);
  std::remove(cache.c_str());
}

TEST(WrapperTest, ErrorsThrowWithStatusAndMessage) {
  comprehend::Device device;
  try {
    comprehend::Def bad(device, "def f(float(N) A) -> (B) { B(i) = C(i) }", "f",
                        "", "bad.tc");
    FAIL() << "no exception";
  } catch (const comprehend::Error &error) {
    EXPECT_EQ(error.status(), COMPREHEND_INPUT_ERROR);
    EXPECT_NE(std::string(error.what()).find("bad.tc:1:"), std::string::npos)
        << error.what();
  }
  comprehend::Def mm(device, kMatmul, "mm");
  comprehend::Tensor<double> a({2, 3}), b({4, 5}), c({2, 5});
  try {
    mm.call({a.view(), b.view()}, {c.view()});
    FAIL() << "no exception";
  } catch (const comprehend::Error &error) {
    EXPECT_EQ(error.status(), COMPREHEND_INPUT_ERROR);
    EXPECT_NE(std::string(error.what()).find("size 'K'"), std::string::npos)
        << error.what();
  }
}

} // namespace
