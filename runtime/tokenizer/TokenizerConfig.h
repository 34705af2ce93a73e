// The Hugging Face tokenizer files beside `tokenizer.model`, read into plain
// values: `tokenizer_config.json` (added tokens, the named special tokens,
// flags, the chat template) and, as transformers does only for old
// checkpoints without `added_tokens_decoder`, `special_tokens_map.json`.
//
// Both files are optional; a missing one leaves its fields unset and
// Tokenizer::open decides the defaults. A file that is present must be a
// well-formed JSON object whose fields have the types transformers writes;
// anything else is an Error naming the file and the key. Ids are checked
// only for form here (a non-negative decimal that fits int32, each id and
// each content at most once); their range depends on the SentencePiece
// model and is checked by Tokenizer::open.
#pragma once

#include "runtime/support/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linnet::rt {

using TokenId = std::int32_t;

// One entry of `added_tokens_decoder` (transformers' AddedToken).
struct AddedTokenSpec {
  TokenId id = 0;
  std::string content;
  bool special = false;
  bool lstrip = false;     // eats the whitespace on its left
  bool rstrip = false;     // eats the whitespace on its right
  bool singleWord = false; // read, but not honoured (see docs/tokenizer.md)
};

struct TokenizerConfig {
  std::vector<AddedTokenSpec> addedTokens; // sorted by id
  std::optional<std::string> bosToken;     // "bos_token" (string or {"content": ...})
  std::optional<std::string> eosToken;
  std::optional<std::string> unkToken;
  std::optional<std::string> padToken;
  std::vector<std::string> additionalSpecialTokens;
  std::optional<bool> addBosToken;
  std::optional<bool> addEosToken;
  std::optional<bool> legacy;
  std::optional<bool> addPrefixSpace;
  std::optional<std::string> chatTemplate;   // from the config, or chat_template.jinja
  std::string chatTemplateFile;               // the file it came from, for messages
  std::optional<std::string> tokenizerClass; // "tokenizer_class", e.g. "LlamaTokenizer"
  // The file each named token was read from ("bos_token", ..., and
  // "additional special token"), for messages: tokenizer_config.json or,
  // for older checkpoints, special_tokens_map.json.
  std::map<std::string, std::string, std::less<>> namedTokenSources;

  // namedTokenSources' entry for `role`, or `fallback`.
  std::string sourceOf(std::string_view role, const std::string &fallback) const {
    auto it = namedTokenSources.find(role);
    return it == namedTokenSources.end() ? fallback : it->second;
  }
};

// Reads the files of `directory` (each optional).
Expected<TokenizerConfig> loadTokenizerConfig(const std::filesystem::path &directory);

// Interprets an already parsed tokenizer_config.json; `source` names it in
// messages. Exposed for tests.
Expected<TokenizerConfig> parseTokenizerConfig(const nlohmann::json &config,
                                               std::string_view source);

} // namespace linnet::rt
