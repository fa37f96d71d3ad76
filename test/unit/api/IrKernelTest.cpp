//===- IrKernelTest.cpp - api::IrKernel and the shared tuner --------------===//
#include "comprehend/api/IrKernel.h"
#include "comprehend/api/Tuner.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Diagnostics.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"
#include "comprehend/runtime/TuningKernel.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::api;

namespace {

constexpr const char *kGemm = R"(
func @gemm(%A: memref<f32 x 16 x 8>, %B: memref<f32 x 8 x 12>,
           %C: memref<f32 x 16 x 12>) {
  %one = constant 1.0 : f32
  %zero = constant 0.0 : f32
  gemm.n.n %one, %A, %B, %zero, %C
}
)";

/// A parsed and verified program; the source manager and context outlive
/// the kernels compiled from it.
struct IrSource {
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  ir::Context ctx;
  std::unique_ptr<ir::Program> program;

  explicit IrSource(llvm::StringRef text) {
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "gemm.ir"), llvm::SMLoc());
    program = ir::parseSource(ctx, diags, sourceMgr.getMainFileID());
    EXPECT_TRUE(program && succeeded(ir::verify(*program, diags)));
  }
};

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("ir-kernel", path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> result(path);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
};

TEST(IrKernelTest, TunedThroughTheSharedTunerAndFoundInTheCache) {
  auto rt = runtime::Runtime::create();
  ASSERT_TRUE(bool(rt)) << llvm::toString(rt.takeError());
  IrSource source(kGemm);
  IrKernelOptions untuned;
  untuned.useTuningCache = false;
  auto kernel = IrKernel::compile(**rt, *source.program, source.diags, "gemm",
                                  {1, 1, 1}, {}, untuned);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ((*kernel)->getConfigSource(), ConfigSource::Default);
  EXPECT_NE((*kernel)->getTuningKey().sizes.find("%A=512B"), std::string::npos)
      << (*kernel)->getTuningKey().str();

  // The space of an .ir kernel holds the launch knobs only.
  auto space = (*kernel)->getSearchSpace();
  ASSERT_TRUE(bool(space)) << llvm::toString(space.takeError());
  EXPECT_TRUE(space->lookup(runtime::kWorkGroupSize0));
  EXPECT_TRUE(space->lookup(runtime::kSubgroupSize));
  EXPECT_FALSE(space->lookup("gemm.rows"));

  TempDir dir;
  TuneOptions options;
  options.cachePath = dir.file("tuning.json");
  options.tuner.search.maxEvaluations = 3;
  options.tuner.search.seed = 3;
  options.tuner.repeat = 1;
  auto result = tuneKernel(**kernel, options);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->tuning.search.numEvaluations, 3u);
  EXPECT_EQ(result->tuning.search.numWrong, 0u);
  EXPECT_EQ(result->cachePath, options.cachePath);
  EXPECT_EQ(result->key.str(), (*kernel)->getTuningKey().str());

  // A second kernel of the same source finds the stored answer.
  IrSource again(kGemm);
  IrKernelOptions cached;
  cached.cachePath = options.cachePath;
  auto tuned = IrKernel::compile(**rt, *again.program, again.diags, "gemm",
                                 {1, 1, 1}, {}, cached);
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_EQ((*tuned)->getConfigSource(), ConfigSource::TuningCache);
  EXPECT_EQ((*tuned)->getConfig(), result->tuning.search.best);
}

TEST(IrKernelTest, RecompiledKernelComputesTheSameOutputs) {
  auto rt = runtime::Runtime::create();
  ASSERT_TRUE(bool(rt)) << llvm::toString(rt.takeError());
  IrSource source(kGemm);
  IrKernelOptions options;
  options.useTuningCache = false;
  auto kernel = IrKernel::compile(**rt, *source.program, source.diags, "gemm",
                                  {1, 1, 1}, {}, options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  auto inputs = (*kernel)->makeTuningInputs(0);
  ASSERT_TRUE(bool(inputs)) << llvm::toString(inputs.takeError());
  EXPECT_EQ(inputs->size(), 3u);
  auto reference = (*kernel)->runOnInputs(*inputs);
  ASSERT_TRUE(bool(reference)) << llvm::toString(reference.takeError());

  runtime::Configuration config = {
      {"work_group_size.0", 4}, {"work_group_size.1", 2}, {"subgroup_size", 1}};
  auto other = (*kernel)->recompile(config);
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  EXPECT_EQ((*other)->getConfig(), config);
  auto outputs = (*other)->runOnInputs(*inputs);
  ASSERT_TRUE(bool(outputs)) << llvm::toString(outputs.takeError());
  ASSERT_EQ(outputs->size(), reference->size());
  for (size_t i = 0; i < outputs->size(); ++i) {
    EXPECT_EQ((*outputs)[i].name, (*reference)[i].name);
    EXPECT_TRUE(sameOutputs((*outputs)[i].dtype, (*outputs)[i].bytes,
                            (*reference)[i].bytes))
        << (*outputs)[i].name;
  }
}

TEST(IrKernelTest, GivenConfigurationIsChecked) {
  auto rt = runtime::Runtime::create();
  ASSERT_TRUE(bool(rt)) << llvm::toString(rt.takeError());
  IrSource source(kGemm);
  IrKernelOptions options;
  options.config = {{"bogus", 1}};
  auto kernel = IrKernel::compile(**rt, *source.program, source.diags, "gemm",
                                  {1, 1, 1}, {}, options);
  ASSERT_FALSE(bool(kernel));
  EXPECT_EQ(llvm::toString(kernel.takeError()),
            "unknown tuning parameter 'bogus'");
}

} // namespace
