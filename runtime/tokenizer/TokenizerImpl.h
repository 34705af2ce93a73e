// The inside of a Tokenizer, shared by Tokenizer.cpp (open, encode, decode),
// ByteLevelBpeTokenizer.cpp (the same for tokenizer.json) and ChatFormat.cpp. Not part of the runtime's interface: only files of
// runtime/tokenizer/ include it, so SentencePiece's header stays out of
// everyone else's build.
#pragma once

#include "runtime/tokenizer/TextSplit.h"
#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/tokenizer/TokenizerJson.h"

#include <sentencepiece_processor.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace linnet::rt {

struct Tokenizer::Impl {
  std::filesystem::path directory;
  // Loaded with add_dummy_prefix turned off unless `legacy` (as
  // transformers' LlamaTokenizer does); see docs/tokenizer.md.
  sentencepiece::SentencePieceProcessor processor;
  std::size_t pieceCount = 0;
  std::size_t vocabSize = 0;

  // Added tokens (from added_tokens_decoder, plus named special tokens that
  // only the SentencePiece vocabulary had). The matcher's entries are in the
  // same order, so a segment's `added` index points into this vector.
  std::vector<AddedTokenSpec> added;
  std::vector<std::int32_t> addedIndexById; // vocabSize entries, -1 where none
  std::map<std::string, TokenId, std::less<>> addedIdByContent;
  AddedTokenMatcher matcher;

  // bos/eos/unk/pad and additional_special_tokens: transformers'
  // all_special_tokens, which decide whether a leading "▁" is dropped.
  std::set<std::string, std::less<>> namedSpecialTokens;
  std::set<TokenId> namedSpecialIds;
  std::optional<TokenId> bos, eos, unk, pad;
  bool addBos = true;
  bool addEos = false;
  bool legacy = true;
  bool addPrefixSpace = true;

  // The unk token's text and how many pieces SentencePiece makes of it: the
  // non-legacy rule encodes "<unk>" + segment and drops those pieces.
  std::string unkText;
  std::size_t unkPieceCount = 0;

  std::optional<std::string> chatTemplate;
  std::string chatTemplateFile; // where it came from, for messages

  // Set when the checkpoint has tokenizer.json (byte-level BPE) instead of
  // tokenizer.model; `processor` is then unused. `matcher` then holds the
  // added tokens matched on raw text and `normalizedMatcher` those matched
  // after normalization; their entries' indices into `added` are in
  // matcherAdded / normalizedMatcherAdded. pieceCount is the BPE vocab's
  // size.
  std::unique_ptr<ByteLevelBpeTokenizer> bpe;
  AddedTokenMatcher normalizedMatcher;
  std::vector<std::size_t> matcherAdded;
  std::vector<std::size_t> normalizedMatcherAdded;

  const AddedTokenSpec *addedById(TokenId id) const {
    if (id < 0 || static_cast<std::size_t>(id) >= addedIndexById.size() ||
        addedIndexById[static_cast<std::size_t>(id)] < 0)
      return nullptr;
    return &added[static_cast<std::size_t>(addedIndexById[static_cast<std::size_t>(id)])];
  }
};

// The named special tokens of either format (Tokenizer.cpp): bos, eos, unk
// and pad (each its text, when there is one) and the additional special
// tokens, each resolved to an id by `resolve` (which reports an unknown text)
// and recorded in `impl` (bos/eos/unk/pad, namedSpecialTokens/Ids).
struct NamedSpecialTexts {
  std::optional<std::string> bos, eos, unk, pad;
  const std::vector<std::string> &additional;
};
using NamedTokenResolver = std::function<Expected<TokenId>(std::string_view role, const std::string &text)>;
Status recordNamedSpecialTokens(Tokenizer::Impl &impl, const NamedSpecialTexts &texts,
                                const NamedTokenResolver &resolve);

// The tokenizer.json path (ByteLevelBpeTokenizer.cpp). open fills `impl`
// (whose `directory` is set) from the checkpoint's tokenizer.json and the
// already read tokenizer_config.json; encode and decode get ids already
// checked for range and the resolved bos/eos choice.
Status openByteLevelBpe(Tokenizer::Impl &impl, const TokenizerConfig &config);
Expected<std::vector<TokenId>> encodeByteLevelBpe(const Tokenizer::Impl &impl,
                                                  std::string_view text, bool addBos,
                                                  bool addEos);
Expected<std::string> decodeByteLevelBpe(const Tokenizer::Impl &impl, std::span<const TokenId> ids,
                                         const DecodeOptions &options);

} // namespace linnet::rt
