// Loading of a Hugging Face checkpoint directory (see Checkpoint.h).
//
// For a sharded checkpoint the index is checked against the shards in both
// directions: every (tensor, shard) pair of weight_map must name a shard
// that really holds the tensor, and every tensor a shard holds must be
// listed in weight_map under that shard. A tensor in two shards is an error
// even if the index names one of them, since which copy is meant would be a
// guess. Shard names come from a file that may be untrusted, so they must be
// plain file names: a name cannot reach outside the directory by itself.
// Symbolic links are followed, because the Hugging Face cache stores shards
// as links into a shared blob folder. A directory holding both
// model.safetensors and an index is read from model.safetensors alone, as
// transformers' from_pretrained does.
#include "runtime/checkpoint/Checkpoint.h"

#include "runtime/checkpoint/MappedFile.h"
#include "runtime/checkpoint/StrictJson.h"

#include <algorithm>
#include <map>
#include <system_error>

namespace linnet::rt {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool isRegularFile(const fs::path &path) {
  std::error_code ignored; // a missing or unreadable path is simply "no"
  return fs::is_regular_file(path, ignored);
}

// What a path that is no regular file is, for a message: "does not exist",
// "is a directory", "is not a regular file" (a FIFO, a device), "cannot be
// read: ..." (a loop of links, no permission).
constexpr std::string_view kDoesNotExist = "does not exist";
std::string whyNotAFile(const fs::path &path) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found)
    return std::string(kDoesNotExist);
  if (ec)
    return "cannot be read: " + ec.message();
  if (status.type() == fs::file_type::directory)
    return "is a directory";
  return "is not a regular file";
}

// Reads and parses a whole JSON file (index or config).
Expected<json> loadJsonFile(const fs::path &path) {
  Expected<MappedFile> mapping = MappedFile::open(path);
  if (!mapping)
    return mapping.error();
  std::string_view text(reinterpret_cast<const char *>(mapping->data()), mapping->size());
  return parseStrictJson(text, path.string());
}

// True for a name that denotes a file directly inside the directory: no
// separators (either kind, so a Windows-written index cannot sneak one in),
// not "." or "..", no NUL.
bool isPlainFileName(std::string_view name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find_first_of(std::string_view("/\\\0", 3)) == std::string_view::npos;
}

Expected<json> loadConfig(const fs::path &directory) {
  fs::path path = directory / Checkpoint::kConfigFileName;
  std::error_code ec;
  if (!fs::exists(path, ec))
    return json(); // optional: null means "none"
  Expected<json> config = loadJsonFile(path);
  if (!config)
    return config.error();
  if (!config->is_object())
    return makeError("{}: must be a JSON object, got {}", path.string(), config->type_name());
  return config;
}

// weight_map, validated: shard file name -> tensor names the index puts there.
using TensorsByShard = std::map<std::string, std::vector<std::string>>;

Expected<TensorsByShard> readWeightMap(const json &index, const std::string &indexName) {
  if (!index.is_object())
    return makeError("{}: must be a JSON object, got {}", indexName, index.type_name());
  auto weightMap = index.find("weight_map");
  if (weightMap == index.end())
    return makeError("{}: missing \"weight_map\"", indexName);
  if (!weightMap->is_object())
    return makeError("{}: \"weight_map\" must be an object, got {}", indexName,
                     weightMap->type_name());
  if (weightMap->empty())
    return makeError("{}: \"weight_map\" is empty", indexName);

  TensorsByShard tensorsByShard;
  for (const auto &[tensor, shard] : weightMap->items()) {
    if (!shard.is_string())
      return makeError("{}: tensor {}: shard must be a file name string, got {}", indexName,
                       jsonQuoted(tensor), shard.type_name());
    const std::string &shardName = shard.get_ref<const std::string &>();
    if (!isPlainFileName(shardName))
      return makeError("{}: tensor {}: shard {} is not a plain file name in the checkpoint "
                       "directory",
                       indexName, jsonQuoted(tensor), jsonQuoted(shardName));
    tensorsByShard[shardName].push_back(tensor);
  }
  return tensorsByShard;
}

} // namespace

Expected<Checkpoint> Checkpoint::open(const fs::path &directory) {
  std::error_code ec;
  if (!fs::is_directory(directory, ec))
    return makeError("{}: not a checkpoint directory (does not exist or is not a directory)",
                     directory.string());

  Checkpoint checkpoint;
  checkpoint.directory_ = directory;
  fs::path singlePath = directory / kSingleFileName;
  fs::path indexPath = directory / kIndexFileName;
  Status loaded;
  if (isRegularFile(singlePath))
    loaded = checkpoint.loadSingleFile(singlePath);
  else if (isRegularFile(indexPath))
    loaded = checkpoint.loadShards(indexPath);
  else if (std::string why = whyNotAFile(indexPath); why != kDoesNotExist)
    loaded = makeError("{}: {}", indexPath.string(), why);
  else if (std::string single = whyNotAFile(singlePath); single != kDoesNotExist)
    loaded = makeError("{}: {}", singlePath.string(), single);
  else
    loaded = makeError("{}: no {} or {} in the checkpoint directory", directory.string(),
                       kSingleFileName, kIndexFileName);
  if (!loaded)
    return loaded.error();

  Expected<json> config = loadConfig(directory);
  if (!config)
    return config.error();
  checkpoint.config_ = std::move(*config);
  return checkpoint;
}

