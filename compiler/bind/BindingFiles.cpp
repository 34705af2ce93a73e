// BindingFiles: reading and validating bindings.json and generics.json.
#include "compiler/bind/BindingFiles.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/checkpoint/StrictJson.h"

namespace linnet::bind {

namespace {

// Files larger than this are not binding manifests.
constexpr uintmax_t kMaxFileBytes = 16u << 20;

}  // namespace

std::optional<nlohmann::json> readPackageJson(const std::string& dir, const std::string& name,
                                              bool& ok, DiagnosticEmitter& diagnostics) {
  std::filesystem::path path = std::filesystem::path(dir) / name;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    // A link that leads nowhere (dangling, or a loop) is a file the package
    // meant to have, not an absent one: without its checks.json a build ran
    // without the argument rules.
    if (ec || std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec))) {
      std::error_code why;
      (void)std::filesystem::canonical(path, why);
      diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, path.string(),
                       "cannot read it: " + (why ? why.message() : std::string("a link to nothing")));
      ok = false;
    }
    return std::nullopt;
  }
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) > kMaxFileBytes) {
    diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, path.string(),
                     "not a regular file of at most 16 MiB");
    ok = false;
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  rt::Expected<nlohmann::json> json = rt::parseStrictJson(text.str(), path.string());
  if (!json.ok()) {
    diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, path.string(), json.message());
    ok = false;
    return std::nullopt;
  }
  if (!json->is_object()) {
    diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, path.string(), "expected a JSON object");
    ok = false;
    return std::nullopt;
  }
  return std::move(json).value();
}

namespace {

// Splits `{name}` placeholders out of `text`; false if braces are unbalanced
// or a name is empty.
bool placeholders(const std::string& text, std::string& normalized, std::vector<std::string>& names) {
  normalized.clear();
  names.clear();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '}') return false;
    if (text[i] != '{') {
      normalized.push_back(text[i]);
      continue;
    }
    size_t close = text.find('}', i);
    if (close == std::string::npos || close == i + 1) return false;
    std::string name = text.substr(i + 1, close - i - 1);
    if (name.find('{') != std::string::npos) return false;
    names.push_back(name);
    normalized += "{}";
    i = close;
  }
  return true;
}

// A key without placeholders whose all-digit segments are array indices
// (parameter names are identifiers, never digits): `layers.3.norm.weight`
// is `layers.{}.norm.weight` at index 3. False when it has no such segment
// or an index too large to be one.
bool elementKey(const std::string& key, std::string& normalized, std::vector<int64_t>& indices) {
  normalized.clear();
  indices.clear();
  size_t start = 0;
  while (start <= key.size()) {
    size_t dot = key.find('.', start);
    std::string segment = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool digits = !segment.empty() && segment.find_first_not_of("0123456789") == std::string::npos;
    if (digits) {
      if (segment.size() > 9) return false;
      indices.push_back(std::stoll(segment));
    }
    normalized += digits ? "{}" : segment;
    if (dot == std::string::npos) break;
    normalized += '.';
    start = dot + 1;
  }
  return !indices.empty();
}

}  // namespace

