// StateBuffers: sizes, the budget, alignment, zeroing, snapshots.
#include "runtime/state/StateBuffers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace linnet::rt {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// phi3-like: per layer a K and a V cache [Batch, Heads, MaxSeq, HeadDim].
std::vector<StateSpec> kvCache(int layers, std::int64_t batch, std::int64_t maxSeq) {
  std::vector<StateSpec> specs;
  for (int layer = 0; layer < layers; ++layer)
    for (const char *name : {"cache_k", "cache_v"})
      specs.push_back(
          {"layers." + std::to_string(layer) + "." + name, DType::BF16, {batch, 4, maxSeq, 32}});
  return specs;
}

bool allZero(ConstStateView view) {
  return std::all_of(view.data, view.data + view.byteSize,
                     [](std::byte b) { return b == std::byte{0}; });
}

void fill(StateView view, std::uint8_t value) { std::memset(view.data, value, view.byteSize); }

TEST(StateBuffersTest, AllocatesZeroedAlignedBuffers) {
  std::vector<StateSpec> specs = kvCache(2, 2, 16);
  specs.push_back({"step", DType::I32, {}});        // a scalar: 4 bytes
  specs.push_back({"odd", DType::U8, {3, 5}});      // 15 bytes: padded
  specs.push_back({"empty", DType::F32, {0, 128}}); // no bytes at all
  Expected<StateBuffers> state = StateBuffers::allocate(specs, 64 * kMiB);
  ASSERT_TRUE(state.ok()) << state.message();
  ASSERT_EQ(state->size(), specs.size());

  std::size_t total = 0;
  for (std::size_t i = 0; i < state->size(); ++i) {
    StateView view = state->view(i);
    EXPECT_EQ(view.path, specs[i].path);
    EXPECT_EQ(view.dtype, specs[i].dtype);
    EXPECT_TRUE(std::equal(view.shape.begin(), view.shape.end(), specs[i].shape.begin(),
                           specs[i].shape.end()));
    ASSERT_NE(view.data, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(view.data) % StateBuffers::kAlignment, 0u)
        << view.path;
    EXPECT_TRUE(allZero(view));
    total += view.byteSize;
  }
  EXPECT_EQ(state->find("layers.1.cache_v")->byteSize, 2u * 4 * 16 * 32 * 2);
  EXPECT_EQ(state->find("step")->byteSize, 4u);
  EXPECT_EQ(state->find("odd")->byteSize, 15u);
  EXPECT_EQ(state->find("empty")->byteSize, 0u);
  EXPECT_EQ(state->totalBytes(), total);
  EXPECT_GE(state->allocatedBytes(), total);
  EXPECT_FALSE(state->find("layers.9.cache_k").has_value());
}

TEST(StateBuffersTest, BuffersDoNotOverlap) {
  Expected<StateBuffers> state = StateBuffers::allocate(
      {{"a", DType::U8, {1}}, {"b", DType::U8, {65}}, {"c", DType::U8, {64}}}, kMiB);
  ASSERT_TRUE(state.ok());
  for (std::size_t i = 0; i < state->size(); ++i)
    fill(state->view(i), static_cast<std::uint8_t>(i + 1));
  for (std::size_t i = 0; i < state->size(); ++i) {
    ConstStateView view = std::as_const(*state).view(i);
    EXPECT_TRUE(std::all_of(view.data, view.data + view.byteSize,
                            [&](std::byte b) { return b == std::byte(i + 1); }));
  }
}

TEST(StateBuffersTest, ResetZeroesAgain) {
  Expected<StateBuffers> state = StateBuffers::allocate(kvCache(2, 1, 64), 64 * kMiB);
  ASSERT_TRUE(state.ok());
  for (std::size_t i = 0; i < state->size(); ++i)
    fill(state->view(i), 0xAB);
  state->reset();
  for (std::size_t i = 0; i < state->size(); ++i)
    EXPECT_TRUE(allZero(state->view(i)));
  // Still usable after the reset.
  fill(state->view(0), 0x11);
  EXPECT_EQ(state->view(0).data[0], std::byte{0x11});
}

