// An open file descriptor closed on every return path (RAII), unless
// released to a new owner.
#pragma once

#include <utility>

#include <unistd.h>

namespace linnet::rt {

class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  int get() const { return fd_; }
  // The descriptor, no longer closed by this object.
  int release() { return std::exchange(fd_, -1); }

private:
  int fd_;
};

} // namespace linnet::rt
