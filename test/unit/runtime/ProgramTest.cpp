//===- ProgramTest.cpp - SPIR-V to programs, caches, build errors ---------===//
#include "RuntimeFixture.h"

#include "comprehend/runtime/SpirBridge.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

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

TEST(ProgramDiskCacheTest, SecondRuntimeLoadsTheBinary) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("comprehend-cache", dir));
  auto words = assembleSpirv(getTestModuleText());
  ASSERT_TRUE(bool(words)) << llvm::toString(words.takeError());
  RuntimeOptions options;
  options.programCacheDir = std::string(dir);
  {
    auto first = Runtime::create("", options);
    ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
    auto built = (*first)->loadProgram(*words);
    ASSERT_TRUE(bool(built)) << llvm::toString(built.takeError());
    EXPECT_EQ((*built)->getOrigin(), ProgramOrigin::Built);
  }
  std::string key;
  {
    auto second = Runtime::create("", options);
    ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
    key = getProgramCacheKey(*words, (*second)->getDevice());
    auto loaded = (*second)->loadProgram(*words);
    ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
    EXPECT_EQ((*loaded)->getOrigin(), ProgramOrigin::DiskCache);
    EXPECT_EQ((*second)->getNumProgramBuilds(), 0u);
    // The cached program still runs.
    auto kernel = (*loaded)->getKernel("empty");
    ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
    auto time = (*second)->launch(*kernel, {});
    ASSERT_TRUE(bool(time)) << llvm::toString(time.takeError());
  }
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/" + key + ".clbin"));
  llvm::sys::fs::remove_directories(dir);
}

TEST(ProgramCacheKeyTest, DependsOnTheModule) {
  auto device = selectDevice();
  ASSERT_TRUE(bool(device)) << llvm::toString(device.takeError());
  std::vector<uint32_t> a = {0x07230203, 0x10000, 0, 10, 0};
  std::vector<uint32_t> b = {0x07230203, 0x10000, 0, 11, 0};
  EXPECT_NE(getProgramCacheKey(a, *device), getProgramCacheKey(b, *device));
  EXPECT_EQ(getProgramCacheKey(a, *device), getProgramCacheKey(a, *device));
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
