//===- LaunchTest.cpp - Argument packing, launches and timing -------------===//
#include "RuntimeFixture.h"
#include "comprehend/runtime/OpenCLPlatform.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

using namespace comprehend::runtime;
using namespace comprehend::runtime::test;

namespace {

using LaunchTest = RuntimeTest;

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(n);
  for (float &v : values)
    v = dist(gen);
  return values;
}

TEST_F(LaunchTest, VectorAdd) {
  const size_t n = 1031;
  auto a = randomFloats(n, 1), b = randomFloats(n, 2);
  Buffer da = upload(a), db = upload(b);
  auto dc = runtime->allocate(n * sizeof(float));
  ASSERT_TRUE(bool(dc));
  ASSERT_OK(runtime->fill(*dc, 0xff)); // poison: NaN
  std::vector<ParamType> params = {
      ParamType::memref("a", DType::F32, {kDynamic}),
      ParamType::memref("b", DType::F32, {kDynamic}),
      ParamType::memref("c", DType::F32, {kDynamic})};
  // The kernel reads no sizes: its layout is three pointers.
  std::vector<comprehend::backend::KernelArg> layout = computeArgLayout(params);
  layout.erase(
      std::remove_if(layout.begin(), layout.end(),
                     [](const auto &arg) {
                       return arg.kind !=
                              comprehend::backend::KernelArg::Kind::Pointer;
                     }),
      layout.end());
  std::vector<ArgValue> values = {
      TensorArg{&da, DType::F32, {int64_t(n)}, {}},
      TensorArg{&db, DType::F32, {int64_t(n)}, {}},
      TensorArg{&*dc, DType::F32, {int64_t(n)}, {}}};
  ASSERT_OK(checkArguments(params, values));
  Kernel &kernel = getKernel("vadd");
  auto bound = runtime->bindArguments(kernel, layout, values);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  auto time = runtime->launch(kernel, {{n, 1, 1}, {1, 1, 1}});
  ASSERT_TRUE(bool(time)) << llvm::toString(time.takeError());
  EXPECT_GE(*time, 0.0);
  auto c = download<float>(*dc);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

/// Host memory that kernels only read is used in place at its elements'
/// alignment; memory they write needs the 64 bytes from which the backend
/// proves its streaming stores aligned (MarkStreamingStores.cpp).
TEST_F(LaunchTest, HostMemoryInPlaceAtTheAlignmentItsAccessesNeed) {
  const size_t n = 1031;
  // Starts 64-byte aligned; the arrays below start one float past that.
  const size_t stride = n + 31;
  std::unique_ptr<float, decltype(&std::free)> memory(
      static_cast<float *>(std::aligned_alloc(64, 3 * stride * sizeof(float))),
      &std::free);
  ASSERT_TRUE(memory);
  float *a = memory.get() + 1, *b = a + stride, *c = b + stride;
  auto aligned = runtime->wrapHostMemory(memory.get(), n * sizeof(float),
                                         /*writable=*/true, sizeof(float));
  ASSERT_TRUE(bool(aligned)) << llvm::toString(aligned.takeError());
  if (!*aligned)
    GTEST_SKIP() << "the device does not use host memory in place";
  auto misalignedOutput =
      runtime->wrapHostMemory(c, n * sizeof(float), true, sizeof(float));
  auto halfElement = runtime->wrapHostMemory(
      reinterpret_cast<char *>(a) + 2, n * sizeof(float), false, sizeof(float));
  ASSERT_TRUE(misalignedOutput && halfElement);
  EXPECT_FALSE(*misalignedOutput);
  EXPECT_FALSE(*halfElement);
  auto expected = randomFloats(2 * n, 9);
  std::copy_n(expected.begin(), n, a);
  std::copy_n(expected.begin() + n, n, b);
  auto da = runtime->wrapHostMemory(a, n * sizeof(float), false, sizeof(float));
  auto db = runtime->wrapHostMemory(b, n * sizeof(float), false, sizeof(float));
  auto dc = runtime->allocate(n * sizeof(float));
  ASSERT_TRUE(da && db && dc);
  ASSERT_TRUE(*da && *db) << "inputs one float past 64 bytes are copied";
  std::vector<ParamType> params;
  std::vector<ArgValue> values;
  for (Buffer *buffer : {&*da, &*db, &*dc}) {
    params.push_back(ParamType::memref("x", DType::F32, {int64_t(n)}));
    values.push_back(TensorArg{buffer, DType::F32, {int64_t(n)}, {}});
  }
  // Static shapes: the layout is the three pointers vadd takes.
  std::vector<comprehend::backend::KernelArg> layout = computeArgLayout(params);
  Kernel &kernel = getKernel("vadd");
  auto bound = runtime->bindArguments(kernel, layout, values);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  ASSERT_TRUE(bool(runtime->launch(kernel, {{n, 1, 1}, {1, 1, 1}})));
  auto sums = download<float>(*dc);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(sums[i], expected[i] + expected[n + i]) << i;
}

TEST_F(LaunchTest, FusedMultiplyAddOnFloat4) {
  const size_t n = 64;
  auto a = randomFloats(4 * n, 3), b = randomFloats(4 * n, 4),
       c = randomFloats(4 * n, 5);
  Buffer da = upload(a), db = upload(b), dc = upload(c);
  std::vector<float> poison(4 * n, NAN);
  Buffer dd = upload(poison);
  Kernel &kernel = getKernel("fma4");
  std::vector<comprehend::backend::KernelArg> layout =
      computeArgLayout({ParamType::memref("a", DType::F32, {int64_t(4 * n)}),
                        ParamType::memref("b", DType::F32, {int64_t(4 * n)}),
                        ParamType::memref("c", DType::F32, {int64_t(4 * n)}),
                        ParamType::memref("d", DType::F32, {int64_t(4 * n)})});
  std::vector<ArgValue> values;
  for (Buffer *buffer : {&da, &db, &dc, &dd})
    values.push_back(TensorArg{buffer, DType::F32, {int64_t(4 * n)}, {}});
  auto bound = runtime->bindArguments(kernel, layout, values);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  ASSERT_TRUE(bool(runtime->launch(kernel, {{n / 8, 1, 1}, {8, 1, 1}})));
  auto d = download<float>(dd);
  for (size_t i = 0; i < 4 * n; ++i)
    ASSERT_EQ(d[i], std::fma(a[i], b[i], c[i])) << i;
}

TEST_F(LaunchTest, ScalarsOfEveryWidth) {
  std::vector<uint64_t> poison(16, ~uint64_t(0));
  Buffer out = upload(poison);
  std::vector<ParamType> params = {ParamType::memref("out", DType::I64, {16}),
                                   ParamType::scalar("a", DType::I8),
                                   ParamType::scalar("b", DType::I16),
                                   ParamType::scalar("c", DType::I32),
                                   ParamType::scalar("d", DType::I64),
                                   ParamType::scalar("e", DType::F32),
                                   ParamType::scalar("f", DType::F64),
                                   ParamType::scalar("g", DType::C32),
                                   ParamType::scalar("h", DType::C64)};
  std::vector<ArgValue> values = {TensorArg{&out, DType::I64, {16}, {}},
                                  ScalarArg::i8(-5),
                                  ScalarArg::i16(-1234),
                                  ScalarArg::i32(123456789),
                                  ScalarArg::i64(-9876543210123LL),
                                  ScalarArg::f32(1.5f),
                                  ScalarArg::f64(-2.25),
                                  ScalarArg::c32({3.5f, -4.5f}),
                                  ScalarArg::c64({5.25, 6.75})};
  ASSERT_OK(checkArguments(params, values));
  Kernel &kernel = getKernel("scalars");
  auto bound = runtime->bindArguments(kernel, computeArgLayout(params), values);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  ASSERT_TRUE(bool(runtime->launch(kernel, {})));
  auto bytes = download<unsigned char>(out);
  auto at = [&](unsigned slot, auto value) {
    decltype(value) result;
    std::memcpy(&result, bytes.data() + 16 * slot, sizeof(result));
    return result;
  };
  EXPECT_EQ(at(0, int8_t()), -5);
  EXPECT_EQ(at(1, int16_t()), -1234);
  EXPECT_EQ(at(2, int32_t()), 123456789);
  EXPECT_EQ(at(3, int64_t()), -9876543210123LL);
  EXPECT_EQ(at(4, float()), 1.5f);
  EXPECT_EQ(at(5, double()), -2.25);
  EXPECT_EQ(at(6, std::complex<float>()), std::complex<float>(3.5f, -4.5f));
  EXPECT_EQ(at(7, std::complex<double>()), std::complex<double>(5.25, 6.75));
}

TEST_F(LaunchTest, DynamicMemRefOfAStridedView) {
  // A 5x3 view with leading stride 7 inside a 7x3 column-major array.
  const int64_t m = 5, n = 3, ld = 7;
  auto data = randomFloats(ld * n, 6);
  Buffer buffer = upload(data);
  ParamType param =
      ParamType::memref("A", DType::F32, {kDynamic, kDynamic}, {1, kDynamic});
  std::vector<ParamType> params = {param,
                                   ParamType::scalar("alpha", DType::F32)};
  std::vector<ArgValue> values = {
      TensorArg{&buffer, DType::F32, {m, n}, {1, ld}}, ScalarArg::f32(3.0f)};
  ASSERT_OK(checkArguments(params, values));
  auto layout = computeArgLayout(params);
  // pointer, m, n, stride 1, alpha
  ASSERT_EQ(layout.size(), 5u);
  Kernel &kernel = getKernel("scale2d");
  auto bound = runtime->bindArguments(kernel, layout, values);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  // A grid larger than the view: the kernel's bounds check must hold.
  ASSERT_TRUE(bool(runtime->launch(kernel, {{2, 2, 1}, {4, 2, 1}})));
  auto result = download<float>(buffer);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < ld; ++i) {
      float expected = data[i + j * ld] * (i < m ? 3.0f : 1.0f);
      ASSERT_EQ(result[i + j * ld], expected) << i << "," << j;
    }
}

