// Bit-level bf16/f16 <-> f32 conversions (see HalfFloat.h). Done on integer
// bit patterns rather than with compiler half types so the rounding is the
// same on every host and compiler.
#include "runtime/support/HalfFloat.h"

#include <bit>

namespace linnet::rt {

namespace {
constexpr std::uint32_t kF32SignMask = 0x8000'0000u;
constexpr std::uint32_t kF32AbsMask = 0x7FFF'FFFFu;
constexpr std::uint32_t kF32Infinity = 0x7F80'0000u;
} // namespace

float bf16ToF32(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t f32ToBf16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & kF32AbsMask) > kF32Infinity) {
    // Truncating a NaN could clear every remaining mantissa bit and produce
    // infinity; set the quiet bit so it stays a NaN.
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  }
  // Adding 0x7FFF plus the lowest kept bit rounds to nearest, ties to even;
  // a carry out of the mantissa correctly bumps the exponent (up to infinity).
  std::uint32_t lowestKeptBit = (bits >> 16) & 1u;
  bits += 0x7FFFu + lowestKeptBit;
  return static_cast<std::uint16_t>(bits >> 16);
}

float f16ToF32(std::uint16_t bits) {
  std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  std::uint32_t exponent = (bits >> 10) & 0x1Fu;
  std::uint32_t mantissa = bits & 0x3FFu;

  if (exponent == 0) {
    if (mantissa == 0)
      return std::bit_cast<float>(sign); // signed zero
    // Subnormal: normalize it, since every f16 subnormal is an f32 normal.
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3FFu;
    std::uint32_t f32Exponent = static_cast<std::uint32_t>(127 - 15 + 1 - shift);
    return std::bit_cast<float>(sign | (f32Exponent << 23) | (mantissa << 13));
  }
  if (exponent == 0x1Fu) // infinity or NaN; the payload is kept
    return std::bit_cast<float>(sign | kF32Infinity | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

std::uint16_t f32ToF16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  std::uint16_t sign = static_cast<std::uint16_t>((bits & kF32SignMask) >> 16);
  std::uint32_t magnitude = bits & kF32AbsMask;

  if (magnitude > kF32Infinity) // NaN: keep the top payload bits, force quiet
    return static_cast<std::uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));

  // 65520 is halfway between the largest f16 (65504) and 2^16; ties-to-even
  // goes up there, so it and everything above become infinity.
  if (magnitude >= 0x477F'F000u)
    return static_cast<std::uint16_t>(sign | 0x7C00u);

  if (magnitude < 0x3880'0000u) { // below 2^-14: f16 subnormal or zero
    // 2^-25 is halfway between 0 and the smallest subnormal 2^-24; ties go to
    // the even one, 0.
    if (magnitude <= 0x3300'0000u)
      return sign;
    std::uint32_t f32Exponent = magnitude >> 23; // 102..112
    std::uint32_t significand = (magnitude & 0x7F'FFFFu) | 0x80'0000u;
    std::uint32_t shift = 126 - f32Exponent; // 14..24
    std::uint32_t result = significand >> shift;
    std::uint32_t remainder = significand & ((1u << shift) - 1);
    std::uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (result & 1u)))
      ++result; // may carry into the smallest normal, which is the right code
    return static_cast<std::uint16_t>(sign | result);
  }

  // Normal: rebias the exponent (127 -> 15) and round off 13 mantissa bits.
  std::uint32_t result = (magnitude - ((127u - 15u) << 23)) >> 13;
  std::uint32_t remainder = magnitude & 0x1FFFu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u)))
    ++result;
  return static_cast<std::uint16_t>(sign | result);
}

} // namespace linnet::rt
