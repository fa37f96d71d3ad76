//===- TcKernelTest.cpp - The C++ API of the TC path ----------------------===//
//
// Runs TC defs through api::TcKernel on the default device and compares
// with plain C++ loops on random inputs, outputs poisoned before each run.
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
#include <tuple>

using namespace comprehend;
using namespace comprehend::api;

namespace {

constexpr llvm::StringLiteral kMatmul = R"TC(
def matmul(float(M, K) A, float(K, N) B) -> (C) {
  C(m, n) +=! A(m, k) * B(k, n)
}
)TC";

constexpr llvm::StringLiteral kTwoStatements = R"TC(
def scaled_rowsum(float(M, N) A) -> (S, T) {
  S(m) +=! A(m, n)
  T(m, n) = A(m, n) * S(m)
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

std::vector<float> randomVector(size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(size);
  for (float &value : values)
    value = dist(rng);
  return values;
}

/// C = A * B for row-major A (m x k) and B (k x n).
std::vector<float> referenceMatmul(const std::vector<float> &a,
                                   const std::vector<float> &b, int m, int k,
                                   int n) {
  std::vector<float> c(m * n, 0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int l = 0; l < k; ++l)
        sum += double(a[i * k + l]) * b[l * n + j];
      c[i * n + j] = static_cast<float>(sum);
    }
  return c;
}

void expectClose(const std::vector<float> &got,
                 const std::vector<float> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::abs(want[i])))
        << "element " << i;
}

