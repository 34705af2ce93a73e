// Parsing and validation of one safetensors file (see SafeTensors.h).
//
// The file is untrusted input (downloaded checkpoints, fuzzed bytes), so the
// parser checks, in order:
//   - the file holds at least the 8-byte length field;
//   - the header length N fits in the file and is at most kMaxHeaderBytes;
//   - the header is well-formed JSON (no duplicate keys) and an object;
//   - "__metadata__", if present, maps strings to strings;
//   - every other entry is an object with exactly "dtype", "shape" and
//     "data_offsets"; the dtype is one the runtime supports; the shape is at
//     most kMaxRank non-negative integers whose product does not overflow;
//     the offsets are [begin, end] with begin <= end <= data region size, and
//     end - begin == element count * element size;
//   - no two tensors share a byte.
// All arithmetic on header numbers is overflow-checked. Every message names
// the source and, where there is one, the tensor.
#include "runtime/checkpoint/SafeTensors.h"

#include "runtime/checkpoint/StrictJson.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace linnet::rt {

using nlohmann::json;

namespace {

constexpr std::size_t kLengthFieldBytes = 8;
constexpr std::string_view kMetadataKey = "__metadata__";

std::uint64_t readLittleEndianU64(const std::byte *bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8; ++i)
    value |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  return value;
}

// How the safetensors format spells each dtype, and what the runtime makes
// of it. Known names without a runtime type are rejected as unsupported
// (a clearer message than "unknown" for a legitimate file). F8_E4M3 (FP8
// checkpoints' weights) is its bytes: a program reads it as `u8` and
// decodes it with `std.quant` (decode_fp8, Fp8Linear), as the public
// toolchain does; F8_E5M2 has no decoder, so it is refused rather than
// read as E4M3 bytes.
struct FormatDType {
  std::string_view name;
  std::optional<DType> runtimeType;
};

constexpr FormatDType kFormatDTypes[] = {
    {"BOOL", DType::Bool}, {"U8", DType::U8},   {"I8", DType::I8},     {"I16", DType::I16},
    {"U16", DType::U16}, {"F16", DType::F16}, {"BF16", DType::BF16}, {"I32", DType::I32},
    {"U32", DType::U32}, {"F32", DType::F32}, {"F64", DType::F64},   {"I64", DType::I64},
    {"U64", DType::U64}, {"F8_E4M3", DType::U8}, {"F8_E5M2", std::nullopt},
};

// Builds the messages for one tensor: "<source>: tensor "<name>": <what>".
class TensorErrors {
public:
  TensorErrors(std::string_view source, std::string_view tensorName)
      : prefix_(fmt::format("{}: tensor {}", source, jsonQuoted(tensorName))) {}

  template <typename... Args>
  Error operator()(fmt::format_string<Args...> format, Args &&...args) const {
    return Error(prefix_ + ": " + fmt::format(format, std::forward<Args>(args)...));
  }

private:
  std::string prefix_;
};

// A JSON value as it appeared, shortened so a huge value cannot flood a message.
std::string describe(const json &value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  constexpr std::size_t kMaxShown = 60;
  if (text.size() > kMaxShown)
    text = text.substr(0, kMaxShown) + "...";
  return text;
}

Expected<DType> parseDType(const json &value, const TensorErrors &fail) {
  if (!value.is_string())
    return fail("\"dtype\" must be a string, got {}", describe(value));
  const std::string &name = value.get_ref<const std::string &>();
  for (const FormatDType &entry : kFormatDTypes) {
    if (entry.name != name)
      continue;
    if (!entry.runtimeType)
      return fail("dtype {} is not supported by the linnet runtime", name);
    return *entry.runtimeType;
  }
  std::string known;
  for (const FormatDType &entry : kFormatDTypes)
    if (entry.runtimeType)
      known += (known.empty() ? "" : ", ") + std::string(entry.name);
  return fail("unknown dtype {} (expected one of {})", describe(value), known);
}

// A JSON number that is a non-negative integer, or nullopt. nlohmann stores
// non-negative integer literals as unsigned, negative ones as signed and
// everything with a fraction, exponent or too many digits as float.
std::optional<std::uint64_t> asNonNegativeInteger(const json &value) {
  if (value.is_number_unsigned())
    return value.get<std::uint64_t>();
  return std::nullopt;
}

std::string whyNotNonNegativeInteger(const json &value) {
  if (value.is_number_integer())
    return fmt::format("{} is negative", describe(value));
  if (value.is_number_float()) {
    // An integer past 2^64 - 1 is read as a float: it is too large, not a fraction.
    double v = value.get<double>();
    if (std::isfinite(v) && v >= 18446744073709551616.0)
      return fmt::format("{} is past 2^64 - 1", describe(value));
    return fmt::format("{} is not an integer", describe(value));
  }
  return fmt::format("{} is not a number", describe(value));
}

struct Shape {
  std::vector<std::int64_t> dims;
  std::int64_t elementCount = 1;
};

