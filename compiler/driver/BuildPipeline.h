// The build pipeline that `linnet build` and `linnet run` share: load and
// resolve a package (loadPackage), then check it, bind its root block to a
// checkpoint or --bind values, lower the entries, generate code and write
// the manifest (buildArtifact). The result is the two parts of a `.lnpkg`
// in memory; the caller writes them to a file (build -o), to the build cache,
// or hands them to the runtime (run).
//
// The two steps are separate because `linnet run` hashes the loaded sources
// (BuildCache.h) before deciding whether the expensive rest is needed.
// Diagnostics are rendered here; a non-zero return is the exit code.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/driver/Driver.h"
#include "compiler/modules/Program.h"
#include "compiler/source/SourceManager.h"

namespace linnet::driver {

// A loaded and resolved program with what owns its text and diagnostics.
// Not movable once loaded (the program points into `sources`): hold it by
// unique_ptr.
struct LoadedPackage {
  SourceManager sources;
  DiagnosticEmitter diagnostics;
  std::unique_ptr<Program> program;
};

// Loads `path` (a package directory or a file) and resolves its names. On
// errors the diagnostics are rendered and `*exitCode` is set; returns null.
std::unique_ptr<LoadedPackage> loadPackage(const CommonOptions& common, const std::string& path, int* exitCode);

// The two parts of an artifact (docs/abi.md).
struct BuiltArtifact {
  std::string manifestJson;
  std::string sharedObject;
};

// Check, bind, lower and (unless options.emit names a stage, which is then
// printed to stdout and `out` left empty) generate code for the host and
// write the manifest into `*out`. `progress`, if set, gets one line before
// code generation ("linnet: compiling phi3 (14 entries)..."). Returns the
// exit code.
int buildArtifact(const CommonOptions& common, LoadedPackage& package, const BuildOptions& options,
                  BuiltArtifact* out, std::ostream* progress = nullptr);

// The host target as the manifest records it: "triple cpu features".
std::string hostTargetDescription();

}  // namespace linnet::driver
