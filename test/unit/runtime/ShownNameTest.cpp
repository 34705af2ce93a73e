// Tests for runtime/support/ShownName.h: names quoted in error messages are
// shortened past 80 bytes and their control bytes escaped.
#include "runtime/support/ShownName.h"

#include <gtest/gtest.h>

namespace linnet::rt {
namespace {

TEST(ShownNameTest, ShortNamesAreKept) {
  EXPECT_EQ(shownName("forward"), "forward");
  EXPECT_EQ(shownName(""), "");
  EXPECT_EQ(shownName(std::string(80, 'a')), std::string(80, 'a'));
}

TEST(ShownNameTest, LongNamesAreShortened) {
  EXPECT_EQ(shownName(std::string(81, 'a')), std::string(60, 'a') + "... (81 bytes)");
  EXPECT_EQ(shownName(std::string(10000000, 'a')), std::string(60, 'a') + "... (10000000 bytes)");
}

TEST(ShownNameTest, ControlBytesAndBadUtf8AreEscaped) {
  EXPECT_EQ(shownName("a\x1b[31mb\x07\n\t\x7f"), "a\\x1b[31mb\\x07\\n\\t\\x7f");
  EXPECT_EQ(shownName("\xff\xc3"), "\\xff\\xc3");
  // An overlong `/`, a surrogate, a C1 control.
  EXPECT_EQ(shownName("\xc0\xaf\xed\xa0\x80\xc2\x9b"), "\\xc0\\xaf\\xed\\xa0\\x80\\xc2\\x9b");
  EXPECT_EQ(shownName("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\xa6"), "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\xa6");
}

TEST(ShownNameTest, ShorteningDoesNotSplitACharacter) {
  // 59 bytes, then a 3-byte character across the 60-byte cut.
  std::string name = std::string(59, 'a') + "\xe2\x86\x92" + std::string(40, 'b');
  EXPECT_EQ(shownName(name), std::string(59, 'a') + "... (102 bytes)");
}

// A whole message keeps its lines and tabs and is never shortened; every other
// control byte is escaped (a path quoted in it held an escape sequence).
TEST(ShownNameTest, MessagesKeepTheirLines) {
  EXPECT_EQ(shownMessage("error: a\n\tnote"), "error: a\n\tnote");
  EXPECT_EQ(shownMessage("x/\x1b]0;t\x07\x1b[2J.npy\r"), "x/\\x1b]0;t\\x07\\x1b[2J.npy\\x0d");
  EXPECT_EQ(shownMessage("\xe2\x80\xae" "xyz"), "\\xe2\\x80\\xaexyz");
  EXPECT_EQ(shownMessage(std::string(5000, 'a')).size(), 5000u);
}

} // namespace
} // namespace linnet::rt
