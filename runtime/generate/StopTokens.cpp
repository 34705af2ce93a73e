// Implementation of StopTokens.h.
#include "runtime/generate/StopTokens.h"

#include "runtime/checkpoint/MappedFile.h"
#include "runtime/checkpoint/StrictJson.h"

#include <algorithm>
#include <charconv>
#include <system_error>

namespace linnet::rt {

namespace {

// generation_config.json's eos ids; an absent file or key gives none.
Status addGenerationConfigIds(const std::filesystem::path &checkpointDir, std::size_t vocabSize,
                              std::vector<TokenId> &ids) {
  std::filesystem::path path = checkpointDir / kGenerationConfigFileName;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Status::success();
  Expected<MappedFile> file = MappedFile::open(path);
  if (!file)
    return file.error();
  std::string_view text(reinterpret_cast<const char *>(file->data()), file->size());
  Expected<nlohmann::json> root = parseStrictJson(text, path.string());
  if (!root)
    return root.error();
  if (!root->is_object())
    return makeError("{}: expected a JSON object", path.string());
  auto it = root->find("eos_token_id");
  if (it == root->end() || it->is_null())
    return Status::success();
  std::vector<nlohmann::json> values = it->is_array() ? it->get<std::vector<nlohmann::json>>()
                                                      : std::vector<nlohmann::json>{*it};
  for (const nlohmann::json &value : values) {
    if (!value.is_number_integer() || value.get<std::int64_t>() < 0 || value.get<std::int64_t>() > INT32_MAX)
      return makeError("{}: eos_token_id: expected token ids, got {}", path.string(), value.dump());
    if (static_cast<std::uint64_t>(value.get<std::int64_t>()) >= vocabSize)
      return makeError("{}: eos_token_id {} is outside the tokenizer's {} ids", path.string(),
                       value.get<std::int64_t>(), vocabSize);
    ids.push_back(static_cast<TokenId>(value.get<std::int64_t>()));
  }
  return Status::success();
}

} // namespace

Expected<std::vector<TokenId>> resolveStopTokens(std::string_view eosOption, const Tokenizer &tokenizer,
                                                 const std::filesystem::path &checkpointDir) {
  std::vector<TokenId> ids;
  if (eosOption == "auto") {
    if (std::optional<TokenId> eos = tokenizer.eosId())
      ids.push_back(*eos);
    if (Status s = addGenerationConfigIds(checkpointDir, tokenizer.vocabSize(), ids); !s)
      return s.error();
    if (ids.empty())
      return makeError("the checkpoint names no eos token (no eos_token in tokenizer_config.json, none in "
                       "generation_config.json): give --eos ID");
  } else {
    TokenId id = 0;
    auto [end, ec] = std::from_chars(eosOption.data(), eosOption.data() + eosOption.size(), id);
    if (ec != std::errc() || end != eosOption.data() + eosOption.size() || id < 0)
      return makeError("--eos takes `auto` or a token id, got `{}`", eosOption);
    if (static_cast<std::size_t>(id) >= tokenizer.vocabSize())
      return makeError("--eos {} is outside the tokenizer's {} ids", id, tokenizer.vocabSize());
    ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

} // namespace linnet::rt
