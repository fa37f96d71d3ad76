//===- CapiTest.cpp - The C API: calls, errors, null handles --------------===//
#include "comprehend/comprehend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

/// Two outputs, one of them a reduction, so that a wrong index or a
/// missed write shows.
const char *const kScaleSum = R"TC(
def scale_sum(float(N, M) A, float(M) b) -> (C, S) {
  C(n, m) = 2 * A(n, m) + b(m)
  S(n) +=! A(n, m)
}
)TC";

class CapiTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(comprehend_device_create(&device, ""), COMPREHEND_SUCCESS)
        << comprehend_last_error();
  }
  void TearDown() override {
    comprehend_def_release(def);
    comprehend_device_release(device);
  }
  comprehend_status create(const char *source, const char *entry) {
    return comprehend_def_create(&def, device, source, "test.tc", entry,
                                 nullptr);
  }
  comprehend_device_t device = nullptr;
  comprehend_def_t def = nullptr;
};

std::vector<float> randomFloats(size_t count) {
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(count);
  for (float &v : values)
    v = dist(rng);
  return values;
}

TEST_F(CapiTest, CallMatchesHostReference) {
  ASSERT_EQ(create(kScaleSum, "scale_sum"), COMPREHEND_SUCCESS)
      << comprehend_last_error();
  const int64_t n = 7, m = 13;
  std::vector<float> a = randomFloats(n * m), b = randomFloats(m);
  std::vector<float> c(n * m, NAN), s(n, NAN);
  const int64_t aShape[] = {n, m}, bShape[] = {m}, sShape[] = {n};
  comprehend_tensor inputs[] = {{a.data(), COMPREHEND_F32, 2, aShape},
                                {b.data(), COMPREHEND_F32, 1, bShape}};

  comprehend_dtype dtype;
  int32_t rank = 0;
  int64_t shape[4] = {};
  ASSERT_EQ(comprehend_def_output(def, 2, inputs, 0, &dtype, &rank, shape, 4),
            COMPREHEND_SUCCESS)
      << comprehend_last_error();
  EXPECT_EQ(dtype, COMPREHEND_F32);
  ASSERT_EQ(rank, 2);
  EXPECT_EQ(shape[0], n);
  EXPECT_EQ(shape[1], m);

  comprehend_tensor outputs[] = {{c.data(), COMPREHEND_F32, 2, shape},
                                 {s.data(), COMPREHEND_F32, 1, sShape}};
  ASSERT_EQ(comprehend_def_call(def, 2, inputs, 2, outputs), COMPREHEND_SUCCESS)
      << comprehend_last_error();
  for (int64_t i = 0; i < n; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < m; ++j) {
      EXPECT_NEAR(c[i * m + j], 2.0 * a[i * m + j] + b[j], 1e-5);
      sum += a[i * m + j];
    }
    EXPECT_NEAR(s[i], sum, 1e-4);
  }
}

TEST_F(CapiTest, IncomingOutputValuesAreRead) {
  // `+=` without `!`: S's values on entry are the start of the sum.
  ASSERT_EQ(create("def acc(float(N, M) A) -> (S) {\n"
                   "  S(n) += A(n, m)\n}\n",
                   "acc"),
            COMPREHEND_SUCCESS)
      << comprehend_last_error();
  const int64_t n = 5, m = 6;
  std::vector<float> a = randomFloats(n * m), s = randomFloats(n);
  std::vector<float> incoming = s;
  const int64_t aShape[] = {n, m}, sShape[] = {n};
  comprehend_tensor inputs[] = {{a.data(), COMPREHEND_F32, 2, aShape}};
  comprehend_tensor outputs[] = {{s.data(), COMPREHEND_F32, 1, sShape}};
  ASSERT_EQ(comprehend_def_call(def, 1, inputs, 1, outputs), COMPREHEND_SUCCESS)
      << comprehend_last_error();
  for (int64_t i = 0; i < n; ++i) {
    double want = incoming[i];
    for (int64_t j = 0; j < m; ++j)
      want += a[i * m + j];
    EXPECT_NEAR(s[i], want, 1e-5) << i;
  }
}

TEST_F(CapiTest, SyntaxErrorIsLocated) {
  EXPECT_EQ(create("def f(float(N) A) -> (B) {\n  B(i) = A(i) +\n}\n", "f"),
            COMPREHEND_INPUT_ERROR);
  EXPECT_EQ(def, nullptr);
  std::string message = comprehend_last_error();
  EXPECT_NE(message.find("test.tc:3:1: error:"), std::string::npos) << message;
  EXPECT_NE(message.find('^'), std::string::npos) << message;
}

TEST_F(CapiTest, UnknownDefIsAnInputError) {
  EXPECT_EQ(create(kScaleSum, "nope"), COMPREHEND_INPUT_ERROR);
  EXPECT_NE(std::string(comprehend_last_error()).find("'nope'"),
            std::string::npos);
}

