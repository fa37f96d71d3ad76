//===- PipelineTest.cpp - The one compilation pipeline --------------------===//
//
// api::Pipeline on its own: a configuration checked and turned into
// options, the launch attributes on every kernel of a lowered def (and
// none from an empty configuration), the def's errors as diagnostics, and a
// build on the default device whose entries are the def's kernels.
//
//===----------------------------------------------------------------------===//
#include "comprehend/api/Pipeline.h"
#include "comprehend/ir/Function.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/runtime/Error.h"
#include "comprehend/tc/Frontend.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::api;

namespace {

// A gemm (a kernel of its own) and an elementwise statement: two kernels.
constexpr llvm::StringLiteral kTwoKernels = R"TC(
def matmul_relu(float(M, K) X, float(K, N) W) -> (Y, P) {
  P(m, n) +=! X(m, k) * W(k, n)
  Y(m, n) = fmax(P(m, n), 0.0)
}
)TC";

/// A parsed and checked TC source and its diagnostics.
struct Source {
  llvm::SourceMgr sourceMgr;
  std::string messages;
  llvm::raw_string_ostream os{messages};
  DiagnosticEngine diags{sourceMgr, os};
  std::unique_ptr<tc::Program> program;

  explicit Source(llvm::StringRef text) {
    unsigned id = sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "pipeline.tc"),
        llvm::SMLoc());
    program = tc::loadProgram(diags, id);
  }
  TcSource at(llvm::StringMap<int64_t> sizes) const {
    return {program.get(), tc::findEntry(*program, ""), std::move(sizes),
            std::nullopt};
  }
};

backend::CoreInfo getCore(llvm::StringRef name) {
  std::optional<backend::CoreInfo> core = backend::CoreInfo::getPreset(name);
  EXPECT_TRUE(core) << name.str();
  return core ? *core : backend::CoreInfo();
}

std::string print(const ir::Program &program) {
  std::string text;
  llvm::raw_string_ostream os(text);
  ir::print(program, os);
  return os.str();
}

