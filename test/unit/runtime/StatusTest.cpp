// Tests for runtime/support/Status.h: Status and Expected carry values and
// messages, and misuse aborts instead of returning garbage.
#include "runtime/support/Status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace linnet::rt {
namespace {

Expected<int> half(int value) {
  if (value % 2 != 0)
    return makeError("{} is odd", value);
  return value / 2;
}

TEST(StatusTest, DefaultIsSuccess) {
  Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_TRUE(static_cast<bool>(status));
  EXPECT_EQ(status.message(), "");
}

TEST(StatusTest, ErrorKeepsMessage) {
  Status status = makeError("file {}: {}", "a.bin", "broken");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "file a.bin: broken");
}

TEST(ExpectedTest, HoldsValueOrError) {
  Expected<int> good = half(8);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 4);
  Expected<int> bad = half(7);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "7 is odd");
  EXPECT_FALSE(bad.status().ok());
  EXPECT_EQ(bad.status().message(), "7 is odd");
  EXPECT_TRUE(good.status().ok());
}

TEST(ExpectedTest, HoldsMoveOnlyValues) {
  Expected<std::unique_ptr<int>> boxed = std::make_unique<int>(5);
  ASSERT_TRUE(boxed.ok());
  std::unique_ptr<int> taken = std::move(boxed).value();
  EXPECT_EQ(*taken, 5);
}

TEST(ExpectedDeathTest, ValueOfErrorAborts) {
  Expected<int> bad = half(3);
  EXPECT_DEATH((void)bad.value(), "3 is odd");
}

} // namespace
} // namespace linnet::rt
