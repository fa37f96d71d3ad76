//===- PreprocessorTest.cpp - Compile-time variables and !calc ------------===//
#include "Preprocessor.h"

#include <gtest/gtest.h>

using namespace comprehend::ir;

namespace {

Definition integerDef(int64_t value) {
  return Definition{ConstantLiteral(value), {}};
}

int64_t getInteger(const Definition *def) {
  return std::get<int64_t>(*def->getConstant());
}

TEST(DefinitionTableTest, LookupFollowsScopes) {
  DefinitionTable table;
  EXPECT_EQ(table.lookup("a"), nullptr);
  EXPECT_EQ(table.define("a", integerDef(1)), nullptr);
  table.pushScope();
  EXPECT_EQ(table.define("b", integerDef(2)), nullptr);
  ASSERT_NE(table.lookup("a"), nullptr);
  EXPECT_EQ(getInteger(table.lookup("a")), 1);
  EXPECT_EQ(getInteger(table.lookup("b")), 2);
  table.popScope();
  EXPECT_EQ(table.lookup("b"), nullptr);
  EXPECT_EQ(getInteger(table.lookup("a")), 1);
}

TEST(DefinitionTableTest, AssignOncePerScopeAndSubScopes) {
  DefinitionTable table;
  ASSERT_EQ(table.define("a", integerDef(1)), nullptr);
  // Same scope.
  const Definition *previous = table.define("a", integerDef(2));
  ASSERT_NE(previous, nullptr);
  EXPECT_EQ(getInteger(previous), 1);
  // Sub-scope: no shadowing either.
  table.pushScope();
  EXPECT_NE(table.define("a", integerDef(3)), nullptr);
  EXPECT_EQ(getInteger(table.lookup("a")), 1);
  table.popScope();
}

TEST(DefinitionTableTest, SiblingScopesMayReuseNames) {
  DefinitionTable table;
  table.pushScope();
  EXPECT_EQ(table.define("t", integerDef(1)), nullptr);
  table.popScope();
  table.pushScope();
  EXPECT_EQ(table.define("t", integerDef(2)), nullptr);
  EXPECT_EQ(getInteger(table.lookup("t")), 2);
  table.popScope();
  EXPECT_EQ(table.getDepth(), 1u);
  // The global scope is never closed.
  table.popScope();
  EXPECT_EQ(table.getDepth(), 1u);
}

TEST(DefinitionTest, Descriptions) {
  EXPECT_EQ(integerDef(1).getDescription(), "an integer constant");
  EXPECT_EQ((Definition{ConstantLiteral(true), {}}.getDescription()),
            "a boolean constant");
  EXPECT_EQ((Definition{ConstantLiteral(1.5), {}}.getDescription()),
            "a floating constant");
  EXPECT_EQ(
      (Definition{static_cast<const Type *>(nullptr), {}}.getDescription()),
      "a type");
}

TEST(CalcTest, OperatorSpellings) {
  EXPECT_EQ(lookupCalcOperator("^"), CalcOperator::Power);
  EXPECT_EQ(lookupCalcOperator("-"), CalcOperator::Sub);
  EXPECT_EQ(lookupCalcOperator("+"), CalcOperator::Add);
  EXPECT_EQ(lookupCalcOperator("*"), CalcOperator::Mul);
  EXPECT_EQ(lookupCalcOperator("/"), CalcOperator::Div);
  EXPECT_EQ(lookupCalcOperator("%"), CalcOperator::Rem);
  EXPECT_EQ(lookupCalcOperator("min"), CalcOperator::Min);
  EXPECT_EQ(lookupCalcOperator("max"), CalcOperator::Max);
  EXPECT_EQ(lookupCalcOperator("pow"), std::nullopt);
}

int64_t calc(CalcOperator op, int64_t lhs, int64_t rhs) {
  llvm::Expected<int64_t> result = applyCalcOperator(op, lhs, rhs);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return 0;
  }
  return *result;
}

std::string calcError(CalcOperator op, int64_t lhs, int64_t rhs) {
  llvm::Expected<int64_t> result = applyCalcOperator(op, lhs, rhs);
  if (result)
    return "no error";
  return llvm::toString(result.takeError());
}

TEST(CalcTest, Arithmetic) {
  EXPECT_EQ(calc(CalcOperator::Power, 2, 10), 1024);
  EXPECT_EQ(calc(CalcOperator::Power, -3, 3), -27);
  EXPECT_EQ(calc(CalcOperator::Power, 7, 0), 1);
  EXPECT_EQ(calc(CalcOperator::Sub, 3, 5), -2);
  EXPECT_EQ(calc(CalcOperator::Add, 3, 5), 8);
  EXPECT_EQ(calc(CalcOperator::Mul, -4, 5), -20);
  EXPECT_EQ(calc(CalcOperator::Div, 7, 2), 3);
  EXPECT_EQ(calc(CalcOperator::Div, -7, 2), -3);
  EXPECT_EQ(calc(CalcOperator::Rem, 7, 3), 1);
  EXPECT_EQ(calc(CalcOperator::Rem, -7, 3), -1);
  EXPECT_EQ(calc(CalcOperator::Min, 3, -5), -5);
  EXPECT_EQ(calc(CalcOperator::Max, 3, -5), 3);
  // ceil(a / b) = 1 + (a - 1) / b, the spec's example.
  int64_t a = 70, b = 32;
  EXPECT_EQ(calc(CalcOperator::Add,
                 calc(CalcOperator::Div, calc(CalcOperator::Sub, a, 1), b), 1),
            3);
}

TEST(CalcTest, Errors) {
  EXPECT_EQ(calcError(CalcOperator::Div, 1, 0), "division by zero");
  EXPECT_EQ(calcError(CalcOperator::Rem, 1, 0), "remainder by zero");
  EXPECT_EQ(calcError(CalcOperator::Power, 2, -1),
            "negative exponent -1 in '^'");
  EXPECT_EQ(calcError(CalcOperator::Power, 2, 63),
            "result of '!calc' is out of the integer range");
  EXPECT_EQ(calcError(CalcOperator::Power, -2, 63),
            "result of '!calc' is out of the integer range");
  EXPECT_EQ(calcError(CalcOperator::Add, INT64_MAX, 1),
            "result of '!calc' is out of the integer range");
  EXPECT_EQ(calcError(CalcOperator::Sub, -INT64_MAX, 1),
            "result of '!calc' is out of the integer range");
  EXPECT_EQ(calcError(CalcOperator::Mul, INT64_MAX / 2 + 1, 2),
            "result of '!calc' is out of the integer range");
  EXPECT_EQ(calc(CalcOperator::Power, 2, 62), int64_t(1) << 62);
}

} // namespace
