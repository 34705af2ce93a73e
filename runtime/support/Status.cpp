// The out-of-line part of Status.h: the abort path for reading a value that
// is not there. Kept out of the header so <cstdio> stays out of every user.
#include "runtime/support/Status.h"

#include <cstdio>
#include <cstdlib>

namespace linnet::rt::detail {

void abortOnUncheckedError(const std::string &message) {
  std::fprintf(stderr, "linnet runtime: fatal: %s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

} // namespace linnet::rt::detail
