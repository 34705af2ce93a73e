// Driver: the `linnet` commands, each a function from parsed command-line
// options to an exit code (0 ok, 1 the input has errors, 2 command-line
// misuse). main.cpp only parses arguments; everything else happens here.
#pragma once

#include <string>
#include <vector>

#include "runtime/cli/RunCommand.h"

namespace linnet::driver {

inline constexpr int kExitOk = 0;
inline constexpr int kExitErrors = 1;
inline constexpr int kExitUsage = 2;

// `linnet --version`; also part of every build cache key.
inline constexpr const char* kLinnetVersion = "0.1.0";

struct CommonOptions {
  bool color = false;          // diagnostics in color (stderr is a TTY, no --no-color)
  std::string stdDir;          // --std, or found from the environment/executable
};

struct CheckOptions {
  std::vector<std::string> paths;
  bool strict = false;  // warnings fail the run
  bool json = false;    // diagnostics as JSON on stdout
};

enum class InspectView { Page, Tokens, Ast, Parameters };

struct InspectOptions {
  std::string path;
  InspectView view = InspectView::Page;
  bool json = false;
  std::vector<std::string> binds;  // NAME=VALUE
  std::string checkpoint;
  bool memory = false;
  std::string root;         // --root BLOCK: the root block where several have entries
  std::string graph;        // --graph ENTRY: the typed graph view of that entry
  int expand = 1;           // --expand N
  std::string format = "text";  // --format text|dot|svg|html
};

struct FormatOptions {
  std::vector<std::string> paths;  // files, directories, or `-` for stdin -> stdout
  bool check = false;              // report files that would change; write nothing
};

// `linnet build PATH [--checkpoint DIR] [--bind K=V]... [--entry NAME]...
// (-o FILE.lnpkg | --emit linnet|linalg|bufferized|llvm|asm)`
struct BuildOptions {
  std::string path;
  std::string checkpoint;
  std::vector<std::string> binds;
  std::vector<std::string> entries;  // empty: every entry
  std::string root;                  // --root BLOCK: the root block where several have entries
  std::string emit;                  // a stage to print instead of writing an artifact
  std::string output;
  // +NAME/-NAME items applied to the host's CPU features (LLVM's -mattr).
  std::string targetFeatures;
  // Print the time of each step and MLIR pass to stderr when done.
  bool timePasses = false;
};

// `linnet run PATH [--bind K=V]... [--no-cache] [--verbose] [--quiet]` plus
// linnet-run's flags (--checkpoint, --entry, --arg, --calls, --print, --out,
// --prompt, --chat, --max-new, --temperature, --seed, --eos). PATH is a
// `.lnpkg`, run as linnet-run runs it, or a package, built in process
// (through the build cache, BuildCache.h) and then run the same way. A
// --bind naming a root generic goes to the build, any other (an entry's
// dim, e.g. Steps=8) to the run.
struct RunPackageOptions {
  std::string path;
  std::vector<std::string> binds;
  std::string root;      // --root BLOCK, for the build
  bool noCache = false;  // neither read nor write the build cache
  bool verbose = false;  // say whether the cache was used, and where
  bool quiet = false;    // no progress lines on stderr
  rt::RunOptions run;    // checkpointDir is also the build's checkpoint
};

// `linnet bench PATH --checkpoint DIR [--bind K=V]... [--json] [--quiet]`
// (BenchCommand.cpp, docs/bench.md).
struct BenchCommandOptions {
  std::string path;  // a package or a .lnpkg
  std::string checkpoint;
  std::vector<std::string> binds;  // root generics other than Batch
  bool json = false;
  bool quiet = false;
};

int runBench(const CommonOptions& common, const BenchCommandOptions& options);
int runBuild(const CommonOptions& common, const BuildOptions& options);
int runRun(const CommonOptions& common, const RunPackageOptions& options);
int runCheck(const CommonOptions& common, const CheckOptions& options);
int runFormat(const CommonOptions& common, const FormatOptions& options);
int runInspect(const CommonOptions& common, const InspectOptions& options);

}  // namespace linnet::driver
