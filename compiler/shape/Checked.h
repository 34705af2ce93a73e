// Overflow-checked 64-bit integer arithmetic for the shape solver. Every
// helper reports overflow through its return value (true = overflowed) and
// never executes a signed overflow, so constant folding, coefficient
// arithmetic and evaluation can turn overflow into a reported result instead
// of undefined behaviour. Division and modulo are floor division: the
// quotient rounds toward negative infinity and the remainder takes the sign
// of the divisor (for the non-negative operands that dimensions have, this is
// the same as truncation). Callers must not pass a zero divisor.
#pragma once

#include <cstdint>
#include <limits>
#include <numeric>

namespace linnet::shape::checked {

inline bool add(int64_t a, int64_t b, int64_t& out) {
  return __builtin_add_overflow(a, b, &out);
}

inline bool sub(int64_t a, int64_t b, int64_t& out) {
  return __builtin_sub_overflow(a, b, &out);
}

inline bool mul(int64_t a, int64_t b, int64_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}

inline bool neg(int64_t a, int64_t& out) {
  return __builtin_sub_overflow(int64_t{0}, a, &out);
}

// Floor quotient; `b` must be non-zero. Only INT64_MIN / -1 overflows.
inline bool floorDiv(int64_t a, int64_t b, int64_t& out) {
  if (b == -1) return neg(a, out);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  out = q;
  return false;
}

// Floor remainder (sign of the divisor); `b` must be non-zero. Never
// overflows: the result's magnitude is below |b|.
inline int64_t floorMod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Greatest common divisor of magnitudes, 0 when both are 0. The result can
// only fail to fit when both inputs are INT64_MIN or 0 and INT64_MIN; then it
// reports overflow.
inline bool gcd(int64_t a, int64_t b, int64_t& out) {
  uint64_t x = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  uint64_t y = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  uint64_t g = std::gcd(x, y);
  if (g > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return true;
  out = static_cast<int64_t>(g);
  return false;
}

}  // namespace linnet::shape::checked
