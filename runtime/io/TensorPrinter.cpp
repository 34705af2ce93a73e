// Implementation of TensorPrinter.h.
#include "runtime/io/TensorPrinter.h"

#include <fmt/format.h>

#include <cmath>

namespace linnet::rt {

namespace {

class Printer {
public:
  Printer(const HostTensor &tensor, const PrintOptions &options)
      : tensor_(tensor), elide_(tensor.elementCount() > options.threshold), edge_(options.edgeItems) {
    strides_.assign(tensor.rank(), 1);
    for (std::size_t i = tensor.rank(); i-- > 1;)
      strides_[i - 1] = strides_[i] * tensor.shape()[i];
  }

  std::string print() {
    if (tensor_.rank() == 0)
      return element(0);
    std::string out;
    block(0, 0, out);
    return out;
  }

private:
  std::string element(std::int64_t index) const {
    DType dtype = tensor_.dtype();
    if (dtype == DType::Bool)
      return tensor_.elementAsInt(index) ? "true" : "false";
    if (dtype == DType::U64)
      return std::to_string(tensor_.elementAsUnsigned(index));
    if (!isFloatingPoint(dtype))
      return std::to_string(tensor_.elementAsInt(index));
    double v = tensor_.elementAsDouble(index);
    if (std::isnan(v))
      return "nan";
    if (std::isinf(v))
      return v > 0 ? "inf" : "-inf";
    std::string text = fmt::format("{:.6g}", v);
    if (text.find_first_of(".e") == std::string::npos)
      text += ".";
    return text;
  }

  void block(std::size_t axis, std::int64_t base, std::string &out) const {
    const std::int64_t size = tensor_.shape()[axis];
    const bool last = axis + 1 == tensor_.rank();
    const bool cut = elide_ && size > 2 * edge_;
    out += '[';
    for (std::int64_t i = 0; i < size; ++i) {
      if (cut && i == edge_) {
        out += last ? "..., " : "...,\n" + std::string(axis + 1, ' ');
        i = size - edge_ - 1;
        continue;
      }
      if (last) {
        out += element(base + i);
      } else {
        block(axis + 1, base + i * strides_[axis], out);
      }
      if (i + 1 < size) {
        out += ',';
        if (last) {
          out += ' ';
        } else {
          out.append(tensor_.rank() - axis - 1, '\n');
          out.append(axis + 1, ' ');
        }
      }
    }
    out += ']';
  }

  const HostTensor &tensor_;
  bool elide_;
  std::int64_t edge_;
  std::vector<std::int64_t> strides_;
};

} // namespace

std::string formatTensorValues(const HostTensor &tensor, const PrintOptions &options) {
  return Printer(tensor, options).print();
}

std::string formatTensor(const HostTensor &tensor, const PrintOptions &options) {
  return tensor.describe() + "\n" + formatTensorValues(tensor, options);
}

} // namespace linnet::rt