Status Checkpoint::loadSingleFile(const fs::path &path) {
  Expected<SafeTensorsFile> file = SafeTensorsFile::open(path);
  if (!file)
    return file.error();
  files_.push_back(std::move(*file));
  return indexAllTensors();
}

Status Checkpoint::loadShards(const fs::path &indexPath) {
  sharded_ = true;
  std::string indexName = indexPath.string();
  Expected<json> index = loadJsonFile(indexPath);
  if (!index)
    return index.error();
  Expected<TensorsByShard> tensorsByShard = readWeightMap(*index, indexName);
  if (!tensorsByShard)
    return tensorsByShard.error();

  std::map<std::string, const SafeTensorsFile *, std::less<>> fileByShard;
  files_.reserve(tensorsByShard->size()); // keeps fileByShard's pointers valid
  for (const auto &[shardName, tensorNames] : *tensorsByShard) {
    fs::path shardPath = directory_ / shardName;
    if (!isRegularFile(shardPath))
      return makeError("{}: shard {} (listed for tensor {}) {} in {}", indexName, jsonQuoted(shardName),
                       jsonQuoted(tensorNames.front()), whyNotAFile(shardPath), directory_.string());
    Expected<SafeTensorsFile> shard = SafeTensorsFile::open(shardPath);
    if (!shard)
      return shard.error();
    files_.push_back(std::move(*shard));
    fileByShard[shardName] = &files_.back();
  }

  // A tensor in two shards is reported before any index mismatch, since it
  // is the more basic fault.
  if (Status indexed = indexAllTensors(); !indexed)
    return indexed;

  // Index -> shards: each listed tensor is where the index says.
  for (const auto &[shardName, tensorNames] : *tensorsByShard) {
    const SafeTensorsFile &shard = *fileByShard.at(shardName);
    for (const std::string &tensor : tensorNames) {
      if (shard.find(tensor))
        continue;
      std::string where;
      for (const SafeTensorsFile &file : files_)
        if (file.find(tensor))
          where = fmt::format(" (it is in {})", file.sourceName());
      return makeError("{}: tensor {} is listed in shard {}, but that shard does not "
                       "contain it{}",
                       indexName, jsonQuoted(tensor), jsonQuoted(shardName), where);
    }
  }
  // Shards -> index: nothing a shard holds is missing from the index.
  const json &weightMap = index->at("weight_map");
  for (const auto &[shardName, shard] : fileByShard)
    for (const TensorView &tensor : shard->tensors())
      if (!weightMap.contains(tensor.name))
        return makeError("{}: tensor {} in shard {} is not listed in \"weight_map\"", indexName,
                         jsonQuoted(tensor.name), jsonQuoted(shardName));
  return Status::success();
}

// Builds the sorted name index over all files and rejects a name that
// occurs in more than one of them.
Status Checkpoint::indexAllTensors() {
  struct Entry {
    const TensorView *tensor;
    std::size_t fileIndex; // into files_, to name both files of a duplicate
  };
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < files_.size(); ++i)
    for (const TensorView &tensor : files_[i].tensors())
      entries.push_back({&tensor, i});
  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    if (a.tensor->name != b.tensor->name)
      return a.tensor->name < b.tensor->name;
    return a.fileIndex < b.fileIndex;
  });
  auto duplicate =
      std::adjacent_find(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
        return a.tensor->name == b.tensor->name;
      });
  if (duplicate != entries.end())
    return makeError("{}: tensor {} appears in two shards: {} and {}", directory_.string(),
                     jsonQuoted(duplicate[0].tensor->name),
                     files_[duplicate[0].fileIndex].sourceName(),
                     files_[duplicate[1].fileIndex].sourceName());

  tensorsByName_.clear();
  tensorsByName_.reserve(entries.size());
  for (const Entry &entry : entries)
    tensorsByName_.push_back(entry.tensor);
  return Status::success();
}

const TensorView *Checkpoint::find(std::string_view name) const {
  auto it = std::lower_bound(
      tensorsByName_.begin(), tensorsByName_.end(), name,
      [](const TensorView *tensor, std::string_view key) { return tensor->name < key; });
  if (it == tensorsByName_.end() || (*it)->name != name)
    return nullptr;
  return *it;
}

Expected<const TensorView *> Checkpoint::get(std::string_view name) const {
  if (const TensorView *tensor = find(name))
    return tensor;
  return makeError("{}: no tensor named {}", directory_.string(), jsonQuoted(name));
}

} // namespace linnet::rt
