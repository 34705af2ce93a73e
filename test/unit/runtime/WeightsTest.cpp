// Weights: same-dtype tensors stay in the mapping; float tensors of another
// dtype are converted once at load, within a budget; other conversions are
// refused.
#include "runtime/checkpoint/Weights.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "TestFiles.h"
#include "runtime/checkpoint/SafeTensors.h"
#include "runtime/support/HalfFloat.h"

namespace linnet::rt {
namespace {

test::Bytes bf16Bytes(const std::vector<float>& values) {
  test::Bytes out(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t bits = f32ToBf16(values[i]);
    std::memcpy(out.data() + 2 * i, &bits, 2);
  }
  return out;
}

SafeTensorsFile parseOrDie(const test::Bytes& bytes) {
  Expected<SafeTensorsFile> file = SafeTensorsFile::parse(bytes, "weights.safetensors");
  EXPECT_TRUE(file.ok()) << file.message();
  return std::move(file).value();
}

TEST(WeightsTest, SameDTypeStaysInTheMapping) {
  test::Bytes bytes = test::buildSafeTensors({{"w", "BF16", {2, 2}, bf16Bytes({1, 2, 3, 4})}});
  SafeTensorsFile file = parseOrDie(bytes);
  Expected<Weights> weights = Weights::load({{"layer.w", file.find("w"), DType::BF16}}, 0);
  ASSERT_TRUE(weights.ok()) << weights.message();
  const WeightView* view = weights->find("layer.w");
  ASSERT_NE(view, nullptr);
  EXPECT_FALSE(view->converted);
  EXPECT_EQ(view->data, file.find("w")->data);
  EXPECT_EQ(weights->convertedBytes(), 0u);
}

TEST(WeightsTest, Bf16WidensToF32Exactly) {
  std::vector<float> values = {1.0f, -2.5f, 0.15625f, 65280.0f};
  test::Bytes bytes = test::buildSafeTensors({{"w", "BF16", {4}, bf16Bytes(values)}});
  SafeTensorsFile file = parseOrDie(bytes);
  Expected<Weights> weights = Weights::load({{"w", file.find("w"), DType::F32}}, 1 << 20);
  ASSERT_TRUE(weights.ok()) << weights.message();
  const WeightView* view = weights->find("w");
  ASSERT_TRUE(view->converted);
  ASSERT_EQ(view->byteSize, 16u);
  for (size_t i = 0; i < values.size(); ++i) {
    float got;
    std::memcpy(&got, view->data + 4 * i, 4);
    EXPECT_EQ(got, values[i]);
  }
}

TEST(WeightsTest, F32NarrowsToBf16WithRoundToNearestEven) {
  std::vector<float> values = {1.0f, 1.00390625f /* tie: rounds to even 1.0 */, 3.14159265f};
  test::Bytes data(values.size() * 4);
  std::memcpy(data.data(), values.data(), data.size());
  test::Bytes bytes = test::buildSafeTensors({{"w", "F32", {3}, data}});
  SafeTensorsFile file = parseOrDie(bytes);
  Expected<Weights> weights = Weights::load({{"w", file.find("w"), DType::BF16}}, 1 << 20);
  ASSERT_TRUE(weights.ok()) << weights.message();
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t got;
    std::memcpy(&got, weights->views()[0].data + 2 * i, 2);
    EXPECT_EQ(got, f32ToBf16(values[i]));
  }
}

TEST(WeightsTest, NarrowingOutOfRangeIsRefused) {
  // 1e5 is finite in f32 and past f16's 65504: refused, not an infinity.
  // An infinity or a NaN in the file stays what it is.
  std::vector<float> values = {1.0f, 1e5f};
  test::Bytes data(values.size() * 4);
  std::memcpy(data.data(), values.data(), data.size());
  test::Bytes bytes = test::buildSafeTensors({{"w", "F32", {2}, data}});
  SafeTensorsFile file = parseOrDie(bytes);
  Expected<Weights> weights = Weights::load({{"layer.w", file.find("w"), DType::F16}}, 1 << 20);
  ASSERT_FALSE(weights.ok());
  EXPECT_EQ(weights.message(), "converting `layer.w` (`w`) from f32 to f16: element 1 is 100000, out of range for f16");
  std::vector<float> special = {std::numeric_limits<float>::infinity(), std::nanf("")};
  std::memcpy(data.data(), special.data(), data.size());
  bytes = test::buildSafeTensors({{"w", "F32", {2}, data}});
  SafeTensorsFile file2 = parseOrDie(bytes);
  EXPECT_TRUE(Weights::load({{"layer.w", file2.find("w"), DType::F16}}, 1 << 20).ok());
}

TEST(WeightsTest, ConversionBudgetIsEnforced) {
  test::Bytes bytes = test::buildSafeTensors({{"w", "BF16", {4}, bf16Bytes({1, 2, 3, 4})}});
  SafeTensorsFile file = parseOrDie(bytes);
  Expected<Weights> weights = Weights::load({{"big.w", file.find("w"), DType::F32}}, 15);
  ASSERT_FALSE(weights.ok());
  EXPECT_NE(weights.message().find("big.w"), std::string::npos);
  EXPECT_NE(weights.message().find("budget"), std::string::npos);
}

TEST(WeightsTest, IntegerConversionsAreRefused) {
  test::Bytes data(8, std::byte{0});
  test::Bytes bytes = test::buildSafeTensors({{"ids", "I32", {2}, data}});
  SafeTensorsFile file = parseOrDie(bytes);
  Expected<Weights> weights = Weights::load({{"table.ids", file.find("ids"), DType::I64}}, 1 << 20);
  ASSERT_FALSE(weights.ok());
  EXPECT_NE(weights.message().find("table.ids"), std::string::npos);
}

}  // namespace
}  // namespace linnet::rt
