// Binding the embedded default checkpoint (test/data/embedded) to the phi3
// package end to end: sources -> checked program -> manifest -> bound generics ->
// weights (in place, or converted with T overridden) -> zeroed state.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/bind/Materialize.h"
#include "compiler/check/Checker.h"
#include "compiler/manifest/ParameterManifest.h"
#include "compiler/modules/Program.h"
#include "runtime/support/HalfFloat.h"

namespace linnet::bind {
namespace {

const std::string kRoot = LINNET_SOURCE_DIR;

class BindEmbedded : public ::testing::Test {
 protected:
  void SetUp() override {
    program_ = loadProgram(sources_, diagnostics_, {kRoot + "/models/phi3"},
                           LoadOptions{kRoot + "/stdlib"});
    ASSERT_FALSE(diagnostics_.hasErrors());
    resolveProgram(*program_, diagnostics_);
    ASSERT_FALSE(diagnostics_.hasErrors());
    checked_ = checkProgram(*program_, diagnostics_);
    ASSERT_FALSE(diagnostics_.hasErrors());
    const Module* lib = program_->findModule("phi3");
    ASSERT_NE(lib, nullptr);
    auto* model = ast::as<ast::BlockItem>(lib->findItem("Model"));
    ASSERT_NE(model, nullptr);
    manifest_ = manifest::buildManifest({lib, model}, arena_);
    rt::Expected<rt::Checkpoint> checkpoint = rt::Checkpoint::open(kRoot + "/test/data/embedded");
    ASSERT_TRUE(checkpoint.ok()) << checkpoint.message();
    checkpoint_.emplace(std::move(checkpoint).value());
  }

  std::optional<BoundModel> bind(GenericBindings overrides = {}) {
    BindInputs inputs;
    inputs.manifest = &manifest_;
    inputs.checked = &checked_;
    inputs.packageDir = kRoot + "/models/phi3";
    inputs.checkpoint = &*checkpoint_;
    inputs.overrides = std::move(overrides);
    return bindCheckpoint(inputs, diagnostics_);
  }

  SourceManager sources_;
  DiagnosticEmitter diagnostics_;
  std::unique_ptr<Program> program_;
  check::CheckedProgram checked_;
  ast::Arena arena_;
  manifest::BlockManifest manifest_;
  std::optional<rt::Checkpoint> checkpoint_;
};

TEST_F(BindEmbedded, SolvesEveryGeneric) {
  std::optional<BoundModel> model = bind();
  ASSERT_TRUE(model) << diagnostics_.errorCount() << " errors";
  EXPECT_EQ(model->generics.at("Vocab").dim, 1536);
  EXPECT_EQ(model->generics.at("H").dim, 128);
  EXPECT_EQ(model->generics.at("Heads").dim, 4);
  EXPECT_EQ(model->generics.at("Inner").dim, 256);
  EXPECT_EQ(model->generics.at("Layers").dim, 4);
  EXPECT_EQ(model->generics.at("Batch").dim, 1);
  EXPECT_EQ(model->generics.at("T").dtype, ast::ScalarType::BF16);
  // 2 + 6 per layer parameters (the optional biases are absent).
  size_t present = 0;
  for (const BoundTensor& t : model->tensors) present += t.tensor != nullptr;
  EXPECT_EQ(present, 3u + 6u * 4u);
}

TEST_F(BindEmbedded, WeightsStayInTheMappingAtTheFileDType) {
  std::optional<BoundModel> model = bind();
  ASSERT_TRUE(model);
  rt::Expected<rt::Weights> weights = loadWeights(*model, 0);
  ASSERT_TRUE(weights.ok()) << weights.message();
  EXPECT_EQ(weights->convertedBytes(), 0u);
  const rt::WeightView* embedding = weights->find("embedding.weight");
  ASSERT_NE(embedding, nullptr);
  EXPECT_FALSE(embedding->converted);
}

TEST_F(BindEmbedded, OverridingTConvertsAtLoad) {
  std::optional<BoundModel> model = bind({{"T", BoundValue{std::nullopt, ast::ScalarType::F32}}});
  ASSERT_TRUE(model);
  EXPECT_EQ(model->generics.at("T").dtype, ast::ScalarType::F32);
  rt::Expected<rt::Weights> weights = loadWeights(*model, 64 << 20);
  ASSERT_TRUE(weights.ok()) << weights.message();
  EXPECT_EQ(weights->convertedBytes(), model->weightBytes);
  const rt::WeightView* view = weights->find("layers.2.mlp.down.weight");
  ASSERT_NE(view, nullptr);
  ASSERT_TRUE(view->converted);
  const rt::TensorView* file = checkpoint_->find("model.layers.2.mlp.down_proj.weight");
  ASSERT_NE(file, nullptr);
  for (size_t i = 0; i < 16; ++i) {
    uint16_t bits;
    float got;
    std::memcpy(&bits, file->data + 2 * i, 2);
    std::memcpy(&got, view->data + 4 * i, 4);
    EXPECT_EQ(got, rt::bf16ToF32(bits)) << "element " << i;
  }
  // A budget smaller than the conversion is an error, not an allocation.
  EXPECT_FALSE(loadWeights(*model, 1024).ok());
}

TEST_F(BindEmbedded, StateIsAllocatedZeroedAtTheBoundGenerics) {
  std::optional<BoundModel> model = bind({{"MaxSeq", BoundValue{64, std::nullopt}},
                                          {"Batch", BoundValue{2, std::nullopt}}});
  ASSERT_TRUE(model);
  rt::Expected<rt::StateBuffers> state = allocateState(*model, 1 << 20);
  ASSERT_TRUE(state.ok()) << state.message();
  // Layers x {cache_k, cache_v}, each [Batch, Heads, MaxSeq, H / Heads] bf16.
  EXPECT_EQ(state->size(), 8u);
  EXPECT_EQ(state->totalBytes(), 8u * 2 * 4 * 64 * 32 * 2);
  auto cache = state->find("layers.3.attention.cache_v");
  ASSERT_TRUE(cache);
  EXPECT_EQ(std::vector<int64_t>(cache->shape.begin(), cache->shape.end()),
            (std::vector<int64_t>{2, 4, 64, 32}));
  for (size_t i = 0; i < cache->byteSize; ++i) ASSERT_EQ(cache->data[i], std::byte{0});
  // The same state at the full 4096 positions does not fit a 1 MiB budget.
  std::optional<BoundModel> full = bind();
  ASSERT_TRUE(full);
  EXPECT_FALSE(allocateState(*full, 1 << 20).ok());
}

}  // namespace
}  // namespace linnet::bind
