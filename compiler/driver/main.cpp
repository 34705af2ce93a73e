// linnet: command-line entry point. Parses arguments with CLI11 and hands the
// options to the driver. Misuse (unknown command or option, missing
// arguments) prints usage to stderr and exits 2; `--help` prints it to stdout
// and exits 0; `--no-color` is accepted anywhere.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "compiler/driver/Driver.h"
#include "compiler/modules/Program.h"
#include "runtime/cli/RunFlags.h"
#include "runtime/support/MemoryPolicy.h"

namespace {

int runCommandLine(int argc, char** argv) {
  using namespace linnet::driver;

  // `--no-color` may appear anywhere, so take it out before CLI11 sees it.
  bool noColor = std::getenv("NO_COLOR") != nullptr;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--no-color") noColor = true;
    else args.push_back(arg);
  }

  CLI::App app{"linnet: a native compiler and runtime for the Linnet model language", "linnet"};
  app.require_subcommand(0, 1);
  // Misuse is said as every other error is ("linnet: error: ...").
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("linnet: error: ") + linnet::rt::commandLineError(e) + "\nRun with --help for more information.\n";
  });
  bool showVersion = false;
  app.add_flag("-V,--version", showVersion, "Print the version and exit");
  std::string stdDir;

  CheckOptions check;
  CLI::App* checkCmd = app.add_subcommand("check", "Parse and check files or packages; print diagnostics");
  checkCmd->add_option("paths", check.paths, "Files or directories")->required();
  checkCmd->add_flag("--strict", check.strict, "Treat warnings as errors");
  checkCmd->add_flag("--json", check.json, "Print diagnostics as JSON on stdout");
  checkCmd->add_option("--std", stdDir, "Standard library directory");

  CheckOptions lint;
  CLI::App* lintCmd = app.add_subcommand("lint", "Check with every warning an error (check --strict)");
  lintCmd->add_option("paths", lint.paths, "Files or directories")->required();
  lintCmd->add_flag("--json", lint.json, "Print diagnostics as JSON on stdout");
  lintCmd->add_option("--std", stdDir, "Standard library directory");

  FormatOptions format;
  CLI::App* fmtCmd = app.add_subcommand("fmt", "Rewrite files in the canonical style (`-` reads stdin)");
  fmtCmd->add_option("paths", format.paths, "Files, directories, or -")->required();
  fmtCmd->add_flag("--check", format.check, "Print the files that would change; change nothing");

  InspectOptions inspect;
  bool tokens = false, ast = false, parameters = false;
  CLI::App* inspectCmd = app.add_subcommand(
      "inspect", "Show a model package's entries, generics and blocks, or one file's tokens, AST or parameters");
  inspectCmd->add_option("path", inspect.path, "A package directory, or a file with --tokens/--ast/--parameters")
      ->required();
  auto* tokensFlag = inspectCmd->add_flag("--tokens", tokens, "One token per line");
  auto* astFlag = inspectCmd->add_flag("--ast", ast, "The syntax tree");
  auto* parametersFlag = inspectCmd->add_flag("--parameters", parameters, "The parameter manifest of the file's blocks");
  tokensFlag->excludes(astFlag)->excludes(parametersFlag);
  astFlag->excludes(parametersFlag);
  inspectCmd->add_flag("--json", inspect.json, "JSON output (with --parameters)");
  inspectCmd->add_option("--bind", inspect.binds, "Bind a root generic: NAME=VALUE (repeatable)");
  inspectCmd->add_option("--checkpoint", inspect.checkpoint, "A Hugging Face checkpoint directory");
  inspectCmd->add_flag("--memory", inspect.memory, "Weights and state sizes (with --checkpoint)");
  inspectCmd->add_option("--root", inspect.root, "The block to inspect where several have entries (NAME or module::NAME)");
  inspectCmd->add_option("--std", stdDir, "Standard library directory");
  auto* graphOption = inspectCmd->add_option("--graph", inspect.graph, "Draw ENTRY as a typed dataflow graph");
  auto* expandOption = inspectCmd->add_option("--expand", inspect.expand, "Block-call levels to open (with --graph; default 1)")
      ->check(CLI::NonNegativeNumber);
  auto* formatOption = inspectCmd->add_option("--format", inspect.format, "text|dot|svg|html (with --graph; default text)")
      ->check(CLI::IsMember({"text", "dot", "svg", "html"}));

  BuildOptions build;
  CLI::App* buildCmd = app.add_subcommand("build", "Compile a package's entries to native code (a .lnpkg) or print a stage");
  buildCmd->add_option("path", build.path, "A package directory or file")->required();
  buildCmd->add_option("--checkpoint", build.checkpoint, "A Hugging Face checkpoint directory");
  buildCmd->add_option("--bind", build.binds, "Bind a root generic: NAME=VALUE (repeatable)");
  buildCmd->add_option("--entry", build.entries, "Build only this entry (repeatable)");
  buildCmd->add_option("--root", build.root, "The block to build where several have entries (NAME or module::NAME)");
  buildCmd->add_option("--emit", build.emit, "Print a stage: linnet|linalg|bufferized|llvm|asm")
      ->check(CLI::IsMember({"linnet", "linalg", "bufferized", "llvm", "asm"}));
  buildCmd->add_option("-o,--output", build.output, "The artifact to write (FILE.lnpkg)");
  buildCmd->add_option("--target-features", build.targetFeatures,
                       "+NAME,-NAME,...: use or leave out CPU features of this machine (e.g. -avx512bf16)");
  buildCmd->add_flag("--time-passes", build.timePasses,
                     "Print the time of each step of the build and of each MLIR pass to stderr");
  buildCmd->add_option("--std", stdDir, "Standard library directory");

  RunPackageOptions run;
  CLI::App* runCmd = app.add_subcommand(
      "run", "Run a package (built in process, cached) or a .lnpkg: an entry, a calls file, or a prompt");
  runCmd->add_option("path", run.path, "A package directory or a .lnpkg artifact")->required();
  runCmd->add_option("--bind", run.binds,
                     "NAME=VALUE: a root generic for the build, or a dim of the entry such as Steps=8 (repeatable)")
      ->allow_extra_args(false);
  linnet::rt::addRunFlags(*runCmd, run.run);
  runCmd->add_option("--root", run.root, "The block to build where several have entries (NAME or module::NAME)");
  runCmd->add_flag("--no-cache", run.noCache, "Build without reading or writing the build cache");
  runCmd->add_flag("--verbose", run.verbose, "Say whether the build cache was used");
  runCmd->add_flag("--quiet", run.quiet, "No progress lines on stderr");
  runCmd->add_option("--std", stdDir, "Standard library directory");

  BenchCommandOptions bench;
  CLI::App* benchCmd = app.add_subcommand(
      "bench", "Measure a model's load, prefill and decode speed against this machine's bandwidth and bf16 peak");
  benchCmd->add_option("path", bench.path, "A package directory or a .lnpkg artifact")->required();
  benchCmd->add_option("--checkpoint", bench.checkpoint, "Hugging Face checkpoint directory")->required();
  benchCmd->add_option("--bind", bench.binds, "NAME=VALUE: a root generic for the builds (not Batch)")
      ->allow_extra_args(false);
  benchCmd->add_flag("--json", bench.json, "The figures as JSON");
  benchCmd->add_flag("--quiet", bench.quiet, "No build progress on stderr");
  benchCmd->add_option("--std", stdDir, "Standard library directory");

  std::vector<const char*> cargs;
  cargs.push_back(argv[0]);
  for (const std::string& a : args) cargs.push_back(a.c_str());
  if (args.empty()) {
    std::cerr << app.help();
    return kExitUsage;
  }
  if (args.size() == 1 && args[0] == "help") {
    std::cout << app.help();
    return kExitOk;
  }
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
  } catch (const CLI::ParseError& e) {
    // `--help` (exit code 0) prints the right subcommand's usage to stdout;
    // every other parse error is misuse: message and usage on stderr, exit 2.
    if (e.get_exit_code() == 0) return app.exit(e, std::cout, std::cerr);
    app.exit(e, std::cerr, std::cerr);
    return kExitUsage;
  }

  if (showVersion) {
    std::cout << "linnet " << kLinnetVersion << "\n";
    return kExitOk;
  }

  CommonOptions common;
  common.color = !noColor && isatty(fileno(stderr));
  common.stdDir = stdDir.empty() ? linnet::findStdDir(argv[0]) : stdDir;
