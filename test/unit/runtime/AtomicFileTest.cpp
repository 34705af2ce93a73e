// Tests for runtime/io/AtomicFile.h: what a replaced file keeps (its other
// hard links, its owner, its mode, a symbolic link to it) and that the new
// bytes are exactly what is read back, longer or shorter than the old.
#include "runtime/io/AtomicFile.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace linnet::rt {
namespace {

std::string readAll(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeText(const std::filesystem::path &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

struct stat statOf(const std::filesystem::path &path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st;
}

TEST(AtomicFile, ReplacesAndKeepsMode) {
  test::TempDir dir;
  writeText(dir / "f", "old contents, long");
  ASSERT_EQ(chmod((dir / "f").c_str(), 0600), 0);
  ASSERT_TRUE(writeFileAtomically(dir / "f", "new"));
  EXPECT_EQ(readAll(dir / "f"), "new");
  EXPECT_EQ(statOf(dir / "f").st_mode & 07777, 0600u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1) << "no temporary left";
}

// Replacing by rename would leave the other name with the old contents.
TEST(AtomicFile, HardLinkedFileIsRewrittenThroughItsInode) {
  test::TempDir dir;
  writeText(dir / "a", "a longer old text than the new one");
  ASSERT_EQ(link((dir / "a").c_str(), (dir / "b").c_str()), 0);
  ino_t inode = statOf(dir / "a").st_ino;
  ASSERT_TRUE(writeFileAtomically(dir / "a", "short"));
  EXPECT_EQ(readAll(dir / "a"), "short");
  EXPECT_EQ(readAll(dir / "b"), "short");
  EXPECT_EQ(statOf(dir / "a").st_ino, inode);
  EXPECT_EQ(statOf(dir / "b").st_nlink, 2u);
  ASSERT_TRUE(writeFileAtomically(dir / "b", "now longer than before"));
  EXPECT_EQ(readAll(dir / "a"), "now longer than before");
}

TEST(AtomicFile, SymbolicLinkStaysALink) {
  test::TempDir dir;
  writeText(dir / "target", "old");
  std::filesystem::create_symlink("target", dir / "link");
  ASSERT_TRUE(writeFileAtomically(dir / "link", "new"));
  EXPECT_TRUE(S_ISLNK(statOf(dir / "link").st_mode));
  EXPECT_EQ(readAll(dir / "target"), "new");
}

// Root replacing another user's file (`sudo linnet fmt`) gives the new file
// that user; without the right to, the old file is rewritten in place.
TEST(AtomicFile, AnotherUsersFileKeepsItsOwner) {
  test::TempDir dir;
  writeText(dir / "f", "old");
  if (geteuid() == 0) {
    ASSERT_EQ(chown((dir / "f").c_str(), 4321, 4321), 0);
  } else {
    GTEST_SKIP() << "needs root to make a file of another owner";
  }
  ASSERT_TRUE(writeFileAtomically(dir / "f", "new"));
  struct stat st = statOf(dir / "f");
  EXPECT_EQ(st.st_uid, 4321u);
  EXPECT_EQ(st.st_gid, 4321u);
  EXPECT_EQ(readAll(dir / "f"), "new");
}

// checkWritable says before the work what writeFileAtomically would say
// after it, and leaves nothing behind; a FIFO that no process reads is an
// error, not a wait.
TEST(AtomicFileTest, CheckWritableBeforeTheWork) {
  test::TempDir dir;
  EXPECT_TRUE(checkWritable(dir / "new.bin").ok());
  writeText(dir / "old.bin", "x");
  EXPECT_TRUE(checkWritable(dir / "old.bin").ok());
  EXPECT_EQ(readAll(dir / "old.bin"), "x");
  size_t entries = 0;
  for ([[maybe_unused]] const auto &e : std::filesystem::directory_iterator(dir.path()))
    ++entries;
  EXPECT_EQ(entries, 1u); // no temporary file left
  Status missing = checkWritable(dir / "no-dir" / "x.bin");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("cannot create a file there"), std::string::npos) << missing.message();
  Status directory = checkWritable(dir.path());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.message().find("is a directory"), std::string::npos) << directory.message();
  ASSERT_EQ(mkfifo((dir / "pipe").c_str(), 0600), 0);
  Status pipe = checkWritable(dir / "pipe");
  ASSERT_FALSE(pipe.ok());
  EXPECT_NE(pipe.message().find("a pipe that no process reads"), std::string::npos) << pipe.message();
  Status write = writeFileAtomically(dir / "pipe", "bytes");
  ASSERT_FALSE(write.ok());
  EXPECT_NE(write.message().find("a pipe that no process reads"), std::string::npos) << write.message();
}

} // namespace
} // namespace linnet::rt
