//===- ProgramTest.cpp - SPIR-V to programs, caches, build errors ---------===//
#include "RuntimeFixture.h"

#include "comprehend/runtime/SpirBridge.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <random>

using namespace comprehend::runtime;
using namespace comprehend::runtime::test;

namespace {

using ProgramTest = RuntimeTest;

TEST_F(ProgramTest, ModuleHasAllKernels) {
  auto names = program->getKernelNames();
  ASSERT_TRUE(bool(names)) << llvm::toString(names.takeError());
  for (const char *name :
       {"empty", "vadd", "fma4", "scalars", "scale2d", "group_scale"})
    EXPECT_NE(std::find(names->begin(), names->end(), name), names->end())
        << name;
}

TEST_F(ProgramTest, InMemoryCacheReturnsTheSameProgram) {
  unsigned builds = runtime->getNumProgramBuilds();
  auto again = runtime->loadProgram(moduleWords);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(*again, program);
  EXPECT_EQ(runtime->getNumProgramBuilds(), builds);
}

TEST_F(ProgramTest, UnknownKernelNamesTheKernels) {
  auto kernel = program->getKernel("nope");
  ASSERT_FALSE(bool(kernel));
  std::string message = llvm::toString(kernel.takeError());
  EXPECT_NE(message.find("no kernel 'nope' in the module"), std::string::npos)
      << message;
  EXPECT_NE(message.find("'vadd'"), std::string::npos) << message;
}

TEST_F(ProgramTest, KernelArgumentCounts) {
  EXPECT_EQ(getKernel("empty").getNumArgs(), 0u);
  EXPECT_EQ(getKernel("vadd").getNumArgs(), 3u);
  EXPECT_EQ(getKernel("scalars").getNumArgs(), 9u);
}

TEST(SpirBridgeTest, RejectsNonSpirv) {
  std::vector<uint32_t> words = {1, 2, 3, 4, 5, 6};
  auto bitcode = translateSpirvToSpir12(words);
  ASSERT_FALSE(bool(bitcode));
  EXPECT_NE(llvm::toString(bitcode.takeError()).find("magic number"),
            std::string::npos);
}

TEST(SpirBridgeTest, ProducesBitcode) {
  auto words = assembleSpirv(getTestModuleText());
  ASSERT_TRUE(bool(words)) << llvm::toString(words.takeError());
  auto bitcode = translateSpirvToSpir12(*words);
  ASSERT_TRUE(bool(bitcode)) << llvm::toString(bitcode.takeError());
  ASSERT_GE(bitcode->size(), 4u);
  // LLVM bitcode magic 'BC' 0xC0DE.
  EXPECT_EQ(bitcode->substr(0, 4), std::string("BC\xC0\xDE", 4));
}

/// A module that translates but that the device cannot build: a call to a
/// function that is declared (imported) but defined nowhere.
TEST_F(ProgramTest, BuildFailureCarriesTheLog) {
  const char *text = R"(
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Linkage
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "calls_missing"
               OpDecorate %missing LinkageAttributes "comprehend_missing_fn" Import
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
    %missing = OpFunction %void None %fn
               OpFunctionEnd
          %k = OpFunction %void None %fn
          %l = OpLabel
          %r = OpFunctionCall %void %missing
               OpReturn
               OpFunctionEnd
)";
  auto words = assembleSpirv(text);
  ASSERT_TRUE(bool(words)) << llvm::toString(words.takeError());
  auto built = runtime->loadProgram(*words);
  if (built) {
    // Some drivers defer linking to kernel creation or launch.
    auto kernel = (*built)->getKernel("calls_missing");
    if (kernel) {
      auto time = runtime->launch(*kernel, {});
      ASSERT_FALSE(bool(time)) << "a call to an undefined function ran";
      llvm::consumeError(time.takeError());
    } else {
      llvm::consumeError(kernel.takeError());
    }
    return;
  }
  std::string message = llvm::toString(built.takeError());
  EXPECT_NE(message.find("clBuildProgram failed with CL_BUILD_PROGRAM_FAILURE "
                         "(-11)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("build log:"), std::string::npos) << message;
}

/// A fresh cache directory, removed with the fixture.
class ProgramDiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("comprehend-cache", dir));
    auto assembled = assembleSpirv(getTestModuleText());
    ASSERT_TRUE(bool(assembled)) << llvm::toString(assembled.takeError());
    words = std::move(*assembled);
    options.programCacheDir = std::string(dir);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// Loads the test module in a new Runtime (a new process would do the
  /// same), checks that its kernel `vadd` runs and returns the origin.
  ProgramOrigin loadInNewRuntime() {
    auto runtime = Runtime::create("", options);
    EXPECT_TRUE(bool(runtime)) << llvm::toString(runtime.takeError());
    if (!runtime)
      return ProgramOrigin::Built;
    path = getEntryPath((*runtime)->getDevice());
    auto program = (*runtime)->loadProgram(words);
    EXPECT_TRUE(bool(program)) << llvm::toString(program.takeError());
    if (!program)
      return ProgramOrigin::Built;
    expectVaddRuns(**runtime, **program);
    return (*program)->getOrigin();
  }

