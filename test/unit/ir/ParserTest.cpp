//===- ParserTest.cpp - parseSource and print through the C++ API ---------===//
#include "AsmFormat.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Instructions.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Printer.h"

#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace comprehend;
using namespace comprehend::ir;

namespace {

class ParserTest : public ::testing::Test {
protected:
  ParserTest() {
    diags.setHandler([this](const Diagnostic &diag) {
      if (diag.severity == Severity::Error)
        errors.push_back(diag.message);
    });
  }

  std::unique_ptr<Program> parse(llvm::StringRef text) {
    return parseSource(ctx, diags, text, "test.ir");
  }

  static std::string printed(const Program &program) {
    std::string text;
    llvm::raw_string_ostream os(text);
    print(program, os);
    return text;
  }

  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  Context ctx;
  std::vector<std::string> errors;
};

TEST(AsmFormatTest, EveryInstructionHasAValidFormat) {
  for (unsigned i = 0; i < kNumInstKinds; ++i) {
    auto kind = static_cast<InstKind>(i);
    std::string error;
    EXPECT_NE(getAsmFormat(kind, &error), nullptr)
        << getMnemonic(kind).str() << ": " << error;
  }
}

TEST(AsmFormatTest, ModifiersAreGrouped) {
  const AsmFormat *format = getAsmFormat(InstKind::Gemm);
  ASSERT_NE(format, nullptr);
  ASSERT_FALSE(format->elements.empty());
  const FormatElement &modifiers = format->elements.front();
  EXPECT_EQ(modifiers.kind, FormatElement::Kind::Modifiers);
  EXPECT_EQ(modifiers.indices.size(), 3u); // atomic, transpose_a/b
}

TEST_F(ParserTest, BuildsOperandsPropertiesAndResults) {
  auto program = parse(R"(
func @k(%A: memref<f32x8x8>, %alpha: f32) {
  gemm.atomic.n.t %alpha, %A, %A, %alpha, %A
  %s = size %A[1] : index
})");
  ASSERT_TRUE(program) << (errors.empty() ? "" : errors.front());
  Function *function = program->lookupFunction("k");
  ASSERT_NE(function, nullptr);
  ASSERT_EQ(function->getNumParameters(), 2u);
  EXPECT_EQ(function->getParameter(0)->getName(), "A");
  ASSERT_EQ(function->getBody().size(), 2u);

  Instruction &gemm = function->getBody().front();
  auto view = llvm::dyn_cast<GemmInst>(&gemm);
  ASSERT_TRUE(view);
  EXPECT_EQ(gemm.getNumOperands(), 5u);
  EXPECT_EQ(view.getAlpha(), function->getParameter(1));
  EXPECT_EQ(view.getA(), function->getParameter(0));
  const InstDescriptor &desc = gemm.getDescriptor();
  EXPECT_TRUE(gemm.getFlag(*desc.findProperty("atomic")));
  EXPECT_EQ(gemm.getInteger(*desc.findProperty("transpose_a")),
            static_cast<int64_t>(Transpose::N));
  EXPECT_EQ(gemm.getInteger(*desc.findProperty("transpose_b")),
            static_cast<int64_t>(Transpose::T));

  Instruction &size = function->getBody().back();
  EXPECT_EQ(size.getInteger(*size.getDescriptor().findProperty("mode")), 1);
  ASSERT_EQ(size.getNumResults(), 1u);
  EXPECT_EQ(size.getResult(0)->getName(), "s");
  EXPECT_EQ(size.getResult(0)->getType(),
            ScalarType::get(ctx, ScalarKind::Index));
}

TEST_F(ParserTest, RegionParametersAndResults) {
  auto program = parse(R"(
func @k(%lo: i32, %hi: i32, %x: f64) {
  %r = for %i = %lo, %hi init(%acc = %x) -> (f64) {
    %y = add %acc, %acc : f64
    yield (%y)
  }
})");
  ASSERT_TRUE(program) << (errors.empty() ? "" : errors.front());
  Instruction &loop = program->begin()->getBody().front();
  ASSERT_EQ(loop.getKind(), InstKind::For);
  Region &body = loop.getRegion(0);
  ASSERT_EQ(body.getNumParameters(), 2u);
  EXPECT_EQ(body.getParameter(0)->getName(), "i");
  EXPECT_EQ(body.getParameter(0)->getType(),
            ScalarType::get(ctx, ScalarKind::I32));
  EXPECT_EQ(body.getParameter(1)->getName(), "acc");
  EXPECT_EQ(body.getParameter(1)->getDefiningInstruction(), nullptr);
  ASSERT_EQ(loop.getNumResults(), 1u);
  EXPECT_EQ(loop.getResult(0)->getType(),
            ScalarType::get(ctx, ScalarKind::F64));
  // The add uses the region parameter, the yield the add.
  Instruction &add = body.front();
  EXPECT_EQ(llvm::cast<AddInst>(&add).getA(), body.getParameter(1));
  EXPECT_EQ(llvm::cast<YieldInst>(&body.back()).getValues().front(),
            add.getResult(0));
  EXPECT_EQ(loop.getOperandSegmentSizes().size(), 4u);
}

TEST_F(ParserTest, SubviewMixesConstantsAndValues) {
  auto program = parse(R"(
func @k(%A: memref<f32x16x16>, %i: index) {
  %v = subview %A[%i:4, 3] : memref<f32x4>
})");
  ASSERT_TRUE(program) << (errors.empty() ? "" : errors.front());
  Instruction &subview = program->begin()->getBody().front();
  const InstDescriptor &desc = subview.getDescriptor();
  EXPECT_EQ(subview.getIntegerList(*desc.findProperty("static_offsets")),
            llvm::ArrayRef<int64_t>({kDynamic, 3}));
  EXPECT_EQ(subview.getIntegerList(*desc.findProperty("static_sizes")),
            llvm::ArrayRef<int64_t>({4, 0}));
  EXPECT_EQ(subview.getOperandGroup(*desc.findOperand("offsets")).size(), 1u);
  EXPECT_EQ(subview.getOperandGroup(*desc.findOperand("sizes")).size(), 0u);
}

TEST_F(ParserTest, PreprocessorLeavesNoTrace) {
  auto program = parse(R"(
$t = f32
$n = !calc(3 4 *)
func @k(%A: memref<$t x $n>) {
  %c = constant $n : index
})");
  ASSERT_TRUE(program) << (errors.empty() ? "" : errors.front());
  Function &function = *program->begin();
  EXPECT_EQ(function.getParameter(0)->getType(),
            MemRefType::get(ctx, ScalarKind::F32, {12}));
  const Instruction &constant = function.getBody().front();
  EXPECT_EQ(std::get<int64_t>(constant.getConstant(0)), 12);
  EXPECT_EQ(printed(*program), "func @k(%A: memref<f32x12>) {\n"
                               "  %c = constant 12 : index\n"
                               "}\n");
}

TEST_F(ParserTest, ContinuesWithTheNextFunction) {
  auto program = parse(R"(
func @a() {
  %x = bogus
  %y = bogus
}
func @b() {
  %z = bogus
}
func @c() {
})");
  EXPECT_FALSE(program);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "unknown instruction 'bogus'");
  EXPECT_EQ(errors[1], "unknown instruction 'bogus'");
}

