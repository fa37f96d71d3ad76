//===- TcCallOnDeviceTest.cpp - Calls on another library's device memory --===//
//
// TcKernel::callOnDevice against the fake CUDA driver of
// test/unit/runtime/FakeCudaDriver.cpp (its own binary: a process loads its
// CUDA driver once): the launches bind the caller's device addresses, in
// place of the kernel's own buffers, and go to the caller's stream; memory
// that is not the device's, or too small, is an input error, also where an
// earlier call's address at that position passed; only new addresses are
// asked about; an OpenCL device refuses device addresses.
//
//===----------------------------------------------------------------------===//
#include "../runtime/FakeCudaDriver.h"

#include "comprehend/api/TcKernel.h"
#include "comprehend/runtime/Error.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

using namespace comprehend;
using namespace comprehend::api;

namespace {

// Before anything loads a driver: the runtime loads it once per process.
const bool kUseFakeDriver =
    ::setenv("COMPREHEND_CUDA_DRIVER", FAKE_CUDA_DRIVER, /*overwrite=*/1) == 0;

const FakeLaunch &getLastLaunch() {
  void *library = dlopen(FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  auto hook = reinterpret_cast<FakeCudaLastLaunchFn>(
      dlsym(library, "fakeCudaLastLaunch"));
  return *hook();
}

int getPointerQueries() {
  void *library = dlopen(FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  auto hook = reinterpret_cast<FakeCudaPointerQueriesFn>(
      dlsym(library, "fakeCudaPointerQueries"));
  return hook();
}

/// Two launches: the row sums go through a temporary of the kernel's own.
constexpr llvm::StringLiteral kScaledRowSum = R"TC(
def scaled_rowsum(float(M, N) A, float(M) w) -> (T) {
  S(m) +=! A(m, n)
  T(m, n) = A(m, n) * S(m) * w(m)
}
)TC";

/// The 8-byte parameters of a launch, as integers.
std::vector<uint64_t> getWords(const FakeLaunch &launch) {
  std::vector<uint64_t> words;
  for (const std::vector<uint8_t> &param : launch.params)
    if (param.size() == 8) {
      uint64_t word = 0;
      std::memcpy(&word, param.data(), 8);
      words.push_back(word);
    }
  return words;
}

std::string messageOf(llvm::Error error, runtime::ErrorKind kind) {
  std::string message;
  llvm::handleAllErrors(std::move(error), [&](const runtime::RuntimeError &e) {
    EXPECT_EQ(e.getKind(), kind);
    message = e.getMessage().str();
  });
  return message;
}

/// A runtime on a device, and scaled_rowsum compiled there.
class TcCallOnDeviceTest : public ::testing::Test {
protected:
  void compile(llvm::StringRef device, int64_t m, int64_t n) {
    auto created = runtime::Runtime::create(device);
    ASSERT_TRUE(bool(created)) << llvm::toString(created.takeError());
    rt = std::move(*created);
    llvm::StringMap<int64_t> sizes{{"M", m}, {"N", n}};
    auto compiled =
        TcKernel::compileText(*rt, kScaledRowSum, "scaled_rowsum", sizes);
    ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
    kernel = std::move(*compiled);
  }

  std::unique_ptr<runtime::Runtime> rt;
  std::unique_ptr<TcKernel> kernel;
};

TEST_F(TcCallOnDeviceTest, LaunchesBindTheCallersMemoryOnItsStream) {
  ASSERT_TRUE(kUseFakeDriver);
  ASSERT_NO_FATAL_FAILURE(compile("cuda:0", 5, 7));
  // The caller's tensors: device memory the kernel did not allocate.
  auto a = rt->allocate(5 * 7 * 4), w = rt->allocate(5 * 4),
       t = rt->allocate(5 * 7 * 4);
  ASSERT_TRUE(a && w && t);
  uint64_t stream = 0xabc;
  ASSERT_FALSE(bool(kernel->callOnDevice({a->getHandle(), w->getHandle()},
                                         {t->getHandle()}, stream)));
  const FakeLaunch &last = getLastLaunch();
  EXPECT_EQ(last.stream, stream);
  std::vector<uint64_t> words = getWords(last);
  for (uint64_t address : {a->getHandle(), w->getHandle(), t->getHandle()})
    EXPECT_NE(std::find(words.begin(), words.end(), address), words.end())
        << "the last launch does not read or write 0x" << std::hex << address;

  // Host memory, and device memory too small for the tensor, are refused.
  std::vector<float> host(5 * 7);
  EXPECT_NE(
      messageOf(kernel->callOnDevice(
                    {reinterpret_cast<uint64_t>(host.data()), w->getHandle()},
                    {t->getHandle()}, 0),
                runtime::ErrorKind::Input)
          .find("is not CUDA device memory"),
      std::string::npos);
  EXPECT_NE(messageOf(kernel->callOnDevice({w->getHandle(), w->getHandle()},
                                           {t->getHandle()}, 0),
                      runtime::ErrorKind::Input)
                .find("fewer than the 140 the tensor needs"),
            std::string::npos);
  EXPECT_NE(
      messageOf(kernel->callOnDevice({a->getHandle()}, {t->getHandle()}, 0),
                runtime::ErrorKind::Input)
          .find("takes 2 inputs and 1 outputs"),
      std::string::npos);
}

TEST_F(TcCallOnDeviceTest, OnlyAddressesNewAtTheirPositionAreCheckedAgain) {
  ASSERT_TRUE(kUseFakeDriver);
  ASSERT_NO_FATAL_FAILURE(compile("cuda:0", 3, 4));
  constexpr size_t kMatrixBytes = 12 * sizeof(float);
  auto a = rt->allocate(kMatrixBytes), w = rt->allocate(kMatrixBytes),
       t = rt->allocate(kMatrixBytes), u = rt->allocate(kMatrixBytes);
  ASSERT_TRUE(a && w && t && u);
  auto call = [&](uint64_t input, uint64_t output) {
    return kernel->callOnDevice({input, w->getHandle()}, {output}, 0);
  };
  int before = getPointerQueries();
  ASSERT_FALSE(bool(call(a->getHandle(), t->getHandle())));
  EXPECT_EQ(getPointerQueries() - before, 3);
  // The same tensors again: no query; a new output: one.
  ASSERT_FALSE(bool(call(a->getHandle(), t->getHandle())));
  EXPECT_EQ(getPointerQueries() - before, 3);
  ASSERT_FALSE(bool(call(a->getHandle(), u->getHandle())));
  EXPECT_EQ(getPointerQueries() - before, 4);
  std::vector<uint64_t> words = getWords(getLastLaunch());
  EXPECT_NE(std::find(words.begin(), words.end(), u->getHandle()), words.end());
  // A refused address is asked about each time it comes.
  std::vector<float> host(12);
  auto hostAddress = reinterpret_cast<uint64_t>(host.data());
  for (int i = 0; i < 2; ++i)
    EXPECT_NE(
        messageOf(call(hostAddress, t->getHandle()), runtime::ErrorKind::Input)
            .find("is not CUDA device memory"),
        std::string::npos);
}

TEST_F(TcCallOnDeviceTest, AnOpenCLDeviceRefusesDeviceAddresses) {
  ASSERT_NO_FATAL_FAILURE(compile("opencl", 2, 3));
  EXPECT_EQ(messageOf(kernel->callOnDevice({0x1000, 0x2000}, {0x3000}, 0),
                      runtime::ErrorKind::Device),
            "device memory of another library can only be passed to a CUDA "
            "device; this device is driven through opencl");
}

} // namespace
