// linnet-run: runs a compiled artifact with the runtime alone (no LLVM, no
// MLIR). The command line is parsed here with CLI11; everything else is
// runCommand() (RunCommand.h), which the compiler's `linnet run` shares.
// This file is not part of linnet_runtime (runtime/CMakeLists.txt excludes
// every main.cpp).
#include "runtime/cli/RunCommand.h"

#include <CLI/CLI.hpp>

int main(int argc, char **argv) {
  linnet::rt::RunOptions options;
  CLI::App app{"Run an entry of a compiled linnet artifact (.lnpkg) against a checkpoint.", "linnet-run"};
  app.add_option("artifact", options.artifactPath, "the .lnpkg file")->required();
  app.add_option("--checkpoint", options.checkpointDir, "Hugging Face checkpoint directory");
  app.add_option("--entry", options.entry, "the entry to run");
  app.add_option("--arg", options.args,
                 "NAME=VALUE: a number, a nested list like [[1,2,3]], or @FILE.npy (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--bind", options.binds, "NAME=VALUE: a dim no argument fixes, e.g. Steps=8 (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--calls", options.callsFile,
                 "FILE.json: {\"calls\": [{\"entry\": ..., \"args\": {...}, \"bind\": {...}}]}, run in one session");
  app.add_flag("--print", options.print, "print the results");
  app.add_option("--out", options.outFile, "save the results to FILE.safetensors (call i as \"i\", parts \"i.0\"...)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return linnet::rt::kExitUsage;
  }
  return linnet::rt::runCommand(options);
}
