// Tokenizer::open / encode / decode for checkpoints that ship a Hugging Face
// tokenizer.json with a byte-level BPE model instead of tokenizer.model.
// The goal is the ids the `tokenizers` library (transformers' fast
// tokenizer) gives; the rules are in docs/tokenizer.md.
#include "runtime/checkpoint/StrictJson.h"
#include "runtime/tokenizer/ByteLevel.h"
#include "runtime/tokenizer/TokenizerImpl.h"
#include "runtime/tokenizer/UnicodeTables.h"
#include "runtime/tokenizer/Utf8.h"

#include <algorithm>

namespace linnet::rt {

namespace {

// A named special token (bos, eos, ...) of tokenizer_config.json: an added
// token, or else a vocab token, which then becomes an added special token
// matched on raw text (transformers adds every special token to its
// no-split list).
Expected<TokenId> resolveNamed(Tokenizer::Impl &impl, std::string_view role,
                               const std::string &text, const std::string &source) {
  if (auto it = impl.addedIdByContent.find(text); it != impl.addedIdByContent.end())
    return it->second;
  std::optional<TokenId> id = impl.bpe->model.tokenToId(text);
  if (!id)
    return makeError("{}: {} {} is neither an added token nor a token of {}", source, role,
                     jsonQuoted(text), kTokenizerJsonFileName);
  if (std::any_of(impl.added.begin(), impl.added.end(),
                  [&](const AddedTokenSpec &t) { return t.id == *id; }))
    return makeError("{}: {} {} is token {}, which an added token replaces", source, role,
                     jsonQuoted(text), *id);
  impl.added.push_back({*id, text, /*special=*/true, false, false, false});
  impl.bpe->addedTokens.push_back({impl.added.back(), /*normalized=*/false});
  impl.addedIdByContent.emplace(text, *id);
  return *id;
}

Status resolveNamedTokens(Tokenizer::Impl &impl, const TokenizerConfig &config,
                          const std::string &source) {
  const std::vector<TokenId> &prefix = impl.bpe->prefix;
  const std::vector<TokenId> &suffix = impl.bpe->suffix;
  NamedSpecialTexts texts{config.bosToken, config.eosToken, config.unkToken, config.padToken,
                          config.additionalSpecialTokens};
  Status recorded = recordNamedSpecialTokens(impl, texts, [&](std::string_view role, const std::string &text) {
    return resolveNamed(impl, role, text, config.sourceOf(role, source));
  });
  if (!recorded)
    return recorded;
  // Without a config entry, a one-token template prefix / suffix is the
  // bos / eos (Llama 3's <|begin_of_text|>).
  if (!impl.bos && prefix.size() == 1)
    impl.bos = prefix[0];
  if (!impl.eos && suffix.size() == 1)
    impl.eos = suffix[0];
  return Status::success();
}

Status buildAddedTables(Tokenizer::Impl &impl, const std::string &jsonSource) {
  ByteLevelBpeTokenizer &bpe = *impl.bpe;
  std::size_t size = bpe.model.size();
  for (const AddedTokenSpec &token : impl.added)
    size = std::max(size, static_cast<std::size_t>(token.id) + 1);
  // Without holes there are at most this many ids; checking first keeps a
  // huge id from allocating a huge table.
  if (size > bpe.model.size() + impl.added.size())
    return makeError("{}: added token ids reach {}, but the vocab has {} tokens and there are {} "
                     "added tokens (ids must run 0..{} without holes)",
                     jsonSource, size - 1, bpe.model.size(), impl.added.size(),
                     bpe.model.size() + impl.added.size() - 1);
  for (TokenId id : bpe.prefix)
    if (static_cast<std::size_t>(id) >= size)
      return makeError("{}: the post-processor adds id {}, which is not a token", jsonSource, id);
  for (TokenId id : bpe.suffix)
    if (static_cast<std::size_t>(id) >= size)
      return makeError("{}: the post-processor adds id {}, which is not a token", jsonSource, id);
  impl.vocabSize = size;
  impl.pieceCount = bpe.model.size();
  impl.addedIndexById.assign(size, -1);
  for (std::size_t i = 0; i < impl.added.size(); ++i)
    impl.addedIndexById[static_cast<std::size_t>(impl.added[i].id)] = static_cast<std::int32_t>(i);
  // Every id below vocabSize must mean something (as for tokenizer.model).
  for (std::size_t id = 0; id < size; ++id)
    if (impl.addedIndexById[id] < 0 && !bpe.model.idToToken(static_cast<TokenId>(id)))
      return makeError("{}: id {} is neither a vocab token nor an added token (ids must run "
                       "0..{} without holes)",
                       jsonSource, id, size - 1);

  std::vector<AddedTokenMatcher::Entry> raw, normalized;
  for (std::size_t i = 0; i < bpe.addedTokens.size(); ++i) {
    const ByteLevelBpeTokenizer::AddedToken &token = bpe.addedTokens[i];
    AddedTokenMatcher::Entry entry{token.spec.content, token.spec.lstrip, token.spec.rstrip};
    std::size_t index = static_cast<std::size_t>(impl.addedIndexById[token.spec.id]);
    if (token.normalized) {
      normalized.push_back(std::move(entry));
      impl.normalizedMatcherAdded.push_back(index);
    } else {
      raw.push_back(std::move(entry));
      impl.matcherAdded.push_back(index);
    }
  }
  impl.matcher = AddedTokenMatcher(std::move(raw));
  impl.normalizedMatcher = AddedTokenMatcher(std::move(normalized));
  return Status::success();
}

} // namespace

Status openByteLevelBpe(Tokenizer::Impl &impl, const TokenizerConfig &config) {
  std::filesystem::path jsonPath = impl.directory / kTokenizerJsonFileName;
  std::string jsonSource = jsonPath.string();
  std::string configSource = (impl.directory / "tokenizer_config.json").string();
  Expected<ByteLevelBpeTokenizer> loaded = loadTokenizerJson(jsonPath);
  if (!loaded)
    return loaded.error();
  impl.bpe = std::make_unique<ByteLevelBpeTokenizer>(std::move(*loaded));
  impl.legacy = false;
  impl.addPrefixSpace = false;
  impl.chatTemplate = config.chatTemplate;
  impl.chatTemplateFile = config.chatTemplateFile;
  // tokenizer.json's added_tokens are what `tokenizers` uses (the config's
  // added_tokens_decoder repeats them for transformers).
  for (const ByteLevelBpeTokenizer::AddedToken &token : impl.bpe->addedTokens) {
    impl.added.push_back(token.spec);
    impl.addedIdByContent.emplace(token.spec.content, token.spec.id);
  }
  if (Status status = resolveNamedTokens(impl, config, configSource); !status)
    return status;
  if (Status status = buildAddedTables(impl, jsonSource); !status)
    return status;

  // The post-processor decides (PreTrainedTokenizerFast, Qwen2, GPT-2);
  // LlamaTokenizerFast alone rebuilds it from add_bos_token/add_eos_token.
  impl.addBos = !impl.bpe->prefix.empty();
  impl.addEos = !impl.bpe->suffix.empty();
  if (config.tokenizerClass &&
      (*config.tokenizerClass == "LlamaTokenizerFast" || *config.tokenizerClass == "LlamaTokenizer")) {
    impl.addBos = config.addBosToken.value_or(impl.addBos);
    impl.addEos = config.addEosToken.value_or(impl.addEos);
  }
  if (impl.addBos && impl.bpe->prefix.empty() && !impl.bos)
    return makeError("{}: add_bos_token is true but there is no bos token", configSource);
  if (impl.addEos && impl.bpe->suffix.empty() && !impl.eos)
    return makeError("{}: add_eos_token is true but there is no eos token", configSource);
  return Status::success();
}

Expected<std::vector<TokenId>> encodeByteLevelBpe(const Tokenizer::Impl &impl,
                                                  std::string_view text, bool addBos,
                                                  bool addEos) {
  const ByteLevelBpeTokenizer &bpe = *impl.bpe;
  if (Expected<std::u32string> valid = decodeUtf8(text); !valid)
    return makeError("cannot encode: {}", valid.message());
  std::vector<TokenId> ids;
  if (addBos) {
    if (!bpe.prefix.empty())
      ids = bpe.prefix;
    else
      ids.push_back(*impl.bos);
  }
  Expected<std::vector<TextSegment>> segments = impl.matcher.split(text);
  if (!segments)
    return makeError("cannot encode: {}", segments.message());
  for (const TextSegment &segment : *segments) {
    if (segment.added >= 0) {
      ids.push_back(impl.added[impl.matcherAdded[static_cast<std::size_t>(segment.added)]].id);
      continue;
    }
    Expected<std::u32string> chars = decodeUtf8(segment.text);
    if (!chars) // cannot happen: the text was valid and added tokens are whole
      return makeError("cannot encode: {}", chars.message());
    if (bpe.nfc && !unicode::isNfc(*chars))
      return makeError("cannot encode: the tokenizer normalizes text to NFC, and this text is not "
                       "(known to be) in NFC; NFC normalization is not implemented (Unicode "
                       "{} quick check)",
                       unicode::kUnicodeVersion);
    Expected<std::vector<TextSegment>> pieces = impl.normalizedMatcher.split(segment.text);
    if (!pieces)
      return makeError("cannot encode: {}", pieces.message());
    for (const TextSegment &piece : *pieces) {
      if (piece.added >= 0) {
        ids.push_back(
            impl.added[impl.normalizedMatcherAdded[static_cast<std::size_t>(piece.added)]].id);
        continue;
      }
      Expected<std::u32string> pieceChars = decodeUtf8(piece.text);
      if (!pieceChars)
        return makeError("cannot encode: {}", pieceChars.message());
      Expected<std::vector<std::string>> words = bpe.preTokenizer.split(*pieceChars);
      if (!words)
        return makeError("cannot encode: {}", words.message());
      for (const std::string &word : *words)
        bpe.model.encodeWord(word, ids);
    }
  }
  if (addEos) {
    if (!bpe.suffix.empty())
      ids.insert(ids.end(), bpe.suffix.begin(), bpe.suffix.end());
    else
      ids.push_back(*impl.eos);
  }
  return ids;
}

Expected<std::string> decodeByteLevelBpe(const Tokenizer::Impl &impl, std::span<const TokenId> ids,
                                         const DecodeOptions &options) {
  // `tokenizers` runs every token, added ones included, through the
  // ByteLevel decoder, then repairs the bytes as String::from_utf8_lossy.
  std::string bytes;
  for (TokenId id : ids) {
    const AddedTokenSpec *added = impl.addedById(id);
    if (options.skipSpecialTokens &&
        (impl.namedSpecialIds.contains(id) || (added && added->special)))
      continue;
    if (added) {
      byteLevelDecodeToken(added->content, bytes);
    } else if (const std::string *token = impl.bpe->model.idToToken(id)) {
      byteLevelDecodeToken(*token, bytes);
    }
  }
  return toUtf8Lossy(bytes);
}

} // namespace linnet::rt
