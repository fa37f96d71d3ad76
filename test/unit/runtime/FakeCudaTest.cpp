//===- FakeCudaTest.cpp - The CUDA platform against a fake driver ---------===//
//
// The CUDA platform's code paths without a GPU: COMPREHEND_CUDA_DRIVER points
// at FakeCudaDriver.cpp, whose one device keeps its memory on the host and
// records launches instead of running them. Kernels come from the backend's
// real NVIDIA path (tensor language -> SPIR-V -> PTX), so the parameters the
// platform passes to cuLaunchKernel are checked against the calling
// convention the backend reports.
//
//===----------------------------------------------------------------------===//
#include "FakeCudaDriver.h"

#include "comprehend/runtime/Error.h"
#include "comprehend/runtime/Executable.h"
#include "comprehend/runtime/Runtime.h"

#include "gtest/gtest.h"

#include <spirv-tools/libspirv.hpp>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <set>

using namespace comprehend;
using namespace comprehend::runtime;

namespace {

// Before anything loads a driver: the runtime loads it once per process.
const bool kUseFakeDriver =
    ::setenv("COMPREHEND_CUDA_DRIVER", FAKE_CUDA_DRIVER, /*overwrite=*/1) == 0;

template <typename Fn> Fn getHook(const char *name) {
  void *library = dlopen(FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  return library ? reinterpret_cast<Fn>(dlsym(library, name)) : nullptr;
}

const FakeLaunch &getLastLaunch() {
  return *getHook<FakeCudaLastLaunchFn>("fakeCudaLastLaunch")();
}

int getLiveAllocations() {
  return getHook<FakeCudaLiveAllocationsFn>("fakeCudaLiveAllocations")();
}

TEST(FakeCudaTest, TheDeviceIsListedAfterTheOpenCLOnes) {
  ASSERT_TRUE(kUseFakeDriver);
  auto devices = listDevices();
  ASSERT_TRUE(bool(devices)) << llvm::toString(devices.takeError());
  ASSERT_FALSE(devices->empty());
  const Device &last = devices->back();
  const DeviceInfo &info = last.getInfo();
  EXPECT_EQ(last.getPlatformKind(), PlatformKind::Cuda);
  EXPECT_EQ(last.getCudaOrdinal(), 0);
  EXPECT_EQ(info.index, devices->size() - 1);
  EXPECT_EQ(info.platformIndex, 0u);
  EXPECT_EQ(info.name, "Fake GPU");
  EXPECT_EQ(info.getFullName(), "NVIDIA CUDA / Fake GPU");
  EXPECT_EQ(info.type, "gpu");
  EXPECT_EQ(info.driverVersion, "CUDA 12.4");
  EXPECT_EQ(info.deviceVersion, "sm_80");
  EXPECT_EQ(info.format, ModuleFormat::Ptx);
  EXPECT_EQ(info.computeUnits, 4u);
  EXPECT_EQ(info.globalMemoryBytes, uint64_t(1) << 30);
  EXPECT_EQ(info.core.cudaComputeCapability, 80u);
  EXPECT_EQ(info.core.maxWorkGroupSize, 1024u);
  EXPECT_EQ(info.core.localMemoryBytes, 48u * 1024);
  ASSERT_EQ(info.core.subgroupSizes.size(), 1u);
  EXPECT_EQ(info.core.subgroupSizes.front(), 32u);
  for (const char *spec : {"cuda", "cuda:0", "CUDA:0", "fake gpu"}) {
    auto selected = selectDevice(spec);
    ASSERT_TRUE(bool(selected)) << spec;
    EXPECT_EQ(selected->getInfo().index, info.index) << spec;
  }
  auto outOfRange = selectDevice("cuda:1");
  ASSERT_FALSE(bool(outOfRange));
  EXPECT_EQ(llvm::toString(outOfRange.takeError()),
            "device cuda:1 is out of range: there is 1 CUDA device");
}

TEST(FakeCudaTest, MemoryRoundTripsAndIsFreed) {
  int before = getLiveAllocations();
  {
    auto runtime = Runtime::create("cuda:0");
    ASSERT_TRUE(bool(runtime)) << llvm::toString(runtime.takeError());
    Runtime &rt = **runtime;
    EXPECT_EQ(rt.getPlatform().getKind(), PlatformKind::Cuda);
    std::vector<float> values(37);
    std::mt19937 rng(3);
    for (float &v : values)
      v = std::uniform_real_distribution<float>(-1, 1)(rng);
    auto buffer = rt.upload(values.data(), values.size() * 4);
    ASSERT_TRUE(bool(buffer)) << llvm::toString(buffer.takeError());
    float patch = 42;
    ASSERT_FALSE(bool(rt.write(*buffer, &patch, 4, 8)));
    std::vector<float> back(values.size());
    ASSERT_FALSE(bool(rt.read(*buffer, back.data(), back.size() * 4)));
    values[2] = patch;
    EXPECT_EQ(back, values);
    ASSERT_FALSE(bool(rt.fill(*buffer, 0)));
    ASSERT_FALSE(bool(rt.read(*buffer, back.data(), back.size() * 4)));
    EXPECT_EQ(back, std::vector<float>(values.size(), 0.0f));
    // The device address of a CUDA buffer is its CUdeviceptr.
    auto address = rt.getDeviceAddress(*buffer);
    ASSERT_TRUE(bool(address));
    EXPECT_EQ(*address, buffer->getHandle());
    EXPECT_EQ(getLiveAllocations(), before + 1);

    auto tooLarge = rt.allocate(size_t(2) << 30);
    ASSERT_FALSE(bool(tooLarge));
    EXPECT_EQ(llvm::toString(tooLarge.takeError()),
              "cuMemAlloc(2147483648 bytes) failed with "
              "CUDA_ERROR_OUT_OF_MEMORY (2): the tensors do not fit into "
              "device memory; use smaller sizes");
  }
  EXPECT_EQ(getLiveAllocations(), before);
}

TEST(FakeCudaTest, BorrowedDeviceMemoryIsCheckedAndNeverFreed) {
  auto runtime = Runtime::create("cuda:0");
  ASSERT_TRUE(bool(runtime)) << llvm::toString(runtime.takeError());
  Runtime &rt = **runtime;
  auto owned = rt.allocate(64);
  ASSERT_TRUE(bool(owned)) << llvm::toString(owned.takeError());
  int before = getLiveAllocations();
  {
    auto borrowed = rt.wrapDeviceMemory(owned->getHandle() + 16, 48);
    ASSERT_TRUE(bool(borrowed)) << llvm::toString(borrowed.takeError());
    EXPECT_TRUE(borrowed->isBorrowed());
    EXPECT_EQ(borrowed->getHandle(), owned->getHandle() + 16);
    EXPECT_EQ(borrowed->getSize(), 48u);
  }
  EXPECT_EQ(getLiveAllocations(), before);

  auto expectRefused = [&](uint64_t address, size_t bytes,
                           llvm::StringRef why) {
    auto refused = rt.wrapDeviceMemory(address, bytes);
    ASSERT_FALSE(bool(refused));
    llvm::handleAllErrors(refused.takeError(), [&](const RuntimeError &e) {
      EXPECT_EQ(e.getKind(), ErrorKind::Input);
      EXPECT_NE(e.getMessage().find(why), llvm::StringRef::npos)
          << e.getMessage().str();
    });
  };
  expectRefused(owned->getHandle() + 16, 64,
                "holds 48 bytes, fewer than the 64 the tensor needs");
  std::vector<float> host(4);
  expectRefused(reinterpret_cast<uint64_t>(host.data()), 16,
                "is not CUDA device memory");
}

/// The convention's argument kinds: scalar; memref pointer and dynamic
/// shape; group pointer (address table) and size; bool.
const char *const kArgs = R"(
func @args(%s: f32, %A: memref<f32x?x8>, %G: group<memref<f32x4>x?>,
           %flag: bool) {
  parallel {
    %c1 = constant 1 : index
    %a = load %A[%c1, %c1] : f32
    store %a, %A[%c1, %c1]
  }
}
)";

/// Checks the bytes the fake driver received for argument `i` against the
/// value the calling convention binds to it.
void checkLaunchedArgument(const backend::KernelArg &arg, size_t i,
                           const std::vector<uint8_t> &bytes,
                           llvm::ArrayRef<ArgValue> values,
                           const Buffer &bufferA, const Buffer &bufferG) {
  using Kind = backend::KernelArg::Kind;
  ASSERT_EQ(bytes.size(), arg.kind == Kind::Scalar ? arg.sizeInBytes : 8u)
      << "argument " << i;
  uint64_t word = 0;
  std::memcpy(&word, bytes.data(), std::min<size_t>(bytes.size(), 8));
  switch (arg.kind) {
  case Kind::Scalar: {
    const auto &scalar = std::get<ScalarArg>(values[arg.paramIndex]);
    EXPECT_EQ(bytes,
              std::vector<uint8_t>(scalar.bytes.begin(),
                                   scalar.bytes.begin() + scalar.getSize()))
        << "argument " << i;
    break;
  }
  case Kind::Pointer:
    EXPECT_EQ(word, bufferA.getHandle());
    break;
  case Kind::DynamicShape:
  case Kind::DynamicStride: {
    const auto &tensor = std::get<TensorArg>(values[arg.paramIndex]);
    EXPECT_EQ(int64_t(word), arg.kind == Kind::DynamicShape
                                 ? tensor.shape[arg.mode]
                                 : tensor.getStrides()[arg.mode]);
    break;
  }
  case Kind::GroupPointer: {
    // The address table holds each member's address: the fake device's
    // memory is the host's, so the table reads directly.
    const auto *table = reinterpret_cast<const uint64_t *>(word);
    for (uint64_t member = 0; member < 3; ++member)
      EXPECT_EQ(table[member], bufferG.getHandle() + member * 16);
    break;
  }
  case Kind::GroupSize:
    EXPECT_EQ(word, 3u);
    break;
  default:
    ADD_FAILURE() << "unexpected argument kind at " << i;
  }
}

TEST(FakeCudaTest, LaunchesPassTheCallingConvention) {
  auto runtime = Runtime::create("cuda");
  ASSERT_TRUE(bool(runtime)) << llvm::toString(runtime.takeError());
  Runtime &rt = **runtime;
  auto executable = Executable::compileText(rt, kArgs, "args.ir");
  ASSERT_TRUE(bool(executable)) << llvm::toString(executable.takeError());
  auto entry = (*executable)->getEntry("args");
  ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());

