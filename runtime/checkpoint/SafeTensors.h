// Reader for one `.safetensors` file.
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON header,
// then the data region. The header maps tensor names to
// {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
// data region) plus an optional "__metadata__" string->string map.
// Everything in the header is validated before any view is handed out (see
// SafeTensors.cpp for the list); a file that opens successfully can be read
// through its views without further bounds checks.
//
// Views point into the bytes the file was parsed from: for open() that is a
// MappedFile owned by the SafeTensorsFile (no copy of the weights); for
// parse() it is a caller-owned buffer that must outlive the object. Tensor
// data may be unaligned (N is arbitrary), so read elements with memcpy or
// check alignment first.
#pragma once

#include "runtime/checkpoint/MappedFile.h"
#include "runtime/support/DType.h"
#include "runtime/support/Status.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace linnet::rt {

// One tensor of a safetensors file: metadata plus a view of its bytes.
struct TensorView {
  std::string name;
  DType dtype;
  std::vector<std::int64_t> shape; // empty for a scalar
  std::int64_t elementCount;       // product of shape (1 for a scalar)
  std::size_t dataOffset;          // begin offset within the data region
  const std::byte *data;           // may be unaligned; nullptr-safe when byteSize == 0
  std::size_t byteSize;            // == elementCount * dtypeSize(dtype)

  std::span<const std::byte> bytes() const { return {data, byteSize}; }
};

class SafeTensorsFile {
public:
  // Bounds on what a header may declare; anything beyond them is rejected
  // as malformed rather than trusted.
  static constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
  static constexpr std::size_t kMaxRank = 8;

  // Maps and parses the file at `path`. Messages start with the path.
  static Expected<SafeTensorsFile> open(const std::filesystem::path &path);

  // Parses a file image held in memory; `sourceName` stands for the file in
  // messages. Does not copy `bytes`: the caller keeps them alive and
  // unchanged for as long as the result (or its views) is used. open() uses
  // this same code on the mapped bytes.
  static Expected<SafeTensorsFile> parse(std::span<const std::byte> bytes, std::string sourceName);

  SafeTensorsFile(SafeTensorsFile &&) noexcept = default;
  SafeTensorsFile &operator=(SafeTensorsFile &&) noexcept = default;
  SafeTensorsFile(const SafeTensorsFile &) = delete;
  SafeTensorsFile &operator=(const SafeTensorsFile &) = delete;

  // The path (open) or the caller's name (parse).
  const std::string &sourceName() const { return sourceName_; }

  // The "__metadata__" map; empty if the header has none.
  const std::map<std::string, std::string, std::less<>> &metadata() const { return metadata_; }

  // All tensors, sorted by name.
  std::span<const TensorView> tensors() const { return tensors_; }

  // The tensor called `name`, or nullptr.
  const TensorView *find(std::string_view name) const;

  // N, the length of the JSON header in bytes.
  std::uint64_t headerSize() const { return headerSize_; }

  // The bytes after the header, which data_offsets index into.
  std::span<const std::byte> dataRegion() const { return dataRegion_; }

private:
  SafeTensorsFile() = default;

  MappedFile mapping_; // empty for parse(): the caller owns the bytes
  std::string sourceName_;
  std::map<std::string, std::string, std::less<>> metadata_;
  std::vector<TensorView> tensors_;
  std::uint64_t headerSize_ = 0;
  std::span<const std::byte> dataRegion_;
};

} // namespace linnet::rt
