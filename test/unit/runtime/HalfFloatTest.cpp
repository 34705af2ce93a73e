// Tests for runtime/support/HalfFloat.h. Widening is checked exhaustively
// against the textbook formula; narrowing is checked on hand-picked edge
// cases (ties, subnormals, overflow, NaN) and on a million f32 patterns
// against a slow reference that searches for the nearest 16-bit value.
#include "runtime/support/HalfFloat.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace linnet::rt {
namespace {

float fromBits(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t toBits(float value) { return std::bit_cast<std::uint32_t>(value); }

bool isF16NaN(std::uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }
bool isBf16NaN(std::uint16_t h) { return (h & 0x7F80u) == 0x7F80u && (h & 0x7Fu) != 0; }

// Nearest-even rounding of |value| given the two neighbouring candidates.
std::uint16_t pickNearestEven(double magnitude, std::uint16_t low, double lowValue,
                              std::uint16_t high, double highValue) {
  double below = magnitude - lowValue;
  double above = highValue - magnitude;
  if (below < above)
    return low;
  if (above < below)
    return high;
  return (low & 1u) == 0 ? low : high;
}

// Slow f32 -> f16: binary search over the (monotonic) positive f16 codes.
std::uint16_t referenceF32ToF16(float value) {
  std::uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
  double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude >= 65520.0) // halfway to 2^16 and beyond: infinity
    return sign | 0x7C00u;
  std::uint16_t low = 0, high = 0x7BFF; // find the largest code <= magnitude
  while (low < high) {
    std::uint16_t mid = static_cast<std::uint16_t>((low + high + 1) / 2);
    if (f16ToF32(mid) <= magnitude)
      low = mid;
    else
      high = mid - 1;
  }
  // Everything in [65504, 65520) rounds down to the largest finite code.
  if (f16ToF32(low) == magnitude || low == 0x7BFF)
    return sign | low;
  std::uint16_t next = low + 1;
  return sign | pickNearestEven(magnitude, low, f16ToF32(low), next, f16ToF32(next));
}

// Slow f32 -> bf16: the two bf16 values around the f32, compared in double.
std::uint16_t referenceF32ToBf16(float value) {
  std::uint32_t bits = toBits(value);
  std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  std::uint16_t low = static_cast<std::uint16_t>((bits >> 16) & 0x7FFFu);
  double magnitude = std::fabs(static_cast<double>(value));
  double lowValue = bf16ToF32(low);
  if (lowValue == magnitude)
    return sign | low;
  std::uint16_t high = low + 1;
  // Past the largest finite bf16 the upper neighbour is infinity, whose
  // "value" for rounding purposes is 2^128.
  double highValue = high == 0x7F80u ? std::ldexp(1.0, 128) : bf16ToF32(high);
  return sign | pickNearestEven(magnitude, low, lowValue, high, highValue);
}

TEST(HalfFloatTest, F16ToF32IsExactForEveryCode) {
  for (std::uint32_t code = 0; code <= 0xFFFF; ++code) {
    std::uint16_t h = static_cast<std::uint16_t>(code);
    float widened = f16ToF32(h);
    int exponent = (h >> 10) & 0x1F;
    int mantissa = h & 0x3FF;
    bool negative = (h & 0x8000) != 0;
    if (exponent == 0x1F) {
      if (mantissa == 0)
        EXPECT_TRUE(std::isinf(widened)) << code;
      else
        EXPECT_TRUE(std::isnan(widened)) << code;
      EXPECT_EQ(std::signbit(widened), negative) << code;
      continue;
    }
    double expected =
        exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
    if (negative)
      expected = -expected;
    EXPECT_EQ(static_cast<double>(widened), expected) << code;
    EXPECT_EQ(std::signbit(widened), negative) << code;
  }
}

TEST(HalfFloatTest, F16RoundTripsEveryCode) {
  for (std::uint32_t code = 0; code <= 0xFFFF; ++code) {
    std::uint16_t h = static_cast<std::uint16_t>(code);
    std::uint16_t back = f32ToF16(f16ToF32(h));
    if (isF16NaN(h)) {
      EXPECT_TRUE(isF16NaN(back)) << code;
      EXPECT_EQ(back & 0x8000u, h & 0x8000u) << code;
    } else {
      EXPECT_EQ(back, h) << code;
    }
  }
}

TEST(HalfFloatTest, Bf16RoundTripsEveryCode) {
  for (std::uint32_t code = 0; code <= 0xFFFF; ++code) {
    std::uint16_t h = static_cast<std::uint16_t>(code);
    EXPECT_EQ(toBits(bf16ToF32(h)), code << 16);
    std::uint16_t back = f32ToBf16(bf16ToF32(h));
    if (isBf16NaN(h))
      EXPECT_TRUE(isBf16NaN(back)) << code;
    else
      EXPECT_EQ(back, h) << code;
  }
}

TEST(HalfFloatTest, F16EdgeCases) {
  EXPECT_EQ(f32ToF16(0.0f), 0x0000u);
  EXPECT_EQ(f32ToF16(-0.0f), 0x8000u);
  EXPECT_EQ(f32ToF16(1.0f), 0x3C00u);
  EXPECT_EQ(f32ToF16(-2.0f), 0xC000u);
  EXPECT_EQ(f32ToF16(65504.0f), 0x7BFFu);  // largest finite
  EXPECT_EQ(f32ToF16(65519.99f), 0x7BFFu); // just under the halfway point
  EXPECT_EQ(f32ToF16(65520.0f), 0x7C00u);  // halfway: ties to even = infinity
  EXPECT_EQ(f32ToF16(1e10f), 0x7C00u);
  EXPECT_EQ(f32ToF16(-1e10f), 0xFC00u);
  EXPECT_EQ(f32ToF16(std::numeric_limits<float>::infinity()), 0x7C00u);
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -14)), 0x0400u); // smallest normal
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -24)), 0x0001u); // smallest subnormal
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -25)), 0x0000u); // tie between 0 and 1: even
  EXPECT_EQ(f32ToF16(std::ldexp(1.5f, -25)), 0x0001u);
  EXPECT_EQ(f32ToF16(std::ldexp(3.0f, -25)), 0x0002u); // tie between 1 and 2: even
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -30)), 0x0000u);
  EXPECT_EQ(f32ToF16(1.0f + std::ldexp(1.0f, -11)), 0x3C00u);     // tie: down to even
  EXPECT_EQ(f32ToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02u); // tie: up to even
  EXPECT_EQ(f32ToF16(1.0f + 1.1f * std::ldexp(1.0f, -11)), 0x3C01u);
  // Largest subnormal plus a bit rounds up into the smallest normal.
  EXPECT_EQ(f32ToF16(std::ldexp(1023.75f, -24)), 0x0400u);
  EXPECT_TRUE(isF16NaN(f32ToF16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(isF16NaN(f32ToF16(fromBits(0x7F800001u)))); // payload only in low bits
  EXPECT_TRUE(isF16NaN(f32ToF16(fromBits(0xFF800001u))));
  EXPECT_EQ(f32ToF16(fromBits(0xFF800001u)) & 0x8000u, 0x8000u);
}

TEST(HalfFloatTest, Bf16EdgeCases) {
  EXPECT_EQ(f32ToBf16(1.0f), 0x3F80u);
  EXPECT_EQ(f32ToBf16(-0.0f), 0x8000u);
  EXPECT_EQ(f32ToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80u);     // tie: down to even
  EXPECT_EQ(f32ToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82u); // tie: up to even
  EXPECT_EQ(f32ToBf16(std::numeric_limits<float>::max()), 0x7F80u);
  EXPECT_EQ(f32ToBf16(std::numeric_limits<float>::infinity()), 0x7F80u);
  EXPECT_EQ(f32ToBf16(-std::numeric_limits<float>::infinity()), 0xFF80u);
  EXPECT_EQ(f32ToBf16(std::numeric_limits<float>::denorm_min()), 0x0000u);
  EXPECT_TRUE(isBf16NaN(f32ToBf16(fromBits(0x7F800001u)))); // would truncate to infinity
  EXPECT_TRUE(isBf16NaN(f32ToBf16(std::numeric_limits<float>::quiet_NaN())));
}

TEST(HalfFloatTest, NarrowingMatchesReferenceOnSampledPatterns) {
  // A prime stride visits about a million patterns spread over every
  // exponent, sign and mantissa.
  constexpr std::uint64_t kStride = 4099;
  int checked = 0;
  for (std::uint64_t pattern = 0; pattern <= 0xFFFF'FFFFu; pattern += kStride) {
    float value = fromBits(static_cast<std::uint32_t>(pattern));
    if (std::isnan(value))
      continue;
    ASSERT_EQ(f32ToF16(value), referenceF32ToF16(value)) << "f32 bits " << pattern;
    ASSERT_EQ(f32ToBf16(value), referenceF32ToBf16(value)) << "f32 bits " << pattern;
    ++checked;
  }
  EXPECT_GT(checked, 1'000'000);
}

} // namespace
} // namespace linnet::rt
