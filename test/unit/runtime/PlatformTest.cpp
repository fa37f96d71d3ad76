//===- PlatformTest.cpp - The device layer through its interface ----------===//
//
// The Platform interface driven directly (handles, argument setting, timed
// launches) on the OpenCL platform this machine has, and the CUDA platform's
// parts that need no driver: error names, PTX entry listing, and listing or
// selection on a machine without libcuda.so.1.
//
//===----------------------------------------------------------------------===//
#include "RuntimeFixture.h"

#include "CudaDriver.h"
#include "CudaPlatform.h"

#include <random>

using namespace comprehend::runtime;
using namespace comprehend::runtime::test;

namespace {

using PlatformTest = RuntimeTest;

TEST_F(PlatformTest, OpenCLDevicesAreDrivenByTheOpenCLPlatform) {
  Platform &platform = runtime->getPlatform();
  EXPECT_EQ(platform.getKind(), PlatformKind::OpenCL);
  EXPECT_EQ(runtime->getDevice().getPlatformKind(), PlatformKind::OpenCL);
  EXPECT_NE(runtime->getDevice().getCLDevice(), nullptr);
  EXPECT_EQ(runtime->getDevice().getCudaOrdinal(), -1);
  EXPECT_EQ(getPlatformKindName(PlatformKind::OpenCL), "opencl");
  EXPECT_EQ(getPlatformKindName(PlatformKind::Cuda), "cuda");
}

TEST_F(PlatformTest, HandlesRoundTripThroughTheInterface) {
  Platform &platform = runtime->getPlatform();
  std::mt19937 rng(7);
  std::vector<uint8_t> data(100), back(100, 0xAA);
  for (uint8_t &byte : data)
    byte = static_cast<uint8_t>(rng());
  auto handle = platform.allocate(data.size());
  ASSERT_TRUE(bool(handle)) << llvm::toString(handle.takeError());
  ASSERT_OK(platform.write(*handle, data.data(), data.size(), 0));
  // A write at an offset changes only the bytes it covers.
  uint8_t patch[3] = {1, 2, 3};
  ASSERT_OK(platform.write(*handle, patch, 3, 40));
  ASSERT_OK(platform.read(*handle, back.data(), back.size(), 0));
  for (size_t i = 0; i < data.size(); ++i)
    EXPECT_EQ(back[i], i >= 40 && i < 43 ? patch[i - 40] : data[i]) << i;
  ASSERT_OK(platform.fill(*handle, 0x5C, data.size()));
  ASSERT_OK(platform.read(*handle, back.data(), 10, 90));
  for (size_t i = 0; i < 10; ++i)
    EXPECT_EQ(back[i], 0x5C);
  platform.release(*handle);
}

TEST_F(PlatformTest, LaunchThroughTheInterfaceIsTimed) {
  Platform &platform = runtime->getPlatform();
  Kernel &kernel = getKernel("vadd");
  const size_t count = 64;
  std::vector<float> a(count), b(count), c(count, NAN);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (size_t i = 0; i < count; ++i) {
    a[i] = dist(rng);
    b[i] = dist(rng);
  }
  Buffer ba = upload(a), bb = upload(b), bc = upload(c);
  ASSERT_OK(platform.setBufferArgument(kernel, 0, ba));
  ASSERT_OK(platform.setBufferArgument(kernel, 1, bb));
  ASSERT_OK(platform.setBufferArgument(kernel, 2, bc));
  auto ms = platform.launch(kernel, {{count / 8, 1, 1}, {8, 1, 1}});
  ASSERT_TRUE(bool(ms)) << llvm::toString(ms.takeError());
  EXPECT_GE(*ms, 0.0);
  auto result = download<float>(bc);
  for (size_t i = 0; i < count; ++i)
    EXPECT_EQ(result[i], a[i] + b[i]) << i;
}

TEST_F(PlatformTest, ScalarArgumentsOfTheWrongSizeAreRefused) {
  Kernel &kernel = getKernel("scale2d");
  int32_t narrow = 3; // the kernel takes a long here
  llvm::Error err =
      runtime->getPlatform().setArgument(kernel, 1, sizeof(narrow), &narrow);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("CL_INVALID_ARG_SIZE"),
            std::string::npos);
}

TEST_F(PlatformTest, DistinctBuffersHaveDistinctAddresses) {
  Buffer x = upload(std::vector<float>(16, 1.0f));
  Buffer y = upload(std::vector<float>(16, 2.0f));
  auto ax = runtime->getDeviceAddress(x), ay = runtime->getDeviceAddress(y);
  ASSERT_TRUE(bool(ax)) << llvm::toString(ax.takeError());
  ASSERT_TRUE(bool(ay)) << llvm::toString(ay.takeError());
  EXPECT_NE(*ax, 0u);
  EXPECT_NE(*ax, *ay);
  auto again = runtime->getDeviceAddress(x);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(*again, *ax);
}

