// Loading, encoding and decoding (see Tokenizer.h; the rules are spelled
// out in docs/tokenizer.md).
//
// transformers' LlamaTokenizer with `legacy: false` (Phi-3's setting) loads
// the SentencePiece model with add_dummy_prefix turned off and adds the
// "▁" prefix itself, once, at the start of the whole text. We do the same
// edit without protobuf: a serialized ModelProto may carry a field twice and
// the parser merges the copies, so appending a NormalizerSpec that says
// add_dummy_prefix = false is exactly transformers' `MergeFrom`.
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/tokenizer/Utf8.h"

#include "runtime/checkpoint/MappedFile.h"
#include "runtime/checkpoint/StrictJson.h"
#include "runtime/support/ShownName.h"
#include "runtime/tokenizer/TokenizerImpl.h"

#include <algorithm>
#include <system_error>

namespace linnet::rt {

namespace fs = std::filesystem;

namespace {

// "▁" (U+2581), SentencePiece's visible space.
constexpr std::string_view kSpaceMarker = "\xE2\x96\x81";

// ModelProto field 3 (normalizer_spec, length-delimited, 2 bytes) holding
// NormalizerSpec field 3 (add_dummy_prefix, varint) = 0.
constexpr char kNoDummyPrefixPatch[] = {0x1A, 0x02, 0x18, 0x00};

std::string replaceAll(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  for (std::size_t hit; (hit = text.find(from, pos)) != std::string_view::npos;
       pos = hit + from.size()) {
    out.append(text.substr(pos, hit - pos));
    out.append(to);
  }
  out.append(text.substr(pos));
  return out;
}

Status loadModel(Tokenizer::Impl &impl, const fs::path &path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    return makeError("{}: no {} or {} (the checkpoint has no tokenizer)",
                     path.parent_path().string(), Tokenizer::kModelFileName,
                     kTokenizerJsonFileName);
  Expected<MappedFile> file = MappedFile::open(path);
  if (!file)
    return file.error();
  std::string bytes(reinterpret_cast<const char *>(file->data()), file->size());
  if (!impl.legacy)
    bytes.append(kNoDummyPrefixPatch, sizeof kNoDummyPrefixPatch);
  sentencepiece::util::Status status = impl.processor.LoadFromSerializedProto(bytes);
  if (!status.ok()) {
    // The library's message is its own source location and call
    // (`./src/sentencepiece_processor.cc(232) [model_proto->ParseFromArray(...)]`).
    std::string why = status.message();
    if (why.find("ParseFromArray") != std::string::npos)
      why = "its bytes are no serialized model";
    else if (std::size_t cut = why.find(") "); why.rfind("./", 0) == 0 && cut != std::string::npos)
      why = why.substr(cut + 2);
    return makeError("{}: not a valid SentencePiece model: {}", path.string(), shownText(why));
  }
  int pieces = impl.processor.GetPieceSize();
  if (pieces <= 0)
    return makeError("{}: the SentencePiece model has no pieces", path.string());
  impl.pieceCount = static_cast<std::size_t>(pieces);
  return Status::success();
}

// Added ids below the SentencePiece range may re-label pieces (transformers
// lets the added token win); ids above it must fill pieceCount..vocabSize
// with no holes, so every id below vocabSize means something.
Status checkAddedIds(const std::vector<AddedTokenSpec> &added, std::size_t pieceCount,
                     const std::string &source) {
  std::size_t above = std::count_if(added.begin(), added.end(), [&](const AddedTokenSpec &t) {
    return static_cast<std::size_t>(t.id) >= pieceCount;
  });
  for (const AddedTokenSpec &token : added)
    if (static_cast<std::size_t>(token.id) >= pieceCount + above)
      return makeError("{}: added token {} has id {}, out of range: tokenizer.model has {} pieces "
                       "and {} added tokens lie above them, so their ids must be {}..{}",
                       source, jsonQuoted(token.content), token.id, pieceCount, above, pieceCount,
                       pieceCount + above - 1);
  return Status::success();
}

// Resolves a named special token (bos, eos, ...) to an id: an added token,
// or else a piece of the model, which then becomes an added token too (as
// transformers adds every special token to its no-split list).
Expected<TokenId> resolveNamedToken(Tokenizer::Impl &impl, std::string_view role,
                                    const std::string &text, const std::string &source) {
  if (auto it = impl.addedIdByContent.find(text); it != impl.addedIdByContent.end())
    return it->second;
  int piece = impl.processor.PieceToId(text);
  // PieceToId answers the unk id for unknown text: check it round-trips.
  if (piece < 0 || impl.processor.IdToPiece(piece) != text)
    return makeError("{}: {} {} is neither an added token nor a piece of {}", source, role,
                     jsonQuoted(text), Tokenizer::kModelFileName);
  if (std::any_of(impl.added.begin(), impl.added.end(),
                  [&](const AddedTokenSpec &t) { return t.id == piece; }))
    return makeError("{}: {} {} is piece {}, which an added token replaces", source, role,
                     jsonQuoted(text), piece);
  impl.added.push_back({piece, text, /*special=*/true, false, false, false});
  impl.addedIdByContent.emplace(text, piece);
  return piece;
}

// The model's own control piece for bos/eos/unk, used when the config does
// not name one (no tokenizer_config.json, or a null entry).
std::optional<std::string> modelPiece(const Tokenizer::Impl &impl, int id) {
  if (id < 0 || static_cast<std::size_t>(id) >= impl.pieceCount)
    return std::nullopt;
  return impl.processor.IdToPiece(id);
}

} // namespace

Status recordNamedSpecialTokens(Tokenizer::Impl &impl, const NamedSpecialTexts &texts,
                                const NamedTokenResolver &resolve) {
  struct Named {
    std::string_view role;
    const std::optional<std::string> &text;
    std::optional<TokenId> *target;
  };
  Named named[] = {{"bos_token", texts.bos, &impl.bos},
                   {"eos_token", texts.eos, &impl.eos},
                   {"unk_token", texts.unk, &impl.unk},
                   {"pad_token", texts.pad, &impl.pad}};
  auto record = [&](std::string_view role, const std::string &text) -> Expected<TokenId> {
    Expected<TokenId> id = resolve(role, text);
    if (!id)
      return id.error();
    impl.namedSpecialTokens.insert(text);
    impl.namedSpecialIds.insert(*id);
    return *id;
  };
  for (Named &entry : named) {
    if (!entry.text)
      continue;
    Expected<TokenId> id = record(entry.role, *entry.text);
    if (!id)
      return id.error();
    *entry.target = *id;
  }
  for (const std::string &text : texts.additional)
    if (Expected<TokenId> id = record("additional special token", text); !id)
      return id.error();
  return Status::success();
}

namespace {

Status resolveSpecialTokens(Tokenizer::Impl &impl, const TokenizerConfig &config,
                            const std::string &source) {
  NamedSpecialTexts texts{
      config.bosToken ? config.bosToken : modelPiece(impl, impl.processor.bos_id()),
      config.eosToken ? config.eosToken : modelPiece(impl, impl.processor.eos_id()),
      config.unkToken ? config.unkToken : modelPiece(impl, impl.processor.unk_id()),
      config.padToken,
      config.additionalSpecialTokens,
  };
  Status recorded = recordNamedSpecialTokens(impl, texts, [&](std::string_view role, const std::string &text) {
    return resolveNamedToken(impl, role, text, config.sourceOf(role, source));
  });
  if (!recorded)
    return recorded;
  impl.unkText =
      config.unkToken ? *config.unkToken : modelPiece(impl, impl.processor.unk_id()).value_or("");
  return Status::success();
}

Status buildTables(Tokenizer::Impl &impl, const TokenizerConfig &config,
                   const std::string &source) {
  if (Status status = checkAddedIds(config.addedTokens, impl.pieceCount, source); !status)
    return status;
  impl.added = config.addedTokens;
  for (const AddedTokenSpec &token : impl.added)
    impl.addedIdByContent.emplace(token.content, token.id);
  if (Status status = resolveSpecialTokens(impl, config, source); !status)
    return status;

  TokenId maxId = impl.added.empty()
                      ? 0
                      : std::max_element(impl.added.begin(), impl.added.end(),
                                         [](const auto &a, const auto &b) { return a.id < b.id; })
                            ->id;
  impl.vocabSize = std::max(impl.pieceCount, static_cast<std::size_t>(maxId) + 1);
  impl.addedIndexById.assign(impl.vocabSize, -1);
  std::vector<AddedTokenMatcher::Entry> entries;
  for (std::size_t i = 0; i < impl.added.size(); ++i) {
    impl.addedIndexById[static_cast<std::size_t>(impl.added[i].id)] = static_cast<std::int32_t>(i);
    entries.push_back({impl.added[i].content, impl.added[i].lstrip, impl.added[i].rstrip});
  }
  impl.matcher = AddedTokenMatcher(std::move(entries));
  return Status::success();
}

} // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer &&) noexcept = default;
Tokenizer &Tokenizer::operator=(Tokenizer &&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Expected<Tokenizer> Tokenizer::open(const fs::path &checkpointDir) {
  auto impl = std::make_unique<Impl>();
  impl->directory = checkpointDir;
  Expected<TokenizerConfig> config = loadTokenizerConfig(checkpointDir);
  if (!config)
    return config.error();
  std::string source = (checkpointDir / "tokenizer_config.json").string();
  // No tokenizer.model but a tokenizer.json: the byte-level BPE path
  // (ByteLevelBpeTokenizer.cpp), where tokenizer.json describes the rules.
  std::error_code ec;
  if (!fs::exists(checkpointDir / kModelFileName, ec) &&
      fs::exists(checkpointDir / kTokenizerJsonFileName, ec)) {
    if (Status status = openByteLevelBpe(*impl, *config); !status)
      return status.error();
    return Tokenizer(std::move(impl));
  }
  // The rules below are LlamaTokenizer's; another class (Gemma, T5, ...)
  // would tokenize differently, so refuse instead of guessing.
  if (config->tokenizerClass && *config->tokenizerClass != "LlamaTokenizer" &&
      *config->tokenizerClass != "LlamaTokenizerFast")
    return makeError("{}: unsupported tokenizer_class {} (only LlamaTokenizer's rules are "
                     "implemented)",
                     source, jsonQuoted(*config->tokenizerClass));
  // transformers' defaults when a key is missing.
  impl->legacy = config->legacy.value_or(true);
  impl->addPrefixSpace = config->addPrefixSpace.value_or(true);
  impl->addBos = config->addBosToken.value_or(true);
  impl->addEos = config->addEosToken.value_or(false);
  impl->chatTemplate = config->chatTemplate;
  impl->chatTemplateFile = config->chatTemplateFile;

  if (Status status = loadModel(*impl, checkpointDir / kModelFileName); !status)
    return status.error();
  if (Status status = buildTables(*impl, *config, source); !status)
    return status.error();
  if (impl->addBos && !impl->bos)
    return makeError("{}: add_bos_token is true but there is no bos token", source);
  if (impl->addEos && !impl->eos)
    return makeError("{}: add_eos_token is true but there is no eos token", source);
  if (!impl->legacy) {
    std::vector<std::string> pieces;
    if (!impl->processor.Encode(impl->unkText, &pieces).ok())
      return makeError("{}: cannot encode the unk token", source);
    impl->unkPieceCount = pieces.size();
  }
  return Tokenizer(std::move(impl));
}

Expected<std::vector<TokenId>> Tokenizer::encode(std::string_view text,
                                                 const EncodeOptions &options) const {
  const Impl &impl = *impl_;
  std::vector<TokenId> ids;
  bool addBos = options.addBos.value_or(impl.addBos);
  bool addEos = options.addEos.value_or(impl.addEos);
  if (impl.bpe) {
    if ((addBos && !impl.bos && impl.bpe->prefix.empty()) ||
        (addEos && !impl.eos && impl.bpe->suffix.empty()))
      return makeError("{}: cannot add {}: the tokenizer has none", impl.directory.string(),
                       addBos && !impl.bos && impl.bpe->prefix.empty() ? "bos" : "eos");
    return encodeByteLevelBpe(impl, text, addBos, addEos);
  }
  if ((addBos && !impl.bos) || (addEos && !impl.eos))
    return makeError("{}: cannot add {}: the tokenizer has none", impl.directory.string(),
                     addBos && !impl.bos ? "bos" : "eos");
  // SentencePiece would split invalid bytes into byte pieces silently; text
  // from a terminal in another encoding is an error, as on the BPE path.
  if (Expected<std::u32string> decoded = decodeUtf8(text); !decoded)
    return decoded.error();

  // transformers' non-legacy rule: visible spaces become plain spaces and
  // the whole text gets one "▁" prefix; the model itself adds none.
  std::string prepared;
  if (!impl.legacy && !text.empty()) {
    prepared = replaceAll(text, kSpaceMarker, " ");
    if (impl.addPrefixSpace)
      prepared.insert(0, kSpaceMarker);
    text = prepared;
  }

  // Token strings of the first two tokens, for the leading-"▁" rule below.
  std::vector<std::string> leading;
  std::vector<std::string> pieces;
  Expected<std::vector<TextSegment>> segments = impl.matcher.split(text);
  if (!segments)
    return makeError("cannot encode: {}", segments.message());
  for (const TextSegment &segment : *segments) {
    if (segment.added >= 0) {
      const AddedTokenSpec &token = impl.added[static_cast<std::size_t>(segment.added)];
      ids.push_back(token.id);
      if (leading.size() < 2)
        leading.push_back(token.content);
      continue;
    }
    // A segment that starts with a space is encoded behind the unk token,
    // whose pieces are then dropped: without a dummy prefix SentencePiece
    // would otherwise lose that leading space (transformers' _tokenize).
    bool behindUnk =
        !impl.legacy && (segment.text.starts_with(kSpaceMarker) || segment.text.starts_with(' '));
    std::string input =
        behindUnk ? impl.unkText + std::string(segment.text) : std::string(segment.text);
    pieces.clear();
    sentencepiece::util::Status status = impl.processor.Encode(input, &pieces);
    if (!status.ok())
      return makeError("{}: SentencePiece failed: {}", impl.directory.string(), status.message());
    std::size_t skip = behindUnk && pieces.size() >= impl.unkPieceCount ? impl.unkPieceCount : 0;
    for (std::size_t i = skip; i < pieces.size(); ++i) {
      auto addedIt = impl.addedIdByContent.find(pieces[i]);
      ids.push_back(addedIt != impl.addedIdByContent.end() ? addedIt->second
                                                           : impl.processor.PieceToId(pieces[i]));
      if (leading.size() < 2)
        leading.push_back(pieces[i]);
    }
  }
  // The prefix of a text that starts with a named special token is dropped
  // (transformers keeps it before other added tokens, e.g. "<|user|>").
  if (!impl.legacy && leading.size() == 2 && leading[0] == kSpaceMarker &&
      impl.namedSpecialTokens.contains(leading[1]))
    ids.erase(ids.begin());

  if (addBos)
    ids.insert(ids.begin(), *impl.bos);
  if (addEos)
    ids.push_back(*impl.eos);
  return ids;
}

Expected<std::string> Tokenizer::decode(std::span<const TokenId> ids,
                                        const DecodeOptions &options) const {
  const Impl &impl = *impl_;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= impl.vocabSize)
      return makeError("token id {} at position {} is out of range: the vocabulary has ids "
                       "0..{}",
                       ids[i], i, impl.vocabSize - 1);
  if (impl.bpe)
    return decodeByteLevelBpe(impl, ids, options);

  std::string out;
  std::vector<int> run; // consecutive SentencePiece ids, decoded together
  bool runStartsOutput = false;
  bool first = true;
  auto flush = [&]() -> Status {
    if (run.empty())
      return Status::success();
    std::string text;
    sentencepiece::util::Status status = impl.processor.Decode(run, &text);
    if (!status.ok())
      return makeError("{}: SentencePiece failed: {}", impl.directory.string(), status.message());
    // Undo the prefix encode() added: one space, at the start of the text.
    if (runStartsOutput && !impl.legacy && impl.addPrefixSpace &&
        impl.processor.IdToPiece(run.front()).starts_with(kSpaceMarker) && text.starts_with(' '))
      text.erase(0, 1);
    out += text;
    run.clear();
    return Status::success();
  };
  for (TokenId id : ids) {
    if (options.skipSpecialTokens && isSpecial(id))
      continue;
    if (const AddedTokenSpec *token = impl.addedById(id)) {
      if (Status status = flush(); !status)
        return status.error();
      out += token->content;
    } else {
      if (run.empty())
        runStartsOutput = first;
      run.push_back(id);
    }
    first = false;
  }
  if (Status status = flush(); !status)
    return status.error();
  return out;
}

std::optional<TokenId> Tokenizer::tokenToId(std::string_view token) const {
  if (auto it = impl_->addedIdByContent.find(token); it != impl_->addedIdByContent.end())
    return it->second;
  if (impl_->bpe)
    return impl_->bpe->model.tokenToId(token);
  int id = impl_->processor.PieceToId(token);
  if (id < 0 || impl_->processor.IdToPiece(id) != token)
    return std::nullopt;
  return id;
}

Expected<std::string> Tokenizer::idToToken(TokenId id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= impl_->vocabSize)
    return makeError("token id {} is out of range: the vocabulary has ids 0..{}", id,
                     impl_->vocabSize - 1);
  if (const AddedTokenSpec *token = impl_->addedById(id))
    return token->content;
  if (impl_->bpe) {
    const std::string *token = impl_->bpe->model.idToToken(id);
    return token ? *token : std::string();
  }
  return impl_->processor.IdToPiece(id);
}

