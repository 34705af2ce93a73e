// Reading tokenizer_config.json, special_tokens_map.json and
// chat_template.jinja (see TokenizerConfig.h). Keys this runtime does not use
// (model_max_length, padding_side, ...) are ignored; keys it uses must have
// the type transformers writes, so a typo'd file fails loudly instead of
// silently changing how text is tokenized.
#include "runtime/tokenizer/TokenizerConfig.h"

#include "runtime/checkpoint/MappedFile.h"
#include "runtime/checkpoint/StrictJson.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <system_error>

namespace linnet::rt {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::string_view kConfigFile = "tokenizer_config.json";
constexpr std::string_view kSpecialTokensMapFile = "special_tokens_map.json";
constexpr std::string_view kChatTemplateFile = "chat_template.jinja";

bool fileExists(const fs::path &path) {
  std::error_code ignored; // unreadable counts as absent; open() reports it if it matters
  return fs::exists(path, ignored);
}

Expected<std::string> readTextFile(const fs::path &path) {
  Expected<MappedFile> file = MappedFile::open(path);
  if (!file)
    return file.error();
  return std::string(reinterpret_cast<const char *>(file->data()), file->size());
}

Expected<json> readJsonObject(const fs::path &path) {
  Expected<std::string> text = readTextFile(path);
  if (!text)
    return text.error();
  Expected<json> parsed = parseStrictJson(*text, path.string());
  if (!parsed)
    return parsed.error();
  if (!parsed->is_object())
    return makeError("{}: must be a JSON object, got {}", path.string(), parsed->type_name());
  return parsed;
}

// A token written either as a plain string or as an AddedToken object
// ({"content": "...", ...}); null means "not set", as transformers saves it.
Expected<std::optional<std::string>> readTokenValue(const json &value, std::string_view source,
                                                    std::string_view key) {
  if (value.is_null())
    return std::optional<std::string>();
  if (value.is_string())
    return std::optional<std::string>(value.get<std::string>());
  if (value.is_object()) {
    auto content = value.find("content");
    if (content != value.end() && content->is_string())
      return std::optional<std::string>(content->get<std::string>());
    return makeError("{}: \"{}\" is an object without a string \"content\"", source, key);
  }
  return makeError("{}: \"{}\" must be a string or an object with \"content\", got {}", source, key,
                   value.type_name());
}

Expected<std::optional<bool>> readBool(const json &object, std::string_view source,
                                       std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null())
    return std::optional<bool>();
  if (!it->is_boolean())
    return makeError("{}: \"{}\" must be true or false, got {}", source, key, it->type_name());
  return std::optional<bool>(it->get<bool>());
}

// Ids are object keys, so they arrive as text. Only the canonical decimal
// form is accepted: "01" next to "1" would otherwise be two keys for one id.
std::optional<TokenId> parseTokenId(std::string_view text) {
  if (text.empty() || (text.size() > 1 && text[0] == '0'))
    return std::nullopt;
  TokenId id = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id < 0)
    return std::nullopt;
  return id;
}

Status readAddedTokens(const json &decoder, std::string_view source, TokenizerConfig &out) {
  if (!decoder.is_object())
    return makeError("{}: \"added_tokens_decoder\" must be an object, got {}", source,
                     decoder.type_name());
  std::set<std::string, std::less<>> contents;
  for (const auto &[key, entry] : decoder.items()) {
    std::optional<TokenId> id = parseTokenId(key);
    if (!id)
      return makeError("{}: added token id {} is not a non-negative decimal integer below 2^31",
                       source, jsonQuoted(key));
    if (!entry.is_object())
      return makeError("{}: added token {} must be an object, got {}", source, key,
                       entry.type_name());
    auto content = entry.find("content");
    if (content == entry.end() || !content->is_string() || content->get<std::string>().empty())
      return makeError("{}: added token {} needs a non-empty string \"content\"", source, key);
    AddedTokenSpec spec;
    spec.id = *id;
    spec.content = content->get<std::string>();
    // AddedToken's defaults: not special, no stripping.
    struct Flag {
      std::string_view name;
      bool *target;
    };
    for (Flag flag : {Flag{"special", &spec.special}, Flag{"lstrip", &spec.lstrip},
                      Flag{"rstrip", &spec.rstrip}, Flag{"single_word", &spec.singleWord}}) {
      Expected<std::optional<bool>> value = readBool(entry, source, flag.name);
      if (!value)
        return makeError("{} (added token {})", value.message(), key);
      if (*value)
        *flag.target = **value;
    }
    if (!contents.insert(spec.content).second)
      return makeError("{}: added token content {} appears twice in \"added_tokens_decoder\"",
                       source, jsonQuoted(spec.content));
    out.addedTokens.push_back(std::move(spec));
  }
  std::sort(out.addedTokens.begin(), out.addedTokens.end(),
            [](const AddedTokenSpec &a, const AddedTokenSpec &b) { return a.id < b.id; });
  return Status::success();
}

