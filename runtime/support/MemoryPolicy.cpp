#include "runtime/support/MemoryPolicy.h"

#include <fmt/format.h>

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <climits>
#include <iterator>
#include <cstdint>
#include <limits>

namespace linnet::rt {

bool retainFreedMemory() {
#if defined(__GLIBC__)
  // No mmap for large requests (glibc falls back to it only when the heap
  // cannot grow), and no trimming of the heap's top.
  bool heap = mallopt(M_MMAP_MAX, 0) == 1;
  bool keep = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
  return heap && keep;
#else
  return false;
#endif
}

MemoryCeiling memoryCeiling() {
  MemoryCeiling ceiling{std::numeric_limits<std::size_t>::max(), "the address space"};
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  std::size_t physical = 0;
  if (pages > 0 && pageSize > 0 &&
      !__builtin_mul_overflow(static_cast<std::size_t>(pages), static_cast<std::size_t>(pageSize), &physical))
    ceiling = {physical, "this machine's physical memory"};
  const struct {
    int resource;
    const char *what;
  } limits[] = {{RLIMIT_AS, "the process's address-space limit (RLIMIT_AS)"},
                {RLIMIT_DATA, "the process's data limit (RLIMIT_DATA)"}};
  for (const auto &limit : limits) {
    struct rlimit value {};
    if (getrlimit(limit.resource, &value) == 0 && value.rlim_cur != RLIM_INFINITY &&
        static_cast<std::uintmax_t>(value.rlim_cur) < ceiling.bytes)
      ceiling = {static_cast<std::size_t>(value.rlim_cur), limit.what};
  }
  return ceiling;
}

std::string formatByteCount(std::size_t bytes) {
  if (bytes < 1024)
    return fmt::format("{} bytes", bytes);
  const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{} bytes ({:.1f} {})", bytes, value, units[unit]);
}

}  // namespace linnet::rt
