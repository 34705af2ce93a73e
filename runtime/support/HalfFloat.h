// Conversions between the 16-bit float formats and f32.
//
// bf16 is the top half of an IEEE f32; f16 is IEEE binary16 (5-bit exponent,
// 10-bit mantissa, subnormals). Values are passed as raw 16-bit patterns, as
// they sit in a checkpoint. Narrowing rounds to nearest, ties to even; values
// too large for f16 become infinity; NaNs stay NaN (quiet) and keep their sign.
// Widening is exact.
#pragma once

#include <cstdint>

namespace linnet::rt {

float bf16ToF32(std::uint16_t bits);
std::uint16_t f32ToBf16(float value);

float f16ToF32(std::uint16_t bits);
std::uint16_t f32ToF16(float value);

} // namespace linnet::rt
