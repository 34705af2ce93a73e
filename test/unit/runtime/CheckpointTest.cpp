// Tests for runtime/checkpoint/Checkpoint.h: single-file and sharded
// directories load, look-up and sorted iteration work across shards, and
// every inconsistency between index, shards and directory is reported with
// a message naming the file and the tensor.
#include "runtime/checkpoint/Checkpoint.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>

namespace linnet::rt {
namespace {

using test::Bytes;
using test::TempDir;

void expectMentions(const std::string &message, std::initializer_list<std::string_view> fragments) {
  for (std::string_view fragment : fragments)
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "expected \"" << fragment << "\" in: " << message;
}

std::string openError(const std::filesystem::path &directory) {
  Expected<Checkpoint> checkpoint = Checkpoint::open(directory);
  return checkpoint.ok() ? "<opened successfully>" : checkpoint.message();
}

Bytes shardA() {
  return test::buildSafeTensors({{"layers.0.weight", "BF16", {2, 2}, test::sequenceBytes(8)},
                                 {"embed", "F32", {3}, test::sequenceBytes(12, 100)}});
}

Bytes shardB() {
  return test::buildSafeTensors({{"layers.1.weight", "F16", {4}, test::sequenceBytes(8, 50)},
                                 {"norm", "F32", {1}, test::sequenceBytes(4, 200)}});
}

constexpr const char *kShardA = "model-00001-of-00002.safetensors";
constexpr const char *kShardB = "model-00002-of-00002.safetensors";

// The consistent index for shardA() and shardB().
constexpr const char *kGoodIndex = R"({
  "metadata": {"total_size": 32},
  "weight_map": {
    "layers.0.weight": "model-00001-of-00002.safetensors",
    "embed": "model-00001-of-00002.safetensors",
    "layers.1.weight": "model-00002-of-00002.safetensors",
    "norm": "model-00002-of-00002.safetensors"
  }
})";

void writeShardedCheckpoint(const TempDir &dir, std::string_view index = kGoodIndex) {
  test::writeFile(dir / kShardA, shardA());
  test::writeFile(dir / kShardB, shardB());
  test::writeFile(dir / "model.safetensors.index.json", index);
}

std::vector<std::string> namesOf(const Checkpoint &checkpoint) {
  std::vector<std::string> names;
  for (const TensorView *tensor : checkpoint.tensors())
    names.push_back(tensor->name);
  return names;
}

// ---- Well-formed checkpoints ----------------------------------------------

TEST(CheckpointTest, SingleFileWithConfig) {
  TempDir dir;
  test::writeFile(dir / "model.safetensors", shardA());
  test::writeFile(dir / "config.json", std::string_view(R"({"hidden_size": 64, "vocab": "x"})"));
  Expected<Checkpoint> checkpoint = Checkpoint::open(dir.path());
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.message();
  EXPECT_FALSE(checkpoint->isSharded());
  EXPECT_EQ(checkpoint->files().size(), 1u);
  EXPECT_EQ(namesOf(*checkpoint), (std::vector<std::string>{"embed", "layers.0.weight"}));
  ASSERT_TRUE(checkpoint->hasConfig());
  EXPECT_EQ(checkpoint->config().at("hidden_size"), 64);

  const TensorView *weight = checkpoint->find("layers.0.weight");
  ASSERT_NE(weight, nullptr);
  EXPECT_EQ(weight->dtype, DType::BF16);
  EXPECT_EQ(weight->bytes()[7], std::byte{7});
  Expected<const TensorView *> embed = checkpoint->get("embed");
  ASSERT_TRUE(embed.ok()) << embed.message();
  EXPECT_EQ((*embed)->elementCount, 3);

  Expected<const TensorView *> missing = checkpoint->get("lm_head.weight");
  ASSERT_FALSE(missing.ok());
  expectMentions(missing.message(), {dir.path().string(), "no tensor named \"lm_head.weight\""});
  EXPECT_EQ(checkpoint->find("lm_head.weight"), nullptr);
}

TEST(CheckpointTest, ConfigIsOptional) {
  TempDir dir;
  test::writeFile(dir / "model.safetensors", shardA());
  Expected<Checkpoint> checkpoint = Checkpoint::open(dir.path());
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.message();
  EXPECT_FALSE(checkpoint->hasConfig());
  EXPECT_TRUE(checkpoint->config().is_null());
}

