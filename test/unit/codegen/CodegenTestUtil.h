// Helpers for the codegen tests: compile a module source to a shared object,
// load it, and build the strided memref descriptors of docs/abi.md.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace linnet::codegen::testing {

// The descriptor of a rank-R tensor (docs/abi.md); R = 0 has no arrays.
template <typename T, int R>
struct MemRef {
  T* allocated = nullptr;
  T* aligned = nullptr;
  int64_t offset = 0;
  int64_t sizes[R] = {};
  int64_t strides[R] = {};

  int64_t count() const {
    int64_t n = 1;
    for (int i = 0; i < R; ++i) n *= sizes[i];
    return n;
  }
  // Element at a row-major linear index, read through the strides.
  T at(int64_t linear) const {
    int64_t offsetElements = offset;
    for (int i = R - 1; i >= 0; --i) {
      offsetElements += (linear % sizes[i]) * strides[i];
      linear /= sizes[i];
    }
    return aligned[offsetElements];
  }
  std::vector<T> values() const {
    std::vector<T> v;
    for (int64_t i = 0; i < count(); ++i) v.push_back(at(i));
    return v;
  }
};

template <typename T>
struct MemRef<T, 0> {
  T* allocated = nullptr;
  T* aligned = nullptr;
  int64_t offset = 0;
};

// A contiguous row-major descriptor over `data` (the runtime's convention).
template <int R, typename T>
MemRef<T, R> view(std::vector<T>& data, const int64_t (&shape)[R]) {
  MemRef<T, R> m;
  m.allocated = m.aligned = data.data();
  int64_t stride = 1;
  for (int i = R - 1; i >= 0; --i) {
    m.sizes[i] = shape[i];
    m.strides[i] = stride;
    stride *= shape[i];
  }
  return m;
}

// A rank-0 descriptor over data[0].
template <typename T>
MemRef<T, 0> scalarView(std::vector<T>& data) {
  MemRef<T, 0> m;
  m.allocated = m.aligned = data.data();
  return m;
}

using EntryFn = void (*)(void**);

// A shared object compiled from MLIR source and loaded with dlopen.
class CompiledModule {
 public:
  // Compiles `source` for the host; on failure `error()` says why.
  explicit CompiledModule(const std::string& source);
  ~CompiledModule();
  CompiledModule(const CompiledModule&) = delete;
  CompiledModule& operator=(const CompiledModule&) = delete;

  bool ok() const { return handle_ != nullptr; }
  const std::string& error() const { return error_; }
  EntryFn entry(const std::string& name) const;
  void* symbol(const std::string& name) const;

 private:
  void* handle_ = nullptr;
  std::string path_;
  std::string error_;
};

uint16_t toBF16(float f);
float fromBF16(uint16_t b);

}  // namespace linnet::codegen::testing
