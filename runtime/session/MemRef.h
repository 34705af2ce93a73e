// MLIR strided memref descriptors, as the entry ABI passes tensors
// (docs/abi.md):
//
//     struct { void* allocated; void* aligned; int64_t offset;
//              int64_t sizes[R]; int64_t strides[R]; }
//
// Every field is 8 bytes, so a rank-R descriptor is 3 + 2R words with no
// padding; the runtime keeps descriptors as arrays of int64_t words and
// stores pointers into them with memcpy. Descriptors the runtime builds are
// contiguous and row-major (offset 0, strides the suffix products).
// Results are read back through whatever sizes, strides and offset the
// callee wrote.
#pragma once

#include "runtime/session/HostTensor.h"
#include "runtime/support/DType.h"
#include "runtime/support/Status.h"

#include <cstdint>
#include <span>
#include <vector>

namespace linnet::rt {

inline constexpr std::size_t memrefWords(std::size_t rank) { return 3 + 2 * rank; }

// A contiguous row-major descriptor of `shape` for `data` (which the
// descriptor does not own).
std::vector<std::int64_t> makeMemRef(const void *data, std::span<const std::int64_t> shape);

// The fields of a descriptor of rank `rank` at `words`.
struct MemRefView {
  void *allocated;
  void *aligned;
  std::int64_t offset;
  std::span<const std::int64_t> sizes;
  std::span<const std::int64_t> strides;
};
MemRefView readMemRef(const std::int64_t *words, std::size_t rank);

// Copies the tensor a result descriptor describes into an owned, contiguous
// HostTensor, element by element through its strides. The sizes must equal
// `expectedShape` (the manifest's, evaluated); an error otherwise. Does not
// free anything.
Expected<HostTensor> copyMemRef(const MemRefView &view, DType dtype, std::span<const std::int64_t> expectedShape);

} // namespace linnet::rt
