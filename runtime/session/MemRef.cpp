// Implementation of MemRef.h.
#include "runtime/session/MemRef.h"

#include <fmt/ranges.h>

#include <cstring>

namespace linnet::rt {

std::vector<std::int64_t> makeMemRef(const void *data, std::span<const std::int64_t> shape) {
  const std::size_t rank = shape.size();
  std::vector<std::int64_t> words(memrefWords(rank), 0);
  void *pointer = const_cast<void *>(data);
  std::memcpy(&words[0], &pointer, sizeof pointer);
  std::memcpy(&words[1], &pointer, sizeof pointer);
  words[2] = 0;
  std::int64_t stride = 1;
  for (std::size_t i = rank; i-- > 0;) {
    words[3 + i] = shape[i];
    words[3 + rank + i] = stride;
    stride *= shape[i]; // shapes here are checked sizes of real buffers: no overflow
  }
  return words;
}

MemRefView readMemRef(const std::int64_t *words, std::size_t rank) {
  MemRefView view;
  std::memcpy(&view.allocated, &words[0], sizeof(void *));
  std::memcpy(&view.aligned, &words[1], sizeof(void *));
  view.offset = words[2];
  view.sizes = {words + 3, rank};
  view.strides = {words + 3 + rank, rank};
  return view;
}

Expected<HostTensor> copyMemRef(const MemRefView &view, DType dtype, std::span<const std::int64_t> expectedShape) {
  const std::size_t rank = view.sizes.size();
  if (rank != expectedShape.size() ||
      !std::equal(view.sizes.begin(), view.sizes.end(), expectedShape.begin()))
    return makeError("the native code returned shape [{}], not [{}]", fmt::join(view.sizes, ", "),
                     fmt::join(expectedShape, ", "));
  Expected<HostTensor> out =
      HostTensor::zeros(dtype, std::vector<std::int64_t>(expectedShape.begin(), expectedShape.end()));
  if (!out)
    return out;
  const std::int64_t count = out->elementCount();
  if (count == 0)
    return out;
  if (!view.aligned)
    return makeError("the native code returned a null pointer for a non-empty result");
  const std::size_t elementSize = dtypeSize(dtype);
  const auto *base = static_cast<const std::byte *>(view.aligned);
  std::byte *dst = out->bytes().data();

  bool contiguous = true;
  std::int64_t expectedStride = 1;
  for (std::size_t i = rank; i-- > 0;) {
    if (view.sizes[i] != 1 && view.strides[i] != expectedStride)
      contiguous = false;
    expectedStride *= view.sizes[i];
  }
  if (contiguous) {
    std::memcpy(dst, base + view.offset * static_cast<std::int64_t>(elementSize), out->bytes().size());
    return out;
  }
  // General case: walk the index space in row-major order.
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t n = 0; n < count; ++n) {
    std::int64_t element = view.offset;
    for (std::size_t i = 0; i < rank; ++i)
      element += index[i] * view.strides[i];
    std::memcpy(dst + n * elementSize, base + element * static_cast<std::int64_t>(elementSize), elementSize);
    for (std::size_t i = rank; i-- > 0;) {
      if (++index[i] < view.sizes[i])
        break;
      index[i] = 0;
    }
  }
  return out;
}

} // namespace linnet::rt
