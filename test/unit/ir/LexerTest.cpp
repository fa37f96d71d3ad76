//===- LexerTest.cpp - Tokens of the tensor language ----------------------===//
#include "Lexer.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace comprehend;
using namespace comprehend::ir;

namespace {

/// Lexes a whole string and records the tokens and diagnostics.
class LexerTest : public ::testing::Test {
protected:
  std::vector<Token> lexAll(llvm::StringRef text) {
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "input.ir"), llvm::SMLoc());
    diags.setHandler(
        [this](const Diagnostic &diag) { messages.push_back(diag.message); });
    Lexer lexer(diags, sourceMgr.getNumBuffers());
    std::vector<Token> tokens;
    for (int guard = 0; guard < 1000; ++guard) {
      Token tok = lexer.lex();
      tokens.push_back(tok);
      if (tok.isAny(Token::eof, Token::error))
        break;
    }
    return tokens;
  }

  std::vector<Token::Kind> kinds(llvm::StringRef text) {
    std::vector<Token::Kind> result;
    for (const Token &tok : lexAll(text))
      result.push_back(tok.getKind());
    return result;
  }

  llvm::SourceMgr sourceMgr;
  DiagnosticEngine diags{sourceMgr};
  std::vector<std::string> messages;
};

TEST_F(LexerTest, Identifiers) {
  auto tokens = lexAll("%x %0 %a_1 @f $d gemm .atomic func attributes");
  ASSERT_EQ(tokens.size(), 10u);
  EXPECT_EQ(tokens[0].getKind(), Token::local_identifier);
  EXPECT_EQ(tokens[0].getIdentifierName(), "x");
  EXPECT_EQ(tokens[1].getKind(), Token::local_identifier);
  EXPECT_EQ(tokens[1].getIdentifierName(), "0");
  EXPECT_EQ(tokens[2].getIdentifierName(), "a_1");
  EXPECT_EQ(tokens[3].getKind(), Token::global_identifier);
  EXPECT_EQ(tokens[4].getKind(), Token::def_identifier);
  EXPECT_EQ(tokens[4].getIdentifierName(), "d");
  EXPECT_EQ(tokens[5].getKind(), Token::bare_identifier);
  EXPECT_EQ(tokens[6].getKind(), Token::modifier);
  EXPECT_EQ(tokens[6].getIdentifierName(), "atomic");
  EXPECT_EQ(tokens[7].getKind(), Token::kw_func);
  EXPECT_EQ(tokens[8].getKind(), Token::kw_attributes);
  EXPECT_EQ(tokens[9].getKind(), Token::eof);
}

TEST_F(LexerTest, InvalidIdentifiers) {
  EXPECT_EQ(kinds("%_x").back(), Token::error);
  EXPECT_EQ(kinds("@").back(), Token::error);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], "invalid identifier '%_x': expected a number or a "
                         "letter followed by letters, digits or underscores");
}

// unnamed-identifier = 1*DIGIT: it ends at the first letter, so that the
// expand shape `4x%1x5` is 4 x %1 x 5 (as the number `4x8` is 4 x 8).
TEST_F(LexerTest, UnnamedIdentifierEndsAfterItsDigits) {
  EXPECT_EQ(kinds("%1x5"),
            (std::vector<Token::Kind>{Token::local_identifier,
                                      Token::bare_identifier, Token::eof}));
  EXPECT_EQ(kinds("%nx5"),
            (std::vector<Token::Kind>{Token::local_identifier, Token::eof}));
  EXPECT_TRUE(messages.empty());
}

TEST_F(LexerTest, Punctuation) {
  EXPECT_EQ(
      kinds("( ) { } [ ] < > <= -> , : = ? ! + - * / % ^"),
      (std::vector<Token::Kind>{
          Token::l_paren,    Token::r_paren,  Token::l_brace, Token::r_brace,
          Token::l_square,   Token::r_square, Token::less,    Token::greater,
          Token::less_equal, Token::arrow,    Token::comma,   Token::colon,
          Token::equal,      Token::question, Token::exclaim, Token::plus,
          Token::minus,      Token::star,     Token::slash,   Token::percent,
          Token::caret,      Token::eof}));
}

TEST_F(LexerTest, CommentsAndWhitespace) {
  auto tokens = lexAll("; a comment\n  %x ; another\n\t@f;end");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].getSpelling(), "%x");
  EXPECT_EQ(tokens[1].getSpelling(), "@f");
  EXPECT_EQ(tokens[2].getKind(), Token::eof);
}

TEST_F(LexerTest, Integers) {
  auto tokens = lexAll("0 42 -7 +3 9223372036854775807 -9223372036854775807 "
                       "9223372036854775808 -9223372036854775808");
  ASSERT_EQ(tokens.size(), 9u);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(tokens[i].getKind(), Token::integer) << i;
  EXPECT_EQ(tokens[0].getIntegerValue(), 0);
  EXPECT_EQ(tokens[1].getIntegerValue(), 42);
  EXPECT_EQ(tokens[2].getIntegerValue(), -7);
  EXPECT_EQ(tokens[3].getIntegerValue(), 3);
  EXPECT_EQ(tokens[4].getIntegerValue(), INT64_MAX);
  EXPECT_EQ(tokens[5].getIntegerValue(), -INT64_MAX);
  // 2^63 and -2^63 are outside the language's range.
  EXPECT_EQ(tokens[6].getIntegerValue(), std::nullopt);
  EXPECT_EQ(tokens[7].getIntegerValue(), std::nullopt);
}