TEST_F(ParserTest, PrintsUnnamedValuesInOrder) {
  auto program = parse(R"(
func @k(%17: f32) {
  %5 = neg %17 : f32
  %x = abs %5 : f32
  %2 = neg %x : f32
})");
  ASSERT_TRUE(program) << (errors.empty() ? "" : errors.front());
  EXPECT_EQ(printed(*program), "func @k(%0: f32) {\n"
                               "  %1 = neg %0 : f32\n"
                               "  %x = abs %1 : f32\n"
                               "  %2 = neg %x : f32\n"
                               "}\n");
}

TEST_F(ParserTest, PrintsOneInstruction) {
  auto program = parse(R"(
func @k(%a: i32, %b: i32) {
  %c = less_than %a, %b : bool
  if %c {
    %d = add %a, %b : i32
  }
})");
  ASSERT_TRUE(program) << (errors.empty() ? "" : errors.front());
  std::string text;
  llvm::raw_string_ostream os(text);
  print(program->begin()->getBody().back(), os, 2);
  EXPECT_EQ(text, "  if %c {\n"
                  "    %d = add %a, %b : i32\n"
                  "  }\n");
}

TEST_F(ParserTest, EmptyInputIsAnEmptyProgram) {
  auto program = parse("; only a comment\n");
  ASSERT_TRUE(program);
  EXPECT_TRUE(program->empty());
}

} // namespace
