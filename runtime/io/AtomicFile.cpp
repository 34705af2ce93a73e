// Implementation of AtomicFile.h.
#include "runtime/io/AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace linnet::rt {

Status writeFileAtomically(const std::filesystem::path &path, std::string_view bytes) {
  std::filesystem::path dir = path.parent_path();
  std::string tmpl = ((dir.empty() ? std::filesystem::path(".") : dir) / ("." + path.filename().string() + ".XXXXXX"))
                         .string();
  int fd = mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0)
    return makeError("{}: cannot create a temporary file: {}", path.string(), std::strerror(errno));
  auto fail = [&](const char *what) -> Status {
    int saved = errno;
    close(fd);
    unlink(tmpl.c_str());
    return makeError("{}: cannot {}: {}", path.string(), what, std::strerror(saved));
  };
  std::size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fail("write");
    }
    written += static_cast<std::size_t>(n);
  }
  if (fchmod(fd, 0644) != 0)
    return fail("set permissions");
  if (fsync(fd) != 0)
    return fail("sync");
  if (close(fd) != 0) {
    int saved = errno;
    unlink(tmpl.c_str());
    return makeError("{}: cannot close: {}", path.string(), std::strerror(saved));
  }
  if (rename(tmpl.c_str(), path.c_str()) != 0) {
    int saved = errno;
    unlink(tmpl.c_str());
    return makeError("{}: cannot rename into place: {}", path.string(), std::strerror(saved));
  }
  return Status::success();
}

} // namespace linnet::rt
