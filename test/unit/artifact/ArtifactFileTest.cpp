// The .lnpkg container: round trip, and every malformed or hostile layout.
#include "runtime/artifact/ArtifactFile.h"

#include "ArtifactTestUtil.h"
#include "runtime/checkpoint/MappedFile.h"

#include <gtest/gtest.h>

namespace linnet::rt {
namespace {

std::span<const std::byte> bytesOf(const std::string &s) { return std::as_bytes(std::span(s.data(), s.size())); }

std::string splitError(const std::string &image) {
  Expected<ArtifactContents> contents = splitArtifact(bytesOf(image), "x.lnpkg");
  EXPECT_FALSE(contents.ok());
  return contents.ok() ? "" : contents.message();
}

std::string u64(std::uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

const std::string kMagic("LNPKG\0\0\2", 8);

TEST(ArtifactFileTest, RoundTrip) {
  test::TempDir dir;
  std::string path = (dir / "a.lnpkg").string();
  ASSERT_TRUE(writeArtifact(path, "{\"x\": 1}", std::string("\x7f" "ELF\0so", 7)).ok());
  Expected<MappedFile> file = MappedFile::open(path);
  ASSERT_TRUE(file.ok());
  Expected<ArtifactContents> contents = splitArtifact(file->bytes(), path);
  ASSERT_TRUE(contents.ok()) << contents.message();
  EXPECT_EQ(contents->manifestJson, "{\"x\": 1}");
  EXPECT_EQ(contents->sharedObject.size(), 7u);
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(ArtifactFileTest, WriteFailsCleanly) {
  Status status = writeArtifact("/nonexistent-dir/a.lnpkg", "{}", "");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("/nonexistent-dir/a.lnpkg"), std::string::npos);
}

TEST(ArtifactFileTest, Malformed) {
  EXPECT_NE(splitError("").find("bad magic"), std::string::npos);
  EXPECT_NE(splitError("LNPKX\0\0\1").find("bad magic"), std::string::npos);
  // Version 1 had no checksum: refused, with the advice to build again.
  EXPECT_NE(splitError(std::string("LNPKG\0\0\1", 8) + u64(0) + u64(0)).find("version 1 is not supported"),
            std::string::npos);
  EXPECT_NE(splitError(std::string("LNPKG\0\0\1", 8) + u64(0) + u64(0)).find("build it again"),
            std::string::npos);
  EXPECT_NE(splitError(kMagic).find("manifest length is missing"), std::string::npos);
  EXPECT_NE(splitError(kMagic + u64(10) + "{}").find("the manifest is 10 bytes but only 2 follow"),
            std::string::npos);
  EXPECT_NE(splitError(kMagic + u64(2) + "{}").find("shared object length is missing"), std::string::npos);
  EXPECT_NE(splitError(kMagic + u64(2) + "{}" + u64(5) + "abc").find("shared object is 5 bytes but only 3"),
            std::string::npos);
  EXPECT_NE(splitError(kMagic + u64(2) + "{}" + u64(1) + "ab").find("checksum is missing"), std::string::npos);
  std::string whole = encodeArtifact("{}", "ab");
  EXPECT_NE(splitError(whole + "x").find("1 unexpected bytes after the checksum"), std::string::npos);
}

TEST(ArtifactFileTest, EveryDamagedByteIsCaught) {
  // A flipped bit anywhere past the magic and lengths (manifest, native
  // code, checksum) is a damaged file, refused before dlopen sees it.
  std::string whole = encodeArtifact("{\"x\": 1}", std::string("\x7f" "ELF\0so-bytes", 13));
  ASSERT_TRUE(splitArtifact(bytesOf(whole), "x").ok());
  for (std::size_t i = 16; i < whole.size(); ++i) {
    if (i >= 16 + 8 && i < 16 + 8 + 8) continue;  // the code's length: caught as a length
    std::string damaged = whole;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x10);
    EXPECT_NE(splitError(damaged).find("damaged"), std::string::npos) << "byte " << i;
  }
}

TEST(ArtifactFileTest, HugeLengthsAreRejectedWithoutReading) {
  EXPECT_NE(splitError(kMagic + u64(~0ull) + "{}").find("exceeds the limit"), std::string::npos);
  EXPECT_NE(splitError(kMagic + u64(kMaxManifestBytes) + "{}").find("only 2 follow"), std::string::npos);
  EXPECT_NE(splitError(kMagic + u64(2) + "{}" + u64(~0ull)).find("exceeds the limit"), std::string::npos);
  EXPECT_NE(splitError(kMagic + u64(2) + "{}" + u64(1ull << 31)).find("only 0 follow"), std::string::npos);
}

TEST(ArtifactFileTest, EmptyPartsAreWellFormed) {
  std::string image = encodeArtifact("", "");
  Expected<ArtifactContents> contents = splitArtifact(bytesOf(image), "x");
  ASSERT_TRUE(contents.ok());
  EXPECT_TRUE(contents->manifestJson.empty());
  EXPECT_TRUE(contents->sharedObject.empty());
}

} // namespace
} // namespace linnet::rt