bool Tokenizer::isSpecial(TokenId id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= impl_->vocabSize)
    return false;
  if (impl_->namedSpecialIds.contains(id))
    return true;
  if (const AddedTokenSpec *token = impl_->addedById(id))
    return token->special;
  if (impl_->bpe)
    return false;
  return impl_->processor.IsControl(id) || impl_->processor.IsUnknown(id);
}

bool Tokenizer::isAddedToken(TokenId id) const { return impl_->addedById(id) != nullptr; }
std::size_t Tokenizer::vocabSize() const { return impl_->vocabSize; }

std::size_t Tokenizer::longestTokenBytes() const {
  std::size_t longest = 0;
  for (std::size_t id = 0; id < vocabSize(); ++id)
    if (Expected<std::string> spelled = idToToken(static_cast<TokenId>(id)))
      longest = std::max(longest, spelled->size());
  return longest;
}
std::size_t Tokenizer::pieceCount() const { return impl_->pieceCount; }
std::optional<TokenId> Tokenizer::bosId() const { return impl_->bos; }
std::optional<TokenId> Tokenizer::eosId() const { return impl_->eos; }
std::optional<TokenId> Tokenizer::unkId() const { return impl_->unk; }
std::optional<TokenId> Tokenizer::padId() const { return impl_->pad; }
bool Tokenizer::addsBos() const { return impl_->addBos; }
bool Tokenizer::addsEos() const { return impl_->addEos; }
bool Tokenizer::isLegacy() const { return impl_->legacy; }

} // namespace linnet::rt
