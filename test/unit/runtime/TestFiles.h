// Helpers for the runtime tests: a self-deleting temporary directory and
// builders for safetensors images, so each test writes exactly the
// (possibly malformed) file it is about.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linnet::rt::test {

using Bytes = std::vector<std::byte>;

// A fresh directory under the system temp folder, removed with its contents
// when the object dies.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::filesystem::path &path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

private:
  std::filesystem::path path_;
};

// One tensor for buildSafeTensors; offsets are assigned contiguously in
// the order given.
struct TestTensor {
  std::string name;
  std::string dtype; // safetensors spelling, e.g. "F32"
  std::vector<std::int64_t> shape;
  Bytes data;
};

// A well-formed safetensors image.
Bytes buildSafeTensors(const std::vector<TestTensor> &tensors,
                       const std::map<std::string, std::string> &metadata = {});

// An image with the given header text and data region; the length field is
// the header's size unless `declaredHeaderLength` overrides it.
Bytes buildRaw(std::string_view header, const Bytes &data = {},
               std::optional<std::uint64_t> declaredHeaderLength = std::nullopt);

// `count` bytes 0, 1, 2, ... (mod 256), so views can be checked byte by byte.
Bytes sequenceBytes(std::size_t count, std::uint8_t first = 0);

Bytes toBytes(std::string_view text);

void writeFile(const std::filesystem::path &path, const Bytes &bytes);
void writeFile(const std::filesystem::path &path, std::string_view text);

} // namespace linnet::rt::test
