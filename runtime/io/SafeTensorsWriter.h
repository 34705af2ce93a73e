// Writing `.safetensors` files (what `--out` saves), readable by
// checkpoint/SafeTensors.h and by the Hugging Face `safetensors` library.
//
// Tensors are written in the order given, contiguously; the JSON header is
// padded with spaces to a multiple of 8 bytes. Names must be non-empty and
// unique, and not "__metadata__".
#pragma once

#include "runtime/session/HostTensor.h"
#include "runtime/support/Status.h"

#include <filesystem>
#include <span>
#include <string>

namespace linnet::rt {

struct NamedTensor {
  std::string name;
  const HostTensor *tensor; // borrowed
};

Expected<std::string> encodeSafeTensors(std::span<const NamedTensor> tensors);

// encodeSafeTensors, written atomically to `path`.
Status writeSafeTensors(const std::filesystem::path &path, std::span<const NamedTensor> tensors);

} // namespace linnet::rt
