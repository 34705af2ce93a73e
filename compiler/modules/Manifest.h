// Manifest: reads a package's `linnet.toml` (spec §2.5) into a
// PackageManifest, reporting every problem as E5001 (or E1004 for a package
// name or dependency key that is a reserved word, which no lexer ever sees).
//
//   [package]
//   name = "my-model"        # `-` becomes `_` in the root module's name
//   version = "0.1.0"
//   language = "0.1"         # the only language version we implement
//
//   [dependencies]
//   shared = { path = "../shared" }
//
// Only the file's text is read here; whether a dependency's directory holds
// its own `linnet.toml` is the loader's check. Needs no parser, so the
// manifest fuzzer links it alone.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/source/SourceManager.h"

namespace linnet::modules {

// The language versions this toolchain implements.
inline constexpr std::string_view kLanguageVersion = "0.1";

struct ManifestDependency {
  std::string key;
  std::string path;  // as written, relative to the manifest's directory
  Span keySpan;
  Span pathSpan;
};

struct PackageManifest {
  std::string name;        // as written
  std::string moduleName;  // the root module's name: `name` with `-` as `_`
  std::string version;
  std::string language;
  Span nameSpan;
  std::vector<ManifestDependency> dependencies;
  bool valid = false;  // true when no problem was reported

  const ManifestDependency* findDependency(std::string_view key) const;
};

// `name` with every `-` replaced by `_`.
std::string packageModuleName(std::string_view name);

// Reads the manifest held by `file` (already added to `sources`).
PackageManifest readManifest(const SourceManager& sources, FileId file,
                             DiagnosticEmitter& diagnostics);

}  // namespace linnet::modules
