//===- CloneTest.cpp - Deep copies of functions and programs --------------===//
#include "comprehend/ir/Clone.h"

#include "comprehend/ir/Context.h"
#include "comprehend/ir/Instructions.h"
#include "comprehend/ir/Parser.h"
#include "comprehend/ir/Printer.h"
#include "comprehend/ir/Program.h"
#include "comprehend/ir/Verifier.h"

#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <functional>

using namespace comprehend;
using namespace comprehend::ir;

namespace {

// Nested regions with parameters and results, loop-carried values, an `if`
// with results, a work-item loop, local memory, instruction, function and
// parameter attributes, a BLAS instruction on views and the preprocessor.
constexpr const char *kSource = R"IR(
$T = f32
func @totals(%X: memref<$T x 37>, %Y: memref<$T x 37> {alignment = 64},
             %S: memref<$T x 2>, %n: index)
    attributes {subgroup_size = 1, work_group_size = [16, 1]} {
  %buffer = alloca : memref<$T x 16, local>
  parallel {
    %c0 = constant 0 : index
    %c37 = constant 37 : index
    %zero = constant 0.0 : $T
    %sum = for %i = %c0, %c37 init(%s=%zero) -> ($T) {
      %x = load %X[%i] : $T
      %big = greater_than %x, %zero : bool
      %y = if %big -> ($T) {
        yield (%x)
      } else {
        %m = neg %x : $T
        yield (%m)
      }
      store %y, %Y[%i]
      %s1 = add %s, %y : $T
      yield (%s1)
    } attributes {simd = true}
    store %sum, %S[%c0]
    barrier.local
  }
  foreach (%j) = (%n), (%n) {
    %v = load %X[%j] : $T
    store %v, %Y[%j]
  }
}

func @batched_gemm(%A: memref<f32x4x3x?>, %B: memref<f32x3x5x?>,
                   %C: memref<f32x4x5x?>) {
  %b = group_id.x : index
  %a = subview %A[0:4, 0:3, %b] : memref<f32x4x3>
  %bb = subview %B[0:3, 0:5, %b] : memref<f32x3x5>
  %c = subview %C[0:4, 0:5, %b] : memref<f32x4x5>
  %one = constant 1.0 : f32
  %zero = constant 0.0 : f32
  gemm.n.n %one, %a, %bb, %zero, %c
}
)IR";

std::string printed(const Program &program) {
  std::string text;
  llvm::raw_string_ostream os(text);
  print(program, os);
  return text;
}

class CloneTest : public ::testing::Test {
protected:
  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  Context ctx;
};

TEST_F(CloneTest, ACopyPrintsAndVerifiesAsTheOriginal) {
  std::unique_ptr<Program> original = parseSource(ctx, diags, kSource);
  ASSERT_TRUE(original);
  ASSERT_TRUE(succeeded(verify(*original, diags)));
  Program copy(ctx);
  cloneInto(*original, copy);
  EXPECT_EQ(copy.size(), 2u);
  EXPECT_EQ(printed(copy), printed(*original));
  EXPECT_TRUE(succeeded(verify(copy, diags)));
  EXPECT_EQ(copy.lookupFunction("totals")->getParameterAttrs(1),
            original->lookupFunction("totals")->getParameterAttrs(1));
}

TEST_F(CloneTest, TheCopyHasItsOwnValues) {
  std::unique_ptr<Program> original = parseSource(ctx, diags, kSource);
  ASSERT_TRUE(original);
  std::string before = printed(*original);
  std::unique_ptr<Function> copy = clone(*original->lookupFunction("totals"));
  // Every operand of the copy is a value of the copy.
  Function &source = *original->lookupFunction("totals");
  std::function<void(const Region &)> check = [&](const Region &region) {
    for (const Instruction &inst : region) {
      for (Value *operand : inst.getOperands())
        if (operand)
          EXPECT_EQ(operand->getParentRegion()->getEnclosingFunction(),
                    copy.get());
      for (Region *nested : inst.getRegions())
        check(*nested);
    }
  };
  check(copy->getBody());
  // Rewriting the copy leaves the original as it was.
  copy->getParameter(0)->setName("renamed");
  copy->getBody().front().getResult(0)->setName("other");
  EXPECT_EQ(printed(*original), before);
  EXPECT_NE(&source.getBody().front(), &copy->getBody().front());
}

} // namespace
