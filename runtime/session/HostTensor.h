// A tensor in host memory that owns its bytes: arguments given to an entry
// and results taken from it.
//
// The invariant bytes().size() == elementCount() * dtypeSize(dtype()) holds
// for every HostTensor (the factories check it, with overflow checks), so
// code holding one never re-checks sizes. Bytes are row-major (C order) and
// little-endian, bf16/f16 as raw 16-bit patterns, bool as one byte 0 or 1.
// A plain value: copyable (deep copy) and movable.
#pragma once

#include "runtime/support/DType.h"
#include "runtime/support/Status.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace linnet::rt {

class HostTensor {
public:
  // A zero-filled tensor. Errors: a negative dimension or a size overflow.
  static Expected<HostTensor> zeros(DType dtype, std::vector<std::int64_t> shape);
  // Takes `bytes` as the data; they must be exactly the tensor's size.
  static Expected<HostTensor> fromBytes(DType dtype, std::vector<std::int64_t> shape, std::vector<std::byte> bytes);
  // A rank-0 tensor holding `value` converted to `dtype` (see storeElement).
  static HostTensor scalar(DType dtype, double value);

  DType dtype() const { return dtype_; }
  const std::vector<std::int64_t> &shape() const { return shape_; }
  std::size_t rank() const { return shape_.size(); }
  std::int64_t elementCount() const { return elementCount_; }
  std::span<const std::byte> bytes() const { return bytes_; }
  std::span<std::byte> bytes() { return bytes_; }

  // Element `index` (row-major) as a double: exact for every integer of 32
  // bits or less and every float dtype; i64 beyond 2^53 rounds.
  double elementAsDouble(std::int64_t index) const;
  // Element `index` as an int64 (integers and bool only; floats truncate).
  // u64 past 2^63 wraps to negative: use elementAsUnsigned for it.
  std::int64_t elementAsInt(std::int64_t index) const;
  // Element `index` as a uint64: exact for every u64 (and every unsigned
  // dtype and bool); other dtypes give elementAsInt converted.
  std::uint64_t elementAsUnsigned(std::int64_t index) const;

  // "i32[1, 3]"
  std::string describe() const;

  friend bool operator==(const HostTensor &, const HostTensor &) = default;

private:
  HostTensor() = default;
  DType dtype_ = DType::F32;
  std::vector<std::int64_t> shape_;
  std::int64_t elementCount_ = 1;
  std::vector<std::byte> bytes_;
};

// Element count and byte size of `shape` of `dtype`, overflow-checked.
Expected<std::size_t> tensorByteSize(DType dtype, std::span<const std::int64_t> shape);

// Writes `value` as one element of `dtype` at `out`: floats round to the
// dtype; for integer dtypes the value truncates toward zero, saturates to
// int64 (NaN gives 0) and then wraps to the dtype's width, so check ranges
// first where that matters.
void storeElement(std::byte *out, DType dtype, double value);
void storeIntElement(std::byte *out, DType dtype, std::int64_t value);

} // namespace linnet::rt