  std::vector<float> a(5 * 8, 1.0f), g(3 * 4, 2.0f);
  auto bufferA = rt.upload(a.data(), a.size() * 4);
  auto bufferG = rt.upload(g.data(), g.size() * 4);
  ASSERT_TRUE(bufferA && bufferG);
  std::vector<ArgValue> values = {
      ScalarArg::f32(1.5f), TensorArg{&*bufferA, DType::F32, {5, 8}, {}},
      GroupArg::stacked(*bufferG, DType::F32, {4}, 3),
      ScalarArg::make(DType::Bool, uint8_t(1))};
  const backend::KernelInfo &info = entry->info;
  auto program = rt.loadProgram((*executable)->getSpirv());
  ASSERT_TRUE(bool(program)) << llvm::toString(program.takeError());
  auto kernel = (*program)->getKernel("args");
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  // Kept until the checks below: the group's address table lives in it.
  auto bound = rt.bindArguments(*kernel, info.args, values);
  ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
  LaunchConfig config{{2, 3, 1},
                      {info.workGroupSize[0], info.workGroupSize[1], 1}};
  auto timing = rt.time(*kernel, config, 2);
  ASSERT_TRUE(bool(timing)) << llvm::toString(timing.takeError());
  EXPECT_EQ(timing->kernelMs, std::vector<double>(2, 0.25));

