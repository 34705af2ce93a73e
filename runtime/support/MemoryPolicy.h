// How the process's allocator treats the generated code's buffers.
#pragma once

#include <cstddef>
#include <string>

namespace linnet::rt {

// Freed memory stays with the process for the next allocation instead of
// going back to the kernel. The generated code mallocs every intermediate
// buffer of an entry call and frees it after (a 512-token prefill of
// Phi-3-mini: tens of MB per op); glibc serves each such buffer with a
// fresh mmap and unmaps it on free, so every call faults in and zeroes
// each page again. With this, glibc takes them from its heap and keeps
// what is freed, so later calls reuse pages already mapped. Peak RSS is
// unchanged (it is the largest call's working set either way); RSS no
// longer falls after a call. A process-wide policy: the command-line tools
// (`linnet-run`, `linnet run`) set it before anything is allocated; a
// program embedding the runtime chooses for itself. Returns false where the
// allocator refused (not glibc, say), which only costs speed.
bool retainFreedMemory();

// The most memory this process could ever hold at once: the machine's
// physical memory (sysconf), or less where the process's address-space or
// data limit (RLIMIT_AS, RLIMIT_DATA) is lower. `what` says which, for
// messages ("this machine's physical memory"). Used to refuse, before a
// call, results that could never fit (docs/runtime.md, "Result sizes").
struct MemoryCeiling {
  std::size_t bytes = 0;
  std::string what;
};
MemoryCeiling memoryCeiling();

// "40000000000 bytes (37.3 GiB)"; below 1 KiB just "512 bytes".
std::string formatByteCount(std::size_t bytes);

}  // namespace linnet::rt
