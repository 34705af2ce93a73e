// `linnet build`: check a package, bind its root block (a checkpoint or
// --bind values), lower the entries to the `linnet` dialect, and either
// print a stage of the pipeline (--emit) or write a `.lnpkg` (-o): the
// shared object the CPU pipeline produces and its manifest (docs/abi.md).
// The stages themselves are BuildPipeline.h, shared with `linnet run`.
#include <filesystem>
#include <iostream>

#include "compiler/driver/BuildPipeline.h"
#include "compiler/driver/Driver.h"
#include "runtime/artifact/ArtifactFile.h"

namespace linnet::driver {

namespace {

// What of the build's inputs `-o` names, if anything ("the source file
// `m.linnet`"): a source file, or a file beside the package's or the
// checkpoint's own files (bindings.json, config.json, model.safetensors),
// which gcc-style tools refuse to overwrite as well. Empty: none.
std::string inputAt(const LoadedPackage& package, const BuildOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path output(options.output);
  if (!fs::exists(output, ec) || fs::is_directory(output, ec)) return "";
  for (FileId id = 1; id <= package.sources.fileCount(); ++id)
    if (fs::equivalent(output, package.sources.file(id).path(), ec))
      return "the source file `" + package.sources.file(id).path() + "`";
  fs::path resolved = fs::weakly_canonical(output, ec);
  if (ec || resolved.extension() == ".lnpkg") return "";
  for (const std::string& dir : {options.path, options.checkpoint})
    if (!dir.empty() && fs::is_directory(dir, ec) && fs::equivalent(resolved.parent_path(), dir, ec))
      return "a file of `" + dir + "`";
  return "";
}

}  // namespace

int runBuild(const CommonOptions& common, const BuildOptions& options) {
  if (options.emit.empty() && options.output.empty()) {
    std::cerr << "linnet: error: build needs -o FILE.lnpkg or --emit STAGE\n";
    return kExitUsage;
  }
  int code = kExitOk;
  std::unique_ptr<LoadedPackage> package = loadPackage(common, options.path, &code);
  if (!package) return code;
  if (!options.output.empty()) {
    if (std::string input = inputAt(*package, options); !input.empty()) {
      std::cerr << "linnet: error: -o " << options.output << " is " << input
                << ", which the build reads; it would be overwritten\n";
      return kExitUsage;
    }
  }
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
