// Driver: the `linnet` commands, each a function from parsed command-line
// options to an exit code (0 ok, 1 the input has errors, 2 command-line
// misuse). main.cpp only parses arguments; everything else happens here.
#pragma once

#include <string>
#include <vector>

namespace linnet::driver {

inline constexpr int kExitOk = 0;
inline constexpr int kExitErrors = 1;
inline constexpr int kExitUsage = 2;

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
  std::string emit;                  // a stage to print instead of writing an artifact
  std::string output;
};

int runBuild(const CommonOptions& common, const BuildOptions& options);
int runCheck(const CommonOptions& common, const CheckOptions& options);
int runFormat(const CommonOptions& common, const FormatOptions& options);
int runInspect(const CommonOptions& common, const InspectOptions& options);

}  // namespace linnet::driver
