// Writing a whole file so that readers see either the old file or the new
// one, never a part: the bytes go to a temporary file in the same directory,
// which is synced and renamed over the target.
#pragma once

#include "runtime/support/Status.h"

#include <filesystem>
#include <string_view>

namespace linnet::rt {

// Errors name `path` and the OS reason; the temporary file is removed on
// failure. A new file gets mode 0644 (the umask is not applied); a file
// replaced keeps its mode. A symbolic link is followed (the file it names is
// replaced, the link stays); a device, pipe or socket is written to in place
// (`/dev/null`; `/dev/full` fails as a write there does); a directory is an
// error. A file with other hard links, or another owner that the new file
// cannot be given, is rewritten in place (not atomically) so that every name
// and the owner stay.
Status writeFileAtomically(const std::filesystem::path &path, std::string_view bytes);

} // namespace linnet::rt
