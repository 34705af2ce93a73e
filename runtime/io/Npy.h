// Reading NumPy `.npy` files (format versions 1, 2 and 3).
//
// Accepted: little-endian (or byte-order-free) bool, u8, i8, i16, i32, i64,
// f16, f32 and f64 arrays in C order. The header is parsed as the small
// Python dict literal the format specifies ({'descr': ..., 'fortran_order':
// ..., 'shape': (...)}), with its length bounded, every key required once,
// and the data length required to equal what the shape says, exactly.
// Anything else (big-endian, Fortran order, object arrays, structured
// dtypes, trailing bytes) is an error naming the file.
#pragma once

#include "runtime/session/HostTensor.h"
#include "runtime/support/DType.h"
#include "runtime/support/Status.h"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>

namespace linnet::rt {

inline constexpr std::size_t kMaxNpyHeaderBytes = 1 << 16;

// Parses a whole `.npy` image; `sourceName` prefixes messages.
Expected<HostTensor> parseNpy(std::span<const std::byte> bytes, std::string_view sourceName);

// Reads `path` and returns it as `dtype`: the file's dtype must be `dtype`,
// except that f32 or f16 data may be read as bf16 (NumPy has no bf16),
// rounded to nearest even, unless `exact`; its rank `rank` where given, and
// each axis's extent where `extents` knows it. All are checked from the
// header, before the data is copied.
Expected<HostTensor> readNpyAs(const std::filesystem::path &path, DType dtype, bool exact = false,
                               std::optional<std::size_t> rank = std::nullopt,
                               std::span<const std::optional<std::int64_t>> extents = {});

// The bytes of a `.npy` (version 1) file holding `tensor` (not for bf16,
// which NumPy cannot represent). For tests and tools.
Expected<std::string> encodeNpy(const HostTensor &tensor);

} // namespace linnet::rt
