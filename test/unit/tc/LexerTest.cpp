//===- LexerTest.cpp - Tokens of Tensor Comprehensions --------------------===//
#include "TcTestUtil.h"

#include "comprehend/tc/Lexer.h"

#include "gtest/gtest.h"

using namespace comprehend;
using namespace comprehend::tc;
using comprehend::tc::test::TcSource;

namespace {

std::vector<Token> lexAll(TcSource &source) {
  Lexer lexer(source.getBuffer(), source.diags);
  std::vector<Token> tokens;
  do {
    tokens.push_back(lexer.lex());
  } while (!tokens.back().is(TokenKind::Eof));
  return tokens;
}

std::vector<TokenKind> kinds(const std::vector<Token> &tokens) {
  std::vector<TokenKind> result;
  for (const Token &token : tokens)
    result.push_back(token.getKind());
  return result;
}

TEST(TcLexerTest, ReductionOperatorsAreSingleTokens) {
  TcSource source("+= +=! *= *=! min= min=! max= max=! = == != min minimum");
  using K = TokenKind;
  EXPECT_EQ(
      kinds(lexAll(source)),
      (std::vector<K>{K::PlusEqual, K::PlusEqualBang, K::StarEqual,
                      K::StarEqualBang, K::MinEqual, K::MinEqualBang,
                      K::MaxEqual, K::MaxEqualBang, K::Equal, K::EqualEqual,
                      K::NotEqual, K::KwMin, K::Ident, K::Eof}));
  EXPECT_TRUE(source.messages.empty());
}

TEST(TcLexerTest, OperatorsAndPunctuation) {
  TcSource source("-> ( ) { } , : ? + - * / % ! < > <= >= && ||");
  using K = TokenKind;
  EXPECT_EQ(
      kinds(lexAll(source)),
      (std::vector<K>{K::Arrow,     K::LParen,       K::RParen, K::LBrace,
                      K::RBrace,    K::Comma,        K::Colon,  K::Question,
                      K::Plus,      K::Minus,        K::Star,   K::Slash,
                      K::Percent,   K::Bang,         K::Less,   K::Greater,
                      K::LessEqual, K::GreaterEqual, K::AmpAmp, K::PipePipe,
                      K::Eof}));
}

TEST(TcLexerTest, KeywordsAndTypes) {
  TcSource source("def where in exists bool byte half float16 float32 "
                  "float64 double uint64 int8 int half_x");
  std::vector<Token> tokens = lexAll(source);
  using K = TokenKind;
  EXPECT_EQ(
      kinds(tokens),
      (std::vector<K>{K::KwDef, K::KwWhere, K::KwIn, K::KwExists, K::KwBool,
                      K::KwByte, K::KwHalf, K::KwFloat16, K::KwFloat32,
                      K::KwFloat64, K::KwDouble, K::KwUInt64, K::KwInt8,
                      K::Ident, K::Ident, K::Eof}));
  EXPECT_EQ(getTypeKeywordScalar(K::KwByte), ScalarType::UInt8);
  EXPECT_EQ(getTypeKeywordScalar(K::KwFloat16), ScalarType::Half);
  EXPECT_EQ(getTypeKeywordScalar(K::KwFloat64), ScalarType::Double);
  EXPECT_FALSE(getTypeKeywordScalar(K::Ident).has_value());
}

TEST(TcLexerTest, CNumericLiterals) {
  TcSource source("3 1.4 .3 3. 3e-3 3E-5 0x10 0x1p3 2.5f 1.5l 7u 8l "
                  "3000000000 010");
  std::vector<Token> tokens = lexAll(source);
  ASSERT_EQ(tokens.size(), 15u);
  using K = TokenKind;
  EXPECT_TRUE(tokens[0].is(K::IntLit));
  EXPECT_EQ(tokens[0].getIntValue(), 3);
  EXPECT_EQ(tokens[0].getLiteralType(), ScalarType::Int32);
  EXPECT_DOUBLE_EQ(tokens[1].getFloatValue(), 1.4);
  EXPECT_EQ(tokens[1].getLiteralType(), ScalarType::Float);
  EXPECT_DOUBLE_EQ(tokens[2].getFloatValue(), 0.3);
  EXPECT_DOUBLE_EQ(tokens[3].getFloatValue(), 3.0);
  EXPECT_DOUBLE_EQ(tokens[4].getFloatValue(), 3e-3);
  // Unlike TC (strtod + "contains '.' or 'e'"), 3E-5 is a float.
  EXPECT_TRUE(tokens[5].is(K::FloatLit));
  EXPECT_DOUBLE_EQ(tokens[5].getFloatValue(), 3e-5);
  EXPECT_EQ(tokens[6].getIntValue(), 16);
  EXPECT_DOUBLE_EQ(tokens[7].getFloatValue(), 8.0);
  EXPECT_EQ(tokens[8].getLiteralType(), ScalarType::Float);
  EXPECT_EQ(tokens[9].getLiteralType(), ScalarType::Double);
  EXPECT_EQ(tokens[10].getLiteralType(), ScalarType::UInt32);
  EXPECT_EQ(tokens[11].getLiteralType(), ScalarType::Int64);
  EXPECT_EQ(tokens[12].getLiteralType(), ScalarType::Int64);
  EXPECT_EQ(tokens[12].getIntValue(), 3000000000);
  EXPECT_EQ(tokens[13].getIntValue(), 8); // C: a leading 0 is octal
  EXPECT_TRUE(source.messages.empty());
}

TEST(TcLexerTest, DotAfterIdentifierIsDimensionAccess) {
  TcSource source("T.1 x*.5");
  using K = TokenKind;
  EXPECT_EQ(kinds(lexAll(source)),
            (std::vector<K>{K::Ident, K::Dot, K::IntLit, K::Ident, K::Star,
                            K::FloatLit, K::Eof}));
}

TEST(TcLexerTest, CommentsAndNewlinesAreWhitespace) {
  TcSource source("a # comment ( with tokens\n\n  b # end");
  std::vector<Token> tokens = lexAll(source);
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].getSpelling(), "a");
  EXPECT_EQ(tokens[1].getSpelling(), "b");
}

TEST(TcLexerTest, Errors) {
  TcSource source("$ 3x 2e 0x1.8 & |");
  std::vector<Token> tokens = lexAll(source);
  EXPECT_EQ(source.messages,
            (std::vector<std::string>{
                "1:1: unexpected character '$'",
                "1:3: invalid suffix 'x' on integer literal",
                "1:6: exponent of numeric literal has no digits",
                "1:9: exponent of numeric literal has no digits",
                "1:15: unexpected character '&'; did you mean '&&'",
                "1:17: unexpected character '|'; did you mean '||'"}));
  EXPECT_TRUE(tokens[0].is(TokenKind::Error));
}

} // namespace
