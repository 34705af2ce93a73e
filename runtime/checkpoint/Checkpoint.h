// A model checkpoint directory in the Hugging Face layout.
//
// The directory holds either one `model.safetensors` or a sharded set
// described by `model.safetensors.index.json` (its "weight_map" maps each
// tensor name to the shard file holding it), and usually a `config.json`.
// open() loads and validates everything up front: every shard is mapped and
// parsed, the index must agree exactly with the shards' contents, and a
// tensor may live in only one shard. After that, look-ups cannot fail for
// format reasons. If both layouts are present, `model.safetensors` wins, as
// in Hugging Face transformers.
//
// A Checkpoint is immutable once opened: any number of threads may read it
// (find, tensors, config, the views' bytes) at once. It owns the mappings;
// views and pointers it returns are valid until it is destroyed (moving the
// Checkpoint keeps them valid).
#pragma once

#include "runtime/checkpoint/SafeTensors.h"
#include "runtime/support/Status.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace linnet::rt {

class Checkpoint {
public:
  static constexpr std::string_view kSingleFileName = "model.safetensors";
  static constexpr std::string_view kIndexFileName = "model.safetensors.index.json";
  static constexpr std::string_view kConfigFileName = "config.json";

  // Opens the checkpoint in `directory`. config.json is optional; if present
  // it must be a well-formed JSON object.
  static Expected<Checkpoint> open(const std::filesystem::path &directory);

  Checkpoint(Checkpoint &&) noexcept = default;
  Checkpoint &operator=(Checkpoint &&) noexcept = default;
  Checkpoint(const Checkpoint &) = delete;
  Checkpoint &operator=(const Checkpoint &) = delete;

  const std::filesystem::path &directory() const { return directory_; }
  bool isSharded() const { return sharded_; }

  // The parsed safetensors files: one, or the shards in file-name order.
  std::span<const SafeTensorsFile> files() const { return files_; }

  // config.json, or a null value when the directory has none.
  bool hasConfig() const { return !config_.is_null(); }
  const nlohmann::json &config() const { return config_; }

  // All tensors of all files, sorted by name.
  std::span<const TensorView *const> tensors() const { return tensorsByName_; }
  std::size_t tensorCount() const { return tensorsByName_.size(); }

  // The tensor called `name`, or nullptr.
  const TensorView *find(std::string_view name) const;
  // Same, but a missing tensor is an error naming the checkpoint and tensor.
  Expected<const TensorView *> get(std::string_view name) const;

private:
  Checkpoint() = default;
  Status loadSingleFile(const std::filesystem::path &path);
  Status loadShards(const std::filesystem::path &indexPath);
  Status indexAllTensors();

  std::filesystem::path directory_;
  bool sharded_ = false;
  std::vector<SafeTensorsFile> files_;
  std::vector<const TensorView *> tensorsByName_; // point into files_' tensors
  nlohmann::json config_;
};

} // namespace linnet::rt
