// Printing a tensor for people (`linnet-run --print`), in NumPy's style:
//
//     i32[2, 3]
//     [[1, 2, 3],
//      [4, 5, 6]]
//
// Floats (bf16 and f16 widened) print with up to 6 significant digits, bool
// as true/false. Above `threshold` elements each axis shows its first and
// last `edgeItems` entries with `...` between, as NumPy does.
#pragma once

#include "runtime/session/HostTensor.h"

#include <cstdint>
#include <string>

namespace linnet::rt {

struct PrintOptions {
  std::int64_t threshold = 1000;
  std::int64_t edgeItems = 3;
};

// The values only (no dtype/shape line).
std::string formatTensorValues(const HostTensor &tensor, const PrintOptions &options = {});
// The "dtype[shape]" line, a newline, then the values.
std::string formatTensor(const HostTensor &tensor, const PrintOptions &options = {});

} // namespace linnet::rt
