// Tests for runtime/checkpoint/MappedFile.h: contents, empty files, errors,
// and that moving keeps the mapping (and pointers into it) alive.
#include "runtime/checkpoint/MappedFile.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LINNET_TEST_ASAN 1
#endif
#endif

namespace linnet::rt {
namespace {

using test::TempDir;

TEST(MappedFileTest, MapsContents) {
  TempDir dir;
  test::writeFile(dir / "data.bin", std::string_view("hello, mapping"));
  Expected<MappedFile> file = MappedFile::open(dir / "data.bin");
  ASSERT_TRUE(file.ok()) << file.message();
  ASSERT_EQ(file->size(), 14u);
  EXPECT_EQ(std::memcmp(file->data(), "hello, mapping", 14), 0);
  EXPECT_EQ(file->path(), dir / "data.bin");
}

// A mapped file cut shorter while in use: reading past its new end raises
// SIGBUS, which says what happened and exits 1 (it was "Bus error" and
// nothing else). Sanitizers handle SIGBUS themselves: the handler is then
// not installed, so the test is skipped there.
TEST(MappedFileTest, TruncatedWhileMappedSaysSo) {
#if defined(__SANITIZE_ADDRESS__) || defined(LINNET_TEST_ASAN)
  GTEST_SKIP() << "AddressSanitizer owns SIGBUS";
#else
  TempDir dir;
  test::writeFile(dir / "data.bin", std::string(1 << 16, 'x'));
  EXPECT_EXIT(
      {
        Expected<MappedFile> file = MappedFile::open(dir / "data.bin");
        if (!file.ok())
          std::_Exit(3);
        std::filesystem::resize_file(dir / "data.bin", 0);
        volatile std::byte last = file->data()[file->size() - 1];
        (void)last;
        std::_Exit(4);
      },
      ::testing::ExitedWithCode(1), "became shorter while in use");
#endif
}

TEST(MappedFileTest, EmptyFileIsEmptySpan) {
  TempDir dir;
  test::writeFile(dir / "empty.bin", std::string_view());
  Expected<MappedFile> file = MappedFile::open(dir / "empty.bin");
  ASSERT_TRUE(file.ok()) << file.message();
  EXPECT_EQ(file->size(), 0u);
  EXPECT_TRUE(file->bytes().empty());
}

TEST(MappedFileTest, MissingFileNamesPath) {
  TempDir dir;
  Expected<MappedFile> file = MappedFile::open(dir / "absent.bin");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.message().find("absent.bin"), std::string::npos) << file.message();
  EXPECT_NE(file.message().find("cannot open"), std::string::npos) << file.message();
}

TEST(MappedFileTest, DirectoryIsRejected) {
  TempDir dir;
  Expected<MappedFile> file = MappedFile::open(dir.path());
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.message().find("not a regular file"), std::string::npos) << file.message();
}

TEST(MappedFileTest, MoveKeepsMappingAndPointers) {
  TempDir dir;
  test::writeFile(dir / "data.bin", std::string_view("0123456789"));
  Expected<MappedFile> opened = MappedFile::open(dir / "data.bin");
  ASSERT_TRUE(opened.ok()) << opened.message();
  const std::byte *pointer = opened->data();

  MappedFile moved(std::move(*opened));
  EXPECT_EQ(moved.data(), pointer);
  EXPECT_EQ(moved.size(), 10u);
  EXPECT_EQ(opened->size(), 0u); // moved-from is empty
  EXPECT_EQ(opened->data(), nullptr);

  MappedFile assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.data(), pointer);
  EXPECT_EQ(std::memcmp(assigned.data(), "0123456789", 10), 0);

  // Assigning over a live mapping releases the old one and takes the new.
  test::writeFile(dir / "other.bin", std::string_view("abc"));
  Expected<MappedFile> other = MappedFile::open(dir / "other.bin");
  ASSERT_TRUE(other.ok());
  assigned = std::move(*other);
  EXPECT_EQ(assigned.size(), 3u);
  EXPECT_EQ(std::memcmp(assigned.data(), "abc", 3), 0);
}

TEST(MappedFileTest, DefaultIsEmpty) {
  MappedFile file;
  EXPECT_EQ(file.data(), nullptr);
  EXPECT_EQ(file.size(), 0u);
}

} // namespace
} // namespace linnet::rt