TEST_F(LexerTest, DecimalFloats) {
  auto tokens = lexAll("1.5 .5 2. -0.25 1e3 1.5e-2 +2.5E+1 1e999");
  ASSERT_EQ(tokens.size(), 9u);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(tokens[i].getKind(), Token::floating) << i;
  EXPECT_EQ(tokens[0].getFloatingValue(), 1.5);
  EXPECT_EQ(tokens[1].getFloatingValue(), 0.5);
  EXPECT_EQ(tokens[2].getFloatingValue(), 2.0);
  EXPECT_EQ(tokens[3].getFloatingValue(), -0.25);
  EXPECT_EQ(tokens[4].getFloatingValue(), 1000.0);
  EXPECT_EQ(tokens[5].getFloatingValue(), 0.015);
  EXPECT_EQ(tokens[6].getFloatingValue(), 25.0);
  EXPECT_EQ(tokens[7].getFloatingValue(), std::nullopt);
}

TEST_F(LexerTest, HexFloats) {
  auto tokens = lexAll("0x1.8p3 0x1p-2 -0x.8 0xA. 0x10");
  ASSERT_EQ(tokens.size(), 7u);
  EXPECT_EQ(tokens[0].getFloatingValue(), 12.0);
  EXPECT_EQ(tokens[1].getFloatingValue(), 0.25);
  EXPECT_EQ(tokens[2].getFloatingValue(), -0.5);
  EXPECT_EQ(tokens[3].getFloatingValue(), 10.0);
  // Without '.' or 'p' it is no hex float: `0` then the identifier `x10`.
  EXPECT_EQ(tokens[4].getKind(), Token::integer);
  EXPECT_EQ(tokens[4].getSpelling(), "0");
  EXPECT_EQ(tokens[5].getKind(), Token::bare_identifier);
  EXPECT_EQ(tokens[5].getSpelling(), "x10");
}

TEST_F(LexerTest, InfAndNan) {
  auto tokens = lexAll("inf -inf +inf nan -nan info");
  ASSERT_EQ(tokens.size(), 7u);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(tokens[i].getKind(), Token::floating) << i;
  EXPECT_TRUE(std::isinf(*tokens[0].getFloatingValue()));
  EXPECT_LT(*tokens[1].getFloatingValue(), 0.0);
  EXPECT_TRUE(std::isnan(*tokens[3].getFloatingValue()));
  EXPECT_EQ(tokens[5].getKind(), Token::bare_identifier);
}

TEST_F(LexerTest, ShapesSplitAtLetters) {
  auto tokens = lexAll("4x8 f32x4x? 1.5x");
  ASSERT_EQ(tokens.size(), 7u);
  EXPECT_EQ(tokens[0].getSpelling(), "4");
  EXPECT_EQ(tokens[1].getSpelling(), "x8");
  EXPECT_EQ(tokens[2].getSpelling(), "f32x4x");
  EXPECT_EQ(tokens[3].getKind(), Token::question);
  EXPECT_EQ(tokens[4].getSpelling(), "1.5");
  EXPECT_EQ(tokens[5].getSpelling(), "x");
}

TEST_F(LexerTest, SignsAndArrow) {
  EXPECT_EQ(
      kinds("1 - 2 -> -3 -x"),
      (std::vector<Token::Kind>{Token::integer, Token::minus, Token::integer,
                                Token::arrow, Token::integer, Token::minus,
                                Token::bare_identifier, Token::eof}));
}

TEST_F(LexerTest, Strings) {
  auto tokens = lexAll("\"hello world\" \"\"");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].getKind(), Token::string);
  EXPECT_EQ(tokens[0].getStringValue(), "hello world");
  EXPECT_EQ(tokens[1].getStringValue(), "");
}

TEST_F(LexerTest, UnterminatedString) {
  EXPECT_EQ(kinds("\"abc\n\"").back(), Token::error);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "unterminated string");
}

TEST_F(LexerTest, GarbageBytes) {
  EXPECT_EQ(kinds(llvm::StringRef("\x01\xff", 2)).back(), Token::error);
  EXPECT_EQ(kinds("#").back(), Token::error);
  EXPECT_EQ(kinds(llvm::StringRef("%x \0", 4)).back(), Token::error);
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0], "unexpected byte 0x01");
  EXPECT_EQ(messages[1], "unexpected character '#'");
  EXPECT_EQ(messages[2], "unexpected byte 0x00");
}

TEST_F(LexerTest, TokenLocations) {
  auto tokens = lexAll("  gemm.atomic");
  ASSERT_EQ(tokens.size(), 3u);
  auto [line, col] = sourceMgr.getLineAndColumn(tokens[1].getLoc());
  EXPECT_EQ(line, 1u);
  EXPECT_EQ(col, 7u);
  EXPECT_EQ(tokens[1].getSpelling(), ".atomic");
}

} // namespace
