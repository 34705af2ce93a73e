// Tests for runtime/support/RemoveOnSignal.h through writeFileAtomically: a
// write interrupted by SIGTERM leaves no `.NAME.XXXXXX` behind, the target
// is absent or intact, and the process still dies of the signal. Each case
// runs in a forked child. The signal comes in the middle of the write, made
// deterministic by a file-size limit: the write past it raises SIGXFSZ,
// whose handler raises SIGTERM.
#include "runtime/io/AtomicFile.h"
#include "runtime/support/RemoveOnSignal.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace linnet::rt {
namespace {

using test::TempDir;

std::vector<std::string> entries(const std::filesystem::path &dir) {
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string readText(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void raiseTerm(int) { raise(SIGTERM); }

// Runs `child` in a forked process and returns its wait status.
template <typename F> int inChild(F child) {
  pid_t pid = fork();
  if (pid == 0) {
    child();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// A 4 MiB write stopped by SIGTERM after its first MiB.
void interruptedWrite(const std::filesystem::path &target) {
  struct rlimit limit {1 << 20, 1 << 20};
  setrlimit(RLIMIT_FSIZE, &limit);
  signal(SIGXFSZ, raiseTerm);
  (void)writeFileAtomically(target, std::string(4 << 20, 'x'));
}

TEST(RemoveOnSignalTest, InterruptedWriteLeavesNoTemporaryFile) {
  TempDir dir;
  int status = inChild([&] { interruptedWrite(dir / "out.bin"); });
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{});
}

TEST(RemoveOnSignalTest, InterruptedWriteKeepsTheOldFile) {
  TempDir dir;
  test::writeFile(dir / "out.bin", std::string_view("old"));
  int status = inChild([&] { interruptedWrite(dir / "out.bin"); });
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"out.bin"});
  EXPECT_EQ(readText(dir / "out.bin"), "old");
}

TEST(RemoveOnSignalTest, FinishedWriteIsNotRemoved) {
  TempDir dir;
  int status = inChild([&] {
    if (!writeFileAtomically(dir / "out.bin", "new"))
      _exit(3);
    raise(SIGTERM);
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(entries(dir.path()), std::vector<std::string>{"out.bin"});
  EXPECT_EQ(readText(dir / "out.bin"), "new");
}

// A file whose guard has ended is the caller's again (renamed into place).
TEST(RemoveOnSignalTest, UnregisteredFileStays) {
  TempDir dir;
  std::filesystem::path kept = dir / ".kept.123456";
  test::writeFile(kept, std::string_view("k"));
  int status = inChild([&] {
    { RemoveOnSignal guard(kept.string()); }
    raise(SIGTERM);
  });
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(std::filesystem::exists(kept));
}

std::filesystem::path gChainedPath;
void chainedHandler(int) { _exit(std::filesystem::exists(gChainedPath) ? 41 : 42); }

// A handler installed before ours still runs, after the file is gone.
TEST(RemoveOnSignalTest, ChainsToAnEarlierHandler) {
  struct sigaction current {};
  sigaction(SIGTERM, nullptr, &current);
  if (current.sa_handler != SIG_DFL)
    GTEST_SKIP() << "this process installed the handlers already (run the test alone)";
  TempDir dir;
  gChainedPath = dir / ".chained.123456";
  test::writeFile(gChainedPath, std::string_view("c"));
  int status = inChild([&] {
    signal(SIGTERM, chainedHandler);
    RemoveOnSignal guard(gChainedPath.string());
    raise(SIGTERM);
  });
  ASSERT_TRUE(WIFEXITED(status)) << "exit status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

// An ignored signal stays ignored (`nohup`): the write goes on.
TEST(RemoveOnSignalTest, IgnoredSignalStaysIgnored) {
  struct sigaction current {};
  sigaction(SIGHUP, nullptr, &current);
  if (current.sa_handler != SIG_DFL)
    GTEST_SKIP() << "this process installed the handlers already (run the test alone)";
  TempDir dir;
  std::filesystem::path pending = dir / ".pending.123456";
  test::writeFile(pending, std::string_view("p"));
  int status = inChild([&] {
    signal(SIGHUP, SIG_IGN);
    RemoveOnSignal guard(pending.string());
    raise(SIGHUP);
  });
  ASSERT_TRUE(WIFEXITED(status)) << "exit status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(std::filesystem::exists(pending));
}

} // namespace
} // namespace linnet::rt
