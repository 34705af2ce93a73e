// Reading a Hugging Face `tokenizer.json` (the `tokenizers` library's
// serialized pipeline) whose model is a byte-level BPE (GPT-2, Llama 3,
// Qwen2/2.5/3, SmolLM, ...). Everything outside what this runtime implements
// is an Error naming the file and the part:
//
//   "added_tokens"    id, content, special, lstrip, rstrip, normalized;
//                     single_word: true is refused
//   "normalizer"      null, or {"type": "NFC"} (see docs/tokenizer.md)
//   "pre_tokenizer"   see PreTokenizer.h; must include a ByteLevel step
//   "model"           {"type": "BPE", ...}, see ByteLevelBpe.h
//   "post_processor"  null, ByteLevel (offsets only), TemplateProcessing
//                     (its "single" template: the special tokens before and
//                     after $A), or a Sequence of those
//   "decoder"         {"type": "ByteLevel"} (or a Sequence of just that)
//   "truncation", "padding", "version": ignored (transformers resets
//                     truncation and padding on every call)
#pragma once

#include "runtime/support/Status.h"
#include "runtime/tokenizer/ByteLevelBpe.h"
#include "runtime/tokenizer/PreTokenizer.h"
#include "runtime/tokenizer/TokenizerConfig.h"

#include <filesystem>
#include <string_view>
#include <vector>

namespace linnet::rt {

struct ByteLevelBpeTokenizer {
  struct AddedToken {
    AddedTokenSpec spec;
    bool normalized = false; // matched after normalization (else on raw text)
  };
  std::vector<AddedToken> addedTokens; // as listed in the file
  bool nfc = false;                    // the normalizer is NFC
  PreTokenizer preTokenizer;
  ByteLevelBpe model;
  // What the post-processor's template puts around a single sequence.
  std::vector<TokenId> prefix;
  std::vector<TokenId> suffix;
};

inline constexpr std::string_view kTokenizerJsonFileName = "tokenizer.json";

Expected<ByteLevelBpeTokenizer> loadTokenizerJson(const std::filesystem::path &path);

// Interprets already parsed JSON; `source` names it in messages. Exposed
// for tests and the fuzzer.
Expected<ByteLevelBpeTokenizer> parseTokenizerJson(const nlohmann::json &root,
                                                   std::string_view source);

} // namespace linnet::rt
