// Implementation of BuildCache.h.
#include "compiler/driver/BuildCache.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <span>
#include <system_error>
#include <utility>
#include <vector>

#include "compiler/driver/Fnv128.h"
#include "runtime/artifact/ArtifactFile.h"
#include "runtime/artifact/Manifest.h"
#include "runtime/artifact/SharedObject.h"
#include "runtime/checkpoint/MappedFile.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/support/DType.h"
#include "runtime/support/ShownName.h"
#include "runtime/io/AtomicFile.h"
#include "runtime/support/FileDescriptor.h"

namespace linnet::driver {

namespace {

// Bumped whenever what goes into a key changes.
constexpr std::string_view kKeyFormat = "linnet-build-cache/1";

// A file's bytes, mapped (reading a file of gigabytes into a string took
// two or three times its size in memory), or nullopt if it cannot be read
// (absent is a fact the key records, not an error: the package may have no
// bindings.json).
std::optional<rt::MappedFile> mapFile(const std::filesystem::path& path) {
  // A FIFO or a device is no file of the package (reading one would block
  // or never end): absent, as the build that reads it then reports.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  rt::Expected<rt::MappedFile> file = rt::MappedFile::open(path);
  if (!file) return std::nullopt;
  return std::move(*file);
}

void addOptionalFile(Fnv128& hash, const std::filesystem::path& path) {
  std::optional<rt::MappedFile> file = mapFile(path);
  hash.addPart(path.string());
  hash.addPart(file ? "present" : "absent");
  if (file) hash.addPart(std::string_view(reinterpret_cast<const char*>(file->data()), file->size()));
}

// The running executable's size and mtime: cheap, and different after every
// rebuild of the compiler.
std::string executableIdentity() {
  struct stat info {};
  if (stat("/proc/self/exe", &info) != 0) return "unknown";
  return std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
         std::to_string(info.st_mtim.tv_nsec);
}

// The user's home directory in the password database (a service started
// without HOME still has one there), or nullopt.
std::optional<std::string> passwordDatabaseHome() {
  long suggested = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(suggested > 0 ? static_cast<std::size_t>(suggested) : 4096);
  struct passwd entry {};
  struct passwd* found = nullptr;
  int error = 0;
  while ((error = getpwuid_r(getuid(), &entry, buffer.data(), buffer.size(), &found)) == ERANGE &&
         buffer.size() < (std::size_t{1} << 20))
    buffer.resize(buffer.size() * 2);
  if (error != 0 || !found || !found->pw_dir || !*found->pw_dir) return std::nullopt;
  return std::string(found->pw_dir);
}

// The largest cache entry there can be (ArtifactFile.h's bounds and room
// for the container's header).
constexpr std::uint64_t kMaxEntryBytes = rt::kMaxManifestBytes + rt::kMaxSharedObjectBytes + (1u << 20);

// What a file that is not a regular one is, for messages.
std::string fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISREG(mode)) return "a regular file";
  return "a special file";
}

}  // namespace

rt::Expected<std::filesystem::path> buildCacheDirectory() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // A relative one is ignored, as the XDG base directory spec says: the
  // cache would move with the working directory.
  if (xdg && *xdg && std::filesystem::path(xdg).is_absolute()) return std::filesystem::path(xdg) / "linnet";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::filesystem::path(home) / ".cache" / "linnet";
  if (std::optional<std::string> passwordHome = passwordDatabaseHome())
    return std::filesystem::path(*passwordHome) / ".cache" / "linnet";
  std::string unset = xdg && *xdg ? "XDG_CACHE_HOME is not an absolute path and HOME is unset"
                                   : "XDG_CACHE_HOME and HOME are unset";
  return rt::makeError("{} and uid {} has no home directory in the password database; set XDG_CACHE_HOME to cache "
                       "builds",
                       unset, getuid());
}