TEST(PipelineTest, ConfigureChecksNamesAndValues) {
  backend::CoreInfo core = getCore("pocl-cpu");
  auto unknown = Pipeline::configure(core, {{"tc.no_such_knob", 1}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown tuning parameter 'tc.no_such_knob'");
  auto illegal = Pipeline::configure(core, {{"tc.inner_mapping", 2}});
  ASSERT_FALSE(illegal);
  EXPECT_NE(llvm::toString(illegal.takeError()).find("tc.inner_mapping"),
            std::string::npos);
  // The knobs reach the options, on top of the core's cost rules.
  auto tuned = Pipeline::configure(core, {{"tc.group_work", 128}});
  ASSERT_TRUE(bool(tuned)) << llvm::toString(tuned.takeError());
  EXPECT_EQ(tuned->getOptions().lowering.groupWork, 128);
  auto defaults = configureCompilation(core, {});
  ASSERT_TRUE(bool(defaults)) << llvm::toString(defaults.takeError());
  EXPECT_EQ(tuned->getOptions().lowering.vectorRows,
            defaults->lowering.vectorRows);
}

TEST(PipelineTest, LowerSetsTheLaunchOfEveryKernel) {
  Source source(kTwoKernels);
  ASSERT_TRUE(source.program) << source.messages;
  TcSource def = source.at({{"M", 8}, {"N", 16}, {"K", 4}});
  backend::CoreInfo core = getCore("pocl-cpu");
  auto pipeline = Pipeline::configure(
      core, {{"work_group_size.0", 8}, {"work_group_size.1", 2}});
  ASSERT_TRUE(bool(pipeline)) << llvm::toString(pipeline.takeError());
  auto lowered = pipeline->lower(def, source.diags);
  ASSERT_TRUE(bool(lowered))
      << llvm::toString(lowered.takeError()) << source.messages;
  ASSERT_EQ(lowered->def.kernels.size(), 2u) << print(*lowered->program);
  for (const tc::LoweredKernel &kernel : lowered->def.kernels)
    EXPECT_EQ(kernel.function->getWorkGroupSize(),
              (std::array<int64_t, 2>{8, 2}))
        << kernel.function->getName().str();

  // An empty configuration keeps what the lowering wrote, ranges inferred
  // once or not.
  auto defaults = Pipeline::configure(core, {});
  ASSERT_TRUE(bool(defaults));
  auto plain = defaults->lower(def, source.diags);
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  ir::Context ctx;
  ir::Program direct(ctx);
  ASSERT_TRUE(tc::lowerDef(*def.program, *def.def, def.sizes, direct,
                           source.diags, defaults->getOptions().lowering));
  EXPECT_EQ(print(*plain->program), print(direct));
  def.inferRanges();
  ASSERT_TRUE(def.ranges);
  auto fromRanges = defaults->lower(def, source.diags);
  ASSERT_TRUE(bool(fromRanges)) << llvm::toString(fromRanges.takeError());
  EXPECT_EQ(print(*fromRanges->program), print(direct));
}

TEST(PipelineTest, LowerReportsTheDefsErrors) {
  Source source(kTwoKernels);
  ASSERT_TRUE(source.program) << source.messages;
  auto pipeline = Pipeline::configure(getCore("pocl-cpu"), {});
  ASSERT_TRUE(bool(pipeline));
  // N has no value: a located diagnostic, and an input error.
  auto lowered = pipeline->lower(source.at({{"M", 8}, {"K", 4}}), source.diags);
  ASSERT_FALSE(lowered);
  llvm::handleAllErrors(lowered.takeError(),
                        [](const runtime::RuntimeError &error) {
                          EXPECT_EQ(error.getKind(), runtime::ErrorKind::Input);
                        });
  EXPECT_TRUE(source.diags.hasErrors());
  EXPECT_NE(source.messages.find("pipeline.tc:"), std::string::npos)
      << source.messages;
}

/// kTwoKernels and the pipeline of the default device's core.
class PipelineOnDeviceTest : public testing::Test {
protected:
  void SetUp() override {
    auto created = runtime::Runtime::create();
    ASSERT_TRUE(bool(created)) << llvm::toString(created.takeError());
    rt = std::move(*created);
    ASSERT_TRUE(source.program) << source.messages;
    auto configured = Pipeline::configure(rt->getCoreInfo(), {});
    ASSERT_TRUE(bool(configured)) << llvm::toString(configured.takeError());
    pipeline.emplace(std::move(*configured));
  }

  std::unique_ptr<runtime::Runtime> rt;
  Source source{kTwoKernels};
  std::optional<Pipeline> pipeline;
};

TEST_F(PipelineOnDeviceTest, CompileBuildsEveryKernel) {
  auto compiled = pipeline->compile(
      *rt, source.at({{"M", 5}, {"N", 33}, {"K", 7}}), source.diags);
  ASSERT_TRUE(bool(compiled))
      << llvm::toString(compiled.takeError()) << source.messages;
  EXPECT_FALSE(compiled->executable->getSpirv().empty());
  ASSERT_EQ(compiled->def.kernels.size(), 2u);
  for (const tc::LoweredKernel &kernel : compiled->def.kernels) {
    auto entry = compiled->executable->getEntry(kernel.function->getName());
    ASSERT_TRUE(bool(entry)) << llvm::toString(entry.takeError());
    EXPECT_EQ(entry->params.size(), kernel.tensorIndices.size());
  }
}

TEST_F(PipelineOnDeviceTest, BuildRefusesTensorsTheDeviceCannotHold) {
  int64_t huge = int64_t(1) << 20;
  auto compiled = pipeline->compile(
      *rt, source.at({{"M", huge}, {"N", huge}, {"K", 2}}), source.diags);
  ASSERT_FALSE(compiled);
  std::string message;
  llvm::handleAllErrors(
      compiled.takeError(), [&](const runtime::RuntimeError &error) {
        EXPECT_EQ(error.getKind(), runtime::ErrorKind::Device);
        message = error.getMessage().str();
      });
  // The first tensor that does not fit: the output Y (X is M x 2).
  EXPECT_NE(message.find("tensor 'Y'"), std::string::npos) << message;
}

} // namespace
