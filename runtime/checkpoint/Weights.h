// Weights: a bound model's parameters as the runtime hands them to entries.
//
// A tensor whose file dtype is the model's dtype is used in place: a pointer
// into the checkpoint's mapping, never copied. A float tensor whose dtype
// differs (a bf16 checkpoint bound with `--bind T=f32`) is converted once, at
// load, into a buffer the Weights own; the total converted size is bounded by
// a budget given by the caller, so a hostile or mistaken binding cannot make
// the load allocate without limit. Non-float conversions are refused.
//
// Ownership: Weights borrow the Checkpoint (which must outlive them) and own
// the converted buffers. Move-only. Reading is thread-safe; loading is not.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runtime/checkpoint/SafeTensors.h"
#include "runtime/support/DType.h"
#include "runtime/support/Status.h"

namespace linnet::rt {

struct WeightRequest {
  std::string path;            // the parameter path, for messages and look-up
  const TensorView* tensor;    // the bound tensor in the checkpoint
  DType dtype;                 // the model's dtype for this parameter
};

struct WeightView {
  std::string path;
  DType dtype;
  std::vector<int64_t> shape;
  const std::byte* data;       // may be unaligned when it points into the mapping
  size_t byteSize;
  bool converted;              // true: owned by Weights; false: in the mapping
};

class Weights {
 public:
  static Expected<Weights> load(const std::vector<WeightRequest>& requests, size_t maxConvertedBytes);

  Weights(Weights&&) noexcept = default;
  Weights& operator=(Weights&&) noexcept = default;
  Weights(const Weights&) = delete;
  Weights& operator=(const Weights&) = delete;

  const std::vector<WeightView>& views() const { return views_; }
  const WeightView* find(std::string_view path) const;
  size_t convertedBytes() const { return convertedBytes_; }

 private:
  Weights() = default;
  std::vector<WeightView> views_;
  std::vector<std::unique_ptr<std::byte[]>> buffers_;
  size_t convertedBytes_ = 0;
};

}  // namespace linnet::rt
