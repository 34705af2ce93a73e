// Implementation of TestFiles.h. The safetensors writer builds the header
// with nlohmann::json so valid test files are valid by construction and only
// the malformed cases are spelled out by hand.
#include "TestFiles.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace linnet::rt::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "linnet-rt-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

Bytes buildRaw(std::string_view header, const Bytes &data,
               std::optional<std::uint64_t> declaredHeaderLength) {
  std::uint64_t length = declaredHeaderLength.value_or(header.size());
  Bytes out;
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<std::byte>((length >> (8 * i)) & 0xFF));
  for (char c : header)
    out.push_back(static_cast<std::byte>(c));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes buildSafeTensors(const std::vector<TestTensor> &tensors,
                       const std::map<std::string, std::string> &metadata) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty())
    header["__metadata__"] = metadata;
  Bytes data;
  for (const TestTensor &tensor : tensors) {
    std::size_t begin = data.size();
    data.insert(data.end(), tensor.data.begin(), tensor.data.end());
    header[tensor.name] = {
        {"dtype", tensor.dtype}, {"shape", tensor.shape}, {"data_offsets", {begin, data.size()}}};
  }
  std::string text = header.dump();
  // Real writers pad the header with spaces to 8 bytes; do the same so the
  // reader is tested on padded headers and unaligned data is not the norm.
  while (text.size() % 8 != 0)
    text.push_back(' ');
  return buildRaw(text, data);
}

Bytes sequenceBytes(std::size_t count, std::uint8_t first) {
  Bytes out(count);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = static_cast<std::byte>(static_cast<std::uint8_t>(first + i));
  return out;
}

Bytes toBytes(std::string_view text) {
  Bytes out;
  for (char c : text)
    out.push_back(static_cast<std::byte>(c));
  return out;
}

void writeFile(const fs::path &path, const Bytes &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out)
    throw std::runtime_error("cannot write " + path.string());
}

void writeFile(const fs::path &path, std::string_view text) { writeFile(path, toBytes(text)); }

} // namespace linnet::rt::test
