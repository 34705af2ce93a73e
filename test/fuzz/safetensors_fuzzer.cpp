// libFuzzer target for the safetensors reader.
//
// Feeds arbitrary bytes to SafeTensorsFile::parse (the same code open()
// runs on a mapped file) and, when a file is accepted, checks the promises
// the header makes: every view lies inside the data region, its byte count
// matches shape and dtype, views are sorted and findable, and no two share a
// byte. Every byte of every view is read so AddressSanitizer sees any view
// that escapes the input. A rejected input must simply return an error.
#include "runtime/checkpoint/SafeTensors.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace {

void check(bool condition) {
  if (!condition)
    __builtin_trap();
}

void checkAcceptedFile(const linnet::rt::SafeTensorsFile &file) {
  std::span<const std::byte> region = file.dataRegion();
  const linnet::rt::TensorView *previous = nullptr;
  std::uint8_t checksum = 0;
  for (const linnet::rt::TensorView &tensor : file.tensors()) {
    check(tensor.byteSize ==
          static_cast<std::uint64_t>(tensor.elementCount) * linnet::rt::dtypeSize(tensor.dtype));
    check(tensor.shape.size() <= linnet::rt::SafeTensorsFile::kMaxRank);
    check(tensor.dataOffset <= region.size() &&
          tensor.byteSize <= region.size() - tensor.dataOffset);
    check(file.find(tensor.name) == &tensor);
    if (previous)
      check(previous->name < tensor.name);
    previous = &tensor;
    for (std::byte b : tensor.bytes())
      checksum ^= static_cast<std::uint8_t>(b);
    for (const linnet::rt::TensorView &other : file.tensors()) {
      if (&other == &tensor || other.byteSize == 0 || tensor.byteSize == 0)
        continue;
      bool disjoint = other.dataOffset >= tensor.dataOffset + tensor.byteSize ||
                      tensor.dataOffset >= other.dataOffset + other.byteSize;
      check(disjoint);
    }
  }
  // Keep the reads from being optimized away.
  volatile std::uint8_t sink = checksum;
  (void)sink;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(data), size);
  auto file = linnet::rt::SafeTensorsFile::parse(bytes, "<fuzz input>");
  if (file.ok())
    checkAcceptedFile(*file);
  else
    check(!file.message().empty());
  return 0;
}
