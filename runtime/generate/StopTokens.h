// The token ids that end a generation (`--eos auto|ID`).
//
// `auto` is what Hugging Face's generate() stops at: the tokenizer's eos id
// and every id in generation_config.json's `eos_token_id` (an integer or a
// list of integers) when the checkpoint has that file. A number is that one
// id alone. The ids are checked against the tokenizer's vocabulary so a typo
// is an error, not a generation that never stops.
#pragma once

#include "runtime/support/Status.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <filesystem>
#include <string_view>
#include <vector>

namespace linnet::rt {

inline constexpr std::string_view kGenerationConfigFileName = "generation_config.json";

// Returns the stop ids, sorted and without repeats; never empty on success.
Expected<std::vector<TokenId>> resolveStopTokens(std::string_view eosOption, const Tokenizer &tokenizer,
                                                 const std::filesystem::path &checkpointDir);

} // namespace linnet::rt
