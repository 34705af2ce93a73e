#include "runtime/support/MemoryPolicy.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace {

// After the policy, a buffer of the size a prefill's ops allocate comes
// from the heap, not from its own mapping, and the heap keeps it when it
// is freed: the next one of that size grows nothing.
TEST(MemoryPolicy, LargeBuffersAreReusedFromTheHeap) {
  if (!linnet::rt::retainFreedMemory()) GTEST_SKIP() << "this allocator does not take the policy (a sanitizer's)";
  constexpr size_t kBytes = 96u << 20;
  size_t mapped = mallinfo2().hblkhd;
  void* first = std::malloc(kBytes);
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, kBytes);
  EXPECT_EQ(mallinfo2().hblkhd, mapped);
  std::free(first);
  size_t heap = mallinfo2().arena;
  void* second = std::malloc(kBytes);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(mallinfo2().arena, heap);
  EXPECT_EQ(mallinfo2().hblkhd, mapped);
  std::free(second);
}

}  // namespace