#ifdef LINNET_DEFAULT_STD
  // A binary built outside the source tree still finds the tree's stdlib.
  if (common.stdDir.empty()) common.stdDir = LINNET_DEFAULT_STD;
#endif

  if (checkCmd->parsed()) return runCheck(common, check);
  if (buildCmd->parsed()) return runBuild(common, build);
  if (runCmd->parsed()) {
    // The runtime's allocator policy for generated code (MemoryPolicy.h),
    // as linnet-run sets it. Set before the in-process build too: the
    // compiler's freed memory then also stays with the process.
    linnet::rt::retainFreedMemory();
    return runRun(common, run);
  }
  if (benchCmd->parsed()) return runBench(common, bench);
  if (lintCmd->parsed()) {
    lint.strict = true;
    return runCheck(common, lint);
  }
  if (fmtCmd->parsed()) return runFormat(common, format);
  if (inspectCmd->parsed()) {
    int views = tokens + ast + parameters;
    if (views > 1) {
      std::cerr << "linnet: error: inspect takes one view at a time\n";
      return kExitUsage;
    }
    if (inspect.json && !parameters) {
      std::cerr << "linnet: error: --json goes with --parameters\n";
      return kExitUsage;
    }
    bool graphExtras = expandOption->count() > 0 || formatOption->count() > 0;
    if (graphExtras && graphOption->count() == 0) {
      std::cerr << "linnet: error: --expand and --format go with --graph\n";
      return kExitUsage;
    }
    if (graphOption->count() > 0 && (views > 0 || inspect.json || inspect.memory)) {
      std::cerr << "linnet: error: --graph takes none of --tokens, --ast, --parameters, --json, "
                   "--memory\n";
      return kExitUsage;
    }
    inspect.view = tokens ? InspectView::Tokens
                   : ast  ? InspectView::Ast
                   : parameters ? InspectView::Parameters
                                : InspectView::Page;
    return runInspect(common, inspect);
  }
  std::cerr << app.help();
  return kExitUsage;
}

}  // namespace

// Output that could not be written (`linnet fmt - > /dev/full`, a graph or
// a check report into a full disk) fails the command instead of vanishing
// behind exit code 0, and running out of memory (a limit set with `ulimit
// -v`) is an error message, not an abort.
int main(int argc, char** argv) {
  using namespace linnet::driver;
  int code = kExitOk;
  try {
    code = runCommandLine(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "linnet: error: out of memory\n";
    return kExitErrors;
  }
  // A command that failed has said why already (`linnet run` names the text
  // it could not write).
  std::cout.flush();
  if (code == kExitOk && (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))) {
    std::cerr << "linnet: error: cannot write to standard output\n";
    code = kExitErrors;
  }
  return code;
}