/// The two patterns the SPIR bridge rewrites before LLVMSPIRVLib sees them.
TEST_F(LaunchTest, BridgeRewritesCompositeConstructAndScalarNull) {
  const size_t n = 16;
  auto a = randomFloats(4 * n, 10);
  std::vector<float> poison(4 * n, NAN);
  Buffer da = upload(a), dout = upload(poison), dzero = upload(poison);
  std::vector<ParamType> params = {
      ParamType::memref("a", DType::F32, {int64_t(4 * n)}),
      ParamType::memref("out", DType::F32, {int64_t(4 * n)}),
      ParamType::memref("zero", DType::F32, {int64_t(4 * n)})};
  std::vector<ArgValue> values = {
      TensorArg{&da, DType::F32, {int64_t(4 * n)}, {}},
      TensorArg{&dout, DType::F32, {int64_t(4 * n)}, {}},
      TensorArg{&dzero, DType::F32, {int64_t(4 * n)}, {}}};
  Kernel &kernel = getKernel("make_vec");
  auto bound = runtime->bindArguments(kernel, computeArgLayout(params), values);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  ASSERT_TRUE(bool(runtime->launch(kernel, {{n, 1, 1}, {1, 1, 1}})));
  auto out = download<float>(dout), zero = download<float>(dzero);
  for (size_t x = 0; x < n; ++x) {
    for (size_t c = 0; c < 4; ++c)
      ASSERT_EQ(out[4 * x + c], a[4 * x + 3 - c]) << x << "," << c;
    ASSERT_EQ(zero[x], 0.0f) << x;
  }
}

