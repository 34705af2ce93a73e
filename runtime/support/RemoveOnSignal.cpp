// Implementation of RemoveOnSignal.h.
//
// The handler may run on any thread, in the middle of any code, so it only
// reads a fixed table through lock-free atomics and calls async-signal-safe
// functions (unlink, sigaction, raise): no allocation, no locks.
#include "runtime/support/RemoveOnSignal.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <mutex>

namespace linnet::rt {

namespace {

// A slot is claimed (Free -> Filling), written, then published (Ready). The
// handler takes a Ready slot (-> Taken) before it reads the path, so the
// path is never rewritten under it; a Taken slot is never freed again (that
// only matters where a chained handler lets the process go on).
enum SlotState : int { kFree, kFilling, kReady, kTaken };

constexpr int kSlots = 16;
constexpr std::size_t kMaxPath = 4096;

struct Slot {
  std::atomic<int> state{kFree};
  char path[kMaxPath];
};

static_assert(std::atomic<int>::is_always_lock_free);

Slot gSlots[kSlots];

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
// Written before our handler is installed for that signal, read only by it.
struct sigaction gPrevious[std::size(kSignals)];

void removeRegisteredFiles() {
  for (Slot &slot : gSlots) {
    int expected = kReady;
    if (slot.state.compare_exchange_strong(expected, kTaken))
      unlink(slot.path);
  }
}

void onSignal(int signo, siginfo_t *info, void *context) {
  int savedErrno = errno;
  removeRegisteredFiles();
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] != signo)
      continue;
    const struct sigaction &previous = gPrevious[i];
    if (previous.sa_flags & SA_SIGINFO) {
      previous.sa_sigaction(signo, info, context);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
      previous.sa_handler(signo);
    } else {
      // The signal is blocked while this runs; once it returns, the raised
      // one ends the process with the default action, and the exit status
      // says which signal it was.
      sigaction(signo, &previous, nullptr);
      raise(signo);
    }
  }
  errno = savedErrno;
}

void installHandlers() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    struct sigaction current {};
    if (sigaction(kSignals[i], nullptr, &current) != 0)
      continue;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN)
      continue;
    gPrevious[i] = current;
    struct sigaction ours {};
    ours.sa_sigaction = onSignal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    // One signal's cleanup is not interrupted by another's.
    sigemptyset(&ours.sa_mask);
    for (int signo : kSignals)
      sigaddset(&ours.sa_mask, signo);
    sigaction(kSignals[i], &ours, nullptr);
  }
}

} // namespace

RemoveOnSignal::RemoveOnSignal(const std::string &path) : slot_(-1) {
  static std::once_flag installed;
  std::call_once(installed, installHandlers);
  if (path.size() >= kMaxPath)
    return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!gSlots[i].state.compare_exchange_strong(expected, kFilling))
      continue;
    std::memcpy(gSlots[i].path, path.c_str(), path.size() + 1);
    gSlots[i].state.store(kReady);
    slot_ = i;
    return;
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  if (slot_ < 0)
    return;
  int expected = kReady;
  gSlots[slot_].state.compare_exchange_strong(expected, kFree);
}

} // namespace linnet::rt
