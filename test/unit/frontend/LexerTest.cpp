// Lexer: token kinds and spans, comments, literal values and the E1001-E1005
// diagnostics (the exact rendered texts are lit tests in test/lex).
#include <gtest/gtest.h>

#include "FrontendTestUtil.h"

namespace linnet::test {
namespace {

using K = TokenKind;

TEST(Lexer, EmptyInputIsJustEndOfFile) {
  auto lexed = lexText("");
  EXPECT_EQ(lexed->kinds(), std::vector<K>{K::EndOfFile});
  EXPECT_TRUE(lexed->codes().empty());
}

TEST(Lexer, MaximalMunchPunctuation) {
  auto lexed = lexText("...::..->=>==!=<=>=&&||.:-=!<>&|");
  EXPECT_EQ(lexed->kinds(),
            (std::vector<K>{K::Ellipsis, K::ColonColon, K::DotDot, K::Arrow, K::FatArrow,
                            K::EqualEqual, K::BangEqual, K::LessEqual, K::GreaterEqual, K::AmpAmp,
                            K::PipePipe, K::Dot, K::Colon, K::Minus, K::Equal, K::Bang, K::Less,
                            K::Greater, K::Amp, K::Pipe, K::EndOfFile}));
}

TEST(Lexer, RangesAndSlicesAfterIntegers) {
  EXPECT_EQ(lexText("0..N")->kinds(),
            (std::vector<K>{K::IntegerLiteral, K::DotDot, K::Identifier, K::EndOfFile}));
  EXPECT_EQ(lexText("0::2")->kinds(),
            (std::vector<K>{K::IntegerLiteral, K::ColonColon, K::IntegerLiteral, K::EndOfFile}));
  EXPECT_EQ(lexText("1.5")->kinds(), (std::vector<K>{K::FloatLiteral, K::EndOfFile}));
  EXPECT_EQ(lexText("1.x")->kinds(),
            (std::vector<K>{K::IntegerLiteral, K::Dot, K::Identifier, K::EndOfFile}));
}

TEST(Lexer, KeywordsReservedAndContextualWords) {
  auto lexed = lexText("fn kernel yield while sum grad async");
  EXPECT_EQ(lexed->kinds(), (std::vector<K>{K::KwFn, K::KwKernel, K::KwYield, K::KwWhile,
                                            K::Identifier, K::Identifier, K::Identifier,
                                            K::EndOfFile}));
  EXPECT_EQ(lexed->codes(), std::vector<std::string>{"E1004"});
}

TEST(Lexer, SpansAndLeadingSpace) {
  auto lexed = lexText("a  b\n\nc");
  const auto& t = lexed->tokens.tokens;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].span.begin, 0u);
  EXPECT_EQ(t[1].span.begin, 3u);
  EXPECT_EQ(t[1].span.end, 4u);
  EXPECT_TRUE(t[1].leadingSpace);
  EXPECT_FALSE(t[1].blankLineBefore);
  EXPECT_TRUE(t[2].blankLineBefore);
  EXPECT_EQ(t[3].span.begin, 7u);
}

TEST(Lexer, ByteOrderMarkIsSkipped) {
  auto lexed = lexText("\xEF\xBB\xBFmodule m");
  EXPECT_EQ(lexed->kinds(), (std::vector<K>{K::KwModule, K::Identifier, K::EndOfFile}));
  EXPECT_EQ(lexed->tokens.tokens[0].span.begin, 3u);
  EXPECT_TRUE(lexed->codes().empty());
}

TEST(Lexer, CommentsNestAndDocCommentsAreRecorded) {
  auto lexed = lexText("/* a /* b */ c */ x /// doc\ny //// no\n/** d */ z /**/ /*** e */ w");
  EXPECT_EQ(lexed->kinds(),
            (std::vector<K>{K::Identifier, K::Identifier, K::Identifier, K::Identifier,
                            K::EndOfFile}));
  EXPECT_EQ(lexed->tokens.comments.size(), 6u);
  ASSERT_EQ(lexed->tokens.docComments.size(), 2u);
  EXPECT_EQ(lexed->tokens.docComments[0].nextToken, 1u);  // `/// doc` precedes `y`
  EXPECT_EQ(lexed->tokens.docComments[1].nextToken, 2u);  // `/** d */` precedes `z`
  EXPECT_FALSE(lexed->tokens.comments[0].trailing);
  EXPECT_TRUE(lexed->tokens.comments[1].trailing);  // after `x`
}

TEST(Lexer, UnterminatedCommentReportedAtOpening) {
  auto lexed = lexText("a /* b /* c */ d");
  EXPECT_EQ(lexed->codes(), std::vector<std::string>{"E1002"});
  const Diagnostic& d = lexed->diagnostics.diagnostics()[0];
  EXPECT_EQ(d.primarySpan().begin, 2u);
  EXPECT_EQ(d.primarySpan().end, 4u);
  EXPECT_TRUE(lexed->tokens.endsInsideLiteral);
}

