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
// Exit codes: kExitOk, kExitInputError (bad artifact, checkpoint, argument
// value, failed check), kExitUsage (the command line itself is wrong).
#pragma once

#include "runtime/session/Session.h"

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
  // Reserved for generation from a prompt (tokenizer + generate entry); not
  // implemented yet: a usage error.
  std::optional<std::string> prompt;

  bool print = false;
  std::optional<std::string> outFile; // .safetensors

  SessionOptions session;
  std::FILE *out = stdout;
  std::FILE *err = stderr;
};

// Runs the command; returns the exit code. Never throws for bad input.
int runCommand(const RunOptions &options);

} // namespace linnet::rt