rt::Expected<std::string> buildCacheKey(const LoadedPackage& package, const BuildOptions& options,
                                        const std::string& target) {
  Fnv128 hash;
  hash.addPart(kKeyFormat);
  hash.addPart(kLinnetVersion);
  hash.addPart(executableIdentity());
  hash.addPart(target);
  hash.addPart(options.path);

  const SourceManager& sources = package.sources;
  hash.addPart(std::to_string(sources.fileCount()));
  for (FileId id = 1; id <= sources.fileCount(); ++id) {
    const SourceFile& file = sources.file(id);
    hash.addPart(file.path());
    hash.addPart(file.text());
  }
  // bindings.json, generics.json and any other JSON the binder reads beside
  // linnet.toml (constants.json): all of them, in name order.
  for (const std::unique_ptr<Package>& p : package.program->packages()) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(p->rootDir, ec))
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    hash.addPart(p->rootDir);
    for (const std::filesystem::path& file : files) addOptionalFile(hash, file);
  }

  std::vector<std::string> binds = options.binds;
  std::sort(binds.begin(), binds.end());
  hash.addPart("binds");
  for (const std::string& bind : binds) hash.addPart(bind);
  hash.addPart("entries");
  for (const std::string& entry : options.entries) hash.addPart(entry);
  hash.addPart("root");
  hash.addPart(options.root);

  hash.addPart("checkpoint");
  if (!options.checkpoint.empty()) {
    rt::Expected<rt::Checkpoint> checkpoint = rt::Checkpoint::open(options.checkpoint);
    if (!checkpoint) return checkpoint.error();
    hash.addPart(checkpoint->hasConfig() ? checkpoint->config().dump() : "no config.json");
    for (const rt::TensorView* tensor : checkpoint->tensors()) {
      hash.addPart(tensor->name);
      hash.addPart(rt::dtypeName(tensor->dtype));
      std::string shape;
      for (std::int64_t d : tensor->shape) shape += std::to_string(d) + ",";
      hash.addPart(shape);
    }
  }
  return hash.hex();
}

std::optional<std::string> readCachedArtifact(const std::filesystem::path& path, const std::string& package,
                                              std::string* problem) {
  // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer (and
  // is then refused by fstat); O_NOFOLLOW: a symbolic link (to /dev/zero,
  // /dev/stdin, a FIFO) is refused before it is followed. linnet writes
  // entries as regular files only, so anything else was put there by hand.
  int fd;
  do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    int error = errno;
    // No entry there, or no directory to hold one (a file in the cache's
    // place: said once, when the lock cannot be made).
    if (error == ENOENT || error == ENOTDIR) return std::nullopt;
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && !S_ISREG(link.st_mode))
      *problem = fileKind(link.st_mode) + ", not a regular file";
    else
      *problem = std::string("cannot be opened: ") + std::strerror(error);
    return std::nullopt;
  }
  rt::FileDescriptor file(fd);
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    *problem = std::string("cannot be examined: ") + std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(info.st_mode)) {
    *problem = fileKind(info.st_mode) + ", not a regular file";
    return std::nullopt;
  }
  // No artifact is larger than its two parts' bounds and a header: a bigger
  // file is damaged, and is not read.
  auto size = static_cast<std::uint64_t>(info.st_size);
  if (size > kMaxEntryBytes) {
    *problem = "larger than any artifact (" + std::to_string(size) + " bytes)";
    return std::nullopt;
  }
  // Read, not mapped: the image is returned as a string anyway, and a file
  // cut short while mapped would fault (SIGBUS) rather than read short.
  std::string image(static_cast<std::size_t>(size), '\0');
  std::size_t done = 0;
  while (done < image.size()) {
    ssize_t got = ::read(fd, image.data() + done, image.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      *problem = std::string("cannot be read: ") + std::strerror(errno);
      return std::nullopt;
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  image.resize(done);
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(image.data()), image.size());
  rt::Expected<rt::ArtifactContents> contents = rt::splitArtifact(bytes, path.string());
  if (!contents) {
    *problem = contents.message();
    return std::nullopt;
  }
  rt::Expected<rt::Manifest> manifest = rt::parseManifest(contents->manifestJson, path.string());
  if (!manifest) {
    *problem = manifest.message();
    return std::nullopt;
  }
  if (manifest->source.package != package) {
    *problem = "a build of " + rt::shownName(manifest->source.package) + ", not of " + rt::shownName(package);
    return std::nullopt;
  }
  if (rt::Status object = rt::SharedObject::check(contents->sharedObject, path.string()); !object) {
    *problem = object.message();
    return std::nullopt;
  }
  return image;
}

