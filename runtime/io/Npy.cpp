// Implementation of Npy.h.
#include "runtime/io/Npy.h"

#include "runtime/checkpoint/MappedFile.h"

#include <fmt/ranges.h>

#include <cstring>
#include <optional>

namespace linnet::rt {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<std::int64_t> shape;
};

// A parser for the dict literal of an npy header.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Expected<NpyHeader> parse() {
    NpyHeader header;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    skip();
    if (!eat('{'))
      return fail("expected `{`");
    skip();
    while (!eat('}')) {
      Expected<std::string> key = string();
      if (!key)
        return key.error();
      skip();
      if (!eat(':'))
        return fail("expected `:`");
      skip();
      if (*key == "descr") {
        if (seenDescr)
          return fail("`descr` given twice");
        seenDescr = true;
        Expected<std::string> value = string();
        if (!value)
          return fail("`descr` must be a string (structured dtypes are not supported)");
        header.descr = *value;
      } else if (*key == "fortran_order") {
        if (seenOrder)
          return fail("`fortran_order` given twice");
        seenOrder = true;
        if (text_.substr(pos_, 4) == "True") {
          header.fortranOrder = true;
          pos_ += 4;
        } else if (text_.substr(pos_, 5) == "False") {
          pos_ += 5;
        } else {
          return fail("`fortran_order` must be True or False");
        }
      } else if (*key == "shape") {
        if (seenShape)
          return fail("`shape` given twice");
        seenShape = true;
        Expected<std::vector<std::int64_t>> shape = tuple();
        if (!shape)
          return shape.error();
        header.shape = std::move(*shape);
      } else {
        return fail(fmt::format("unknown key '{}'", *key));
      }
      skip();
      if (eat(','))
        skip();
      else if (pos_ < text_.size() && text_[pos_] != '}')
        return fail("expected `,` or `}`");
    }
    skip();
    if (pos_ != text_.size())
      return fail("unexpected text after the dict");
    if (!seenDescr || !seenOrder || !seenShape)
      return fail("the header needs 'descr', 'fortran_order' and 'shape'");
    return header;
  }

private:
  Error fail(std::string_view what) const { return makeError("header: {} (at byte {})", what, pos_); }
  void skip() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t'))
      ++pos_;
  }
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Expected<std::string> string() {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return fail("expected a quoted string");
    char quote = text_[pos_++];
    std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos)
      return fail("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    if (value.find('\\') != std::string::npos)
      return fail("escapes in strings are not supported");
    pos_ = end + 1;
    return value;
  }
  Expected<std::vector<std::int64_t>> tuple() {
    if (!eat('('))
      return fail("`shape` must be a tuple");
    std::vector<std::int64_t> shape;
    skip();
    while (!eat(')')) {
      if (shape.size() >= 32)
        return fail("`shape` has too many axes");
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
        return fail("`shape` must hold non-negative integers");
      std::int64_t value = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, text_[pos_] - '0', &value))
          return fail("a dimension is too large");
        ++pos_;
      }
      if (pos_ < text_.size() && text_[pos_] == 'L')
        ++pos_; // Python 2's long suffix
      shape.push_back(value);
      skip();
      if (eat(','))
        skip();
      else if (pos_ < text_.size() && text_[pos_] != ')')
        return fail("expected `,` or `)` in `shape`");
    }
    return shape;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

std::optional<DType> dtypeFromDescr(std::string_view descr) {
  if (descr.size() != 3)
    return std::nullopt;
  char order = descr[0];
  std::string_view code = descr.substr(1);
  bool oneByte = code == "b1" || code == "u1" || code == "i1";
  if (!(order == '<' || order == '=' || (order == '|' && oneByte) || (order == '>' && oneByte)))
    return std::nullopt;
  if (code == "b1")
    return DType::Bool;
  if (code == "u1")
    return DType::U8;
  if (code == "i1")
    return DType::I8;
  if (code == "i2")
    return DType::I16;
  if (code == "i4")
    return DType::I32;
  if (code == "i8")
    return DType::I64;
  if (code == "u2")
    return DType::U16;
  if (code == "u4")
    return DType::U32;
  if (code == "u8")
    return DType::U64;
  if (code == "f2")
    return DType::F16;
  if (code == "f4")
    return DType::F32;
  if (code == "f8")
    return DType::F64;
  return std::nullopt;
}

std::string_view descrOf(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "|b1";
  case DType::U8:
    return "|u1";
  case DType::I8:
    return "|i1";
  case DType::I16:
    return "<i2";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::F16:
    return "<f2";
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::U16:
    return "<u2";
  case DType::U32:
    return "<u4";
  case DType::U64:
    return "<u8";
  case DType::BF16:
    break;
  }
  return "";
}

} // namespace