  /// The entry's file: the SPIR 1.2 translation for devices that take it
  /// (PoCL), else the driver's binary.
  std::string getEntryPath(const Device &device) const {
    bool spir12 = device.getInfo().format == ModuleFormat::Spir12;
    return (dir + "/" + getProgramCacheKey(words, device) +
            (spir12 ? ".spir12" : ".clbin"))
        .str();
  }

  /// vadd on fresh random inputs and a poisoned output.
  static void expectVaddRuns(Runtime &runtime, Program &program) {
    auto kernel = program.getKernel("vadd");
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    const size_t n = 37;
    std::mt19937 random(std::random_device{}());
    std::uniform_real_distribution<float> uniform(-1, 1);
    std::vector<float> a(n), b(n), c(n, NAN);
    for (size_t i = 0; i < n; ++i)
      a[i] = uniform(random), b[i] = uniform(random);
    auto da = runtime.upload(a.data(), n * 4);
    auto db = runtime.upload(b.data(), n * 4);
    auto dc = runtime.upload(c.data(), n * 4);
    ASSERT_TRUE(da && db && dc);
    std::vector<ArgValue> values = {
        TensorArg{&*da, DType::F32, {int64_t(n)}, {}},
        TensorArg{&*db, DType::F32, {int64_t(n)}, {}},
        TensorArg{&*dc, DType::F32, {int64_t(n)}, {}}};
    using comprehend::backend::KernelArg;
    // vadd takes the three pointers alone.
    std::vector<KernelArg> layout;
    for (unsigned param = 0; param < 3; ++param)
      layout.push_back({KernelArg::Kind::Pointer, param, 0, 8});
    auto bound = runtime.bindArguments(*kernel, layout, values);
    ASSERT_TRUE(bool(bound)) << llvm::toString(bound.takeError());
    auto time = runtime.launch(*kernel, {{n, 1, 1}, {1, 1, 1}});
    ASSERT_TRUE(bool(time)) << llvm::toString(time.takeError());
    ASSERT_FALSE(bool(runtime.read(*dc, c.data(), n * 4)));
    for (size_t i = 0; i < n; ++i)
      EXPECT_EQ(c[i], a[i] + b[i]) << i;
  }

  llvm::SmallString<128> dir;
  std::vector<uint32_t> words;
  RuntimeOptions options;
  std::string path;
};

TEST_F(ProgramDiskCacheTest, SecondRuntimeLoadsTheEntry) {
  EXPECT_EQ(loadInNewRuntime(), ProgramOrigin::Built);
  EXPECT_TRUE(llvm::sys::fs::exists(path)) << path;
  EXPECT_EQ(loadInNewRuntime(), ProgramOrigin::DiskCache);
}

TEST_F(ProgramDiskCacheTest, CorruptEntriesAreRebuiltAndReplaced) {
  EXPECT_EQ(loadInNewRuntime(), ProgramOrigin::Built);
  auto original = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(original)) << path;
  std::string bytes = (*original)->getBuffer().str();
  // Truncated, one payload byte flipped, the payload without the header,
  // an empty file.
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x40;
  for (const std::string &corrupt : {bytes.substr(0, bytes.size() - 7), flipped,
                                     bytes.substr(24), std::string()}) {
    {
      std::error_code error;
      llvm::raw_fd_ostream os(path, error);
      ASSERT_FALSE(error) << error.message();
      os << corrupt;
    }
    EXPECT_EQ(loadInNewRuntime(), ProgramOrigin::Built);
    // The rebuild wrote a good entry again.
    auto rewritten = llvm::MemoryBuffer::getFile(path);
    ASSERT_TRUE(bool(rewritten));
    EXPECT_EQ((*rewritten)->getBuffer(), bytes);
    EXPECT_EQ(loadInNewRuntime(), ProgramOrigin::DiskCache);
  }
}

