// Implementation of StateBuffers.h.
//
// All buffers share one private anonymous mapping: the kernel hands it out
// zeroed and page-aligned (so every 64-byte offset in it is 64-byte
// aligned), pages cost nothing until touched, and reset() can give the
// pages back with madvise(MADV_DONTNEED), which on Linux makes them read as
// zero again without writing gigabytes of cache. Sizes are computed in
// std::size_t with explicit overflow checks before anything is mapped.
#include "runtime/state/StateBuffers.h"

#include <fmt/ranges.h>

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <utility>

namespace linnet::rt {

namespace {

std::atomic<std::uint64_t> nextIdentity{1};

std::string describe(const StateSpec &spec) {
  return fmt::format("{} ({}[{}])", spec.path, dtypeName(spec.dtype), fmt::join(spec.shape, ", "));
}

// Bytes of one buffer, or an Error on a negative dimension or overflow.
Expected<std::size_t> byteSizeOf(const StateSpec &spec) {
  std::size_t bytes = dtypeSize(spec.dtype);
  for (std::int64_t dim : spec.shape) {
    if (dim < 0)
      return makeError("state {}: dimension {} is negative", describe(spec), dim);
    if (__builtin_mul_overflow(bytes, static_cast<std::uint64_t>(dim), &bytes))
      return makeError("state {}: the byte size overflows", describe(spec));
  }
  return bytes;
}

} // namespace

Expected<StateBuffers> StateBuffers::allocate(std::vector<StateSpec> specs, std::size_t maxBytes) {
  StateBuffers out;
  std::set<std::string, std::less<>> paths;
  std::size_t offset = 0; // where the next buffer starts: a multiple of kAlignment
  for (StateSpec &spec : specs) {
    if (spec.path.empty())
      return makeError("state buffer with an empty path");
    if (!paths.insert(spec.path).second)
      return makeError("state {} is listed twice", spec.path);
    Expected<std::size_t> bytes = byteSizeOf(spec);
    if (!bytes)
      return bytes.error();
    std::size_t rounded = 0;
    std::size_t end = 0;
    if (__builtin_add_overflow(*bytes, kAlignment - 1, &rounded) ||
        __builtin_add_overflow(offset, rounded / kAlignment * kAlignment, &end))
      return makeError("state: the total byte size overflows at {}", describe(spec));
    out.buffers_.push_back({std::move(spec), offset, *bytes});
    out.totalBytes_ += *bytes; // cannot overflow: bounded by `end`
    offset = end;
  }

  if (offset > maxBytes) {
    std::vector<const Buffer *> largest;
    for (const Buffer &buffer : out.buffers_)
      largest.push_back(&buffer);
    std::size_t shown = std::min<std::size_t>(3, largest.size());
    std::partial_sort(largest.begin(), largest.begin() + shown, largest.end(),
                      [](const Buffer *a, const Buffer *b) { return a->byteSize > b->byteSize; });
    std::string names;
    for (std::size_t i = 0; i < shown; ++i)
      names += fmt::format("{}{} = {} bytes", i ? ", " : "", describe(largest[i]->spec),
                           largest[i]->byteSize);
    return makeError("state needs {} bytes ({} buffers) but the budget is {} bytes; largest: {}",
                     offset, out.buffers_.size(), maxBytes, names);
  }

  // mmap of length 0 is an error; map one aligned block so that every data
  // pointer, even of an empty buffer, is real and aligned.
  std::size_t mapped = std::max(offset, kAlignment);
  void *base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
    return makeError("state: cannot allocate {} bytes: {}", mapped, std::strerror(errno));
  out.base_ = static_cast<std::byte *>(base);
  out.allocatedBytes_ = mapped;
  out.identity_ = nextIdentity.fetch_add(1);
  return out;
}

StateBuffers::StateBuffers(StateBuffers &&other) noexcept { *this = std::move(other); }

StateBuffers &StateBuffers::operator=(StateBuffers &&other) noexcept {
  if (this != &other) {
    release();
    buffers_ = std::move(other.buffers_);
    base_ = std::exchange(other.base_, nullptr);
    totalBytes_ = std::exchange(other.totalBytes_, 0);
    allocatedBytes_ = std::exchange(other.allocatedBytes_, 0);
    identity_ = std::exchange(other.identity_, 0);
    other.buffers_.clear();
  }
  return *this;
}

StateBuffers::~StateBuffers() { release(); }

void StateBuffers::release() {
  if (base_)
    munmap(base_, allocatedBytes_);
  base_ = nullptr;
}

StateView StateBuffers::view(std::size_t index) {
  const Buffer &buffer = buffers_.at(index);
  return {buffer.spec.path, buffer.spec.dtype, buffer.spec.shape, base_ + buffer.offset,
          buffer.byteSize};
}

ConstStateView StateBuffers::view(std::size_t index) const {
  const Buffer &buffer = buffers_.at(index);
  return {buffer.spec.path, buffer.spec.dtype, buffer.spec.shape, base_ + buffer.offset,
          buffer.byteSize};
}

std::optional<StateView> StateBuffers::find(std::string_view path) {
  for (std::size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].spec.path == path)
      return view(i);
  return std::nullopt;
}

std::optional<ConstStateView> StateBuffers::find(std::string_view path) const {
  for (std::size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i].spec.path == path)
      return view(i);
  return std::nullopt;
}

void StateBuffers::reset() {
  if (!base_)
    return;
  // Dropping the pages makes them read as zero again (Linux semantics for
  // private anonymous memory); if the kernel refuses, write the zeros.
  if (madvise(base_, allocatedBytes_, MADV_DONTNEED) != 0)
    std::memset(base_, 0, allocatedBytes_);
}

void StateSnapshot::Free::operator()(std::byte *bytes) const { std::free(bytes); }

Expected<StateSnapshot> StateBuffers::snapshot() const {
  StateSnapshot out;
  out.identity_ = identity_;
  out.size_ = allocatedBytes_;
  if (allocatedBytes_ > 0) {
    out.bytes_.reset(static_cast<std::byte *>(std::malloc(allocatedBytes_)));
    if (!out.bytes_)
      return makeError("state: cannot allocate {} bytes for a snapshot", allocatedBytes_);
    std::memcpy(out.bytes_.get(), base_, allocatedBytes_);
  }
  return out;
}

Status StateBuffers::restore(const StateSnapshot &snapshot) {
  if (snapshot.identity_ != identity_ || snapshot.size_ != allocatedBytes_)
    return makeError("state: the snapshot was taken from other state buffers");
  if (allocatedBytes_ > 0)
    std::memcpy(base_, snapshot.bytes_.get(), allocatedBytes_);
  return Status::success();
}

} // namespace linnet::rt
