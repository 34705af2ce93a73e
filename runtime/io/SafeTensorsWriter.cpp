// Implementation of SafeTensorsWriter.h.
#include "runtime/io/SafeTensorsWriter.h"

#include "runtime/checkpoint/StrictJson.h"
#include "runtime/io/AtomicFile.h"

#include <nlohmann/json.hpp>

#include <set>

namespace linnet::rt {

namespace {

std::string_view safetensorsDType(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "BOOL";
  case DType::U8:
    return "U8";
  case DType::I8:
    return "I8";
  case DType::I16:
    return "I16";
  case DType::I32:
    return "I32";
  case DType::I64:
    return "I64";
  case DType::F16:
    return "F16";
  case DType::BF16:
    return "BF16";
  case DType::F32:
    return "F32";
  case DType::F64:
    return "F64";
  case DType::U16:
    return "U16";
  case DType::U32:
    return "U32";
  case DType::U64:
    return "U64";
  }
  return "";
}

} // namespace

Expected<std::string> encodeSafeTensors(std::span<const NamedTensor> tensors) {
  // Build the header by hand to keep the given order (nlohmann sorts keys).
  std::string header = "{";
  std::set<std::string, std::less<>> names;
  std::size_t offset = 0;
  for (const NamedTensor &named : tensors) {
    if (named.name.empty() || named.name == "__metadata__")
      return makeError("cannot save a tensor named {}", jsonQuoted(named.name));
    if (!names.insert(named.name).second)
      return makeError("tensor {} is saved twice", jsonQuoted(named.name));
    nlohmann::json shape = named.tensor->shape();
    std::size_t end = offset + named.tensor->bytes().size();
    header += fmt::format("{}{}:{{\"dtype\":\"{}\",\"shape\":{},\"data_offsets\":[{},{}]}}", header.size() > 1 ? "," : "",
                          jsonQuoted(named.name), safetensorsDType(named.tensor->dtype()), shape.dump(), offset, end);
    offset = end;
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out;
  out.reserve(8 + header.size() + offset);
  std::uint64_t length = header.size();
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  out += header;
  for (const NamedTensor &named : tensors)
    out.append(reinterpret_cast<const char *>(named.tensor->bytes().data()), named.tensor->bytes().size());
  return out;
}

Status writeSafeTensors(const std::filesystem::path &path, std::span<const NamedTensor> tensors) {
  Expected<std::string> bytes = encodeSafeTensors(tensors);
  if (!bytes)
    return makeError("{}: {}", path.string(), bytes.message());
  return writeFileAtomically(path, *bytes);
}

} // namespace linnet::rt