TEST_F(LaunchTest, DeviceAddressesAreStable) {
  auto a = runtime->allocate(256);
  ASSERT_TRUE(bool(a));
  auto first = runtime->getDeviceAddress(*a);
  auto second = runtime->getDeviceAddress(*a);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  ASSERT_TRUE(bool(second));
  EXPECT_EQ(*first, *second);
  EXPECT_NE(*first, 0u);
}

TEST_F(LaunchTest, GroupFromAStackedArray) {
  const int64_t count = 5, length = 9;
  auto data = randomFloats(count * length, 7);
  Buffer buffer = upload(data);
  GroupArg group = GroupArg::stacked(buffer, DType::F32, {length}, count);
  std::vector<ParamType> params = {
      ParamType::group("G", DType::F32, {kDynamic}, kDynamic),
      ParamType::scalar("alpha", DType::F32)};
  std::vector<ArgValue> values = {group, ScalarArg::f32(-2.0f)};
  ASSERT_OK(checkArguments(params, values));
  auto layout = computeArgLayout(params);
  // group pointer, shape array, size, alpha
  ASSERT_EQ(layout.size(), 4u);
  Kernel &kernel = getKernel("group_scale");
  auto bound = runtime->bindArguments(kernel, layout, values);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  ASSERT_TRUE(bool(runtime->launch(kernel, {{16, 8, 1}, {1, 1, 1}})));
  auto result = download<float>(buffer);
  for (int64_t i = 0; i < count * length; ++i)
    ASSERT_EQ(result[i], -2.0f * data[i]) << i;
}

