//===- TcCallTest.cpp - TcKernel::call, the fast path of a call -----------===//
//
// Calls at a compiled shape through api::TcKernel::call compared with plain
// C++ loops on fresh random inputs, outputs poisoned before each call: inputs
// aligned for the device (read in place on a CPU device) and misaligned
// (copied), changed between calls, several launches with a temporary, and
// incoming values beside those that `write` keeps for `run`.
//
//===----------------------------------------------------------------------===//
#include "comprehend/api/TcKernel.h"
#include "comprehend/runtime/Error.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

using namespace comprehend;
using namespace comprehend::api;

namespace {

constexpr llvm::StringLiteral kMatmul = R"TC(
def matmul(float(M, K) A, float(K, N) B) -> (C) {
  C(m, n) +=! A(m, k) * B(k, n)
}
)TC";

// Three statements, a temporary, two outputs; C adds to its incoming value.
constexpr llvm::StringLiteral kChain = R"TC(
def chain(float(M, K) A, float(K, N) B) -> (C, R) {
  t(m, n) +=! A(m, k) * B(k, n)
  C(m, n) += fmax(t(m, n), 0.0)
  R(m) +=! C(m, n)
}
)TC";

runtime::Runtime &getRuntime() {
  static std::unique_ptr<runtime::Runtime> rt = [] {
    auto created = runtime::Runtime::create();
    if (!created) {
      ADD_FAILURE() << llvm::toString(created.takeError());
      return std::unique_ptr<runtime::Runtime>();
    }
    return std::move(*created);
  }();
  return *rt;
}

/// `count` floats starting `offset` bytes past a 128-byte boundary.
class Floats {
public:
  Floats(size_t count, size_t offset)
      : storage(static_cast<unsigned char *>(
                    std::aligned_alloc(128, count * 4 + 256)),
                std::free),
        values(reinterpret_cast<float *>(storage.get() + 128 + offset)),
        count(count) {}
  float *data() { return values; }
  float &operator[](size_t i) { return values[i]; }
  void randomize(std::mt19937 &rng) {
    std::uniform_real_distribution<float> dist(-1, 1);
    for (size_t i = 0; i < count; ++i)
      values[i] = dist(rng);
  }
  void poison() { std::memset(values, 0xff, count * 4); }

private:
  std::unique_ptr<unsigned char, void (*)(void *)> storage;
  float *values;
  size_t count;
};

double product(Floats &a, Floats &b, int k, int n, int i, int j) {
  double sum = 0;
  for (int l = 0; l < k; ++l)
    sum += double(a[i * k + l]) * b[l * n + j];
  return sum;
}

void expectNear(float got, double want, const char *what, int i) {
  ASSERT_NEAR(got, want, 1e-4 * (1 + std::abs(want)))
      << what << "[" << i << "]";
}

class TcCallTest : public ::testing::TestWithParam<size_t> {};

TEST_P(TcCallTest, RepeatedCallsSeeNewInputs) {
  const int m = 33, k = 20, n = 17;
  auto kernel = TcKernel::compileText(getRuntime(), kMatmul, "matmul",
                                      {{"M", m}, {"K", k}, {"N", n}});
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  Floats a(m * k, GetParam()), b(k * n, GetParam()), c(m * n, GetParam());
  std::mt19937 rng(GetParam());
  for (int call = 0; call < 4; ++call) {
    // New values in the same memory: an in-place input is read afresh.
    a.randomize(rng);
    b.randomize(rng);
    c.poison();
    ASSERT_FALSE(bool((*kernel)->call({a.data(), b.data()}, {c.data()})));
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        expectNear(c[i * n + j], product(a, b, k, n, i, j), "C", i * n + j);
  }
}

TEST_P(TcCallTest, SeveralLaunchesAndIncomingValues) {
  const int m = 9, k = 6, n = 5;
  auto kernel = TcKernel::compileText(getRuntime(), kChain, "chain",
                                      {{"M", m}, {"K", k}, {"N", n}});
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  ASSERT_TRUE((*kernel)->takesIncomingValue("C"));
  Floats a(m * k, GetParam()), b(k * n, GetParam()), c(m * n, GetParam()),
      r(m, GetParam()), start(m * n, 0);
  std::mt19937 rng(7);
  start.randomize(rng);
  // What `write` keeps for `run`: zeros.
  ASSERT_FALSE(bool((*kernel)->fill("C", 0)));
  for (int call = 0; call < 2; ++call) {
    a.randomize(rng);
    b.randomize(rng);
    std::memcpy(c.data(), start.data(), m * n * 4);
    r.poison();
    ASSERT_FALSE(
        bool((*kernel)->call({a.data(), b.data()}, {c.data(), r.data()})));
    for (int i = 0; i < m; ++i) {
      double row = 0;
      for (int j = 0; j < n; ++j) {
        double want =
            start[i * n + j] + std::fmax(product(a, b, k, n, i, j), 0.0);
        expectNear(c[i * n + j], want, "C", i * n + j);
        row += want;
      }
      expectNear(r[i], row, "R", i);
    }
  }
  // `run` still starts C from the value `fill` gave it, not the call's.
  ASSERT_FALSE(bool((*kernel)->write("A", a.data(), m * k * 4)));
  ASSERT_FALSE(bool((*kernel)->write("B", b.data(), k * n * 4)));
  ASSERT_TRUE(bool((*kernel)->run(1)));
  ASSERT_FALSE(bool((*kernel)->read("C", c.data(), m * n * 4)));
  for (int i = 0; i < m * n; ++i)
    expectNear(c[i], std::fmax(product(a, b, k, n, i / n, i % n), 0.0), "C", i);
}

INSTANTIATE_TEST_SUITE_P(Offsets, TcCallTest,
                         ::testing::Values(size_t(0), size_t(4), size_t(16)));

TEST(TcCallErrors, WrongNumberOfArraysIsAnInputError) {
  auto kernel = TcKernel::compileText(getRuntime(), kMatmul, "matmul",
                                      {{"M", 2}, {"K", 2}, {"N", 2}});
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  float a[4] = {}, c[4] = {};
  llvm::Error error = (*kernel)->call({a}, {c});
  ASSERT_TRUE(bool(error));
  std::string message;
  runtime::ErrorKind kind = runtime::ErrorKind::Device;
  llvm::handleAllErrors(std::move(error), [&](const runtime::RuntimeError &e) {
    message = e.getMessage().str();
    kind = e.getKind();
  });
  EXPECT_EQ(kind, runtime::ErrorKind::Input) << message;
  EXPECT_NE(message.find("takes 2 inputs and 1 outputs"), std::string::npos)
      << message;
}

} // namespace