TEST_F(CapiTest, WrongShapesAreInputErrors) {
  ASSERT_EQ(create(kScaleSum, "scale_sum"), COMPREHEND_SUCCESS);
  std::vector<float> a(6), b(4), c(6), s(2);
  const int64_t aShape[] = {2, 3}, bShape[] = {4}, goodB[] = {3},
                cShape[] = {3, 2}, sShape[] = {2};
  comprehend_tensor inputs[] = {{a.data(), COMPREHEND_F32, 2, aShape},
                                {b.data(), COMPREHEND_F32, 1, bShape}};
  comprehend_tensor outputs[] = {{c.data(), COMPREHEND_F32, 2, cShape},
                                 {s.data(), COMPREHEND_F32, 1, sShape}};
  EXPECT_EQ(comprehend_def_call(def, 2, inputs, 2, outputs),
            COMPREHEND_INPUT_ERROR);
  EXPECT_NE(std::string(comprehend_last_error()).find("size 'M' = 3"),
            std::string::npos)
      << comprehend_last_error();

  inputs[1].shape = goodB;
  EXPECT_EQ(comprehend_def_call(def, 2, inputs, 2, outputs),
            COMPREHEND_INPUT_ERROR);
  EXPECT_NE(std::string(comprehend_last_error()).find("output 'C'"),
            std::string::npos)
      << comprehend_last_error();

  inputs[1].dtype = COMPREHEND_F64;
  EXPECT_EQ(comprehend_def_call(def, 2, inputs, 2, outputs),
            COMPREHEND_INPUT_ERROR);
  EXPECT_EQ(comprehend_def_call(def, 1, inputs, 2, outputs),
            COMPREHEND_INPUT_ERROR);
}

TEST_F(CapiTest, HugeShapesAreErrorsNotCrashes) {
  // Extents whose product overflows 64 bits: an input error located in the
  // source (at A). A tensor of 2^42 floats (16 TiB): a device error before any
  // allocation. Nothing is read (the data pointers stand for arrays that
  // are not there).
  ASSERT_EQ(create(kScaleSum, "scale_sum"), COMPREHEND_SUCCESS);
  float dummy = 0;
  const int64_t overflowing[] = {int64_t(1) << 40, int64_t(1) << 40},
                overflowingB[] = {int64_t(1) << 40};
  comprehend_tensor inputs[] = {{&dummy, COMPREHEND_F32, 2, overflowing},
                                {&dummy, COMPREHEND_F32, 1, overflowingB}};
  comprehend_dtype dtype;
  int32_t rank = 0;
  int64_t shape[2] = {};
  EXPECT_EQ(comprehend_def_output(def, 2, inputs, 0, &dtype, &rank, shape, 2),
            COMPREHEND_INPUT_ERROR);
  std::string message = comprehend_last_error();
  EXPECT_NE(message.find("test.tc:2:27: error:"), std::string::npos) << message;
  EXPECT_NE(message.find("tensor 'A' has more than 2^63 - 1 bytes"),
            std::string::npos)
      << message;

  const int64_t huge[] = {int64_t(1) << 21, int64_t(1) << 21},
                hugeB[] = {int64_t(1) << 21};
  inputs[0].shape = huge;
  inputs[1].shape = hugeB;
  EXPECT_EQ(comprehend_def_output(def, 2, inputs, 0, &dtype, &rank, shape, 2),
            COMPREHEND_DEVICE_ERROR);
  EXPECT_NE(std::string(comprehend_last_error()).find("tensor 'A' needs"),
            std::string::npos)
      << comprehend_last_error();
}

TEST_F(CapiTest, NullHandlesAreInvalidArguments) {
  comprehend_tensor none{};
  EXPECT_EQ(comprehend_def_call(nullptr, 0, &none, 0, &none),
            COMPREHEND_INVALID_ARGUMENT);
  EXPECT_NE(std::string(comprehend_last_error()).find("the def is null"),
            std::string::npos);
  EXPECT_EQ(comprehend_def_create(&def, nullptr, kScaleSum, nullptr,
                                  "scale_sum", nullptr),
            COMPREHEND_INVALID_ARGUMENT);
  EXPECT_EQ(comprehend_def_create(nullptr, device, kScaleSum, nullptr,
                                  "scale_sum", nullptr),
            COMPREHEND_INVALID_ARGUMENT);
  EXPECT_EQ(comprehend_device_name(nullptr, nullptr),
            COMPREHEND_INVALID_ARGUMENT);
  EXPECT_EQ(comprehend_def_arity(nullptr, nullptr, nullptr),
            COMPREHEND_INVALID_ARGUMENT);
  EXPECT_EQ(comprehend_def_tune(nullptr, 0, nullptr, 1, nullptr, nullptr),
            COMPREHEND_INVALID_ARGUMENT);
  comprehend_def_release(nullptr);
  comprehend_device_release(nullptr);

  ASSERT_EQ(create(kScaleSum, "scale_sum"), COMPREHEND_SUCCESS);
  const int64_t aShape[] = {2, 3}, bShape[] = {3};
  comprehend_tensor inputs[] = {{nullptr, COMPREHEND_F32, 2, aShape},
                                {nullptr, COMPREHEND_F32, 1, bShape}};
  EXPECT_EQ(comprehend_def_call(def, 2, inputs, 0, nullptr),
            COMPREHEND_INVALID_ARGUMENT);
  EXPECT_STREQ(comprehend_status_name(COMPREHEND_INPUT_ERROR), "input error");
}

TEST_F(CapiTest, UnknownDeviceIsAnError) {
  comprehend_device_t other = nullptr;
  EXPECT_NE(comprehend_device_create(&other, "no-such-device-anywhere"),
            COMPREHEND_SUCCESS);
  EXPECT_EQ(other, nullptr);
  EXPECT_STRNE(comprehend_last_error(), "");
}

} // namespace