Expected<Shape> parseShape(const json &value, const TensorErrors &fail) {
  if (!value.is_array())
    return fail("\"shape\" must be an array, got {}", describe(value));
  if (value.size() > SafeTensorsFile::kMaxRank)
    return fail("rank {} exceeds the maximum of {}", value.size(), SafeTensorsFile::kMaxRank);

  Shape shape;
  std::uint64_t elementCount = 1;
  for (std::size_t i = 0; i < value.size(); ++i) {
    std::optional<std::uint64_t> dim = asNonNegativeInteger(value[i]);
    if (!dim)
      return fail("shape dimension {}: {}", i, whyNotNonNegativeInteger(value[i]));
    if (*dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return fail("shape dimension {} ({}) is too large", i, *dim);
    // Checked even when a later dimension is 0: a shape whose running
    // product overflows is malformed whatever follows.
    if (__builtin_mul_overflow(elementCount, *dim, &elementCount) ||
        elementCount > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return fail("element count of shape {} overflows", describe(value));
    shape.dims.push_back(static_cast<std::int64_t>(*dim));
  }
  shape.elementCount = static_cast<std::int64_t>(elementCount);
  return shape;
}

struct ByteRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

Expected<ByteRange> parseDataOffsets(const json &value, std::size_t dataRegionSize,
                                     const TensorErrors &fail) {
  if (!value.is_array() || value.size() != 2)
    return fail("\"data_offsets\" must be an array [begin, end], got {}", describe(value));
  std::optional<std::uint64_t> begin = asNonNegativeInteger(value[0]);
  if (!begin)
    return fail("data_offsets begin: {}", whyNotNonNegativeInteger(value[0]));
  std::optional<std::uint64_t> end = asNonNegativeInteger(value[1]);
  if (!end)
    return fail("data_offsets end: {}", whyNotNonNegativeInteger(value[1]));
  if (*begin > *end)
    return fail("data_offsets begin {} is after end {}", *begin, *end);
  if (*end > dataRegionSize)
    return fail("data_offsets end {} is past the end of the data region ({} bytes)", *end,
                dataRegionSize);
  return ByteRange{*begin, *end};
}

Expected<TensorView> parseTensorEntry(const std::string &name, const json &entry,
                                      std::span<const std::byte> dataRegion,
                                      std::string_view source) {
  TensorErrors fail(source, name);
  if (!entry.is_object())
    return fail("entry must be an object, got {}", describe(entry));
  for (const auto &[key, unused] : entry.items())
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      return fail("unexpected field {} (allowed: dtype, shape, data_offsets)", jsonQuoted(key));
  for (std::string_view required : {"dtype", "shape", "data_offsets"})
    if (!entry.contains(required))
      return fail("missing field \"{}\"", required);

  Expected<DType> dtype = parseDType(entry.at("dtype"), fail);
  if (!dtype)
    return dtype.error();
  Expected<Shape> shape = parseShape(entry.at("shape"), fail);
  if (!shape)
    return shape.error();
  Expected<ByteRange> range = parseDataOffsets(entry.at("data_offsets"), dataRegion.size(), fail);
  if (!range)
    return range.error();

  // elementCount <= INT64_MAX and the size is at most 8, so only the
  // multiplication can overflow, and only in 64 bits.
  std::uint64_t expectedBytes = 0;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(shape->elementCount), dtypeSize(*dtype),
                             &expectedBytes))
    return fail("byte size of shape {} with dtype {} overflows", describe(entry.at("shape")),
                dtypeName(*dtype));
  std::uint64_t actualBytes = range->end - range->begin;
  if (actualBytes != expectedBytes)
    return fail("data_offsets [{}, {}] span {} bytes, but shape {} of {} needs {} bytes",
                range->begin, range->end, actualBytes, describe(entry.at("shape")),
                dtypeName(*dtype), expectedBytes);

  // Both offsets are <= dataRegion.size(), so they fit in size_t.
  TensorView view;
  view.name = name;
  view.dtype = *dtype;
  view.shape = std::move(shape->dims);
  view.elementCount = shape->elementCount;
  view.dataOffset = static_cast<std::size_t>(range->begin);
  view.data = dataRegion.data() + view.dataOffset;
  view.byteSize = static_cast<std::size_t>(actualBytes);
  return view;
}

Expected<std::map<std::string, std::string, std::less<>>> parseMetadata(const json &value,
                                                                        std::string_view source) {
  if (!value.is_object())
    return makeError("{}: header: \"__metadata__\" must be an object of strings, got {}", source,
                     describe(value));
  std::map<std::string, std::string, std::less<>> metadata;
  for (const auto &[key, item] : value.items()) {
    if (!item.is_string())
      return makeError("{}: header: \"__metadata__\" entry {} must be a string, got {}", source,
                       jsonQuoted(key), describe(item));
    metadata.emplace(key, item.get<std::string>());
  }
  return metadata;
}