  const FakeLaunch &launch = getLastLaunch();
  EXPECT_EQ(launch.kernel, "args");
  EXPECT_EQ(launch.grid, (std::array<unsigned, 3>{2, 3, 1}));
  EXPECT_EQ(launch.block, (std::array<unsigned, 3>{info.workGroupSize[0],
                                                   info.workGroupSize[1], 1}));
  EXPECT_EQ(launch.sharedMemBytes, 0u);
  EXPECT_EQ(launch.stream, 0u);
  ASSERT_EQ(launch.params.size(), info.args.size());
  std::set<backend::KernelArg::Kind> kinds;
  for (size_t i = 0; i < info.args.size(); ++i) {
    checkLaunchedArgument(info.args[i], i, launch.params[i], values, *bufferA,
                          *bufferG);
    kinds.insert(info.args[i].kind);
  }
  using Kind = backend::KernelArg::Kind;
  for (Kind kind : {Kind::Scalar, Kind::Pointer, Kind::DynamicShape,
                    Kind::GroupPointer, Kind::GroupSize})
    EXPECT_TRUE(kinds.count(kind)) << "no argument of kind " << int(kind);

  // Launches go to the stream set last (another library's, say).
  rt.setStream(0x5eed);
  ASSERT_FALSE(bool(rt.launch(*kernel, config).takeError()));
  EXPECT_EQ(getLastLaunch().stream, 0x5eedu);
  rt.setStream(0);
  ASSERT_FALSE(bool(rt.launch(*kernel, config).takeError()));
  EXPECT_EQ(getLastLaunch().stream, 0u);