TEST(CheckpointTest, ShardedLoadsAllTensorsSorted) {
  TempDir dir;
  writeShardedCheckpoint(dir);
  Expected<Checkpoint> checkpoint = Checkpoint::open(dir.path());
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.message();
  EXPECT_TRUE(checkpoint->isSharded());
  EXPECT_EQ(checkpoint->files().size(), 2u);
  EXPECT_EQ(checkpoint->tensorCount(), 4u);
  EXPECT_EQ(namesOf(*checkpoint),
            (std::vector<std::string>{"embed", "layers.0.weight", "layers.1.weight", "norm"}));
  const TensorView *norm = checkpoint->find("norm");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->bytes()[0], std::byte{200});
  const TensorView *layer1 = checkpoint->find("layers.1.weight");
  ASSERT_NE(layer1, nullptr);
  EXPECT_EQ(layer1->dtype, DType::F16);

  // Moving the checkpoint keeps every view valid.
  Checkpoint moved = std::move(*checkpoint);
  EXPECT_EQ(moved.find("norm"), norm);
  EXPECT_EQ(moved.find("norm")->bytes()[3], std::byte{203});
}

TEST(CheckpointTest, ShardsMayBeSymbolicLinks) {
  // The Hugging Face cache keeps shards in a blob folder and links to them.
  TempDir root;
  std::filesystem::create_directory(root / "blobs");
  std::filesystem::create_directory(root / "snapshot");
  test::writeFile(root / "blobs" / "aaaa", shardA());
  test::writeFile(root / "blobs" / "bbbb", shardB());
  std::filesystem::create_symlink("../blobs/aaaa", root / "snapshot" / kShardA);
  std::filesystem::create_symlink("../blobs/bbbb", root / "snapshot" / kShardB);
  test::writeFile(root / "snapshot" / "model.safetensors.index.json", kGoodIndex);
  Expected<Checkpoint> checkpoint = Checkpoint::open(root / "snapshot");
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.message();
  EXPECT_EQ(checkpoint->tensorCount(), 4u);
}

TEST(CheckpointTest, SingleFileWinsOverIndex) {
  TempDir dir;
  writeShardedCheckpoint(dir);
  test::writeFile(dir / "model.safetensors", shardB());
  Expected<Checkpoint> checkpoint = Checkpoint::open(dir.path());
  ASSERT_TRUE(checkpoint.ok()) << checkpoint.message();
  EXPECT_FALSE(checkpoint->isSharded());
  EXPECT_EQ(namesOf(*checkpoint), (std::vector<std::string>{"layers.1.weight", "norm"}));
}

// ---- Directory and config errors --------------------------------------------

TEST(CheckpointErrorTest, MissingOrEmptyDirectory) {
  TempDir dir;
  expectMentions(openError(dir / "absent"), {"absent", "not a checkpoint directory"});
  expectMentions(openError(dir.path()),
                 {dir.path().string(), "no model.safetensors or model.safetensors.index.json"});
  test::writeFile(dir / "plain.txt", std::string_view("x"));
  expectMentions(openError(dir / "plain.txt"), {"not a checkpoint directory"});
}

TEST(CheckpointErrorTest, MalformedConfig) {
  TempDir dir;
  test::writeFile(dir / "model.safetensors", shardA());
  test::writeFile(dir / "config.json", std::string_view(R"({"hidden_size": 64,})"));
  expectMentions(openError(dir.path()), {"config.json", "invalid JSON"});
  test::writeFile(dir / "config.json", std::string_view("[64]"));
  expectMentions(openError(dir.path()), {"config.json", "must be a JSON object"});
  test::writeFile(dir / "config.json", std::string_view(R"({"a": 1, "a": 2})"));
  expectMentions(openError(dir.path()), {"config.json", "duplicate key \"a\""});
  test::writeFile(dir / "config.json", std::string_view(""));
  expectMentions(openError(dir.path()), {"config.json", "invalid JSON"});
}

TEST(CheckpointErrorTest, MalformedSingleFileNamesIt) {
  TempDir dir;
  test::writeFile(dir / "model.safetensors", test::buildRaw("{\"w\": 1}"));
  expectMentions(openError(dir.path()), {"model.safetensors", "tensor \"w\""});
}

// ---- Index errors ---------------------------------------------------------

TEST(CheckpointErrorTest, MalformedIndex) {
  TempDir dir;
  writeShardedCheckpoint(dir, "{\"weight_map\": ");
  expectMentions(openError(dir.path()), {"model.safetensors.index.json", "invalid JSON"});
  writeShardedCheckpoint(dir, "[]");
  expectMentions(openError(dir.path()), {"index.json", "must be a JSON object"});
  writeShardedCheckpoint(dir, R"({"metadata": {}})");
  expectMentions(openError(dir.path()), {"index.json", "missing \"weight_map\""});
  writeShardedCheckpoint(dir, R"({"weight_map": ["a"]})");
  expectMentions(openError(dir.path()), {"index.json", "\"weight_map\" must be an object"});
  writeShardedCheckpoint(dir, R"({"weight_map": {}})");
  expectMentions(openError(dir.path()), {"index.json", "empty"});
  writeShardedCheckpoint(dir, R"({"weight_map": {"embed": 1}})");
  expectMentions(openError(dir.path()), {"index.json", "tensor \"embed\"", "must be a file name"});
}

