// The pre-tokenizer regex engine (runtime/tokenizer/Regex.h) and the UTF-8
// helpers. Expected splits were checked against `tokenizers` 0.22.1
// (pre_tokenizers.Split(Regex(p), "isolated").pre_tokenize_str) in
// build/reference-venv.
#include "runtime/tokenizer/ByteLevel.h"
#include "runtime/tokenizer/PreTokenizer.h"
#include "runtime/tokenizer/Regex.h"
#include "runtime/tokenizer/UnicodeTables.h"
#include "runtime/tokenizer/Utf8.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace linnet::rt {
namespace {

constexpr std::string_view kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// The pieces an Isolated split gives (matches and the text between them).
std::vector<std::string> splitWith(std::string_view pattern, std::string_view text) {
  Expected<Regex> regex = Regex::compile(pattern);
  EXPECT_TRUE(regex.ok()) << (regex.ok() ? "" : regex.message());
  std::u32string chars = decodeUtf8(text).value();
  auto matches = regex->findAll(chars).value();
  std::vector<std::string> out;
  std::size_t previous = 0;
  for (auto [begin, end] : matches) {
    if (begin > previous)
      out.push_back(toUtf8(std::u32string_view(chars).substr(previous, begin - previous)));
    out.push_back(toUtf8(std::u32string_view(chars).substr(begin, end - begin)));
    previous = end;
  }
  if (previous < chars.size())
    out.push_back(toUtf8(std::u32string_view(chars).substr(previous)));
  return out;
}

using Pieces = std::vector<std::string>;

TEST(Regex, Llama3PatternMatchesTokenizers) {
  // (?i:...) is ASCII-only: U+017F (long s) and U+212A (Kelvin) do not match.
  EXPECT_EQ(splitWith(kLlama3, "it'S a \xC5\xBF '\xC5\xBF 'K '\xE2\x84\xAA"),
            (Pieces{"it", "'S", " a", " \xC5\xBF", " '", "\xC5\xBF", " '", "K", " '",
                    "\xE2\x84\xAA"}));
  // U+001C is not \s (White_Space), unlike Python's str.isspace.
  EXPECT_EQ(splitWith(kLlama3, "a\x1c" "b  \x1c c"), (Pieces{"a", "\x1c" "b", " ", " \x1c", " c"}));
  // U+00A0 and U+3000 are \s.
  EXPECT_EQ(splitWith(kLlama3, "x\xC2\xA0\xC2\xA0y"), (Pieces{"x", "\xC2\xA0", "\xC2\xA0y"}));
  EXPECT_EQ(splitWith(kLlama3, "a \xE3\x80\x80 b"), (Pieces{"a", " \xE3\x80\x80", " b"}));
  EXPECT_EQ(splitWith(kLlama3, "abc   \n\n  def  "),
            (Pieces{"abc", "   \n\n", " ", " def", "  "}));
  // U+200B and U+180E are neither \s nor letters.
  EXPECT_EQ(splitWith(kLlama3, "a\xE2\x80\x8B" "b\xE1\xA0\x8E" "c"),
            (Pieces{"a", "\xE2\x80\x8B" "b", "\xE1\xA0\x8E" "c"}));
  // \p{N}{1,3}; circled digits and fractions are N (No) too.
  EXPECT_EQ(splitWith(kLlama3, "12345678 \xE2\x91\xA0\xE2\x91\xA1\xE2\x91\xA2 \xC2\xBD"),
            (Pieces{"123", "456", "78", " ", "\xE2\x91\xA0\xE2\x91\xA1\xE2\x91\xA2", " ",
                    "\xC2\xBD"}));
}

TEST(Regex, Gpt2Pattern) {
  EXPECT_EQ(splitWith(PreTokenizer::kGpt2Pattern, "Hello world  it's 42!!\n\n  x"),
            (Pieces{"Hello", " world", " ", " it", "'s", " 42", "!!", "\n\n ", " x"}));
}

TEST(Regex, Features) {
  EXPECT_EQ(splitWith("a{2,3}", "aaaaaaa"), (Pieces{"aaa", "aaa", "a"}));
  EXPECT_EQ(splitWith("a{2}", "aaaaa"), (Pieces{"aa", "aa", "a"}));
  EXPECT_EQ(splitWith("a+?", "aaa"), (Pieces{"a", "a", "a"}));
  EXPECT_EQ(splitWith("(?:ab)+", "ababxab"), (Pieces{"abab", "x", "ab"}));
  EXPECT_EQ(splitWith("x(?=y)", "xyxz"), (Pieces{"x", "yxz"}));
  EXPECT_EQ(splitWith("[a-c]+|\\.", "abcd.e"), (Pieces{"abc", "d", ".", "e"}));
  EXPECT_EQ(splitWith("(?i:[a-c]+)", "AbCd"), (Pieces{"AbC", "d"}));
  EXPECT_EQ(splitWith("\\P{L}+", "ab12 cd"), (Pieces{"ab", "12 ", "cd"}));
  EXPECT_EQ(splitWith(".", "a\nb"), (Pieces{"a", "\n", "b"}));
}

TEST(Regex, RefusesWhatItDoesNotImplement) {
  for (std::string_view pattern :
       {"^a", "a$", "\\d+", "\\w", "\\p{Lu}", "(?P<x>a)", "a++", "[a", "(a", "a)", "*a",
        "\\bword", "[[:alpha:]]", "a{1000000}", "(?s:a)", "\\"}) {
    Expected<Regex> regex = Regex::compile(pattern);
    ASSERT_FALSE(regex.ok()) << pattern;
    EXPECT_NE(regex.message().find("unsupported regex construct"), std::string::npos)
        << regex.message();
  }
}

TEST(Regex, DeeplyNestedGroupsAreAnErrorNotAStackOverflow) {
  // The parser recurses per group: 20000 nested groups used to overflow the
  // stack. A hundred levels still parse.
  for (std::string_view open : {"(", "(?:", "(?i:", "(?="}) {
    std::string deep;
    for (int i = 0; i < 20000; ++i)
      deep += open;
    deep += 'a' + std::string(20000, ')');
    Expected<Regex> regex = Regex::compile(deep);
    ASSERT_FALSE(regex.ok()) << open;
    EXPECT_NE(regex.message().find("unsupported regex construct"), std::string::npos);
    EXPECT_NE(regex.message().find("nested deeper than 100"), std::string::npos)
        << regex.message();
  }
  std::string ok = std::string(100, '(') + "a" + std::string(100, ')');
  EXPECT_EQ(splitWith(ok, "bab"), (Pieces{"b", "a", "b"}));
}

TEST(Regex, PathologicalPatternsStop) {
  // Exponential backtracking gives an Error, not a hang.
  Regex regex = Regex::compile("(?:a|a)*b").value();
  std::u32string text(64, U'a');
  auto result = regex.findAll(text);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.message().find("gave up"), std::string::npos);
}