TEST_F(LaunchTest, GroupOfSeparateBuffers) {
  const int64_t length = 4;
  auto x = randomFloats(length, 8), y = randomFloats(length + 3, 9);
  Buffer bx = upload(x), by = upload(y);
  GroupArg group;
  group.dtype = DType::F32;
  group.shape = {length};
  group.buffers = {&bx, &by};
  group.byteOffsets = {0, 3 * sizeof(float)}; // second member starts at y[3]
  std::vector<ParamType> params = {
      ParamType::group("G", DType::F32, {kDynamic}, kDynamic),
      ParamType::scalar("alpha", DType::F32)};
  std::vector<ArgValue> values = {group, ScalarArg::f32(0.5f)};
  ASSERT_OK(checkArguments(params, values));
  Kernel &kernel = getKernel("group_scale");
  auto bound = runtime->bindArguments(kernel, computeArgLayout(params), values);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  ASSERT_TRUE(bool(runtime->launch(kernel, {{length, 2, 1}, {1, 1, 1}})));
  auto rx = download<float>(bx), ry = download<float>(by);
  for (int64_t i = 0; i < length; ++i)
    EXPECT_EQ(rx[i], 0.5f * x[i]);
  for (int64_t i = 0; i < length + 3; ++i)
    EXPECT_EQ(ry[i], i < 3 ? y[i] : 0.5f * y[i]) << i;
}

TEST_F(LaunchTest, WrongArgumentCountIsAnInputError) {
  Kernel &kernel = getKernel("vadd");
  auto bound = runtime->bindArguments(
      kernel, computeArgLayout({ParamType::scalar("x", DType::F32)}),
      {ScalarArg::f32(1)});
  ASSERT_FALSE(bool(bound));
  std::string message = llvm::toString(bound.takeError());
  EXPECT_NE(message.find("takes 3 OpenCL arguments, but the calling "
                         "convention gives 1"),
            std::string::npos)
      << message;
}

TEST_F(LaunchTest, UnsetArgumentsReportTheOpenCLError) {
  // A fresh kernel object whose arguments were never set.
  cl_int err = CL_SUCCESS;
  cl_kernel raw = clCreateKernel(static_cast<OpenCLProgram *>(program)->get(),
                                 "vadd", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  OpenCLKernel kernel(raw, "vadd", 3);
  auto time = runtime->launch(kernel, {});
  ASSERT_FALSE(bool(time));
  std::string message = llvm::toString(time.takeError());
  EXPECT_NE(message.find("clEnqueueNDRangeKernel(vadd) failed with "
                         "CL_INVALID_KERNEL_ARGS (-52)"),
            std::string::npos)
      << message;
}

TEST_F(LaunchTest, WorkGroupTooLarge) {
  Kernel &kernel = getKernel("empty");
  size_t tooMany = runtime->getCoreInfo().maxWorkGroupSize * 2;
  auto time = runtime->launch(kernel, {{1, 1, 1}, {tooMany, 1, 1}});
  ASSERT_FALSE(bool(time));
  std::string message = llvm::toString(time.takeError());
  EXPECT_NE(message.find("CL_INVALID_WORK_GROUP_SIZE"), std::string::npos)
      << message;
}

TEST_F(LaunchTest, EmptyGridIsAnInputError) {
  Kernel &kernel = getKernel("empty");
  auto time = runtime->launch(kernel, {{0, 1, 1}, {1, 1, 1}});
  ASSERT_FALSE(bool(time));
  llvm::consumeError(time.takeError());
}

/// Not an assertion on speed: prints the launch overhead of an empty kernel
/// (profiled kernel time and host round trip, medians) for the report.
TEST_F(LaunchTest, EmptyKernelOverhead) {
  Kernel &kernel = getKernel("empty");
  auto warmup = runtime->time(kernel, {}, 5);
  ASSERT_TRUE(bool(warmup)) << llvm::toString(warmup.takeError());
  auto timing = runtime->time(kernel, {}, 200);
  ASSERT_TRUE(bool(timing)) << llvm::toString(timing.takeError());
  ASSERT_EQ(timing->kernelMs.size(), 200u);
  EXPECT_LE(timing->getMedianKernelMs(), timing->getMedianWallMs());
  std::printf("empty kernel: median kernel %.4f ms, median round trip %.4f "
              "ms\n",
              timing->getMedianKernelMs(), timing->getMedianWallMs());
}

} // namespace