TEST(Lexer, IntegerValues) {
  EXPECT_EQ(decodeIntegerLiteral("0"), 0u);
  EXPECT_EQ(decodeIntegerLiteral("1_000_000"), 1000000u);
  EXPECT_EQ(decodeIntegerLiteral("0xff"), 255u);
  EXPECT_EQ(decodeIntegerLiteral("0xFF_ff"), 65535u);
  EXPECT_EQ(decodeIntegerLiteral("0b1010"), 10u);
  EXPECT_EQ(decodeIntegerLiteral("9223372036854775807"), 9223372036854775807u);
  EXPECT_EQ(decodeIntegerLiteral("9223372036854775808"), std::nullopt);
  EXPECT_EQ(decodeIntegerLiteral("0x8000000000000000"), std::nullopt);
  EXPECT_EQ(decodeIntegerLiteral("007"), std::nullopt);
  EXPECT_EQ(decodeIntegerLiteral("1__0"), std::nullopt);
  EXPECT_EQ(decodeIntegerLiteral("1_"), std::nullopt);
  EXPECT_EQ(decodeIntegerLiteral("0x"), std::nullopt);
  EXPECT_EQ(decodeIntegerLiteral("0b2"), std::nullopt);
  EXPECT_EQ(decodeIntegerLiteral("1.5"), std::nullopt);
}

TEST(Lexer, FloatValues) {
  EXPECT_EQ(decodeFloatLiteral("1.5"), 1.5);
  EXPECT_EQ(decodeFloatLiteral("1e-5"), 1e-5);
  EXPECT_EQ(decodeFloatLiteral("2E+3"), 2000.0);
  EXPECT_EQ(decodeFloatLiteral("3.141_592"), 3.141592);
  EXPECT_EQ(decodeFloatLiteral("0.0"), 0.0);
  EXPECT_EQ(decodeFloatLiteral("1e400"), std::nullopt);
  EXPECT_EQ(decodeFloatLiteral("1.5_"), std::nullopt);
}

TEST(Lexer, NumberErrorsAreE1005) {
  for (const char* bad : {"007", "1__0", "0x", "0b12", "1e", "12abc", "0XFF", "99999999999999999999",
                          "1e999"}) {
    auto lexed = lexText(bad);
    ASSERT_FALSE(lexed->codes().empty()) << bad;
    EXPECT_EQ(lexed->codes()[0], "E1005") << bad;
  }
  for (const char* good : {"0", "10", "0x0", "0b0", "1e5", "1.0e-3", "0.5", "1_0.0_1e1_0"})
    EXPECT_TRUE(lexText(good)->codes().empty()) << good;
}

TEST(Lexer, StringEscapesDecode) {
  EXPECT_EQ(decodeStringLiteral(R"("a\nb\t\"\\\0")"), std::string("a\nb\t\"\\\0", 7));
  EXPECT_EQ(decodeStringLiteral(R"("\u{41}\u{e9}\u{1F600}")"), "A\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(decodeStringLiteral(R"("")"), "");
}

TEST(Lexer, StringErrorsAreE1003) {
  EXPECT_EQ(lexText(R"("\q")")->codes(), std::vector<std::string>{"E1003"});
  EXPECT_EQ(lexText(R"("\u{110000}" "\u{D800}" "\u{}" "\u41")")->codes(),
            (std::vector<std::string>{"E1003", "E1003", "E1003", "E1003"}));
  EXPECT_EQ(lexText("\"abc")->codes(), std::vector<std::string>{"E1003"});
  EXPECT_EQ(lexText("\"abc\nx")->codes(), std::vector<std::string>{"E1003"});
  // A string continued on the next line is one error, not two strings.
  auto split = lexText("\"one\ntwo\" x");
  EXPECT_EQ(split->codes(), std::vector<std::string>{"E1003"});
  EXPECT_EQ(split->kinds(), (std::vector<K>{K::StringLiteral, K::Identifier, K::EndOfFile}));
}

TEST(Lexer, InvalidCharactersFormOneDiagnosticPerRun) {
  auto lexed = lexText("a @#$ b \xC3\xA9\xC3\xA9 c \xFF\xFE d");
  EXPECT_EQ(lexed->codes(), (std::vector<std::string>{"E1001", "E1001", "E1001"}));
  EXPECT_EQ(lexed->kinds(),
            (std::vector<K>{K::Identifier, K::Error, K::Identifier, K::Error, K::Identifier,
                            K::Error, K::Identifier, K::EndOfFile}));
}

TEST(Lexer, NonAsciiIsFineInCommentsAndStrings) {
  auto lexed = lexText("// héllo ✓\n\"naïve\" /* ü */");
  EXPECT_TRUE(lexed->codes().empty());
}

TEST(Lexer, InvalidUtf8InCommentsAndStringsIsE1001) {
  EXPECT_EQ(lexText("// \xC3\x28\n")->codes(), std::vector<std::string>{"E1001"});
  EXPECT_EQ(lexText("\"\xE2\x82\"")->codes(), std::vector<std::string>{"E1001"});
  // Overlong forms and surrogates are not UTF-8.
  EXPECT_EQ(lexText("\"\xC0\xAF\"")->codes(), std::vector<std::string>{"E1001"});
  EXPECT_EQ(lexText("\"\xED\xA0\x80\"")->codes(), std::vector<std::string>{"E1001"});
}

TEST(Lexer, AlwaysEndsWithEndOfFile) {
  // Every byte value, alone and in pairs, lexes to a buffer ending in EOF.
  for (int a = 0; a < 256; ++a) {
    for (int b : {0, 34, 47, 42, 92, 48, 120, 200, 255}) {
      std::string text{char(a), char(b)};
      auto lexed = lexText(text);
      ASSERT_FALSE(lexed->tokens.tokens.empty());
      EXPECT_EQ(lexed->tokens.tokens.back().kind, K::EndOfFile);
      for (const Token& t : lexed->tokens.tokens) EXPECT_LE(t.span.end, text.size());
    }
  }
}

}  // namespace
}  // namespace linnet::test
