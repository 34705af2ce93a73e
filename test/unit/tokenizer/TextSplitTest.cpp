// AddedTokenMatcher and the Python-compatible whitespace stripping.
#include "runtime/tokenizer/TextSplit.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace linnet::rt {
namespace {

using Split = std::vector<std::pair<std::string, std::ptrdiff_t>>;

Split split(const AddedTokenMatcher &matcher, std::string_view text) {
  Split out;
  Expected<std::vector<TextSegment>> segments = matcher.split(text);
  EXPECT_TRUE(segments.ok()) << segments.message();
  for (const TextSegment &segment : *segments)
    out.emplace_back(std::string(segment.text), segment.added);
  return out;
}

TEST(TextSplitTest, LeftmostThenLongestMatchWins) {
  AddedTokenMatcher matcher({{"<a>"}, {"<a><b>"}, {"b>c"}});
  EXPECT_EQ(split(matcher, "x<a><b>y"), (Split{{"x", -1}, {"<a><b>", 1}, {"y", -1}}));
  EXPECT_EQ(split(matcher, "<a>b>c"), (Split{{"<a>", 0}, {"b>c", 2}}));
  EXPECT_EQ(split(matcher, "<a"), (Split{{"<a", -1}}));
  EXPECT_EQ(split(matcher, ""), Split{});
}

TEST(TextSplitTest, CraftedTokensAreBoundedNotSlow) {
  // `ab`, `aab`, ... `a...ab` (3000 bytes): every byte of a run of `a`
  // walks them all (tried one after another, a 100 KB prompt took 8 s and a
  // 16 MiB chat render about 20 minutes).
  std::vector<AddedTokenMatcher::Entry> crafted;
  for (int k = 1; k <= 3000; ++k)
    crafted.push_back({std::string(static_cast<std::size_t>(k), 'a') + "b"});
  AddedTokenMatcher matcher(std::move(crafted));
  Expected<std::vector<TextSegment>> slow = matcher.split(std::string(100000, 'a'));
  ASSERT_FALSE(slow.ok());
  EXPECT_NE(slow.message().find("too slow to split (more than 64 bytes of them walked per byte of text)"),
            std::string::npos)
      << slow.message();
  // Matching still finds the longest token at a position.
  EXPECT_EQ(split(matcher, "x" + std::string(2000, 'a') + "b"),
            (Split{{"x", -1}, {std::string(2000, 'a') + "b", 1999}}));
}

TEST(TextSplitTest, TheFirstOfTwoEqualTokensWins) {
  AddedTokenMatcher matcher({{"<s>"}, {"<s>", true, true}});
  EXPECT_EQ(split(matcher, "a <s> b"), (Split{{"a ", -1}, {"<s>", 0}, {" b", -1}}));
}

TEST(TextSplitTest, NoTokensMeansOneSegment) {
  AddedTokenMatcher matcher;
  EXPECT_EQ(split(matcher, "plain"), (Split{{"plain", -1}}));
}

TEST(TextSplitTest, StripsOnlyTheMarkedSides) {
  AddedTokenMatcher matcher({{"<l>", /*lstrip=*/true, false}, {"<r>", false, /*rstrip=*/true}});
  EXPECT_EQ(split(matcher, "a  <l>  b"), (Split{{"a", -1}, {"<l>", 0}, {"  b", -1}}));
  EXPECT_EQ(split(matcher, "a  <r>  b"), (Split{{"a  ", -1}, {"<r>", 1}, {"b", -1}}));
  // Text made empty by stripping disappears.
  EXPECT_EQ(split(matcher, " \t<l>"), (Split{{"<l>", 0}}));
}

TEST(TextSplitTest, StripsPythonWhitespace) {
  EXPECT_EQ(stripLeadingSpace("\xC2\xA0\xE3\x80\x80\t\x1F"
                              "x "),
            "x ");
  EXPECT_EQ(stripTrailingSpace(" x\xE2\x80\xA8\n\xC2\x85"), " x");
  // Not whitespace: U+200B (zero width space), U+2581, invalid bytes.
  EXPECT_EQ(stripLeadingSpace("\xE2\x80\x8Bx"), "\xE2\x80\x8Bx");
  EXPECT_EQ(stripTrailingSpace("x\xE2\x96\x81"), "x\xE2\x96\x81");
  EXPECT_EQ(stripTrailingSpace("x\xA0"), "x\xA0");
  EXPECT_EQ(stripLeadingSpace("   "), "");
}

} // namespace
} // namespace linnet::rt
