#include "runtime/support/MemoryPolicy.h"

#include <malloc.h>

#include <climits>

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

}  // namespace linnet::rt
