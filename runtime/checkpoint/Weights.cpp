// Weights: in-place views and float conversions at load (see Weights.h).
#include "runtime/checkpoint/Weights.h"

#include <cstring>
#include <cmath>

#include "runtime/support/HalfFloat.h"

namespace linnet::rt {

namespace {

// Reads element `i` of float data of `dtype` as a double (memcpy: the data may
// be unaligned).
double readFloat(const std::byte* data, size_t i, DType dtype) {
  switch (dtype) {
    case DType::BF16: { uint16_t v; std::memcpy(&v, data + 2 * i, 2); return bf16ToF32(v); }
    case DType::F16: { uint16_t v; std::memcpy(&v, data + 2 * i, 2); return f16ToF32(v); }
    case DType::F32: { float v; std::memcpy(&v, data + 4 * i, 4); return v; }
    case DType::F64: { double v; std::memcpy(&v, data + 8 * i, 8); return v; }
    default: return 0;
  }
}

void writeFloat(std::byte* data, size_t i, DType dtype, double value) {
  switch (dtype) {
    case DType::BF16: { uint16_t v = f32ToBf16(static_cast<float>(value)); std::memcpy(data + 2 * i, &v, 2); break; }
    case DType::F16: { uint16_t v = f32ToF16(static_cast<float>(value)); std::memcpy(data + 2 * i, &v, 2); break; }
    case DType::F32: { float v = static_cast<float>(value); std::memcpy(data + 4 * i, &v, 4); break; }
    case DType::F64: std::memcpy(data + 8 * i, &value, 8); break;
    default: break;
  }
}

}  // namespace

Expected<Weights> Weights::load(const std::vector<WeightRequest>& requests, size_t maxConvertedBytes) {
  Weights weights;
  weights.views_.reserve(requests.size());
  for (const WeightRequest& request : requests) {
    const TensorView& tensor = *request.tensor;
    if (tensor.dtype == request.dtype) {
      weights.views_.push_back({request.path, request.dtype, tensor.shape, tensor.data, tensor.byteSize, false});
      continue;
    }
    if (!isFloatingPoint(tensor.dtype) || !isFloatingPoint(request.dtype)) {
      return makeError("cannot convert `{}` ({}) from {} to {}: only float dtypes convert at load",
                       request.path, tensor.name, dtypeName(tensor.dtype), dtypeName(request.dtype));
    }
    size_t elements = static_cast<size_t>(tensor.elementCount);
    size_t bytes = 0;
    if (__builtin_mul_overflow(elements, dtypeSize(request.dtype), &bytes) ||
        __builtin_add_overflow(weights.convertedBytes_, bytes, &weights.convertedBytes_) ||
        weights.convertedBytes_ > maxConvertedBytes) {
      return makeError("converting `{}` to {} would exceed the conversion budget of {} bytes",
                       request.path, dtypeName(request.dtype), maxConvertedBytes);
    }
    auto buffer = std::make_unique<std::byte[]>(bytes);
    // f32 holds bf16 and f16 exactly, so narrowing through double rounds once.
    // A finite weight too large for the narrower dtype is an error, as an
    // argument out of its dtype's range is, not an infinity run silently.
    for (size_t i = 0; i < elements; ++i) {
      double value = readFloat(tensor.data, i, tensor.dtype);
      writeFloat(buffer.get(), i, request.dtype, value);
      if (std::isfinite(value) && !std::isfinite(readFloat(buffer.get(), i, request.dtype)))
        return makeError("converting `{}` (`{}`) from {} to {}: element {} is {}, out of range for {}", request.path,
                         tensor.name, dtypeName(tensor.dtype), dtypeName(request.dtype), i, value,
                         dtypeName(request.dtype));
    }
    weights.views_.push_back({request.path, request.dtype, tensor.shape, buffer.get(), bytes, true});
    weights.buffers_.push_back(std::move(buffer));
  }
  return weights;
}

const WeightView* Weights::find(std::string_view path) const {
  for (const WeightView& view : views_)
    if (view.path == path) return &view;
  return nullptr;
}

}  // namespace linnet::rt
