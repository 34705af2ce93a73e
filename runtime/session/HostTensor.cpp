// Implementation of HostTensor.h.
#include "runtime/session/HostTensor.h"

#include "runtime/support/HalfFloat.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace linnet::rt {

Expected<std::size_t> tensorByteSize(DType dtype, std::span<const std::int64_t> shape) {
  std::size_t bytes = dtypeSize(dtype);
  for (std::int64_t dim : shape) {
    if (dim < 0)
      return makeError("dimension {} is negative", dim);
    if (__builtin_mul_overflow(bytes, static_cast<std::size_t>(dim), &bytes))
      return makeError("the tensor's byte size overflows");
  }
  return bytes;
}

Expected<HostTensor> HostTensor::zeros(DType dtype, std::vector<std::int64_t> shape) {
  Expected<std::size_t> bytes = tensorByteSize(dtype, shape);
  if (!bytes)
    return bytes.error();
  return fromBytes(dtype, std::move(shape), std::vector<std::byte>(*bytes));
}

Expected<HostTensor> HostTensor::fromBytes(DType dtype, std::vector<std::int64_t> shape,
                                           std::vector<std::byte> bytes) {
  Expected<std::size_t> size = tensorByteSize(dtype, shape);
  if (!size)
    return size.error();
  if (bytes.size() != *size)
    return makeError("{} bytes given for a {}[{}] tensor of {} bytes", bytes.size(), dtypeName(dtype),
                     fmt::join(shape, ", "), *size);
  HostTensor tensor;
  tensor.dtype_ = dtype;
  tensor.elementCount_ = static_cast<std::int64_t>(*size / dtypeSize(dtype));
  tensor.shape_ = std::move(shape);
  tensor.bytes_ = std::move(bytes);
  return tensor;
}

HostTensor HostTensor::scalar(DType dtype, double value) {
  HostTensor tensor;
  tensor.dtype_ = dtype;
  tensor.bytes_.resize(dtypeSize(dtype));
  storeElement(tensor.bytes_.data(), dtype, value);
  return tensor;
}

namespace {
template <typename T> T load(const std::byte *p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}
template <typename T> void store(std::byte *p, T value) { std::memcpy(p, &value, sizeof value); }
} // namespace

double HostTensor::elementAsDouble(std::int64_t index) const {
  const std::byte *p = bytes_.data() + static_cast<std::size_t>(index) * dtypeSize(dtype_);
  switch (dtype_) {
  case DType::Bool:
  case DType::U8:
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64:
  case DType::U16:
  case DType::U32:
    return static_cast<double>(elementAsInt(index)); // one reading of integers
  case DType::U64:
    return static_cast<double>(load<std::uint64_t>(p)); // past 2^63 elementAsInt wraps
  case DType::F16:
    return f16ToF32(load<std::uint16_t>(p));
  case DType::BF16:
    return bf16ToF32(load<std::uint16_t>(p));
  case DType::F32:
    return load<float>(p);
  case DType::F64:
    return load<double>(p);
  }
  return 0;
}

std::int64_t HostTensor::elementAsInt(std::int64_t index) const {
  const std::byte *p = bytes_.data() + static_cast<std::size_t>(index) * dtypeSize(dtype_);
  switch (dtype_) {
  case DType::Bool:
  case DType::U8:
    return load<std::uint8_t>(p);
  case DType::I8:
    return load<std::int8_t>(p);
  case DType::I16:
    return load<std::int16_t>(p);
  case DType::I32:
    return load<std::int32_t>(p);
  case DType::I64:
    return load<std::int64_t>(p);
  case DType::U16:
    return load<std::uint16_t>(p);
  case DType::U32:
    return load<std::uint32_t>(p);
  case DType::U64:
    return static_cast<std::int64_t>(load<std::uint64_t>(p));  // wraps past 2^63
  case DType::F16:
  case DType::BF16:
  case DType::F32:
  case DType::F64:
    break;
  }
  return static_cast<std::int64_t>(elementAsDouble(index));
}

std::uint64_t HostTensor::elementAsUnsigned(std::int64_t index) const {
  if (dtype_ == DType::U64)
    return load<std::uint64_t>(bytes_.data() + static_cast<std::size_t>(index) * sizeof(std::uint64_t));
  return static_cast<std::uint64_t>(elementAsInt(index));
}

std::string HostTensor::describe() const {
  return fmt::format("{}[{}]", dtypeName(dtype_), fmt::join(shape_, ", "));
}

void storeElement(std::byte *out, DType dtype, double value) {
  switch (dtype) {
  case DType::Bool:
    store<std::uint8_t>(out, value != 0 ? 1 : 0);
    return;
  case DType::U8:
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64:
  case DType::U16:
  case DType::U32:
  case DType::U64:
    // Out-of-range and NaN values would be undefined behaviour to convert:
    // NaN stores 0, the rest saturate to the int64 range.
    if (std::isnan(value))
      value = 0;
    value = std::clamp(value, -9223372036854775808.0, 9223372036854774784.0);
    storeIntElement(out, dtype, static_cast<std::int64_t>(value));
    return;
  case DType::F16:
    store<std::uint16_t>(out, f32ToF16(static_cast<float>(value)));
    return;
  case DType::BF16:
    store<std::uint16_t>(out, f32ToBf16(static_cast<float>(value)));
    return;
  case DType::F32:
    store<float>(out, static_cast<float>(value));
    return;
  case DType::F64:
    store<double>(out, value);
    return;
  }
}

void storeIntElement(std::byte *out, DType dtype, std::int64_t value) {
  switch (dtype) {
  case DType::Bool:
    store<std::uint8_t>(out, value != 0 ? 1 : 0);
    return;
  case DType::U8:
    store<std::uint8_t>(out, static_cast<std::uint8_t>(value));
    return;
  case DType::I8:
    store<std::int8_t>(out, static_cast<std::int8_t>(value));
    return;
  case DType::I16:
    store<std::int16_t>(out, static_cast<std::int16_t>(value));
    return;
  case DType::I32:
    store<std::int32_t>(out, static_cast<std::int32_t>(value));
    return;
  case DType::I64:
    store<std::int64_t>(out, value);
    return;
  case DType::U16:
    store<std::uint16_t>(out, static_cast<std::uint16_t>(value));
    return;
  case DType::U32:
    store<std::uint32_t>(out, static_cast<std::uint32_t>(value));
    return;
  case DType::U64:
    store<std::uint64_t>(out, static_cast<std::uint64_t>(value));
    return;
  case DType::F16:
  case DType::BF16:
  case DType::F32:
  case DType::F64:
    storeElement(out, dtype, static_cast<double>(value));
    return;
  }
}

} // namespace linnet::rt