  // A grid past CUDA's 65535 work-groups in y is refused before the driver
  // sees it, by name.
  LaunchConfig tooTall{{1, 65536, 1}, config.workGroupSize};
  auto refused = rt.launch(*kernel, tooTall);
  ASSERT_FALSE(bool(refused));
  std::string message = llvm::toString(refused.takeError());
  EXPECT_NE(message.find("65536 work-groups in dimension 1 exceed CUDA's "
                         "limit of 65535"),
            std::string::npos)
      << message;
  EXPECT_EQ(getLastLaunch().grid, (std::array<unsigned, 3>{2, 3, 1}));
}

TEST(FakeCudaTest, DriverErrorsAreNamedWithTheJitLog) {
  auto runtime = Runtime::create("cuda:0");
  ASSERT_TRUE(bool(runtime)) << llvm::toString(runtime.takeError());
  // A module without kernels: the fake driver refuses PTX without an entry.
  spvtools::SpirvTools tools(SPV_ENV_OPENCL_1_2);
  std::vector<uint32_t> words;
  ASSERT_TRUE(tools.Assemble(R"(
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Linkage
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
)",
                             &words));
  auto empty = (*runtime)->loadProgram(words);
  ASSERT_FALSE(bool(empty));
  std::string message = llvm::toString(empty.takeError());
  EXPECT_NE(message.find("cuModuleLoadDataEx failed with "
                         "CUDA_ERROR_INVALID_PTX (218)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("JIT log:\nptxas fatal   : the module has no entry"),
            std::string::npos)
      << message;

  auto executable = Executable::compileText(**runtime, kArgs, "args.ir");
  ASSERT_TRUE(bool(executable)) << llvm::toString(executable.takeError());
  auto program = (*runtime)->loadProgram((*executable)->getSpirv());
  ASSERT_TRUE(bool(program));
  auto missing = (*program)->getKernel("nope");
  ASSERT_FALSE(bool(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "no kernel 'nope' in the module; it has 'args'");
  auto kernel = (*program)->getKernel("args");
  ASSERT_TRUE(bool(kernel));
  // Nothing bound yet: the platform refuses before the driver is called.
  auto unbound = (*runtime)->launch(*kernel, {});
  ASSERT_FALSE(bool(unbound));
  EXPECT_EQ(llvm::toString(unbound.takeError()),
            "cuLaunchKernel(args): argument 0 was not set; pass every "
            "parameter");
}

} // namespace
