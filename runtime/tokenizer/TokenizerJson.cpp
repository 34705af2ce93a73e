// Implementation of TokenizerJson.h.
#include "runtime/tokenizer/TokenizerJson.h"

#include "runtime/checkpoint/MappedFile.h"
#include "runtime/checkpoint/StrictJson.h"

#include <limits>
#include <set>

namespace linnet::rt {

using nlohmann::json;

namespace {

std::string describe(const json &config) {
  std::string type = jsonType(config);
  return jsonQuoted(type.empty() ? config.dump() : type);
}

Status readAddedTokens(const json &root, std::string_view source, ByteLevelBpeTokenizer &out) {
  auto list = root.find("added_tokens");
  if (list == root.end() || list->is_null())
    return Status::success();
  if (!list->is_array())
    return makeError("{}: \"added_tokens\" must be an array", source);
  std::set<TokenId> ids;
  std::set<std::string, std::less<>> contents;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json &entry = (*list)[i];
    if (!entry.is_object())
      return makeError("{}: added token {} must be an object", source, i);
    auto id = entry.find("id");
    auto content = entry.find("content");
    if (id == entry.end() || !id->is_number_integer() || id->get<std::int64_t>() < 0 ||
        id->get<std::int64_t>() >= std::numeric_limits<TokenId>::max())
      return makeError("{}: added token {} needs an \"id\" in 0..2^31-2", source, i);
    if (content == entry.end() || !content->is_string() || content->get<std::string>().empty())
      return makeError("{}: added token {} needs a non-empty string \"content\"", source, i);
    ByteLevelBpeTokenizer::AddedToken token;
    token.spec.id = static_cast<TokenId>(id->get<std::int64_t>());
    token.spec.content = content->get<std::string>();
    // `tokenizers`' defaults: special false, normalized = !special.
    bool special = false;
    std::optional<bool> normalized;
    struct Flag {
      std::string_view key;
      bool *target;
    };
    bool singleWord = false;
    bool normalizedValue = false;
    for (Flag flag : {Flag{"special", &special}, Flag{"lstrip", &token.spec.lstrip},
                      Flag{"rstrip", &token.spec.rstrip}, Flag{"single_word", &singleWord},
                      Flag{"normalized", &normalizedValue}}) {
      auto it = entry.find(flag.key);
      if (it == entry.end() || it->is_null())
        continue;
      if (!it->is_boolean())
        return makeError("{}: added token {} ({}): \"{}\" must be true or false", source, i,
                         jsonQuoted(token.spec.content), flag.key);
      *flag.target = it->get<bool>();
      if (flag.key == "normalized")
        normalized = normalizedValue;
    }
    if (singleWord)
      return makeError("{}: added token {} has \"single_word\": true, which is not supported",
                       source, jsonQuoted(token.spec.content));
    token.spec.special = special;
    token.spec.singleWord = false;
    token.normalized = normalized.value_or(!special);
    if (!ids.insert(token.spec.id).second)
      return makeError("{}: added token id {} appears twice", source, token.spec.id);
    if (!contents.insert(token.spec.content).second)
      return makeError("{}: added token {} appears twice", source,
                       jsonQuoted(token.spec.content));
    out.addedTokens.push_back(std::move(token));
  }
  return Status::success();
}

Status readNormalizer(const json &root, std::string_view source, ByteLevelBpeTokenizer &out) {
  auto it = root.find("normalizer");
  if (it == root.end() || it->is_null())
    return Status::success();
  const json *config = &*it;
  // A Sequence of one NFC (or of nothing) is the same thing.
  if (config->is_object() && jsonType(*config) == "Sequence") {
    auto list = config->find("normalizers");
    if (list != config->end() && list->is_array() && list->size() <= 1) {
      if (list->empty())
        return Status::success();
      config = &(*list)[0];
    }
  }
  if (config->is_object() && jsonType(*config) == "NFC") {
    out.nfc = true;
    return Status::success();
  }
  return makeError("{}: unsupported \"normalizer\" {} (supported: null, NFC)", source,
                   config->is_object() ? describe(*config) : config->dump());
}

Status readTemplate(const json &config, std::string_view source, ByteLevelBpeTokenizer &out) {
  auto single = config.find("single");
  auto specials = config.find("special_tokens");
  if (single == config.end() || !single->is_array())
    return makeError("{}: TemplateProcessing needs a \"single\" array", source);
  bool seenSequence = false;
  for (const json &item : *single) {
    if (item.is_object() && item.size() == 1 && item.contains("Sequence")) {
      const json &sequence = item["Sequence"];
      if (seenSequence || !sequence.is_object() || sequence.value("id", json()) != "A")
        return makeError("{}: TemplateProcessing \"single\" must contain $A exactly once",
                         source);
      seenSequence = true;
      continue;
    }
    if (!item.is_object() || item.size() != 1 || !item.contains("SpecialToken") ||
        !item["SpecialToken"].is_object() || !item["SpecialToken"].contains("id") ||
        !item["SpecialToken"]["id"].is_string())
      return makeError("{}: TemplateProcessing \"single\" has an item that is neither "
                       "{{\"Sequence\": ...}} nor {{\"SpecialToken\": {{\"id\": ...}}}}",
                       source);
    std::string name = item["SpecialToken"]["id"].get<std::string>();
    if (specials == config.end() || !specials->is_object() || !specials->contains(name))
      return makeError("{}: TemplateProcessing uses special token {}, which its "
                       "\"special_tokens\" does not define",
                       source, jsonQuoted(name));
    const json &special = (*specials)[name];
    auto ids = special.find("ids");
    if (!special.is_object() || ids == special.end() || !ids->is_array())
      return makeError("{}: TemplateProcessing special token {} needs an \"ids\" array", source,
                       jsonQuoted(name));
    for (const json &id : *ids) {
      if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
          id.get<std::int64_t>() >= std::numeric_limits<TokenId>::max())
        return makeError("{}: TemplateProcessing special token {} has a bad id {}", source,
                         jsonQuoted(name), id.dump());
      (seenSequence ? out.suffix : out.prefix).push_back(static_cast<TokenId>(id.get<std::int64_t>()));
    }
  }
  if (!seenSequence)
    return makeError("{}: TemplateProcessing \"single\" must contain $A exactly once", source);
  return Status::success();
}

