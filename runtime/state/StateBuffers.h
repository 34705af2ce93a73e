// The storage of a model's `state` members (e.g. phi3's per-layer KV cache)
// for one set of bound generics.
//
// The compiler side turns each state member into a concrete StateSpec (its
// path, dtype and shape with every generic bound); allocate() checks every
// size for overflow, refuses a total above the caller's budget (naming the
// largest buffers, so the user knows which generic to shrink), and returns
// zeroed storage: one anonymous mapping holding every buffer at a 64-byte
// aligned offset. Nothing is allocated that the budget did not allow.
//
// Threads: a StateBuffers is not synchronised. Entries may write different
// buffers from different threads, but reset(), snapshot() and restore()
// need the object to themselves (no concurrent reads or writes of any
// buffer). It is move-only; views and data pointers stay valid across moves,
// until destruction.
#pragma once

#include "runtime/support/DType.h"
#include "runtime/support/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace linnet::rt {

struct StateSpec {
  std::string path; // the member's path in the model, e.g. "layers.0.cache_k"
  DType dtype;
  std::vector<std::int64_t> shape; // concrete: every dimension >= 0
};

// One buffer: a view, valid while its StateBuffers lives.
template <typename Byte> struct BasicStateView {
  std::string_view path;
  DType dtype;
  std::span<const std::int64_t> shape;
  Byte *data;           // 64-byte aligned, never null
  std::size_t byteSize; // element count * dtype size, without padding

  // A writable view converts to a read-only one.
  operator BasicStateView<const Byte>() const requires(!std::is_const_v<Byte>) {
    return {path, dtype, shape, data, byteSize};
  }
};
using StateView = BasicStateView<std::byte>;
using ConstStateView = BasicStateView<const std::byte>;

class StateSnapshot;

class StateBuffers {
public:
  static constexpr std::size_t kAlignment = 64;

  // Allocates and zeroes one buffer per spec. Errors: an empty or repeated
  // path, a negative dimension, a size that overflows, or a total (with
  // alignment padding) above `maxBytes`.
  static Expected<StateBuffers> allocate(std::vector<StateSpec> specs, std::size_t maxBytes);

  StateBuffers(StateBuffers &&other) noexcept;
  StateBuffers &operator=(StateBuffers &&other) noexcept;
  StateBuffers(const StateBuffers &) = delete;
  StateBuffers &operator=(const StateBuffers &) = delete;
  ~StateBuffers();

  std::size_t size() const { return buffers_.size(); }
  // Buffers in the order of the specs given to allocate().
  StateView view(std::size_t index);
  ConstStateView view(std::size_t index) const;
  std::optional<StateView> find(std::string_view path);
  std::optional<ConstStateView> find(std::string_view path) const;

  // Sum of the buffers' byte sizes (what the model's state needs).
  std::size_t totalBytes() const { return totalBytes_; }
  // The bytes reserved, including the padding that aligns each buffer.
  std::size_t allocatedBytes() const { return allocatedBytes_; }

  // Zeroes every buffer again (as after allocate()).
  void reset();

  // A copy of every buffer, for "a failed entry leaves the state exactly as
  // it was". Costs a second allocation of allocatedBytes() and a full copy,
  // each time: prefer checking arguments before touching the state, and
  // keep this for entries that can fail half-way. Fails only if the memory
  // for the copy cannot be had.
  Expected<StateSnapshot> snapshot() const;
  // Copies a snapshot back. An Error (and nothing changes) if it was taken
  // from another StateBuffers.
  Status restore(const StateSnapshot &snapshot);

private:
  struct Buffer {
    StateSpec spec;
    std::size_t offset;
    std::size_t byteSize;
  };
  StateBuffers() = default;
  void release();

  std::vector<Buffer> buffers_;
  std::byte *base_ = nullptr; // the mapping, allocatedBytes_ long
  std::size_t totalBytes_ = 0;
  std::size_t allocatedBytes_ = 0;
  std::uint64_t identity_ = 0; // ties snapshots to the buffers they came from
};

// The bytes of a StateBuffers at one moment. Move-only; owns its copy.
class StateSnapshot {
public:
  StateSnapshot(StateSnapshot &&) noexcept = default;
  StateSnapshot &operator=(StateSnapshot &&) noexcept = default;
  StateSnapshot(const StateSnapshot &) = delete;
  StateSnapshot &operator=(const StateSnapshot &) = delete;

  std::size_t byteSize() const { return size_; }

private:
  friend class StateBuffers;
  struct Free {
    void operator()(std::byte *bytes) const;
  };
  StateSnapshot() = default;
  std::unique_ptr<std::byte[], Free> bytes_;
  std::size_t size_ = 0;
  std::uint64_t identity_ = 0;
};

} // namespace linnet::rt