TEST(CheckpointErrorTest, ShardEscapingTheDirectory) {
  for (const char *shard : {"../model.safetensors", "/etc/passwd", "sub/model.safetensors", "..",
                            ".", "", "..\\\\evil.safetensors"}) {
    SCOPED_TRACE(shard);
    TempDir dir;
    std::string index = std::string(R"({"weight_map": {"embed": ")") + shard + R"("}})";
    writeShardedCheckpoint(dir, index);
    expectMentions(openError(dir.path()),
                   {"index.json", "tensor \"embed\"", "not a plain file name"});
  }
}

TEST(CheckpointErrorTest, MissingShard) {
  TempDir dir;
  writeShardedCheckpoint(dir);
  std::filesystem::remove(dir / kShardB);
  expectMentions(openError(dir.path()),
                 {"index.json", kShardB, "does not exist", "tensor \"layers.1.weight\""});
}

TEST(CheckpointErrorTest, ShardIsADirectory) {
  TempDir dir;
  writeShardedCheckpoint(dir);
  std::filesystem::remove(dir / kShardB);
  std::filesystem::create_directory(dir / kShardB);
  expectMentions(openError(dir.path()), {kShardB, "is a directory"});
}

TEST(CheckpointErrorTest, IndexIsADirectorySaysSo) {
  TempDir dir;
  writeShardedCheckpoint(dir);
  std::filesystem::path index = dir / "model.safetensors.index.json";
  std::filesystem::remove(index);
  std::filesystem::create_directory(index);
  expectMentions(openError(dir.path()), {"model.safetensors.index.json", "is a directory"});
}

TEST(CheckpointErrorTest, MalformedShardNamesShardAndTensor) {
  TempDir dir;
  writeShardedCheckpoint(dir);
  test::writeFile(dir / kShardB,
                  test::buildRaw(R"({"norm":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})",
                                 test::sequenceBytes(4)));
  expectMentions(openError(dir.path()), {kShardB, "tensor \"norm\"", "negative"});
}

TEST(CheckpointErrorTest, TensorInTheWrongShard) {
  TempDir dir;
  writeShardedCheckpoint(dir, R"({"weight_map": {
    "layers.0.weight": "model-00001-of-00002.safetensors",
    "embed": "model-00001-of-00002.safetensors",
    "layers.1.weight": "model-00002-of-00002.safetensors",
    "norm": "model-00001-of-00002.safetensors"
  }})");
  expectMentions(openError(dir.path()),
                 {"index.json", "tensor \"norm\"", std::string("shard \"") + kShardA + "\"",
                  "does not contain it", std::string("it is in ") + (dir / kShardB).string()});
}

TEST(CheckpointErrorTest, IndexedTensorInNoShard) {
  TempDir dir;
  writeShardedCheckpoint(dir, R"({"weight_map": {
    "layers.0.weight": "model-00001-of-00002.safetensors",
    "embed": "model-00001-of-00002.safetensors",
    "layers.1.weight": "model-00002-of-00002.safetensors",
    "norm": "model-00002-of-00002.safetensors",
    "lm_head.weight": "model-00002-of-00002.safetensors"
  }})");
  expectMentions(openError(dir.path()), {"tensor \"lm_head.weight\"", "does not contain it"});
}

TEST(CheckpointErrorTest, ShardTensorMissingFromIndex) {
  TempDir dir;
  writeShardedCheckpoint(dir, R"({"weight_map": {
    "layers.0.weight": "model-00001-of-00002.safetensors",
    "embed": "model-00001-of-00002.safetensors",
    "layers.1.weight": "model-00002-of-00002.safetensors"
  }})");
  expectMentions(openError(dir.path()),
                 {"tensor \"norm\"", kShardB, "not listed in \"weight_map\""});
}

TEST(CheckpointErrorTest, TensorInTwoShards) {
  TempDir dir;
  writeShardedCheckpoint(dir);
  // Shard B now also holds "embed", which the index puts in shard A.
  test::writeFile(dir / kShardB,
                  test::buildSafeTensors({{"layers.1.weight", "F16", {4}, test::sequenceBytes(8)},
                                          {"norm", "F32", {1}, test::sequenceBytes(4)},
                                          {"embed", "F32", {3}, test::sequenceBytes(12)}}));
  expectMentions(openError(dir.path()), {"tensor \"embed\"", "two shards", (dir / kShardA).string(),
                                         (dir / kShardB).string()});
}

TEST(CheckpointErrorTest, DuplicateKeyInWeightMap) {
  TempDir dir;
  writeShardedCheckpoint(dir, R"({"weight_map": {
    "layers.0.weight": "model-00001-of-00002.safetensors",
    "embed": "model-00001-of-00002.safetensors",
    "embed": "model-00002-of-00002.safetensors",
    "layers.1.weight": "model-00002-of-00002.safetensors",
    "norm": "model-00002-of-00002.safetensors"
  }})");
  expectMentions(openError(dir.path()), {"index.json", "duplicate key \"embed\""});
}

} // namespace
} // namespace linnet::rt
