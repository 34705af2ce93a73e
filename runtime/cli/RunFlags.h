// The run options' command line, shared by `linnet-run` and `linnet run` so
// both take the same flags with the same help text: addRunFlags() adds
// every RunOptions flag except the artifact and --bind (whose meaning
// differs between the two tools) to a CLI11 command. Header-only because
// CLI11 is header-only and the runtime library does not depend on it.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "runtime/cli/RunCommand.h"

#include <CLI/CLI.hpp>

namespace linnet::rt {

// A command-line error as both tools say it: CLI11's own words for an option
// given twice ("--max-new: At Most 1 required but received 2") become ours,
// as `--arg` and `--bind` say it.
inline std::string commandLineError(const CLI::Error &e) {
  std::string what = e.what();
  static constexpr std::string_view kTwice = ": At Most 1 required but received ";
  if (std::size_t at = what.find(kTwice); at != std::string::npos && at > 0)
    return what.substr(0, at) + " is given " + what.substr(at + kTwice.size()) + " times: it takes one value";
  return what;
}

// `text` read in full as a `T` by `std::from_chars` (decimal digits, a sign;
// no hex, no empty text, nothing past the range), where CLI11 alone would
// take `0x10` as 16, "" as the default, and saturate or wrap a number past
// the type's range.
template <typename T> std::optional<T> readWritten(const std::string &text) {
  T value{};
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    return std::nullopt;
  return value;
}

// A validator of a whole number in [least, 2^64 - 1], written in digits.
inline CLI::Validator wholeNumber(std::uint64_t least, std::string what, std::string name) {
  return CLI::Validator(
      [least, what](std::string &text) -> std::string {
        std::optional<std::uint64_t> value = readWritten<std::uint64_t>(text);
        if (!value || *value < least)
          return what + " must be a whole number from " + std::to_string(least) + " to 18446744073709551615, not " +
                 text;
        return {};
      },
      std::move(name));
}

// A validator of a number written in full as a `T` (readWritten).
template <typename T> CLI::Validator writtenNumber(std::string what, std::string name) {
  return CLI::Validator(
      [what](std::string &text) -> std::string {
        if (!readWritten<T>(text))
          return what + " must be " + (std::is_integral_v<T> ? "a whole number in range" : "a number") + ", not `" +
                 text + "`";
        return {};
      },
      std::move(name));
}

inline void addRunFlags(CLI::App &app, RunOptions &options) {
  app.add_option("--checkpoint", options.checkpointDir, "Hugging Face checkpoint directory");
  app.add_option("--entry", options.entry, "the entry to run");
  app.add_option("--arg", options.args,
                 "NAME=VALUE: a number, a nested list like [[1,2,3]], or @FILE.npy (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--calls", options.callsFile,
                 "FILE.json: {\"calls\": [{\"entry\": ..., \"args\": {...}, \"bind\": {...}}]}, run in one session");
  app.add_flag("--print", options.print, "print the results");
  app.add_flag("--keep-going", options.keepGoing,
               "with --calls: report a failed call and go on with the next (exit 1 at the end)");
  // A byte count is a whole number of at least 1: 0 or a negative one (which
  // would wrap) is refused, not taken for "no limit".
  const CLI::Validator byteCount = wholeNumber(1, "a byte count", "BYTES");
  app.add_option("--max-result-bytes", options.session.maxResultBytes,
                 "refuse a call whose results would take more than BYTES together (default and upper bound: a "
                 "quarter of this machine's memory)")
      ->check(byteCount);
  app.add_option("--max-call-bytes", options.session.maxCallBytes,
                 "stop the process when a call's generated code would hold more than BYTES at once (default and "
                 "upper bound: this machine's memory)")
      ->check(byteCount);
  app.add_option("--out", options.outFile, "save the results to FILE.safetensors (call i as \"i\", parts \"i.0\"...)");
  app.add_option("--prompt", options.prompt,
                 "TEXT: continue this text with the checkpoint's tokenizer, streaming the result (needs --checkpoint)");
  app.add_flag("--chat", options.chat, "with --prompt: the text is a user turn in the checkpoint's chat format");
  app.add_option("--max-new", options.maxNew, "with --prompt: at most N new tokens (default 64)")
      ->check(writtenNumber<std::int64_t>("--max-new", "N"));
  app.add_option("--temperature", options.temperature,
                 "with --prompt: sample at this temperature through `sample` (0: greedy, the default)")
      ->check(writtenNumber<double>("--temperature", "X"));
  app.add_option("--seed", options.seed, "with --prompt: the sampling key, jax.random.PRNGKey(N) (default 0)")
      ->check(wholeNumber(0, "--seed", "N"));
  app.add_option("--eos", options.eos,
                 "with --prompt: stop token: auto (tokenizer and generation_config.json) or an id (default auto)");
}

} // namespace linnet::rt