TEST(PlatformOwnershipTest, BuffersKeepTheirPlatformAlive) {
  Buffer survivor;
  std::vector<float> values = {1, 2, 3, 4};
  {
    auto created = Runtime::create();
    ASSERT_TRUE(bool(created)) << llvm::toString(created.takeError());
    auto buffer = (*created)->upload(values.data(), 16);
    ASSERT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
    survivor = std::move(*buffer);
  }
  EXPECT_TRUE(bool(survivor));
  EXPECT_EQ(survivor.getSize(), 16u);
  survivor.reset(); // releases through the platform the Runtime left behind
  EXPECT_FALSE(bool(survivor));
}

TEST(DeviceSpecTest, PlatformAndIndexSelectOpenCLDevices) {
  auto first = selectDevice("0");
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  for (const char *spec : {"opencl", "OpenCL:0", "opencl:0"}) {
    auto device = selectDevice(spec);
    ASSERT_TRUE(bool(device))
        << spec << ": " << llvm::toString(device.takeError());
    EXPECT_EQ(device->getInfo().platformIndex, 0u);
    EXPECT_EQ(device->getCLDevice(), first->getCLDevice());
  }
  auto outOfRange = selectDevice("opencl:99");
  ASSERT_FALSE(bool(outOfRange));
  llvm::handleAllErrors(outOfRange.takeError(), [](const RuntimeError &e) {
    EXPECT_EQ(e.getKind(), ErrorKind::Input);
    EXPECT_NE(e.getMessage().find("device opencl:99 is out of range"),
              llvm::StringRef::npos);
    EXPECT_EQ(e.getSubject(), InputSubject::Device);
  });
  // Not a platform spec: a name substring that matches nothing.
  auto named = selectDevice("cuda:zero");
  ASSERT_FALSE(bool(named));
  EXPECT_NE(llvm::toString(named.takeError()).find("matches no device"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// CUDA without a driver
//===----------------------------------------------------------------------===//

TEST(CudaPlatformTest, ErrorsAreNamedDeviceErrors) {
  EXPECT_EQ(cuda::getCudaErrorName(2), "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(cuda::getCudaErrorName(218), "CUDA_ERROR_INVALID_PTX");
  llvm::Error err =
      cuda::makeCudaError("cuMemAlloc(64 bytes)", 2, "a detail line");
  llvm::handleAllErrors(std::move(err), [](const RuntimeError &e) {
    EXPECT_EQ(e.getKind(), ErrorKind::Device);
    EXPECT_EQ(e.getMessage(),
              "cuMemAlloc(64 bytes) failed with CUDA_ERROR_OUT_OF_MEMORY (2): "
              "the tensors do not fit into device memory; use smaller "
              "sizes\na detail line");
  });
  EXPECT_FALSE(bool(cuda::checkCuda(0, "cuInit")));
}

TEST(CudaPlatformTest, PtxEntriesAndTheirParameterCounts) {
  const char *ptx = R"(
.version 7.5
.target sm_80
.address_size 64
.visible .entry softmax(
	.param .u64 softmax_param_0,
	.param .u64 softmax_param_1,
	.param .f32 softmax_param_2
)
.reqntid 256, 1, 1
{
	ret;
}
.visible .entry empty()
{
	ret;
}
.func helper(.param .u32 x) { ret; }
)";
  auto entries = listPtxEntries(ptx);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].first, "softmax");
  EXPECT_EQ(entries[0].second, 3u);
  EXPECT_EQ(entries[1].first, "empty");
  EXPECT_EQ(entries[1].second, 0u);
}

TEST(CudaPlatformTest, WithoutADriverOnlyOpenCLDevicesAreListed) {
  auto cudaDevices = listCudaDevices();
  if (cudaDevices) {
    for (const Device &device : *cudaDevices)
      EXPECT_EQ(device.getInfo().format, ModuleFormat::Ptx);
    GTEST_SKIP() << "this machine has a CUDA driver";
  }
  std::string message = llvm::toString(cudaDevices.takeError());
  if (cuda::getDriverLibraryName() == "libcuda.so.1") {
    EXPECT_EQ(message, "no CUDA driver (libcuda.so.1) on this machine");
  }
  auto devices = listDevices();
  ASSERT_TRUE(bool(devices)) << llvm::toString(devices.takeError());
  for (const Device &device : *devices)
    EXPECT_EQ(device.getPlatformKind(), PlatformKind::OpenCL);
  auto selected = selectDevice("cuda:0");
  ASSERT_FALSE(bool(selected));
  llvm::handleAllErrors(selected.takeError(), [&](const RuntimeError &e) {
    EXPECT_EQ(e.getKind(), ErrorKind::Device);
    EXPECT_EQ(e.getMessage(), message);
  });
  auto created = Runtime::create("cuda");
  ASSERT_FALSE(bool(created));
  EXPECT_EQ(llvm::toString(created.takeError()), message);
}

} // namespace
