//===- TcTunerTest.cpp - Autotuning TC defs through the API ---------------===//
#include "comprehend/api/TcTuner.h"
#include "comprehend/api/TcTuning.h"
#include "comprehend/backend/CoreInfo.h"
#include "comprehend/runtime/TuningCache.h"
#include "comprehend/tc/Frontend.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace comprehend;
using namespace comprehend::api;

namespace {

constexpr llvm::StringLiteral kMatmul = R"TC(
def matmul(float(M, K) A, float(K, N) B) -> (C) {
  C(m, n) +=! A(m, k) * B(k, n)
}
)TC";

/// A temporary directory removed at the end of the test.
struct TempDir {
  llvm::SmallString<128> path;
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tc-tuner", path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> result(path);
    llvm::sys::path::append(result, name);
    return std::string(result);
  }
};

TEST(TcTunerTest, SameOutputsToleratesRoundingOnlyForFloats) {
  auto bytesOf = [](auto... values) {
    std::vector<unsigned char> bytes;
    for (auto value : {values...}) {
      auto *raw = reinterpret_cast<const unsigned char *>(&value);
      bytes.insert(bytes.end(), raw, raw + sizeof(value));
    }
    return bytes;
  };
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(sameOutputs(runtime::DType::F32, bytesOf(1.0f, 2.0f),
                          bytesOf(1.0f, 2.0001f)));
  EXPECT_FALSE(sameOutputs(runtime::DType::F32, bytesOf(1.0f, 2.0f),
                           bytesOf(1.0f, 2.1f)));
  EXPECT_TRUE(sameOutputs(runtime::DType::F32, bytesOf(nan), bytesOf(nan)));
  // An element left poisoned is wrong, whatever the other side holds.
  EXPECT_FALSE(sameOutputs(runtime::DType::F32, bytesOf(1.0f), bytesOf(nan)));
  EXPECT_FALSE(sameOutputs(runtime::DType::I32, bytesOf(int32_t(7)),
                           bytesOf(int32_t(8))));
  EXPECT_FALSE(
      sameOutputs(runtime::DType::F32, bytesOf(1.0f), bytesOf(1.0f, 1.0f)));
}

TEST(TcTunerTest, BestConfigurationGoesToTheCacheAndBackToTheKernel) {
  auto rt = runtime::Runtime::create();
  ASSERT_TRUE(bool(rt)) << llvm::toString(rt.takeError());
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags(sourceMgr);
  unsigned buffer = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(kMatmul, "matmul.tc"), llvm::SMLoc());
  std::unique_ptr<tc::Program> program = tc::loadProgram(diags, buffer);
  ASSERT_TRUE(program);
  const tc::Def *def = tc::findEntry(*program, "matmul");
  ASSERT_TRUE(def);
  llvm::StringMap<int64_t> sizes = {{"M", 19}, {"K", 8}, {"N", 10}};

  TempDir dir;
  TcTuneOptions options;
  options.cachePath = dir.file("tuning.json");
  options.tuner.search.maxEvaluations = 4;
  options.tuner.search.seed = 7;
  options.tuner.repeat = 1;
  auto result = tuneTc(**rt, *program, *def, sizes, diags, options);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->tuning.search.numEvaluations, 4u);
  EXPECT_EQ(result->tuning.search.numWrong, 0u);
  EXPECT_GT(result->tuning.search.bestMs, 0);
  EXPECT_LE(result->tuning.search.bestMs, result->tuning.search.defaultMs);
  EXPECT_EQ(result->cachePath, options.cachePath);
  EXPECT_TRUE(result->tuning.search.best.count("work_group_size.0"));

  runtime::TuningCache cache(options.cachePath);
  std::optional<runtime::TuningRecord> record = cache.lookup(result->key);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->config, result->tuning.search.best);

  TcKernelOptions kernelOptions;
  kernelOptions.cachePath = options.cachePath;
  auto kernel =
      TcKernel::compile(**rt, *program, *def, sizes, diags, kernelOptions);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());
  EXPECT_EQ((*kernel)->getConfigSource(), ConfigSource::TuningCache);
  EXPECT_EQ((*kernel)->getConfig(), result->tuning.search.best);
  EXPECT_EQ((*kernel)->getTuningKey().str(), result->key.str());

  // Other sizes are another entry.
  llvm::StringMap<int64_t> other = {{"M", 20}, {"K", 8}, {"N", 10}};
  auto untuned =
      TcKernel::compile(**rt, *program, *def, other, diags, kernelOptions);
  ASSERT_TRUE(bool(untuned)) << llvm::toString(untuned.takeError());
  EXPECT_EQ((*untuned)->getConfigSource(), ConfigSource::Default);
}

TEST(TcTunerTest, StaleCachedConfigurationFallsBackToTheDefaults) {
  auto rt = runtime::Runtime::create();
  ASSERT_TRUE(bool(rt)) << llvm::toString(rt.takeError());
  llvm::StringMap<int64_t> sizes = {{"M", 4}, {"K", 4}, {"N", 4}};
  TcKernelOptions options;
  options.useTuningCache = false;
  auto kernel = TcKernel::compileText(**rt, kMatmul, "matmul", sizes, options);
  ASSERT_TRUE(bool(kernel)) << llvm::toString(kernel.takeError());

  TempDir dir;
  runtime::TuningCache cache(dir.file("tuning.json"));
  ASSERT_FALSE(bool(cache.store((*kernel)->getTuningKey(),
                                {{{"knob_of_an_older_compiler", 3}}, 1.0})));
  std::string warnings;
  llvm::raw_string_ostream os(warnings);
  TcKernelOptions cached;
  cached.cachePath = cache.getPath();
  cached.warnings = &os;
  auto again = TcKernel::compileText(**rt, kMatmul, "matmul", sizes, cached);
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_EQ((*again)->getConfigSource(), ConfigSource::Default);
  EXPECT_NE(os.str().find("ignoring the cached configuration"),
            std::string::npos)
      << os.str();
}

} // namespace

TEST(TcTuningTest, TheMapperKnobsAreSearchedWithTheMapper) {
  std::optional<backend::CoreInfo> core =
      backend::CoreInfo::getPreset("pocl-cpu");
  ASSERT_TRUE(core);
  backend::KernelInfo defaults;
  defaults.workGroupSize = {16, 1};
  TcKnobs knobs;
  auto space = makeTcSearchSpace(knobs, *core, defaults);
  ASSERT_TRUE(bool(space)) << llvm::toString(space.takeError());
  EXPECT_FALSE(space->getDefault().count("tc.fusion"));
  knobs.schedule = true;
  space = makeTcSearchSpace(knobs, *core, defaults);
  ASSERT_TRUE(bool(space)) << llvm::toString(space.takeError());
  runtime::Configuration config = space->getDefault();
  EXPECT_EQ(config["tc.fusion"], 0);
  EXPECT_EQ(config["tc.inner_mapping"], 1);
  EXPECT_FALSE(config.count("tc.schedule"));
  config["tc.fusion"] = 2;
  EXPECT_TRUE(space->isLegal(config));
}