TEST(UnicodeTables, Properties) {
  EXPECT_TRUE(unicode::isLetter(U'a'));
  EXPECT_TRUE(unicode::isLetter(U'\u00E9'));
  EXPECT_TRUE(unicode::isLetter(U'\u65E5'));  // 日
  EXPECT_TRUE(unicode::isLetter(U'\uAC00'));  // 가
  EXPECT_FALSE(unicode::isLetter(U'\u0301')); // combining acute: Mn
  EXPECT_FALSE(unicode::isLetter(U'1'));
  EXPECT_TRUE(unicode::isNumber(U'\u00BD'));  // ½ (No)
  EXPECT_TRUE(unicode::isNumber(U'\u0663'));  // Arabic-Indic 3 (Nd)
  EXPECT_TRUE(unicode::isNumber(U'\u2160'));  // Roman numeral one (Nl)
  EXPECT_FALSE(unicode::isNumber(U'x'));
  EXPECT_TRUE(unicode::isWhiteSpace(U'\u0085'));
  EXPECT_TRUE(unicode::isWhiteSpace(U'\u202F'));
  EXPECT_FALSE(unicode::isWhiteSpace(U'\u001C'));
  EXPECT_FALSE(unicode::isWhiteSpace(U'\u200B'));
  EXPECT_TRUE(unicode::isNfc(U"caf\u00E9 \u65E5\u672C"));
  EXPECT_FALSE(unicode::isNfc(U"cafe\u0301"));
  EXPECT_FALSE(unicode::isNfc(U"\u212B")); // Angstrom sign: NFC maps it to U+00C5
}

TEST(Utf8, LossyMatchesRust) {
  // String::from_utf8_lossy: one U+FFFD per maximal ill-formed subpart.
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(toUtf8Lossy("ok"), "ok");
  EXPECT_EQ(toUtf8Lossy("\xE6\x97"), r);
  EXPECT_EQ(toUtf8Lossy("\xF0\x9F\x98"), r);
  EXPECT_EQ(toUtf8Lossy("\xC0\x80"), r + r);
  EXPECT_EQ(toUtf8Lossy("\xED\xA0\x80"), r + r + r);
  EXPECT_EQ(toUtf8Lossy("a\xFF" "b\xE6\x97\xA5"), "a" + r + "b\xE6\x97\xA5");
  EXPECT_EQ(toUtf8Lossy("\xE6\x97x"), r + "x");
  EXPECT_FALSE(decodeUtf8("\xF4\x90\x80\x80").ok());
  EXPECT_EQ(decodeUtf8("\xF0\x9F\x98\x80").value(), U"\U0001F600");
}

TEST(ByteLevelAlphabet, Gpt2Mapping) {
  EXPECT_EQ(byteToChar(' '), U'\u0120');
  EXPECT_EQ(byteToChar('\n'), U'\u010A');
  EXPECT_EQ(byteToChar('A'), U'A');
  EXPECT_EQ(byteToChar(0xAD), U'\u0143');
  EXPECT_EQ(byteToChar(0xE9), U'\u00E9');
  for (unsigned b = 0; b < 256; ++b)
    EXPECT_EQ(charToByte(byteToChar(static_cast<unsigned char>(b))), b);
  EXPECT_FALSE(charToByte(U'\u0200').has_value());
  EXPECT_EQ(byteLevelEncode("a b"), "a\xC4\xA0" "b");
}

} // namespace
} // namespace linnet::rt
