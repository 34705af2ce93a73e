// A shared object loaded from bytes in memory.
//
// The artifact carries its native code inline, so loading does not need a
// file: the bytes go into an anonymous memfd (memfd_create) and are opened
// with dlopen("/proc/self/fd/N"). Only where memfd_create is unavailable is a
// private temporary file written and unlinked right after dlopen. The memfd
// stays open while the library is loaded, because glibc identifies loaded
// libraries by path and a reused fd number would otherwise alias the old one
// (for the same reason a library that stays loaded after dlclose keeps its
// memfd open for good).
//
// Before dlopen the bytes are checked to be an ELF shared object for this
// machine (64-bit, little-endian, e_machine of the host): dlopen runs the
// library's constructors, so a wrong file would otherwise be executed. There
// is no defence beyond that: loading an artifact runs its code.
//
// Move-only; the destructor dlcloses and closes the memfd. Symbols resolved
// through it are valid while it lives.
#pragma once

#include "runtime/support/Status.h"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace linnet::rt {

class SharedObject {
public:
  // `sourceName` prefixes messages.
  static Expected<SharedObject> load(std::span<const std::byte> bytes, std::string_view sourceName);
  // The checks load() makes before handing the bytes to the dynamic loader
  // (an ELF shared object for this machine, its segments inside it), alone:
  // for a build cache deciding whether an entry must be rebuilt.
  static Status check(std::span<const std::byte> bytes, std::string_view sourceName);

  SharedObject() = default;
  SharedObject(SharedObject &&other) noexcept;
  SharedObject &operator=(SharedObject &&other) noexcept;
  SharedObject(const SharedObject &) = delete;
  SharedObject &operator=(const SharedObject &) = delete;
  ~SharedObject();

  // The address of `name`, or an Error naming it.
  Expected<void *> symbol(const std::string &name) const;

private:
  void release() noexcept;
  void *handle_ = nullptr;
  int fd_ = -1;
  std::string path_; // "/proc/self/fd/N" (empty for the temporary-file fallback)
  std::string sourceName_;
};

} // namespace linnet::rt
