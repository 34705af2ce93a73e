// tokenizer.json's "pre_tokenizer": how a stretch of text between added
// tokens is cut into words before BPE. Supported (anything else is an Error
// naming the file and the construct):
//
//   {"type": "ByteLevel", "add_prefix_space": b, "use_regex": b, ...}
//       a space is put in front of each piece that does not start with one
//       (add_prefix_space); the piece is split with GPT-2's pattern
//       (use_regex); then each piece's UTF-8 bytes become GPT-2's byte-level
//       characters (ByteLevel.h). "trim_offsets" only concerns offsets.
//   {"type": "Split", "pattern": {"Regex": p} | {"String": s},
//    "behavior": "Isolated", "invert": false}
//       each match, and each stretch between matches, becomes a piece
//       (Regex.h lists the supported regex subset)
//   {"type": "Digits", "individual_digits": b}
//       numeric characters (\p{N}, as Rust's char::is_numeric) become pieces
//       of their own: each alone, or in runs (SmolLM, StarCoder)
//   {"type": "Sequence", "pretokenizers": [...]}   each step on every piece
//
// Every step applies to each piece the previous steps produced, as in the
// `tokenizers` library. The pipeline must contain a ByteLevel step.
#pragma once

#include "runtime/support/Status.h"
#include "runtime/tokenizer/Regex.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace linnet::rt {

class PreTokenizer {
public:
  // GPT-2's pattern, which ByteLevel's use_regex applies.
  static constexpr std::string_view kGpt2Pattern =
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

  // `source` names the file in messages.
  static Expected<PreTokenizer> fromJson(const nlohmann::json &config, std::string_view source);

  // The words of `text`, each the UTF-8 of its byte-level characters; no
  // word is empty.
  Expected<std::vector<std::string>> split(std::u32string_view text) const;

private:
  struct Step {
    enum class Kind { Split, ByteLevel } kind = Kind::Split;
    std::shared_ptr<const Regex> regex; // Split, or ByteLevel with use_regex
    bool addPrefixSpace = false;
  };
  Status addSteps(const nlohmann::json &config, std::string_view source, int depth);

  std::vector<Step> steps_;
};

// The `"type"` string of a tokenizer.json component ("" when it has none):
// how every part of the file names what it is.
std::string jsonType(const nlohmann::json &config);

} // namespace linnet::rt