std::optional<BindingFiles> readBindingFiles(const std::string& packageDir,
                                             DiagnosticEmitter& diagnostics) {
  BindingFiles files;
  bool ok = true;
  std::string bindingsPath = (std::filesystem::path(packageDir) / "bindings.json").string();
  if (auto json = readPackageJson(packageDir, "bindings.json", ok, diagnostics)) {
    for (auto& [key, value] : json->items()) {
      if (!value.is_string()) {
        diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, bindingsPath,
                         "the value of `" + key + "` is not a string");
        ok = false;
        continue;
      }
      PathTemplate path;
      path.key = key;
      path.tensorTemplate = value.get<std::string>();
      std::string valueNormalized;
      std::vector<std::string> valueNames;
      if (!placeholders(key, path.normalized, path.indexNames) ||
          !placeholders(path.tensorTemplate, valueNormalized, valueNames)) {
        diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, bindingsPath,
                         "malformed `{...}` placeholder in `" + key + "`");
        ok = false;
        continue;
      }
      ElementBinding element{key, {}, path.tensorTemplate};
      std::string elementNormalized;
      if (path.indexNames.empty() && elementKey(key, elementNormalized, element.indices)) {
        if (!valueNames.empty()) {
          diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, bindingsPath,
                           "`" + path.tensorTemplate + "` uses a placeholder that `" + key + "` does not have");
          ok = false;
          continue;
        }
        files.elements[elementNormalized].push_back(std::move(element));
        continue;
      }
      bool known = true;
      for (const std::string& name : valueNames)
        if (std::find(path.indexNames.begin(), path.indexNames.end(), name) == path.indexNames.end())
          known = false;
      if (!known) {
        diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, bindingsPath,
                         "`" + path.tensorTemplate + "` uses a placeholder that `" + key + "` does not have");
        ok = false;
        continue;
      }
      // Each of the key's placeholders must pick a different tensor per
      // element: without it in the name, every element would read one tensor
      // (and an array's length counted from the checkpoint never ends).
      auto unused = std::find_if(path.indexNames.begin(), path.indexNames.end(), [&](const std::string& name) {
        return std::find(valueNames.begin(), valueNames.end(), name) == valueNames.end();
      });
      if (unused != path.indexNames.end()) {
        diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, bindingsPath,
                         "`" + key + "` has the placeholder `{" + *unused + "}`, but its tensor name `" +
                             path.tensorTemplate + "` does not: every element would read the same tensor");
        ok = false;
        continue;
      }
      if (files.paths.count(path.normalized)) {
        diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, bindingsPath,
                         "`" + key + "` and `" + files.paths[path.normalized].key + "` name the same parameter");
        ok = false;
        continue;
      }
      files.paths[path.normalized] = std::move(path);
    }
  }
  std::string genericsPath = (std::filesystem::path(packageDir) / "generics.json").string();
  if (auto json = readPackageJson(packageDir, "generics.json", ok, diagnostics)) {
    for (auto& [section, body] : json->items()) {
      if ((section != "config" && section != "defaults") || !body.is_object()) {
        bool known = section == "config" || section == "defaults";
        diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, genericsPath,
                         known ? "`" + section + "` must be an object, found " + std::string(body.type_name())
                               : "expected only the objects `config` and `defaults`, found `" + section + "`");
        ok = false;
        continue;
      }
      for (auto& [generic, value] : body.items()) {
        if (section == "config") {
          if (!value.is_string()) {
            diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, genericsPath,
                             "`config." + generic + "` must name a config.json key");
            ok = false;
            continue;
          }
          files.configKeys[generic] = value.get<std::string>();
        } else if (value.is_number_unsigned()) {
          files.defaults[generic] = std::to_string(value.get<uint64_t>());
        } else if (value.is_string()) {
          files.defaults[generic] = value.get<std::string>();
        } else {
          diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, genericsPath,
                           "`defaults." + generic + "` must be a non-negative integer or a dtype name");
          ok = false;
        }
      }
    }
  }
  if (!ok) return std::nullopt;
  return files;
}

std::string normalizeManifestPath(const std::string& manifestPath) {
  std::string out;
  for (size_t i = 0; i < manifestPath.size(); ++i) {
    if (manifestPath.compare(i, 3, "[*]") == 0) {
      out += ".{}";
      i += 2;
    } else {
      out.push_back(manifestPath[i]);
    }
  }
  return out;
}

std::string instantiateTensorName(const PathTemplate& path, const std::vector<int64_t>& indices) {
  std::string out;
  const std::string& text = path.tensorTemplate;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{') {
      out.push_back(text[i]);
      continue;
    }
    size_t close = text.find('}', i);
    std::string name = text.substr(i + 1, close - i - 1);
    auto it = std::find(path.indexNames.begin(), path.indexNames.end(), name);
    size_t position = static_cast<size_t>(it - path.indexNames.begin());
    out += position < indices.size() ? std::to_string(indices[position]) : "?";
    i = close;
  }
  return out;
}

}  // namespace linnet::bind