TEST_F(ProgramDiskCacheTest, AnotherModuleMisses) {
  EXPECT_EQ(loadInNewRuntime(), ProgramOrigin::Built);
  // The same kernels with one more (unused) id: another module.
  words[3] += 1;
  EXPECT_EQ(loadInNewRuntime(), ProgramOrigin::Built);
  EXPECT_EQ(loadInNewRuntime(), ProgramOrigin::DiskCache);
}

TEST(ProgramCacheKeyTest, DependsOnTheModule) {
  auto device = selectDevice();
  ASSERT_TRUE(bool(device)) << llvm::toString(device.takeError());
  std::vector<uint32_t> a = {0x07230203, 0x10000, 0, 10, 0};
  std::vector<uint32_t> b = {0x07230203, 0x10000, 0, 11, 0};
  EXPECT_NE(getProgramCacheKey(a, *device), getProgramCacheKey(b, *device));
  EXPECT_EQ(getProgramCacheKey(a, *device), getProgramCacheKey(a, *device));
}

TEST(ProgramCacheKeyTest, DependsOnTheDeviceAndDriver) {
  auto device = selectDevice();
  ASSERT_TRUE(bool(device)) << llvm::toString(device.takeError());
  std::vector<uint32_t> module = {0x07230203, 0x10000, 0, 10, 0};
  std::string key = getProgramCacheKey(module, *device);
  auto withInfo = [&](auto change) {
    DeviceInfo info = device->getInfo();
    change(info);
    return getProgramCacheKey(
        module, Device(device->getCLPlatform(), device->getCLDevice(), info));
  };
  EXPECT_NE(withInfo([](DeviceInfo &info) { info.name += " v2"; }), key);
  EXPECT_NE(withInfo([](DeviceInfo &info) { info.driverVersion += ".1"; }),
            key);
  EXPECT_NE(withInfo([](DeviceInfo &info) { info.platformName += "!"; }), key);
  EXPECT_EQ(withInfo([](DeviceInfo &) {}), key);
}

} // namespace

/// A module with one empty kernel named `name`.
static std::vector<uint32_t> makeEmptyKernelModule(const std::string &name) {
  std::string text = R"(
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k ")" +
                     name + R"("
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
          %k = OpFunction %void None %fn
          %l = OpLabel
               OpReturn
               OpFunctionEnd
)";
  auto words = assembleSpirv(text);
  EXPECT_TRUE(bool(words)) << llvm::toString(words.takeError());
  return words ? *words : std::vector<uint32_t>{};
}

TEST(ProgramReleaseTest, OnlyReleasedProgramsAreEvictedOldestFirst) {
  auto runtime = Runtime::create();
  ASSERT_TRUE(bool(runtime)) << llvm::toString(runtime.takeError());
  Runtime &rt = **runtime;
  auto load = [&](const std::vector<uint32_t> &words) {
    auto program = rt.loadProgram(words);
    EXPECT_TRUE(bool(program)) << llvm::toString(program.takeError());
    return program ? *program : nullptr;
  };
  std::vector<uint32_t> held = makeEmptyKernelModule("held");
  Program *heldProgram = load(held);
  std::vector<std::vector<uint32_t>> released;
  for (unsigned i = 0; i <= Runtime::kMaxIdlePrograms; ++i) {
    released.push_back(makeEmptyKernelModule("released" + std::to_string(i)));
    rt.releaseProgram(load(released.back()));
  }
  unsigned builds = rt.getNumProgramBuilds();
  // In use: never evicted. Released last: still cached.
  EXPECT_EQ(load(held), heldProgram);
  rt.releaseProgram(load(released.back()));
  EXPECT_EQ(rt.getNumProgramBuilds(), builds);
  // Released first, then kMaxIdlePrograms others: built again.
  rt.releaseProgram(load(released.front()));
  EXPECT_EQ(rt.getNumProgramBuilds(), builds + 1);
}
