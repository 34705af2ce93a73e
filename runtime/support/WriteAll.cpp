// Implementation of WriteAll.h.
#include "runtime/support/WriteAll.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace linnet::rt {

Status writeAll(int fd, std::span<const std::byte> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return makeError("{}", std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  return Status::success();
}

} // namespace linnet::rt
