// BindingFiles: the two declarative files of a model package that tie it to
// checkpoints. Neither may contain expressions or transformations (spec 10.3).
//   bindings.json  {"<parameter path>": "<tensor name>", ...}; array indices
//                  are `{name}` placeholders, used by position in the path and
//                  by name in the tensor name: "layers.{i}.norm.weight":
//                  "model.layers.{i}.input_layernorm.weight". A key may also
//                  name one element (`layers.3.norm.weight`): it binds that
//                  element only and wins over a placeholder key there.
//   generics.json  {"config": {"<generic>": "<config.json key>"},
//                   "defaults": {"<generic>": <integer or dtype name>}}
// Both are optional; a malformed one is an error naming the file. The
// package's other declarative files (constants.json: ConfigConstants.h,
// checks.json: EntryChecks.h) are read through readPackageJson below.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/diagnostics/DiagnosticEmitter.h"

namespace linnet::bind {

struct PathTemplate {
  std::string key;                   // as written
  std::string normalized;            // placeholders as `{}`: "layers.{}.norm.weight"
  std::vector<std::string> indexNames;  // placeholder names in order ("i")
  std::string tensorTemplate;        // "model.layers.{i}.input_layernorm.weight"
};

// A key naming one element of an array: `layers.3.norm.weight`.
struct ElementBinding {
  std::string key;               // as written
  std::vector<int64_t> indices;  // the key's index segments, outermost first
  std::string tensor;
};

struct BindingFiles {
  std::map<std::string, PathTemplate> paths;        // by normalized key
  // By normalized key (`layers.{}.norm.weight`), the elements named one by one.
  std::map<std::string, std::vector<ElementBinding>> elements;
  std::map<std::string, std::string> configKeys;     // generic -> config.json key
  std::map<std::string, std::string> defaults;       // generic -> value text
};

// `dir/name` as strict JSON, which must be an object: nullopt without an
// error when the file is absent; nullopt with `ok` cleared after reporting
// (E5102) when it is too large, malformed or not an object.
std::optional<nlohmann::json> readPackageJson(const std::string& dir, const std::string& name, bool& ok,
                                              DiagnosticEmitter& diagnostics);

std::optional<BindingFiles> readBindingFiles(const std::string& packageDir,
                                             DiagnosticEmitter& diagnostics);

// `layers[*].norm.weight` -> `layers.{}.norm.weight`
std::string normalizeManifestPath(const std::string& manifestPath);

// The tensor name for concrete indices (by position of the key's placeholders).
std::string instantiateTensorName(const PathTemplate& path, const std::vector<int64_t>& indices);

}  // namespace linnet::bind