// The named special tokens; used for tokenizer_config.json and, for old
// checkpoints, special_tokens_map.json (whose values then win, as in
// transformers).
Status readNamedTokens(const json &object, std::string_view source, TokenizerConfig &out) {
  struct Named {
    std::string_view key;
    std::optional<std::string> *target;
  };
  for (Named named : {Named{"bos_token", &out.bosToken}, Named{"eos_token", &out.eosToken},
                      Named{"unk_token", &out.unkToken}, Named{"pad_token", &out.padToken}}) {
    auto it = object.find(named.key);
    if (it == object.end())
      continue;
    Expected<std::optional<std::string>> value = readTokenValue(*it, source, named.key);
    if (!value)
      return value.error();
    *named.target = std::move(*value);
    out.namedTokenSources[std::string(named.key)] = std::string(source);
  }
  auto extra = object.find("additional_special_tokens");
  if (extra != object.end() && !extra->is_null()) {
    if (!extra->is_array())
      return makeError("{}: \"additional_special_tokens\" must be an array, got {}", source,
                       extra->type_name());
    out.additionalSpecialTokens.clear();
    out.namedTokenSources["additional special token"] = std::string(source);
    for (const json &item : *extra) {
      Expected<std::optional<std::string>> value =
          readTokenValue(item, source, "additional_special_tokens");
      if (!value)
        return value.error();
      if (*value)
        out.additionalSpecialTokens.push_back(std::move(**value));
    }
  }
  return Status::success();
}

// "chat_template" is a string, or (several named templates) a list of
// {"name", "template"} objects of which "default" is the one applied.
Status readChatTemplate(const json &value, std::string_view source, TokenizerConfig &out) {
  if (value.is_null())
    return Status::success();
  if (value.is_string()) {
    out.chatTemplate = value.get<std::string>();
    return Status::success();
  }
  if (value.is_array()) {
    for (const json &entry : value) {
      if (!entry.is_object() || !entry.contains("name") || !entry.contains("template") ||
          !entry["name"].is_string() || !entry["template"].is_string())
        return makeError("{}: each \"chat_template\" entry must be {{\"name\": string, "
                         "\"template\": string}}",
                         source);
      if (entry["name"] == "default")
        out.chatTemplate = entry["template"].get<std::string>();
    }
    return Status::success();
  }
  return makeError("{}: \"chat_template\" must be a string or a list, got {}", source,
                   value.type_name());
}

} // namespace

Expected<TokenizerConfig> parseTokenizerConfig(const json &config, std::string_view source) {
  if (!config.is_object())
    return makeError("{}: must be a JSON object, got {}", source, config.type_name());
  TokenizerConfig out;
  if (auto it = config.find("added_tokens_decoder"); it != config.end())
    if (Status status = readAddedTokens(*it, source, out); !status)
      return status.error();
  if (Status status = readNamedTokens(config, source, out); !status)
    return status.error();
  struct BoolKey {
    std::string_view key;
    std::optional<bool> *target;
  };
  for (BoolKey flag :
       {BoolKey{"add_bos_token", &out.addBosToken}, BoolKey{"add_eos_token", &out.addEosToken},
        BoolKey{"legacy", &out.legacy}, BoolKey{"add_prefix_space", &out.addPrefixSpace}}) {
    Expected<std::optional<bool>> value = readBool(config, source, flag.key);
    if (!value)
      return value.error();
    *flag.target = *value;
  }
  if (auto it = config.find("tokenizer_class"); it != config.end() && !it->is_null()) {
    if (!it->is_string())
      return makeError("{}: \"tokenizer_class\" must be a string, got {}", source, it->type_name());
    out.tokenizerClass = it->get<std::string>();
  }
  if (auto it = config.find("chat_template"); it != config.end())
    if (Status status = readChatTemplate(*it, source, out); !status)
      return status.error();
  return out;
}

Expected<TokenizerConfig> loadTokenizerConfig(const fs::path &directory) {
  TokenizerConfig out;
  bool hasAddedTokensDecoder = false;
  fs::path configPath = directory / kConfigFile;
  if (fileExists(configPath)) {
    Expected<json> config = readJsonObject(configPath);
    if (!config)
      return config.error();
    Expected<TokenizerConfig> parsed = parseTokenizerConfig(*config, configPath.string());
    if (!parsed)
      return parsed.error();
    out = std::move(*parsed);
    hasAddedTokensDecoder = config->contains("added_tokens_decoder");
  }
  // transformers consults special_tokens_map.json only when the config has
  // no added_tokens_decoder (checkpoints saved before that key existed).
  fs::path mapPath = directory / kSpecialTokensMapFile;
  if (!hasAddedTokensDecoder && fileExists(mapPath)) {
    Expected<json> map = readJsonObject(mapPath);
    if (!map)
      return map.error();
    if (Status status = readNamedTokens(*map, mapPath.string(), out); !status)
      return status.error();
  }
  // A separate template file takes priority over the config's entry.
  fs::path templatePath = directory / kChatTemplateFile;
  if (fileExists(templatePath)) {
    Expected<std::string> text = readTextFile(templatePath);
    if (!text)
      return text.error();
    out.chatTemplate = std::move(*text);
    out.chatTemplateFile = templatePath.string();
  }
  return out;
}

} // namespace linnet::rt
