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
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
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
        diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, genericsPath,
                         "expected only the objects `config` and `defaults`, found `" + section + "`");
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
