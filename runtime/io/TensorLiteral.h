// Tensor values written as JSON-style nested lists: `[[1, 2, 3]]`, `0.5`.
//
// The caller says what it expects (the entry argument's dtype and rank), so
// the text is checked against it: the nesting must be exactly `rank` deep
// (a scalar is a bare number), every list at one depth has the same length
// (no ragged lists), every leaf is a number (for bool: true/false or 0/1),
// integers fit the dtype (u64 up to 2^64 - 1; a number written with a
// fraction or exponent is read as its value if that is an integer of at
// most 2^53, so `1e3` is 1000, `1.5` an error, `1e10` out of range for i32),
// and floats are finite in the dtype after rounding. Messages give the
// element's index and, for a range error, the dtype's range. An empty list
// fixes the axes below it to 0.
#pragma once

#include "runtime/session/HostTensor.h"
#include "runtime/support/DType.h"
#include "runtime/support/Status.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string_view>

namespace linnet::rt {

// Parses `text` as JSON, then as tensorFromJson.
Expected<HostTensor> parseTensorLiteral(std::string_view text, DType dtype, std::size_t rank);

// Converts a parsed JSON value (e.g. from a --calls file).
Expected<HostTensor> tensorFromJson(const nlohmann::json &value, DType dtype, std::size_t rank);

} // namespace linnet::rt
