// POSIX implementation of MappedFile (see MappedFile.h): open, fstat, mmap,
// close. The descriptor is closed right after mapping because a mapping
// stays valid without it, so a loaded checkpoint holds no descriptors.
#include "runtime/checkpoint/MappedFile.h"
#include "runtime/support/FileDescriptor.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace linnet::rt {

namespace {

std::string osReason(int error) { return std::strerror(error); }

// A mapped file cut shorter while the process runs (a checkpoint rewritten
// under it) makes a read past its new end raise SIGBUS, which killed the
// process with "Bus error" and nothing else. The handler says what happened
// and exits with the input-error code; it allocates nothing (only write and
// _exit), and leaves a SIGBUS whose disposition someone else set alone.
void onTruncatedMapping(int) {
  static const char kMessage[] =
      "error: a mapped file (the checkpoint, or the artifact) became shorter while in use; was it "
      "rewritten during the run?\n";
  ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  (void)ignored;
  ::_exit(1);
}

void reportTruncatedMappings() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction current {};
    if (::sigaction(SIGBUS, nullptr, &current) != 0 || current.sa_handler != SIG_DFL)
      return;
    struct sigaction action {};
    action.sa_handler = onTruncatedMapping;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, nullptr);
  });
}

} // namespace

Expected<MappedFile> MappedFile::open(const std::filesystem::path &path) {
  int rawFd;
  do {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
    // writer forever; it is then refused below as not a regular file (the
    // flag changes nothing for a regular file's reads and mapping).
    rawFd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (rawFd < 0 && errno == EINTR);
  if (rawFd < 0)
    return makeError("{}: cannot open: {}", path.string(), osReason(errno));
  FileDescriptor fd(rawFd);

  struct stat info {};
  if (::fstat(fd.get(), &info) != 0)
    return makeError("{}: cannot stat: {}", path.string(), osReason(errno));
  // Directories, FIFOs and devices have no fixed size to map.
  if (!S_ISREG(info.st_mode))
    return makeError("{}: not a regular file", path.string());
  if (info.st_size < 0)
    return makeError("{}: negative file size", path.string());

  std::size_t size = static_cast<std::size_t>(info.st_size);
  if (size == 0)
    return MappedFile(path, nullptr, 0);

  void *address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (address == MAP_FAILED)
    return makeError("{}: cannot map {} bytes: {}", path.string(), size, osReason(errno));
  reportTruncatedMappings();
  return MappedFile(path, static_cast<const std::byte *>(address), size);
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile &&other) noexcept
    : path_(std::move(other.path_)), data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::release() noexcept {
  if (data_ != nullptr)
    ::munmap(const_cast<std::byte *>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

} // namespace linnet::rt