TEST(StateBuffersTest, SnapshotAndRestore) {
  Expected<StateBuffers> state = StateBuffers::allocate(kvCache(1, 1, 8), kMiB);
  ASSERT_TRUE(state.ok());
  fill(state->view(0), 0x01);
  Expected<StateSnapshot> snapshot = state->snapshot();
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(snapshot->byteSize(), state->allocatedBytes());
  fill(state->view(0), 0x02);
  fill(state->view(1), 0x03);
  ASSERT_TRUE(state->restore(*snapshot).ok());
  EXPECT_EQ(state->view(0).data[0], std::byte{0x01});
  EXPECT_TRUE(allZero(state->view(1)));

  // A snapshot of other buffers, even of the same shape, is refused.
  Expected<StateBuffers> other = StateBuffers::allocate(kvCache(1, 1, 8), kMiB);
  ASSERT_TRUE(other.ok());
  fill(other->view(0), 0x07);
  Status refused = other->restore(*snapshot);
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(other->view(0).data[0], std::byte{0x07});
}

TEST(StateBuffersTest, MovingKeepsViewsValid) {
  Expected<StateBuffers> state = StateBuffers::allocate(kvCache(1, 1, 8), kMiB);
  ASSERT_TRUE(state.ok());
  std::byte *data = state->view(0).data;
  Expected<StateSnapshot> snapshot = state->snapshot();
  StateBuffers moved = std::move(*state);
  EXPECT_EQ(moved.view(0).data, data);
  EXPECT_EQ(moved.size(), 2u);
  EXPECT_EQ(state->size(), 0u);
  EXPECT_EQ(state->totalBytes(), 0u);
  EXPECT_TRUE(moved.restore(*snapshot).ok()); // the snapshot follows the storage
}

TEST(StateBuffersTest, EmptyStateIsFine) {
  Expected<StateBuffers> state = StateBuffers::allocate({}, 0);
  ASSERT_TRUE(state.ok()) << state.message();
  EXPECT_EQ(state->size(), 0u);
  EXPECT_EQ(state->totalBytes(), 0u);
  state->reset();
  ASSERT_TRUE(state->snapshot().ok());
}

TEST(StateBuffersTest, BudgetErrorNamesTheLargestBuffers) {
  std::vector<StateSpec> specs = kvCache(4, 8, 4096); // 8 * 4 * 4096 * 32 * 2 = 8 MiB each
  specs.push_back({"small", DType::F32, {1}});
  Expected<StateBuffers> state = StateBuffers::allocate(specs, 16 * kMiB);
  ASSERT_FALSE(state.ok());
  const std::string &message = state.message();
  EXPECT_NE(message.find("budget is 16777216 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("layers.0.cache_k (bf16[8, 4, 4096, 32]) = 8388608 bytes"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("small"), std::string::npos) << message;
}

TEST(StateBuffersTest, OverflowIsAnError) {
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();
  Expected<StateBuffers> product = StateBuffers::allocate({{"x", DType::F64, {big, big}}},
                                                          std::numeric_limits<std::size_t>::max());
  ASSERT_FALSE(product.ok());
  EXPECT_NE(product.message().find("overflows"), std::string::npos) << product.message();
  // Each buffer fits size_t, but their padded sum does not.
  std::int64_t half = static_cast<std::int64_t>(std::numeric_limits<std::size_t>::max() / 2);
  Expected<StateBuffers> sum = StateBuffers::allocate(
      {{"a", DType::U8, {half}}, {"b", DType::U8, {half}}, {"c", DType::U8, {half}}},
      std::numeric_limits<std::size_t>::max());
  ASSERT_FALSE(sum.ok());
  EXPECT_NE(sum.message().find("overflows"), std::string::npos) << sum.message();
}

TEST(StateBuffersTest, RejectsBadSpecs) {
  Expected<StateBuffers> negative = StateBuffers::allocate({{"x", DType::F32, {4, -1}}}, kMiB);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.message().find("negative"), std::string::npos);
  Expected<StateBuffers> twice =
      StateBuffers::allocate({{"x", DType::F32, {1}}, {"x", DType::F32, {2}}}, kMiB);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("listed twice"), std::string::npos);
  EXPECT_FALSE(StateBuffers::allocate({{"", DType::F32, {1}}}, kMiB).ok());
}

TEST(StateBuffersTest, LargeStateCostsNothingUntilTouched) {
  // 256 MiB of cache: the mapping is lazy, so allocate and reset are cheap.
  Expected<StateBuffers> state =
      StateBuffers::allocate({{"cache", DType::BF16, {128, 1024, 1024}}}, std::size_t{1} << 30);
  ASSERT_TRUE(state.ok()) << state.message();
  StateView view = *state->find("cache");
  view.data[view.byteSize - 1] = std::byte{9};
  state->reset();
  EXPECT_EQ(view.data[view.byteSize - 1], std::byte{0});
}

} // namespace
} // namespace linnet::rt