namespace {

// A checked header and the data it describes, not yet copied.
struct NpyImage {
  DType dtype;
  std::vector<std::int64_t> shape;
  std::span<const std::byte> data;
};

Expected<NpyImage> inspectNpy(std::span<const std::byte> bytes, std::string_view sourceName) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
    return makeError("{}: not a .npy file (bad magic)", sourceName);
  auto major = static_cast<std::uint8_t>(bytes[6]);
  std::size_t headerLength = 0, headerStart = 0;
  if (major == 1) {
    headerLength = static_cast<std::uint8_t>(bytes[8]) | (static_cast<std::size_t>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return makeError("{}: truncated header", sourceName);
    for (int i = 3; i >= 0; --i)
      headerLength = (headerLength << 8) | static_cast<std::uint8_t>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return makeError("{}: .npy format version {} is not supported", sourceName, major);
  }
  if (headerLength > kMaxNpyHeaderBytes)
    return makeError("{}: header length {} exceeds the limit of {}", sourceName, headerLength, kMaxNpyHeaderBytes);
  if (headerLength > bytes.size() - headerStart)
    return makeError("{}: truncated: the header is {} bytes but only {} follow", sourceName, headerLength,
                     bytes.size() - headerStart);
  std::string_view text(reinterpret_cast<const char *>(bytes.data() + headerStart), headerLength);
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0x80 || (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t'))
      return makeError("{}: header: not printable ASCII", sourceName);
  Expected<NpyHeader> header = HeaderParser(text).parse();
  if (!header)
    return makeError("{}: {}", sourceName, header.message());
  std::optional<DType> dtype = dtypeFromDescr(header->descr);
  if (!dtype)
    return makeError("{}: dtype '{}' is not supported (little-endian bool, u8, i8-i64, f16-f64 only)", sourceName,
                     header->descr);
  if (header->fortranOrder)
    return makeError("{}: Fortran-order arrays are not supported (save with np.ascontiguousarray)", sourceName);
  Expected<std::size_t> size = tensorByteSize(*dtype, header->shape);
  if (!size)
    return makeError("{}: shape ({}): {}", sourceName, fmt::join(header->shape, ", "), size.message());
  std::size_t dataStart = headerStart + headerLength;
  std::size_t available = bytes.size() - dataStart;
  if (*size != available)
    return makeError("{}: shape ({}) of {} needs {} bytes of data, the file has {}", sourceName,
                     fmt::join(header->shape, ", "), dtypeName(*dtype), *size, available);
  return NpyImage{*dtype, header->shape, bytes.subspan(dataStart, *size)};
}

Expected<HostTensor> copyNpy(const NpyImage &image) {
  std::vector<std::byte> owned(image.data.begin(), image.data.end());
  if (image.dtype == DType::Bool)
    for (std::byte &b : owned)
      if (static_cast<std::uint8_t>(b) > 1)
        b = std::byte{1};
  return HostTensor::fromBytes(image.dtype, image.shape, std::move(owned));
}

} // namespace

Expected<HostTensor> parseNpy(std::span<const std::byte> bytes, std::string_view sourceName) {
  Expected<NpyImage> image = inspectNpy(bytes, sourceName);
  if (!image)
    return image.error();
  return copyNpy(*image);
}

Expected<HostTensor> readNpyAs(const std::filesystem::path &path, DType dtype, bool exact,
                               std::optional<std::size_t> rank, std::span<const std::optional<std::int64_t>> extents) {
  Expected<MappedFile> file = MappedFile::open(path);
  if (!file)
    return file.error();
  // The header's dtype, rank and known extents are checked before the data
  // is copied (a file of gigabytes of the wrong shape was read whole first).
  Expected<NpyImage> image = inspectNpy(file->bytes(), path.string());
  if (!image)
    return image.error();
  bool widened = !exact && dtype == DType::BF16 && (image->dtype == DType::F32 || image->dtype == DType::F16);
  if (image->dtype != dtype && !widened)
    return makeError("{}: holds {} data, but {} is expected", path.string(), dtypeName(image->dtype),
                     dtypeName(dtype));
  if (rank && image->shape.size() != *rank)
    return makeError("{}: has rank {} (shape ({})), but the argument has rank {}", path.string(), image->shape.size(),
                     fmt::join(image->shape, ", "), *rank);
  for (std::size_t k = 0; k < extents.size() && k < image->shape.size(); ++k)
    if (extents[k] && static_cast<std::int64_t>(image->shape[k]) != *extents[k])
      return makeError("{}: has shape ({}): axis {} is {}, but the argument's is {}", path.string(),
                       fmt::join(image->shape, ", "), k, image->shape[k], *extents[k]);
  Expected<HostTensor> tensor = copyNpy(*image);
  if (!tensor || !widened)
    return tensor;
  Expected<HostTensor> converted = HostTensor::zeros(dtype, tensor->shape());
  if (!converted)
    return converted;
  for (std::int64_t i = 0; i < tensor->elementCount(); ++i)
    storeElement(converted->bytes().data() + i * 2, dtype, tensor->elementAsDouble(i));
  return converted;
}

Expected<std::string> encodeNpy(const HostTensor &tensor) {
  std::string_view descr = descrOf(tensor.dtype());
  if (descr.empty())
    return makeError("{} cannot be written as .npy", dtypeName(tensor.dtype()));
  std::string shape = fmt::format("{}", fmt::join(tensor.shape(), ", "));
  if (tensor.rank() == 1)
    shape += ",";
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, shape);
  std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');
  std::string out(kMagic, 6);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(dict.size() & 0xff));
  out.push_back(static_cast<char>(dict.size() >> 8));
  out += dict;
  out.append(reinterpret_cast<const char *>(tensor.bytes().data()), tensor.bytes().size());
  return out;
}

} // namespace linnet::rt