Status readPostProcessor(const json &config, std::string_view source, ByteLevelBpeTokenizer &out,
                         int depth) {
  if (config.is_null())
    return Status::success();
  if (!config.is_object())
    return makeError("{}: \"post_processor\" must be an object or null", source);
  std::string type = jsonType(config);
  if (type == "ByteLevel")
    return Status::success(); // only trims offsets
  if (type == "TemplateProcessing") {
    if (!out.prefix.empty() || !out.suffix.empty())
      return makeError("{}: more than one TemplateProcessing post-processor", source);
    return readTemplate(config, source, out);
  }
  if (type == "Sequence" && depth < 8) {
    auto list = config.find("processors");
    if (list == config.end() || !list->is_array())
      return makeError("{}: a Sequence post-processor needs a \"processors\" array", source);
    for (const json &item : *list)
      if (Status status = readPostProcessor(item, source, out, depth + 1); !status)
        return status;
    return Status::success();
  }
  return makeError("{}: unsupported \"post_processor\" {} (supported: ByteLevel, "
                   "TemplateProcessing, Sequence)",
                   source, describe(config));
}

Status checkDecoder(const json &root, std::string_view source) {
  auto it = root.find("decoder");
  const json *config = it == root.end() ? nullptr : &*it;
  if (config && config->is_object() && jsonType(*config) == "Sequence") {
    auto list = config->find("decoders");
    if (list != config->end() && list->is_array() && list->size() == 1)
      config = &(*list)[0];
  }
  if (config && config->is_object() && jsonType(*config) == "ByteLevel")
    return Status::success();
  return makeError("{}: unsupported \"decoder\" {} (only ByteLevel is implemented)", source,
                   !config                ? std::string("(none)")
                   : config->is_object() ? describe(*config)
                                         : config->dump());
}

} // namespace

Expected<ByteLevelBpeTokenizer> parseTokenizerJson(const json &root, std::string_view source) {
  if (!root.is_object())
    return makeError("{}: must be a JSON object, got {}", source, root.type_name());
  auto model = root.find("model");
  if (model == root.end() || !model->is_object())
    return makeError("{}: no \"model\" object", source);
  // Older files omit "type" for BPE; `tokenizers` then recognises the model
  // by its fields. Accept that only with "merges" present.
  std::string modelType = jsonType(*model);
  if (modelType != "BPE" && !(modelType.empty() && model->contains("merges")))
    return makeError("{}: unsupported model type {} (only byte-level \"BPE\" is implemented)",
                     source, jsonQuoted(modelType));

  ByteLevelBpeTokenizer out;
  if (Status status = readAddedTokens(root, source, out); !status)
    return status.error();
  if (Status status = readNormalizer(root, source, out); !status)
    return status.error();
  auto pre = root.find("pre_tokenizer");
  if (pre == root.end() || pre->is_null())
    return makeError("{}: no \"pre_tokenizer\" (only byte-level BPE is implemented)", source);
  Expected<PreTokenizer> preTokenizer = PreTokenizer::fromJson(*pre, source);
  if (!preTokenizer)
    return preTokenizer.error();
  out.preTokenizer = std::move(*preTokenizer);
  Expected<ByteLevelBpe> bpe = ByteLevelBpe::fromJson(*model, source);
  if (!bpe)
    return bpe.error();
  out.model = std::move(*bpe);
  if (auto post = root.find("post_processor"); post != root.end())
    if (Status status = readPostProcessor(*post, source, out, 0); !status)
      return status.error();
  if (Status status = checkDecoder(root, source); !status)
    return status.error();
  return out;
}

Expected<ByteLevelBpeTokenizer> loadTokenizerJson(const std::filesystem::path &path) {
  Expected<MappedFile> file = MappedFile::open(path);
  if (!file)
    return file.error();
  std::string_view text(reinterpret_cast<const char *>(file->data()), file->size());
  Expected<json> root = parseStrictJson(text, path.string());
  if (!root)
    return root.error();
  return parseTokenizerJson(*root, path.string());
}

} // namespace linnet::rt
