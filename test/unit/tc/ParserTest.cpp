//===- ParserTest.cpp - Grammar of Tensor Comprehensions ------------------===//
#include "TcTestUtil.h"

#include "comprehend/tc/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::TcSource;

namespace {

/// Parses \p text and prints it back fully parenthesised.
std::string roundTrip(TcSource &source) {
  Program program;
  if (failed(parseProgram(source.getBuffer(), source.diags, program)))
    return "<error>";
  std::string text;
  llvm::raw_string_ostream os(text);
  print(program, os);
  return text;
}

/// The printed RHS of the single statement `O = <expr>`.
std::string parseExpr(llvm::StringRef expr) {
  TcSource source(("def f() -> (O) { O = " + expr + " }").str());
  std::string text = roundTrip(source);
  llvm::StringRef body(text);
  size_t start = body.find("O() = ");
  if (start == llvm::StringRef::npos)
    return text;
  return body.substr(start + 6).split('\n').first.str();
}

TEST(TcParserTest, CPrecedence) {
  EXPECT_EQ(parseExpr("-3%2+4*5+7-a"), "((((-(3) % 2) + (4 * 5)) + 7) - a)");
  EXPECT_EQ(parseExpr("a || b && c"), "(a || (b && c))");
  EXPECT_EQ(parseExpr("a == b < c"), "(a == (b < c))");
  EXPECT_EQ(parseExpr("a < b + c * d"), "(a < (b + (c * d)))");
  EXPECT_EQ(parseExpr("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(parseExpr("a / b / c"), "((a / b) / c)");
  EXPECT_EQ(parseExpr("!a && b"), "(!(a) && b)");
  EXPECT_EQ(parseExpr("-(a + b)"), "-((a + b))");
}

TEST(TcParserTest, TernaryIsRightAssociativeAndLowest) {
  EXPECT_EQ(parseExpr("a ? 3 : b ? 3 : 4"), "(a ? 3 : (b ? 3 : 4))");
  EXPECT_EQ(parseExpr("a + b ? c : d"), "((a + b) ? c : d)");
  EXPECT_EQ(parseExpr("a ? b ? 1 : 2 : 3"), "(a ? (b ? 1 : 2) : 3)");
}

TEST(TcParserTest, PrimaryForms) {
  EXPECT_EQ(parseExpr("min(a, b) + max(c, 1)"), "(min(a, b) + max(c, 1))");
  EXPECT_EQ(parseExpr("int32(x) * float(2)"), "(int32(x) * float(2))");
  EXPECT_EQ(parseExpr("T.1 + exp(A(i + 1, j))"), "(T.1 + exp(A((i + 1), j)))");
  EXPECT_EQ(parseExpr("T(Idx(i))"), "T(Idx(i))");
  EXPECT_EQ(parseExpr("0.5 * 2.0"), "(0.5 * 2.0)");
}

TEST(TcParserTest, DefsStatementsAndWhere) {
  TcSource source(R"TC(
def f(float(N, 3) A, int8 s, double() t) -> (B, float C) {
  B(i, j) +=! A(i, j) where i in 0:N, j in 1:3, x = 2, exists A(i, 0)
  C max= s
  D() min=! t
  E(i) *= A(i, 0)
}
def g(float(N) X) -> (Y, Z) {
  Y, Z = f(X, X, X)
  W = f(X)
}
)TC");
  EXPECT_EQ(roundTrip(source),
            "def f(float(N, 3) A, int8 s, double t) -> (B, float C) {\n"
            "  B(i, j) +=! A(i, j) where i in 0:N, j in 1:3, x = 2, exists "
            "A(i, 0)\n"
            "  C() max= s\n"
            "  D() min=! t\n"
            "  E(i) *= A(i, 0)\n"
            "}\n"
            "def g(float(N) X) -> (Y, Z) {\n"
            "  Y, Z = f(X, X, X)\n"
            "  W = f(X)\n"
            "}\n");
  EXPECT_TRUE(source.messages.empty());
}

TEST(TcParserTest, SyntaxErrorsResumeAtTheNextDef) {
  TcSource source(R"TC(def a(float(N) A) -> (B) { B(i+1) = A(i) }
def b(float(N) A) -> (B) { B(i) = A(i) }
def c(float(N) A) -> B { B(i) = A(i) }
def d(float(N) A) -> (B) { B(0) = A(0) }
def e(float(N) A) -> (B) { B(i) == A(i) }
def f(float(N) A) -> (B) { B(i) = A(i) +
)TC");
  Program program;
  EXPECT_TRUE(failed(parseProgram(source.getBuffer(), source.diags, program)));
  EXPECT_EQ(source.messages,
            (std::vector<std::string>{
                "1:31: expected ',' or ')' but found '+'",
                "3:22: expected '(' but found 'B'",
                "4:30: expected an index variable but found '0'",
                "5:33: expected an assignment operator ('=', '+=', '*=', "
                "'min=', 'max=' or a '!' form) but found '=='",
                "7:1: expected an expression but found end of file"}));
  ASSERT_EQ(program.getDefs().size(), 1u);
  EXPECT_EQ(program.getDefs()[0]->getName().name, "b");
}

TEST(TcParserTest, MinMaxAndCastArity) {
  TcSource source("def f(float(N) A) -> (B) { B(i) = min(A(i)) }\n"
                  "def g(float(N) A) -> (B) { B(i) = int32(A(i), 1) }\n");
  Program program;
  EXPECT_TRUE(failed(parseProgram(source.getBuffer(), source.diags, program)));
  EXPECT_EQ(source.messages,
            (std::vector<std::string>{
                "1:35: 'min' expects 2 arguments but found 1",
                "2:35: conversion to 'int32' expects 1 argument but found 2"}));
}

TEST(TcParserTest, LocationsCoverTheNode) {
  TcSource source("def f(float(N) A) -> (B) { B(i) = A(i) * 2 }");
  Program program;
  ASSERT_TRUE(
      succeeded(parseProgram(source.getBuffer(), source.diags, program)));
  const auto &stmt =
      llvm::cast<ComprehensionStmt>(*program.getDefs()[0]->getBody()[0]);
  Location loc = stmt.getRhs().getLoc();
  EXPECT_EQ(llvm::StringRef(loc.Start.getPointer(),
                            loc.End.getPointer() - loc.Start.getPointer()),
            "A(i) * 2");
  EXPECT_EQ(llvm::StringRef(stmt.getLoc().Start.getPointer(),
                            stmt.getLoc().End.getPointer() -
                                stmt.getLoc().Start.getPointer()),
            "B(i) = A(i) * 2");
}

} // namespace

namespace {

TEST(TcParserTest, NestingIsBounded) {
  // Deep input is an error, not a stack overflow.
  std::string deep =
      "def f(float(N) A) -> (O) { O(i) = " + std::string(100000, '(') + "A(i)" +
      std::string(100000, ')') + " }";
  TcSource nested(deep);
  Program program;
  EXPECT_TRUE(failed(parseProgram(nested.getBuffer(), nested.diags, program)));
  ASSERT_EQ(nested.messages.size(), 1u);
  EXPECT_EQ(nested.messages[0], "1:291: expression is nested more than 256 "
                                "levels deep");

  std::string wide = "def f(float(N) A) -> (O) { O(i) = A(i)";
  for (int i = 0; i < 5000; ++i)
    wide += " + A(i)";
  wide += " }";
  TcSource chained(wide);
  Program program2;
  EXPECT_TRUE(
      failed(parseProgram(chained.getBuffer(), chained.diags, program2)));
  ASSERT_EQ(chained.messages.size(), 1u);
  EXPECT_NE(chained.messages[0].find("more than 4096 operators in a row"),
            std::string::npos);
}

} // namespace