/// Compiles kMatmul at m x k x n with `options`, runs it on random inputs
/// and checks C.
void runMatmul(int m, int k, int n, const TcKernelOptions &options,
               ConfigSource expectedSource) {
  auto kernel = TcKernel::compileText(getRuntime(), kMatmul, "matmul",
                                      {{"M", m}, {"K", k}, {"N", n}}, options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ((*kernel)->getConfigSource(), expectedSource);
  std::vector<float> a = randomVector(m * k, 1), b = randomVector(k * n, 2);
  std::vector<float> c(m * n);
  ASSERT_FALSE(bool((*kernel)->write("A", a.data(), a.size() * 4)));
  ASSERT_FALSE(bool((*kernel)->write("B", b.data(), b.size() * 4)));
  ASSERT_FALSE(bool((*kernel)->fill("C", 0xff)));
  auto timing = (*kernel)->run(2);
  ASSERT_TRUE(bool(timing)) << llvm::toString(timing.takeError());
  EXPECT_EQ(timing->kernelMs.size(), 2u);
  ASSERT_FALSE(bool((*kernel)->read("C", c.data(), c.size() * 4)));
  expectClose(c, referenceMatmul(a, b, m, k, n));
}

TEST(TcKernelTest, DTypesOfTcTypesGoThroughTheIrScalarKind) {
  constexpr unsigned kNumTypes =
      static_cast<unsigned>(tc::ScalarType::Double) + 1;
  unsigned supported = 0;
  for (unsigned i = 0; i < kNumTypes; ++i) {
    auto type = static_cast<tc::ScalarType>(i);
    std::optional<runtime::DType> dtype = getDType(type);
    if (!dtype)
      continue;
    ++supported;
    EXPECT_EQ(runtime::toScalarKind(*dtype), tc::toIrScalarKind(type));
    EXPECT_EQ(8 * runtime::getDTypeSize(*dtype), tc::getBitWidth(type));
  }
  EXPECT_EQ(supported, 4u); // float, double, int32, int64
  EXPECT_EQ(getDType(tc::ScalarType::Float), runtime::DType::F32);
  EXPECT_EQ(getDType(tc::ScalarType::Int64), runtime::DType::I64);
  EXPECT_FALSE(getDType(tc::ScalarType::UInt32).has_value());
}

TEST(TcKernelTest, MatmulMatchesLoopsAtOddSizes) {
  TcKernelOptions options;
  options.useTuningCache = false;
  runMatmul(33, 7, 9, options, ConfigSource::Default);
  runMatmul(1, 1, 1, options, ConfigSource::Default);
}

TEST(TcKernelTest, GivenLaunchConfigurationKeepsResults) {
  TcKernelOptions options;
  options.config = {{"work_group_size.0", 2}, {"work_group_size.1", 4}};
  runMatmul(17, 5, 11, options, ConfigSource::Given);
}

TEST(TcKernelTest, SeveralStatementsRunInOrder) {
  const int m = 13, n = 6;
  auto kernel = TcKernel::compileText(getRuntime(), kTwoStatements,
                                      "scaled_rowsum", {{"M", m}, {"N", n}});
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  std::vector<float> a = randomVector(m * n, 3), s(m), t(m * n);
  ASSERT_FALSE(bool((*kernel)->write("A", a.data(), a.size() * 4)));
  ASSERT_FALSE(bool((*kernel)->fill("S", 0xff)));
  ASSERT_FALSE(bool((*kernel)->fill("T", 0xff)));
  ASSERT_TRUE(bool((*kernel)->run()));
  ASSERT_FALSE(bool((*kernel)->read("S", s.data(), s.size() * 4)));
  ASSERT_FALSE(bool((*kernel)->read("T", t.data(), t.size() * 4)));
  std::vector<float> wantS(m, 0), wantT(m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      wantS[i] += a[i * n + j];
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      wantT[i * n + j] = a[i * n + j] * wantS[i];
  expectClose(s, wantS);
  expectClose(t, wantT);
}

constexpr llvm::StringLiteral kAccumulate = R"TC(
def acc(float(M, K) A, float(K, N) B) -> (C, R) {
  C(m, n) += A(m, k) * B(k, n)
  R(m) +=! C(m, n)
}
)TC";

// C = A B + C0 (a gemm with beta 1), R the row sums of that C: every run
// starts from the incoming value C0 last written, so the result after
// run(3) is one call's.
TEST(TcKernelTest, OutputsReadBeforeWrittenTakeIncomingValues) {
  const int m = 7, k = 5, n = 3;
  auto kernel = TcKernel::compileText(getRuntime(), kAccumulate, "acc",
                                      {{"M", m}, {"K", k}, {"N", n}});
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_TRUE((*kernel)->takesIncomingValue("C"));
  EXPECT_FALSE((*kernel)->takesIncomingValue("R"));
  EXPECT_FALSE((*kernel)->takesIncomingValue("A"));
  std::vector<float> a = randomVector(m * k, 4), b = randomVector(k * n, 5);
  std::vector<float> c0 = randomVector(m * n, 6), c(m * n), r(m);
  ASSERT_FALSE(bool((*kernel)->write("A", a.data(), a.size() * 4)));
  ASSERT_FALSE(bool((*kernel)->write("B", b.data(), b.size() * 4)));
  ASSERT_FALSE(bool((*kernel)->fill("R", 0xff)));

  // Nothing written: C starts from zero, as in the reference evaluator.
  std::vector<float> product = referenceMatmul(a, b, m, k, n);
  ASSERT_TRUE(bool((*kernel)->run(2)));
  ASSERT_FALSE(bool((*kernel)->read("C", c.data(), c.size() * 4)));
  expectClose(c, product);

  ASSERT_FALSE(bool((*kernel)->write("C", c0.data(), c0.size() * 4)));
  for (unsigned repeat : {1u, 3u}) {
    auto timing = (*kernel)->run(repeat);
    ASSERT_TRUE(bool(timing)) << llvm::toString(timing.takeError());
    EXPECT_EQ(timing->kernelMs.size(), repeat);
    ASSERT_FALSE(bool((*kernel)->read("C", c.data(), c.size() * 4)));
    ASSERT_FALSE(bool((*kernel)->read("R", r.data(), r.size() * 4)));
    std::vector<float> wantC(m * n), wantR(m, 0);
    for (int i = 0; i < m * n; ++i)
      wantC[i] = product[i] + c0[i];
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        wantR[i] += wantC[i * n + j];
    expectClose(c, wantC);
    expectClose(r, wantR);
  }
}

TEST(TcKernelTest, BadInputIsAnInputError) {
  auto expectInputError = [](llvm::Error error, llvm::StringRef text) {
    ASSERT_TRUE(bool(error));
    std::string message;
    runtime::ErrorKind kind = runtime::ErrorKind::Device;
    llvm::handleAllErrors(std::move(error),
                          [&](const runtime::RuntimeError &e) {
                            message = e.getMessage().str();
                            kind = e.getKind();
                          });
    EXPECT_EQ(kind, runtime::ErrorKind::Input) << message;
    EXPECT_NE(message.find(text.str()), std::string::npos) << message;
  };
  auto errorOf = [](auto result) {
    return result ? llvm::Error::success() : result.takeError();
  };
  llvm::StringMap<int64_t> sizes = {{"M", 3}, {"K", 4}, {"N", 5}};
  expectInputError(
      errorOf(TcKernel::compileText(
          getRuntime(), "def f(float(N) A) -> (B) { B(i) = ", "f", {{"N", 3}})),
      "error:");
  expectInputError(
      errorOf(TcKernel::compileText(getRuntime(), kMatmul, "nope", sizes)),
      "no def 'nope'");
  expectInputError(errorOf(TcKernel::compileText(getRuntime(), kMatmul,
                                                 "matmul", {{"M", 3}})),
                   "size variable 'K'");
  TcKernelOptions unknown;
  unknown.config = {{"no_such_knob", 1}};
  expectInputError(errorOf(TcKernel::compileText(getRuntime(), kMatmul,
                                                 "matmul", sizes, unknown)),
                   "unknown tuning parameter 'no_such_knob'");

  auto kernel = TcKernel::compileText(getRuntime(), kMatmul, "matmul", sizes);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  float small[2];
  expectInputError((*kernel)->write("A", small, 8), "'A' has 48 bytes, not 8");
  expectInputError((*kernel)->read("Z", small, 8), "has no tensor 'Z'");
}

// Three statements, a temporary, two outputs; C adds to its incoming value.
constexpr llvm::StringLiteral kChain = R"TC(
def chain(float(M, K) A, float(K, N) B) -> (C, R) {
  t(m, n) +=! A(m, k) * B(k, n)
  C(m, n) += fmax(t(m, n), 0.0)
  R(m) +=! C(m, n)
}
)TC";

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

