// `linnet build`: check a package, bind its root block (a checkpoint or
// --bind values), lower the entries to the `linnet` dialect, and either
// print a stage of the pipeline (--emit) or write a `.lnpkg` (-o): the
// shared object the CPU pipeline produces and its manifest (docs/abi.md).
// The stages themselves are BuildPipeline.h, shared with `linnet run`.
#include <iostream>

#include "compiler/driver/BuildPipeline.h"
#include "compiler/driver/Driver.h"
#include "runtime/artifact/ArtifactFile.h"

namespace linnet::driver {

int runBuild(const CommonOptions& common, const BuildOptions& options) {
  if (options.emit.empty() && options.output.empty()) {
    std::cerr << "linnet: error: build needs -o FILE.lnpkg or --emit STAGE\n";
    return kExitUsage;
  }
  int code = kExitOk;
  std::unique_ptr<LoadedPackage> package = loadPackage(common, options.path, &code);
  if (!package) return code;
  BuiltArtifact built;
  code = buildArtifact(common, *package, options, &built);
  if (code != kExitOk || !options.emit.empty()) return code;
  rt::Status written = rt::writeArtifact(options.output, built.manifestJson, built.sharedObject);
  if (!written.ok()) {
    std::cerr << "linnet: error: " << written.message() << "\n";
    return kExitErrors;
  }
  return kExitOk;
}

}  // namespace linnet::driver
