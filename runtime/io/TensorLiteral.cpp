// Implementation of TensorLiteral.h.
//
// The shape is read off the first element at each depth, then every element
// is visited in row-major order and checked against it. Recursion depth is
// the expected rank (at most a few), whatever the input's nesting.
#include "runtime/io/TensorLiteral.h"

#include "runtime/checkpoint/StrictJson.h"

#include <fmt/ranges.h>

#include <cmath>
#include <limits>

namespace linnet::rt {

namespace {

using nlohmann::json;

struct IntRange {
  std::int64_t min;
  std::uint64_t max;
};

IntRange intRange(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return {0, 1};
  case DType::U8:
    return {0, 255};
  case DType::I8:
    return {-128, 127};
  case DType::I16:
    return {-32768, 32767};
  case DType::I32:
    return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
  case DType::U16:
    return {0, 65535};
  case DType::U32:
    return {0, std::numeric_limits<std::uint32_t>::max()};
  case DType::U64:
    return {0, std::numeric_limits<std::uint64_t>::max()};
  default:
    return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  }
}

// Doubles hold every integer up to 2^53 exactly; past it a number written
// with a fraction or an exponent may not be the integer its text says.
constexpr double kExactDoubleIntegers = 9007199254740992.0;

// A float as the message shows it: integers in digits, the rest shortest.
std::string showNumber(double v) {
  if (std::trunc(v) == v && std::fabs(v) < 1e16)
    return fmt::format("{:.0f}", v == 0 ? 0.0 : v);
  return fmt::format("{}", v);
}

class Reader {
public:
  Reader(DType dtype, std::size_t rank, std::vector<std::int64_t> shape, std::byte *out)
      : dtype_(dtype), rank_(rank), shape_(std::move(shape)), out_(out) {}

  Status visit(const json &node, std::size_t depth) {
    if (depth == rank_)
      return leaf(node);
    if (!node.is_array())
      return fail(depth, node.is_number() || node.is_boolean() ? "expected a list (the argument has rank {}), found a number"
                                                               : "expected a list (the argument has rank {})");
    if (static_cast<std::int64_t>(node.size()) != shape_[depth])
      return makeError("ragged list: {} has {} items, but the first list at that depth has {}", where(depth),
                       node.size(), shape_[depth]);
    for (std::size_t i = 0; i < node.size(); ++i) {
      index_.push_back(static_cast<std::int64_t>(i));
      if (Status s = visit(node[i], depth + 1); !s)
        return s;
      index_.pop_back();
    }
    return Status::success();
  }

private:
  Error fail(std::size_t depth, std::string_view text) const {
    return makeError("{}: {}", where(depth), fmt::format(fmt::runtime(text), rank_));
  }
  std::string where(std::size_t depth) const {
    if (index_.empty())
      return "the value";
    return fmt::format("element [{}]", fmt::join(index_, ", "));
  }

  Status leaf(const json &node) {
    std::byte *slot = out_ + count_ * dtypeSize(dtype_);
    ++count_;
    if (node.is_array())
      return makeError("{}: nested deeper than the argument's rank {}", where(rank_), rank_);
    if (dtype_ == DType::Bool && node.is_boolean()) {
      storeIntElement(slot, dtype_, node.get<bool>() ? 1 : 0);
      return Status::success();
    }
    if (!node.is_number())
      return makeError("{}: expected a number, found {}", where(rank_), node.type_name());
    if (!isFloatingPoint(dtype_)) {
      IntRange range = intRange(dtype_);
      auto outOfRange = [&](const std::string &shown) {
        return makeError("{}: {} is out of range for {} ({}..{})", where(rank_), shown, dtypeName(dtype_), range.min,
                         range.max);
      };
      if (node.is_number_unsigned()) {
        auto v = node.get<std::uint64_t>();
        if (v > range.max)
          return outOfRange(std::to_string(v));
        storeIntElement(slot, dtype_, static_cast<std::int64_t>(v)); // u64 past 2^63: the same bits
      } else if (node.is_number_integer()) {
        auto v = node.get<std::int64_t>();
        if (v < range.min || (v >= 0 && static_cast<std::uint64_t>(v) > range.max))
          return outOfRange(std::to_string(v));
        storeIntElement(slot, dtype_, v);
      } else {
        // Written with a fraction or an exponent (`2.0`, `1e3`): read as its
        // value when that is an integer; the range is checked first, so
        // `1e10` for i32 is reported as out of range, not as a fraction.
        double v = node.get<double>();
        if (std::trunc(v) != v)
          return makeError("{}: {} is not an integer ({} argument)", where(rank_), showNumber(v), dtypeName(dtype_));
        // Every max is 2^k - 1 and every min 0 or -2^(k-1): 2^k and min
        // are exact doubles, where max itself may round up to 2^k.
        const double pastMax = static_cast<double>(range.max / 2 + 1) * 2;
        if (v < static_cast<double>(range.min) || v >= pastMax)
          return outOfRange(showNumber(v));
        if (std::fabs(v) > kExactDoubleIntegers)
          return makeError("{}: {} is an integer too large to read exactly from a number with a fraction or "
                           "exponent (above 2^53); write its digits",
                           where(rank_), showNumber(v));
        storeIntElement(slot, dtype_, static_cast<std::int64_t>(v));
      }
      return Status::success();
    }
    double v = node.get<double>();
    storeElement(slot, dtype_, v);
    HostTensor probe = HostTensor::scalar(dtype_, v);
    if (std::isfinite(v) && !std::isfinite(probe.elementAsDouble(0)))
      return makeError("{}: {} is out of range for {}", where(rank_), node.dump(), dtypeName(dtype_));
    return Status::success();
  }

  DType dtype_;
  std::size_t rank_;
  std::vector<std::int64_t> shape_;
  std::byte *out_;
  std::size_t count_ = 0;
  std::vector<std::int64_t> index_;
};

} // namespace

Expected<HostTensor> tensorFromJson(const json &value, DType dtype, std::size_t rank) {
  // The shape, from the first element at each depth.
  std::vector<std::int64_t> shape;
  const json *node = &value;
  for (std::size_t depth = 0; depth < rank; ++depth) {
    if (!node->is_array()) {
      if (depth == 0)
        return makeError("expected a rank-{} tensor as nested lists, found {}", rank,
                         node->is_number() ? "a number" : node->type_name());
      break; // the reader reports where
    }
    shape.push_back(static_cast<std::int64_t>(node->size()));
    if (node->empty()) {
      shape.resize(rank, 0);
      break;
    }
    node = &(*node)[0];
  }
  shape.resize(rank, 0);
  Expected<HostTensor> tensor = HostTensor::zeros(dtype, shape);
  if (!tensor)
    return tensor;
  if (tensor->elementCount() == 0 && rank > 0) {
    // Still check the lists that are there are consistent (e.g. [[], [1]]).
    std::vector<std::byte> scratch;
    Reader reader(dtype, rank, shape, scratch.data());
    if (Status s = reader.visit(value, 0); !s)
      return s.error();
    return tensor;
  }
  Reader reader(dtype, rank, shape, tensor->bytes().data());
  if (Status s = reader.visit(value, 0); !s)
    return s.error();
  return tensor;
}

Expected<HostTensor> parseTensorLiteral(std::string_view text, DType dtype, std::size_t rank) {
  Expected<json> value = parseStrictJson(text, "value");
  if (!value)
    return makeError("not a number or a nested list: {}", value.message());
  return tensorFromJson(*value, dtype, rank);
}

} // namespace linnet::rt