// The format forbids overlapping tensors. (It also forbids holes, i.e.
// bytes of the data region no tensor covers, but those are tolerated: they
// cannot make a read go wrong, and some writers pad for alignment.) A
// tensor of zero bytes covers nothing and so overlaps nothing.
Status checkNoOverlap(std::span<const TensorView> tensors, std::string_view source) {
  std::vector<const TensorView *> byOffset;
  for (const TensorView &tensor : tensors)
    if (tensor.byteSize > 0)
      byOffset.push_back(&tensor);
  std::sort(byOffset.begin(), byOffset.end(),
            [](const TensorView *a, const TensorView *b) { return a->dataOffset < b->dataOffset; });
  // Sorted by begin, a tensor overlaps an earlier one exactly when it begins
  // before the furthest end seen so far.
  const TensorView *furthest = nullptr;
  for (const TensorView *tensor : byOffset) {
    if (furthest && tensor->dataOffset < furthest->dataOffset + furthest->byteSize)
      return makeError("{}: tensor {}: bytes [{}, {}) overlap tensor {} at [{}, {})", source,
                       jsonQuoted(tensor->name), tensor->dataOffset,
                       tensor->dataOffset + tensor->byteSize, jsonQuoted(furthest->name),
                       furthest->dataOffset, furthest->dataOffset + furthest->byteSize);
    if (!furthest ||
        tensor->dataOffset + tensor->byteSize > furthest->dataOffset + furthest->byteSize)
      furthest = tensor;
  }
  return Status::success();
}

} // namespace

Expected<SafeTensorsFile> SafeTensorsFile::parse(std::span<const std::byte> bytes,
                                                 std::string sourceName) {
  if (bytes.size() < kLengthFieldBytes)
    return makeError("{}: file is {} bytes, too short for the 8-byte header length", sourceName,
                     bytes.size());
  std::uint64_t headerSize = readLittleEndianU64(bytes.data());
  std::size_t bytesAfterLength = bytes.size() - kLengthFieldBytes;
  if (headerSize > kMaxHeaderBytes)
    return makeError("{}: header length {} exceeds the limit of {} bytes", sourceName, headerSize,
                     kMaxHeaderBytes);
  if (headerSize > bytesAfterLength)
    return makeError("{}: header length {} exceeds the {} bytes after the length field "
                     "(truncated file?)",
                     sourceName, headerSize, bytesAfterLength);

  std::size_t headerEnd = kLengthFieldBytes + static_cast<std::size_t>(headerSize);
  std::string_view headerText(reinterpret_cast<const char *>(bytes.data() + kLengthFieldBytes),
                              static_cast<std::size_t>(headerSize));
  std::string headerSource = sourceName + ": header";
  Expected<json> header = parseStrictJson(headerText, headerSource);
  if (!header)
    return header.error();
  if (!header->is_object())
    return makeError("{}: must be a JSON object, got {}", headerSource, header->type_name());

  SafeTensorsFile file;
  file.sourceName_ = std::move(sourceName);
  file.headerSize_ = headerSize;
  file.dataRegion_ = bytes.subspan(headerEnd);

  for (const auto &[key, value] : header->items()) {
    if (key == kMetadataKey) {
      auto metadata = parseMetadata(value, file.sourceName_);
      if (!metadata)
        return metadata.error();
      file.metadata_ = std::move(*metadata);
      continue;
    }
    Expected<TensorView> tensor = parseTensorEntry(key, value, file.dataRegion_, file.sourceName_);
    if (!tensor)
      return tensor.error();
    file.tensors_.push_back(std::move(*tensor));
  }

  // Sorted here rather than relying on the JSON library's key order, so
  // find() can binary-search whatever map type nlohmann::json uses.
  std::sort(file.tensors_.begin(), file.tensors_.end(),
            [](const TensorView &a, const TensorView &b) { return a.name < b.name; });
  if (Status noOverlap = checkNoOverlap(file.tensors_, file.sourceName_); !noOverlap)
    return noOverlap.error();
  return file;
}

Expected<SafeTensorsFile> SafeTensorsFile::open(const std::filesystem::path &path) {
  Expected<MappedFile> mapping = MappedFile::open(path);
  if (!mapping)
    return mapping.error();
  Expected<SafeTensorsFile> file = parse(mapping->bytes(), path.string());
  if (!file)
    return file.error();
  // Views point into the mapped pages, which do not move with the
  // MappedFile object, so handing the mapping over keeps them valid.
  file->mapping_ = std::move(*mapping);
  return file;
}

const TensorView *SafeTensorsFile::find(std::string_view name) const {
  auto it = std::lower_bound(
      tensors_.begin(), tensors_.end(), name,
      [](const TensorView &tensor, std::string_view key) { return tensor.name < key; });
  if (it == tensors_.end() || it->name != name)
    return nullptr;
  return &*it;
}

} // namespace linnet::rt
