//===- DefPassesTest.cpp - The def-level passes of the TC lowering --------===//
//
// LoweringOptions::printDefAfter sees every def-level pass in the order of
// getDefPassDescriptions, what it prints is TC that checks, and printing
// leaves the lowered functions as they are.
//
//===----------------------------------------------------------------------===//
#include "TcTestUtil.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/tc/Lowering.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::readExample;
using comprehend::tc::test::TcSource;

namespace {

struct Example {
  const char *file;
  const char *entry;
  llvm::StringMap<int64_t> sizes;
};

std::vector<Example> getExamples() {
  return {
      {"softmax.tc", "softmax", {{"N", 4}, {"D", 10}}},
      {"batch_norm.tc", "batch_norm", {{"N", 4}, {"C", 10}}},
      {"mlp.tc", "mlp", {{"B", 2}, {"M", 3}, {"N", 4}, {"P", 5}}},
      {"max_pool.tc", "max_pool", {{"N", 1}, {"C", 2}, {"H", 7}, {"W", 8}}},
      {"conv2d.tc",
       "conv2d",
       {{"N", 1},
        {"C", 3},
        {"H", 8},
        {"W", 9},
        {"M", 4},
        {"KH", 3},
        {"KW", 2}}},
  };
}

/// The IR of \p example lowered with \p options, or the diagnostics.
std::string lowerToText(const Example &example,
                        const LoweringOptions &options) {
  TcSource source(readExample(example.file));
  Program *program = source.load();
  if (!program)
    return "<error>";
  ir::Context ctx;
  ir::Program out(ctx);
  if (!lowerDef(*program, *findEntry(*program, example.entry), example.sizes,
                out, source.diags, options))
    return "<error>";
  std::string text;
  llvm::raw_string_ostream os(text);
  ir::print(out, os);
  return text;
}

TEST(TcDefPassesTest, PrintedDefsAreTcAndLeaveTheLoweringAlone) {
  std::vector<std::string> expected;
  for (const DefPassDescription &pass : getDefPassDescriptions())
    expected.push_back(pass.name.str());
  ASSERT_EQ(expected.front(), "inline-calls");
  for (const Example &example : getExamples()) {
    SCOPED_TRACE(example.file);
    std::vector<std::string> seen;
    std::vector<std::string> printed;
    LoweringOptions printing;
    std::string text;
    llvm::raw_string_ostream os(text);
    printing.printDefAfter = [&](llvm::StringRef pass) -> llvm::raw_ostream * {
      seen.push_back(pass.str());
      if (!text.empty())
        printed.push_back(text);
      text.clear();
      return &os;
    };
    std::string withPrinting = lowerToText(example, printing);
    printed.push_back(text);
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(withPrinting, lowerToText(example, {}));
    ASSERT_EQ(printed.size(), expected.size());
    for (const std::string &def : printed) {
      TcSource reparsed(def);
      EXPECT_TRUE(reparsed.load()) << def << "\n"
                                   << testing::PrintToString(reparsed.messages);
      EXPECT_NE(def.find(std::string("def ") + example.entry),
                std::string::npos);
    }
  }
}

} // namespace