using Placement = runtime::CallPlacement::Mode;

/// TcKernel::call, the fast path of a call at a compiled shape: inputs
/// aligned for the device (read in place on a CPU device) and misaligned
/// (copied), changed between calls; several launches with a temporary, and
/// incoming values beside those that `write` keeps for `run`; on the
/// device's workers, on the calling thread (where the device has a queue
/// there: PoCL) and wherever the calls measure faster.
class TcCallTest
    : public ::testing::TestWithParam<std::tuple<size_t, Placement>> {
protected:
  size_t getOffset() const { return std::get<0>(GetParam()); }
  Placement getPlacement() const { return std::get<1>(GetParam()); }
};

TEST_P(TcCallTest, RepeatedCallsSeeNewInputs) {
  const int m = 33, k = 20, n = 17;
  auto kernel = TcKernel::compileText(getRuntime(), kMatmul, "matmul",
                                      {{"M", m}, {"K", k}, {"N", n}});
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  (*kernel)->setCallPlacement(getPlacement());
  Floats a(m * k, getOffset()), b(k * n, getOffset()), c(m * n, getOffset());
  std::mt19937 rng(static_cast<unsigned>(getOffset()));
  // A measured placement runs both places, then the faster.
  int calls = getPlacement() == Placement::Measured ? 12 : 4;
  for (int call = 0; call < calls; ++call) {
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
  (*kernel)->setCallPlacement(getPlacement());
  size_t offset = getOffset();
  Floats a(m * k, offset), b(k * n, offset), c(m * n, offset), r(m, offset),
      start(m * n, 0);
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

INSTANTIATE_TEST_SUITE_P(
    OffsetsAndPlaces, TcCallTest,
    ::testing::Combine(::testing::Values(size_t(0), size_t(4), size_t(16)),
                       ::testing::Values(Placement::Workers,
                                         Placement::CallerThread,
                                         Placement::Measured)));

/// The runtime pairs PoCL's `pthread` device with its `basic` one as the
/// caller-thread queue (OpenCLDevice.cpp), unless POCL_DEVICES was set.
TEST(TcCallPlacement, PoclCpuDeviceHasACallerThreadQueue) {
  runtime::Runtime &rt = getRuntime();
  const runtime::DeviceInfo &info = rt.getDevice().getInfo();
  if (info.platformName != "Portable Computing Language" ||
      !llvm::StringRef(info.name).startswith("pthread-") ||
      std::getenv("POCL_DEVICES"))
    GTEST_SKIP() << "not PoCL's pthread device as the runtime lists it";
  EXPECT_TRUE(rt.hasCallerThreadQueue());
  EXPECT_NE(rt.getDevice().getCallerThreadDevice(), nullptr);
}

/// A measured placement decides after its trial calls, and keeps computing
/// the same results before and after.
TEST(TcCallPlacement, MeasuredPlacementDecides) {
  if (!getRuntime().hasCallerThreadQueue())
    GTEST_SKIP() << "the device has no caller-thread queue";
  const int m = 8, k = 8, n = 8;
  auto kernel = TcKernel::compileText(getRuntime(), kMatmul, "matmul",
                                      {{"M", m}, {"K", k}, {"N", n}});
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  Floats a(m * k, 0), b(k * n, 0), c(m * n, 0);
  std::mt19937 rng(3);
  for (int call = 0; call < 12; ++call) {
    a.randomize(rng);
    b.randomize(rng);
    c.poison();
    ASSERT_FALSE(bool((*kernel)->call({a.data(), b.data()}, {c.data()})));
    for (int i = 0; i < m * n; ++i)
      expectNear(c[i], product(a, b, k, n, i / n, i % n), "C", i);
  }
  EXPECT_TRUE((*kernel)->getCallPlacement().getDecision().has_value());
}

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
