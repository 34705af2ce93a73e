// Tests for runtime/support/DType.h: names and sizes, and that names round-trip.
#include "runtime/support/DType.h"

#include <gtest/gtest.h>

namespace linnet::rt {
namespace {

TEST(DTypeTest, NamesAndSizes) {
  EXPECT_EQ(dtypeName(DType::BF16), "bf16");
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeName(DType::F16), "f16");
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(dtypeName(DType::F32), "f32");
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeName(DType::F64), "f64");
  EXPECT_EQ(dtypeSize(DType::F64), 8u);
  EXPECT_EQ(dtypeName(DType::I8), "i8");
  EXPECT_EQ(dtypeSize(DType::I8), 1u);
  EXPECT_EQ(dtypeName(DType::I16), "i16");
  EXPECT_EQ(dtypeSize(DType::I16), 2u);
  EXPECT_EQ(dtypeName(DType::I32), "i32");
  EXPECT_EQ(dtypeSize(DType::I32), 4u);
  EXPECT_EQ(dtypeName(DType::I64), "i64");
  EXPECT_EQ(dtypeSize(DType::I64), 8u);
  EXPECT_EQ(dtypeName(DType::U8), "u8");
  EXPECT_EQ(dtypeSize(DType::U8), 1u);
  EXPECT_EQ(dtypeName(DType::Bool), "bool");
  EXPECT_EQ(dtypeSize(DType::Bool), 1u);
}

TEST(DTypeTest, NamesRoundTrip) {
  for (DType dtype : kAllDTypes) {
    std::optional<DType> parsed = dtypeFromName(dtypeName(dtype));
    ASSERT_TRUE(parsed.has_value()) << dtypeName(dtype);
    EXPECT_EQ(*parsed, dtype);
  }
  EXPECT_FALSE(dtypeFromName("F32").has_value()); // the format's spelling is not ours
  EXPECT_FALSE(dtypeFromName("").has_value());
  EXPECT_FALSE(dtypeFromName("u128").has_value());
  EXPECT_EQ(dtypeFromName("u32"), DType::U32);
}

TEST(DTypeTest, FloatingPoint) {
  EXPECT_TRUE(isFloatingPoint(DType::BF16));
  EXPECT_TRUE(isFloatingPoint(DType::F64));
  EXPECT_FALSE(isFloatingPoint(DType::I32));
  EXPECT_FALSE(isFloatingPoint(DType::Bool));
}

} // namespace
} // namespace linnet::rt
