// linnet-run: runs a compiled artifact with the runtime alone (no LLVM, no
// MLIR). The command line is parsed here with CLI11 (the flags shared with
// `linnet run` are RunFlags.h); everything else is runCommand()
// (RunCommand.h). This file is not part of linnet_runtime
// (runtime/CMakeLists.txt excludes every main.cpp).
#include "runtime/bench/Bench.h"
#include "runtime/cli/RunCommand.h"
#include "runtime/cli/RunFlags.h"
#include "runtime/support/MemoryPolicy.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <new>
#include <string>

namespace {

int run(int argc, char **argv) {
  linnet::rt::RunOptions options;
  CLI::App app{"Run an entry of a compiled linnet artifact (.lnpkg) against a checkpoint, or continue a prompt.",
               "linnet-run"};
  app.add_option("artifact", options.artifactPath, "the .lnpkg file")->required();
  app.add_option("--bind", options.binds, "NAME=VALUE: a dim no argument fixes, e.g. Steps=8 (repeatable)")
      ->allow_extra_args(false);
  linnet::rt::addRunFlags(app, options);
  // The benchmark (Bench.h, docs/bench.md): `linnet bench` builds and then
  // runs this, so that the figures (peak memory above all) are the runtime's
  // alone, not the compiler's.
  bool bench = false, json = false;
  std::optional<std::string> batch8;
  std::optional<double> buildSeconds;
  app.add_flag("--bench", bench, "measure load, prefill and decode speed against this machine's bandwidth and bf16 peak");
  app.add_option("--batch8", batch8, "with --bench: the same model built with Batch=8, for decode_rows at 8 rows");
  app.add_flag("--json", json, "with --bench: the figures as JSON");
  app.add_option("--build-seconds", buildSeconds, "with --bench: the build time to report (from `linnet bench`)");
  // Misuse is said as every other error is ("linnet-run: error: ...").
  app.failure_message([](const CLI::App *, const CLI::Error &e) {
    return std::string("linnet-run: error: ") + linnet::rt::commandLineError(e) + "\nRun with --help for more information.\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return linnet::rt::kExitUsage;
  }
  if (!bench) {
    if (batch8 || json || buildSeconds) {
      std::fprintf(stderr, "linnet-run: error: --batch8, --json and --build-seconds go with --bench\n");
      return linnet::rt::kExitUsage;
    }
    return linnet::rt::runCommand(options);
  }
  if (!options.checkpointDir || options.entry || options.callsFile || options.prompt || !options.args.empty() ||
      !options.binds.empty() || options.print || options.outFile) {
    std::fprintf(stderr, "linnet-run: error: --bench takes the artifact, --checkpoint, and optionally --batch8, "
                         "--json; nothing else\n");
    return linnet::rt::kExitUsage;
  }
  linnet::rt::BenchOptions benchOptions;
  benchOptions.artifactPath = options.artifactPath;
  benchOptions.batch8Artifact = batch8;
  benchOptions.checkpointDir = *options.checkpointDir;
  benchOptions.buildSeconds = buildSeconds;
  benchOptions.json = json;
  return linnet::rt::benchCommand(benchOptions);
}

} // namespace

// Running out of memory (a `ulimit -v`, a huge calls file) is an error
// message and exit 1, as in `linnet run`, not an abort.
int main(int argc, char **argv) {
  // Before anything is allocated (MemoryPolicy.h).
  linnet::rt::retainFreedMemory();
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    std::fputs("linnet-run: error: out of memory\n", stderr);
    return linnet::rt::kExitInputError;
  }
}