rt::Status writeCachedArtifact(const std::filesystem::path& path, std::string_view image) {
  if (image.size() > kMaxEntryBytes)
    return rt::makeError("{}: the artifact is larger than {} bytes", path.string(), kMaxEntryBytes);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return rt::makeError("{}: cannot create the cache directory: {}", path.parent_path().string(), ec.message());
  // Not rt::writeFileAtomically: it writes through a symbolic link and into
  // a FIFO or device in place (right for `-o /dev/null`), which here hung on
  // a FIFO and wrote the build into /dev/zero. An entry is always a regular
  // file of its own, readable by all, renamed over whatever is at the path;
  // a directory there makes the rename fail (EISDIR): the caller runs the
  // build from memory and says it is not cached.
  return rt::replaceWithNewFile(path, image, 0644);
}

rt::Expected<BuildCacheLock> BuildCacheLock::acquire(const std::filesystem::path& lockPath, std::ostream* progress) {
  std::error_code ec;
  std::filesystem::create_directories(lockPath.parent_path(), ec);
  if (ec)
    return rt::makeError("{}: cannot create the cache directory: {}", lockPath.parent_path().string(), ec.message());
  BuildCacheLock lock;
  lock.path_ = lockPath;
  for (;;) {
    // O_NOFOLLOW and O_NONBLOCK: a link or FIFO planted at the path is
    // refused (below), never followed or waited on. Not O_EXCL: the file
    // itself means nothing, only the flock on it, which dies with its
    // holder, so a file left by a killed run is simply locked again.
    int fd;
    do fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) return rt::makeError("{}: cannot create the lock file: {}", lockPath.string(), std::strerror(errno));
    rt::FileDescriptor file(fd);
    struct stat mine {};
    if (::fstat(fd, &mine) != 0)
      return rt::makeError("{}: cannot examine the lock file: {}", lockPath.string(), std::strerror(errno));
    if (!S_ISREG(mine.st_mode))
      return rt::makeError("{}: the lock file is {}, not a regular file", lockPath.string(), fileKind(mine.st_mode));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK)
        return rt::makeError("{}: cannot lock: {}", lockPath.string(), std::strerror(errno));
      if (!lock.waited_ && progress)
        *progress << "linnet: waiting for another linnet compiling the same build..." << std::endl;
      lock.waited_ = true;
      while (::flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) return rt::makeError("{}: cannot lock: {}", lockPath.string(), std::strerror(errno));
    }
    // The holder removes the file before it unlocks, so the file locked
    // here may be gone (or replaced by a newer one that another process
    // locks): only a lock on the file at the path now counts.
    struct stat now {};
    if (::lstat(lockPath.c_str(), &now) == 0 && now.st_dev == mine.st_dev && now.st_ino == mine.st_ino) {
      lock.fd_ = file.release();
      return lock;
    }
  }
}

BuildCacheLock::BuildCacheLock(BuildCacheLock&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), waited_(other.waited_) {}

BuildCacheLock& BuildCacheLock::operator=(BuildCacheLock&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    waited_ = other.waited_;
  }
  return *this;
}

void BuildCacheLock::release() noexcept {
  if (fd_ < 0) return;
  // Removed while still locked (see acquire()), so the cache directory
  // keeps no lock files; a waiter on this file then finds it gone and
  // locks a new one.
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace linnet::driver
