// Writing a whole buffer to a file descriptor: write(2) may write less than
// asked, or be interrupted by a signal, so it is called until every byte is
// out.
#pragma once

#include "runtime/support/Status.h"

#include <cstddef>
#include <span>

namespace linnet::rt {

// The error is the OS reason alone (`No space left on device`); the caller
// names the file.
Status writeAll(int fd, std::span<const std::byte> bytes);

} // namespace linnet::rt
