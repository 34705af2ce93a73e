// The run command: load an artifact, bind a checkpoint, run entries, print
// or save the results. `linnet-run ARTIFACT ...` (runtime/cli/main.cpp) is a
// thin CLI11 front end over runCommand(); the compiler's `linnet run PKG`
// builds an artifact in memory and calls runCommand() with the image, so
// both commands behave and report the same.
//
// Two modes (docs/runtime.md has the full command line):
//   --entry NAME [--arg NAME=VALUE]... [--bind NAME=VALUE]...
//       one call; VALUE is a JSON-style number or nested list, or @FILE.npy
//   --calls FILE.json
//       {"calls": [{"entry": ..., "args": {...}, "bind": {...}}, ...]}: the
//       calls run in order in one session, so state carries over
// Results are named by call: call i's result is "i", a tuple's parts "i.0",
// "i.1", ... (a single --entry call is call 0). --print writes them to `out`;
// --out FILE.safetensors saves them all, in each entry's result dtype,
// written only when every call succeeded. A call that fails its checks stops
// the run; the message names the call, the argument and the bound.
//
// A third mode generates text (runtime/generate/Generate.h):
//   --prompt TEXT [--chat] [--max-new N] [--temperature X] [--seed N] [--eos auto|ID]
//       the checkpoint's tokenizer encodes TEXT, `prefill` and
//       `generate_until` (greedy) or `sample` (with --temperature > 0 or
//       --seed) continue it, and the text is written to `out` as it comes
//
// Exit codes: kExitOk, kExitInputError (bad artifact, checkpoint, argument
// value, failed check), kExitUsage (the command line itself is wrong).
#pragma once

#include "runtime/session/Session.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace linnet::rt {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInputError = 1;
inline constexpr int kExitUsage = 2;

struct RunOptions {
  std::string toolName = "linnet-run"; // prefixes messages
  // The artifact: read from `artifactPath`, unless `artifactImage` holds its
  // bytes already (then the path only names it in messages).
  std::string artifactPath;
  std::optional<std::string> artifactImage;
  std::optional<std::string> checkpointDir;

  std::optional<std::string> entry;
  std::vector<std::string> args;  // "NAME=VALUE"
  std::vector<std::string> binds; // "NAME=VALUE": entry dims, or generics (must match the build)
  std::optional<std::string> callsFile;
  // Generation from text (needs checkpointDir, for the tokenizer).
  std::optional<std::string> prompt;
  bool chat = false;                      // the prompt is a user turn of the chat format
  std::optional<std::int64_t> maxNew;     // default 64; must be > 0
  std::optional<double> temperature;      // default 0 (greedy), or 1 with --seed alone
  std::optional<std::uint64_t> seed;      // sampling key jax.random.PRNGKey(seed); default 0
  std::optional<std::string> eos;         // "auto" (default) or a token id
  bool progress = true;                   // "loading checkpoint..." on `err` (prompt mode)

  bool print = false;
  std::optional<std::string> outFile; // .safetensors
  // With --calls: a call that fails is reported and the run goes on with
  // the next (the session's state is exactly as the failed call found it);
  // the exit code is still 1, and --out saves the calls that succeeded.
  bool keepGoing = false;

  SessionOptions session;
  std::FILE *out = stdout;
  std::FILE *err = stderr;
};

// Runs the command; returns the exit code. Never throws for bad input.
int runCommand(const RunOptions &options);

// Checks the command line alone, loading nothing: on misuse prints the
// message to `options.err` and returns kExitUsage, else kExitOk. runCommand
// does the same first; `linnet run` calls it before compiling a package.
int checkCommandLine(const RunOptions &options);

} // namespace linnet::rt
