// linnet-run: runs a compiled artifact with the runtime alone (no LLVM, no
// MLIR). The command line is parsed here with CLI11 (the flags shared with
// `linnet run` are RunFlags.h); everything else is runCommand()
// (RunCommand.h). This file is not part of linnet_runtime
// (runtime/CMakeLists.txt excludes every main.cpp).
#include "runtime/cli/RunCommand.h"
#include "runtime/cli/RunFlags.h"

#include <CLI/CLI.hpp>

int main(int argc, char **argv) {
  linnet::rt::RunOptions options;
  CLI::App app{"Run an entry of a compiled linnet artifact (.lnpkg) against a checkpoint, or continue a prompt.",
               "linnet-run"};
  app.add_option("artifact", options.artifactPath, "the .lnpkg file")->required();
  app.add_option("--bind", options.binds, "NAME=VALUE: a dim no argument fixes, e.g. Steps=8 (repeatable)")
      ->allow_extra_args(false);
  linnet::rt::addRunFlags(app, options);
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
