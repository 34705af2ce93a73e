// Writing a whole file so that readers see either the old file or the new
// one, never a part: the bytes go to a temporary file in the same directory,
// which is synced and renamed over the target.
#pragma once

#include "runtime/support/Status.h"

#include <filesystem>
#include <optional>
#include <string_view>

#include <sys/types.h>

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

// Whether writeFileAtomically(path, ...) may succeed, for a command to say
// before its long work (every call of `--calls`) rather than after: not a
// directory, a pipe some process reads, a directory that takes a new file.
// Leaves nothing behind.
Status checkWritable(const std::filesystem::path &path);

struct FileOwner {
  uid_t uid;
  gid_t gid;
};

// The replacement itself, with no regard for what is at `path`: `bytes` go to
// a new temporary file beside it with permission bits `mode` (and `owner`,
// if given), synced, renamed over `path`, so a file, a symbolic link or a
// FIFO there is replaced, never written through (the build cache's entries).
// An owner the file cannot be given is an error that also sets
// `*ownerRefused`; nothing is left behind on any error.
Status replaceWithNewFile(const std::filesystem::path &path, std::string_view bytes, mode_t mode,
                          std::optional<FileOwner> owner = std::nullopt, bool *ownerRefused = nullptr);

} // namespace linnet::rt
