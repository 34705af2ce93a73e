// libFuzzer target for the .npy reader (runtime/io/Npy.h): any bytes give a
// tensor whose byte size matches its shape and dtype, or an error with a
// message. Every byte of an accepted tensor is read, so AddressSanitizer sees
// any tensor built past the input.
#include "runtime/io/Npy.h"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte *>(data), size);
  auto tensor = linnet::rt::parseNpy(bytes, "<fuzz input>");
  if (!tensor.ok()) {
    if (tensor.message().empty())
      __builtin_trap();
    return 0;
  }
  auto expected = linnet::rt::tensorByteSize(tensor->dtype(), tensor->shape());
  if (!expected.ok() || *expected != tensor->bytes().size() || tensor->bytes().size() > size)
    __builtin_trap();
  std::uint8_t sum = 0;
  for (std::byte b : tensor->bytes())
    sum ^= static_cast<std::uint8_t>(b);
  volatile std::uint8_t sink = sum;
  (void)sink;
  return 0;
}
