// JSON parsing for the checkpoint files (safetensors headers, shard indexes,
// config.json), with the checks nlohmann::json does not do by default.
//
// nlohmann::json silently keeps only the last of two equal keys in one
// object. In a checkpoint that would hide a tensor listed twice (in a header,
// or in an index's weight_map with two different shards), so duplicate keys
// are an error here. Parse errors become an Error naming the source instead
// of an exception. Assumes the text is the whole document (trailing
// whitespace, as in padded safetensors headers, is allowed).
#pragma once

#include "runtime/support/Status.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace linnet::rt {

// Arrays and objects nested deeper than this are an error: no document the
// runtime reads needs more (a tensor literal of rank 512), and every value
// then prints (`dump`), compares and is destroyed without exhausting the
// stack (a 200 KB safetensors header of 100000 nested arrays crashed the
// error message that printed it).
inline constexpr std::size_t kMaxJsonDepth = 512;

// Parses `text` as one JSON document. `sourceName` prefixes every message,
// e.g. "model.safetensors: header".
Expected<nlohmann::json> parseStrictJson(std::string_view text, std::string_view sourceName);

// `text` quoted and escaped as a JSON string, for naming tensors and keys in
// messages without letting control characters or quotes garble them.
std::string jsonQuoted(std::string_view text);

} // namespace linnet::rt
