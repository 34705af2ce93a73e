// Text generation from a prompt on a loaded Session: the loop behind
// `--prompt` in `linnet-run` and `linnet run`.
//
// The prompt (or, with `chat`, the checkpoint's chat format around it as a
// user turn) is encoded with the checkpoint's tokenizer. Every prompt token
// but the last goes through `prefill` from position 0; the last one is the
// first input of the generating entry, so every generated token is chosen by
// the compiled model, never by host code:
//
//   greedy (temperature 0): `generate_until<MaxNew=1>(token, pos, eos)` once
//     per token. The cache lives in the session's state, so each call
//     continues where the last stopped, and each token is written as text as
//     soon as it exists.
//   sampling (temperature > 0): one `sample<Steps=N>(token, pos, key,
//     temperature)` call with key = jax.random.PRNGKey(seed) (two u32 words
//     [seed >> 32, seed & 0xffffffff], i.e. [0, seed] for seeds below 2^32),
//     then the tokens are written up to the first stop id. One call keeps the
//     tokens exactly those of the entry's own key schedule (split<Steps>(key),
//     as jax does) at the price of running N steps even when eos comes early.
//
// Generation stops at a stop id (not written), after maxNew tokens, or when
// the cache is full (position MaxSeq). The artifact must be built with
// Batch = 1 and have `prefill` and the entry the mode needs; the caller
// resolves the stop ids (StopTokens.h).
#pragma once

#include "runtime/session/Session.h"
#include "runtime/support/Status.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace linnet::rt {

struct GenerateOptions {
  std::string prompt;
  bool chat = false;          // wrap the prompt as a user turn, do not echo it
  std::int64_t maxNew = 64;   // > 0
  double temperature = 0;     // 0: greedy; > 0: sample
  std::uint64_t seed = 0;
  std::vector<TokenId> stopIds;
};

enum class StopReason { StopToken, MaxNew, CacheFull };

struct GenerateReport {
  std::size_t promptTokens = 0;
  std::vector<TokenId> generated; // without the stop id
  StopReason reason = StopReason::MaxNew;
  // Generated ids the tokenizer has no text for (past its vocabulary, below
  // the model's), printed as nothing.
  std::size_t untokenized = 0;
};

// jax.random.PRNGKey(seed) as the `key` argument's two words.
std::array<std::int64_t, 2> prngKeyFromSeed(std::uint64_t seed);

// Runs the generation, writing text to `out` as it is produced (the prompt
// first, unless `chat`), then a newline. Errors leave the text written so far.
Expected<GenerateReport> generateText(Session &session, const Tokenizer &tokenizer, const GenerateOptions &options,
                                      std::FILE *out);

} // namespace linnet::rt
