// Temporary files that must not outlive an interrupted write: while a
// RemoveOnSignal is alive, SIGINT, SIGTERM or SIGHUP unlink its file before
// the process dies of the signal (writeFileAtomically's `.NAME.XXXXXX`
// stayed forever after a Ctrl-C in the middle of a large write).
//
// The handlers are installed on first use. A signal whose disposition is
// SIG_IGN then is left alone (`nohup` keeps working); a handler installed
// before ours is called after the files are removed; the default action is
// restored and the signal raised again, so the exit status is the signal's.
// SIGKILL (and the out-of-memory killer, a power cut) cannot be caught: a
// file being written then stays behind.
#pragma once

#include <string>

namespace linnet::rt {

class RemoveOnSignal {
public:
  // Registers `path` in a fixed table the handler reads without allocating.
  // Where the table is full or the path too long, the file is not covered
  // (the write itself is not affected).
  explicit RemoveOnSignal(const std::string &path);
  // Unregisters the file (which the caller has renamed or removed).
  ~RemoveOnSignal();

  RemoveOnSignal(const RemoveOnSignal &) = delete;
  RemoveOnSignal &operator=(const RemoveOnSignal &) = delete;

private:
  int slot_;
};

} // namespace linnet::rt
