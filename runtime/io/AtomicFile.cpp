// Implementation of AtomicFile.h.
#include "runtime/io/AtomicFile.h"

#include "runtime/support/RemoveOnSignal.h"
#include "runtime/support/WriteAll.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>
#include <string>

namespace linnet::rt {

namespace {

// A device, pipe or socket named as the output (`-o /dev/null`, `--out
// /dev/stdout`) is written to, not replaced: renaming over it replaced
// /dev/full with a regular file, and a write to it must fail as it does.
// A FIFO is opened without blocking, so one that no process reads is an
// error rather than a wait without end; writes then block as usual.
Expected<int> openSpecialFile(const std::filesystem::path &path) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENXIO)
    return makeError("{}: cannot open: a pipe that no process reads", path.string());
  if (fd < 0)
    return makeError("{}: cannot open: {}", path.string(), std::strerror(errno));
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int saved = errno;
    close(fd);
    return makeError("{}: cannot open: {}", path.string(), std::strerror(saved));
  }
  return fd;
}

Status writeToSpecialFile(const std::filesystem::path &path, std::string_view bytes) {
  Expected<int> opened = openSpecialFile(path);
  if (!opened)
    return opened.error();
  int fd = *opened;
  Status written = writeAll(fd, std::as_bytes(std::span(bytes)));
  if (close(fd) != 0 && written)
    return makeError("{}: cannot close: {}", path.string(), std::strerror(errno));
  if (!written)
    return makeError("{}: cannot write: {}", path.string(), written.message());
  return Status::success();
}

// A regular file that another name links to (or whose owner a rename
// would change) is rewritten through its own inode, as editors do: the new
// bytes over the old, then the rest cut off, then synced. A failure part-way
// can leave a mix; keeping every name and the owner is worth that here.
Status rewriteInPlace(const std::filesystem::path &path, std::string_view bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return makeError("{}: cannot open: {}", path.string(), std::strerror(errno));
  auto fail = [&](const char *what, int saved) {
    close(fd);
    return makeError("{}: cannot {}: {}", path.string(), what, std::strerror(saved));
  };
  if (Status s = writeAll(fd, std::as_bytes(std::span(bytes))); !s) {
    close(fd);
    return makeError("{}: cannot write: {}", path.string(), s.message());
  }
  if (ftruncate(fd, static_cast<off_t>(bytes.size())) != 0)
    return fail("truncate", errno);
  if (fsync(fd) != 0)
    return fail("sync", errno);
  if (close(fd) != 0)
    return makeError("{}: cannot close: {}", path.string(), std::strerror(errno));
  return Status::success();
}

} // namespace

namespace {

// The mkostemp template of `path`'s temporary file: `.NAME.XXXXXX` beside it.
std::string temporaryName(const std::filesystem::path &path) {
  std::filesystem::path dir = path.parent_path();
  return ((dir.empty() ? std::filesystem::path(".") : dir) / ("." + path.filename().string() + ".XXXXXX")).string();
}

// A symbolic link is followed, so the file it names is replaced and the
// link stays (rename would replace the link itself).
Expected<std::filesystem::path> followLink(const std::filesystem::path &requested) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(requested, ec))
    return requested;
  std::filesystem::path path = std::filesystem::weakly_canonical(requested, ec);
  if (ec)
    return makeError("{}: cannot follow the link: {}", requested.string(), ec.message());
  return path;
}

} // namespace

Status checkWritable(const std::filesystem::path &requested) {
  Expected<std::filesystem::path> followed = followLink(requested);
  if (!followed)
    return followed.error();
  const std::filesystem::path &path = *followed;
  struct stat existing {};
  if (stat(path.c_str(), &existing) == 0) {
    if (S_ISDIR(existing.st_mode))
      return makeError("{}: is a directory", path.string());
    if (!S_ISREG(existing.st_mode)) {
      Expected<int> fd = openSpecialFile(path);
      if (!fd)
        return fd.error();
      close(*fd);
      return Status::success();
    }
  } else if (errno != ENOENT) {
    return makeError("{}: {}", path.string(), std::strerror(errno));
  }
  // A new file must be possible in its directory (the temporary file is).
  std::string tmpl = temporaryName(path);
  int fd = mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0)
    return makeError("{}: cannot create a file there: {}", path.string(), std::strerror(errno));
  close(fd);
  unlink(tmpl.c_str());
  return Status::success();
}

Status writeFileAtomically(const std::filesystem::path &requested, std::string_view bytes) {
  Expected<std::filesystem::path> followed = followLink(requested);
  if (!followed)
    return followed.error();
  const std::filesystem::path &path = *followed;
  struct stat existing {};
  bool exists = stat(path.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode))
    return makeError("{}: is a directory", path.string());
  if (exists && !S_ISREG(existing.st_mode))
    return writeToSpecialFile(path, bytes);
  if (exists && existing.st_nlink > 1)
    return rewriteInPlace(path, bytes);
  // A file that exists keeps its permission bits, and its owner where the
  // new file can be given it (root formatting another user's file);
  // otherwise the old file is rewritten.
  mode_t mode = exists ? (existing.st_mode & 07777) : 0644;
  std::optional<FileOwner> owner;
  if (exists && (existing.st_uid != geteuid() || existing.st_gid != getegid()))
    owner = FileOwner{existing.st_uid, existing.st_gid};
  bool ownerRefused = false;
  Status replaced = replaceWithNewFile(path, bytes, mode, owner, &ownerRefused);
  if (ownerRefused)
    return rewriteInPlace(path, bytes);
  return replaced;
}

Status replaceWithNewFile(const std::filesystem::path &path, std::string_view bytes, mode_t mode,
                          std::optional<FileOwner> owner, bool *ownerRefused) {
  std::string tmpl = temporaryName(path);
  int fd = mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0)
    return makeError("{}: cannot create a temporary file: {}", path.string(), std::strerror(errno));
  // A write of gigabytes takes long enough to be interrupted; the temporary
  // file must not stay behind (a SIGKILL still leaves it: RemoveOnSignal.h).
  RemoveOnSignal removeOnSignal(tmpl);
  auto fail = [&](const char *what) -> Status {
    int saved = errno;
    close(fd);
    unlink(tmpl.c_str());
    return makeError("{}: cannot {}: {}", path.string(), what, std::strerror(saved));
  };
  if (Status s = writeAll(fd, std::as_bytes(std::span(bytes))); !s) {
    close(fd);
    unlink(tmpl.c_str());
    return makeError("{}: cannot write: {}", path.string(), s.message());
  }
  if (fchmod(fd, mode) != 0)
    return fail("set permissions");
  if (owner && fchown(fd, owner->uid, owner->gid) != 0) {
    if (ownerRefused)
      *ownerRefused = true;
    return fail("give the file its owner");
  }
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
