// A read-only memory mapping of a whole file.
//
// Checkpoints are large, so the runtime maps them instead of reading them:
// tensor views point straight into the mapping and nothing is copied on load.
// The class owns the mapping (RAII): it can be moved but not copied, and the
// mapping is released when the owner is destroyed. Moving does not move the
// mapped bytes, so pointers into data() stay valid across moves.
//
// Assumes POSIX mmap. A zero-length file is valid and gives an empty span
// (mmap of length 0 is an error, so nothing is mapped). If another process
// truncates the file while it is mapped, reading the lost pages raises
// SIGBUS; checkpoints are treated as immutable while the runtime runs.
#pragma once

#include "runtime/support/Status.h"

#include <cstddef>
#include <filesystem>
#include <span>
#include <utility>

namespace linnet::rt {

class MappedFile {
public:
  // Maps `path` read-only. Fails (with the path and the OS reason in the
  // message) if the file cannot be opened, is not a regular file, or cannot
  // be mapped.
  static Expected<MappedFile> open(const std::filesystem::path &path);

  MappedFile() = default; // maps nothing; size() == 0
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  MappedFile(MappedFile &&other) noexcept;
  MappedFile &operator=(MappedFile &&other) noexcept;

  const std::byte *data() const { return data_; }
  std::size_t size() const { return size_; }
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::filesystem::path &path() const { return path_; }

private:
  MappedFile(std::filesystem::path path, const std::byte *data, std::size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  void release() noexcept;

  std::filesystem::path path_;
  const std::byte *data_ = nullptr; // nullptr when size_ == 0
  std::size_t size_ = 0;
};

} // namespace linnet::rt
