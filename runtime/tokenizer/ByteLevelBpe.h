// tokenizer.json's "model" of type "BPE", as the `tokenizers` library runs
// it: a word (one pre-token, already in byte-level characters) starts as
// one symbol per character and pairs of adjacent symbols are merged,
// lowest merge rank first (leftmost first among equal ranks), until no
// adjacent pair has a merge.
//
// Read: "vocab" (token -> id), "merges" (each "a b" or ["a", "b"]; the
// index is the rank; a, b and a+b must all be in the vocab), "unk_token"
// (null, or a vocab token used for characters not in the vocab; null drops
// them, as `tokenizers` does), "fuse_unk", "ignore_merges" (a word that is
// itself in the vocab is taken whole: Llama 3). Refused: "byte_fallback"
// true, a non-empty "continuing_subword_prefix" or "end_of_word_suffix", a
// "dropout" above 0.
#pragma once

#include "runtime/support/Status.h"
#include "runtime/tokenizer/TokenizerConfig.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace linnet::rt {

class ByteLevelBpe {
public:
  // `model` is the parsed "model" object; `source` names the file.
  static Expected<ByteLevelBpe> fromJson(const nlohmann::json &model, std::string_view source);

  // Appends the ids of one word.
  void encodeWord(std::string_view word, std::vector<TokenId> &out) const;

  std::optional<TokenId> tokenToId(std::string_view token) const;
  // The vocab token with this id, or nullptr (out of range or unused id).
  const std::string *idToToken(TokenId id) const;
  // One more than the largest vocab id.
  std::size_t size() const { return tokens_.size(); }

private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct Merge {
    std::uint32_t rank;
    TokenId result;
  };
  static std::uint64_t pairKey(TokenId a, TokenId b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
           static_cast<std::uint32_t>(b);
  }
  const Merge *findMerge(TokenId a, TokenId b) const;

  std::unordered_map<std::string, TokenId, StringHash, std::equal_to<>> vocab_;
  std::vector<std::string> tokens_;  // by id
  std::vector<bool> hasToken_;       // by id
  std::unordered_map<std::uint64_t, Merge> merges_;
  std::optional<TokenId> unk_;
  bool fuseUnk_ = false;
  bool ignoreMerges_ = false;
};

} // namespace linnet::rt
