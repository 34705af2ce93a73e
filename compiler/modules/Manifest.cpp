// Manifest: `linnet.toml` from a TomlDocument to a PackageManifest.
//
// Decisions where the spec is silent (docs/modules.md repeats them):
// - Only `[package]` and `[dependencies]` tables are accepted; keys outside
//   any table are an error. Unknown keys inside `[package]` (description,
//   license, ...) are read and ignored, as package metadata may grow.
// - `name`, `version` and `language` are required strings; `language` must
//   be one we implement. The name must become an identifier once each `-`
//   is replaced by `_`, and not a keyword or reserved word, since it is the
//   root module's name.
// - A dependency is `key = { path = "relative/dir" }` and nothing else.
// Every problem is reported, not just the first, except TOML syntax errors,
// after which the rest of the file is not read.
#include "compiler/modules/Manifest.h"

#include "compiler/modules/Names.h"
#include "compiler/modules/Toml.h"

namespace linnet::modules {

const ManifestDependency* PackageManifest::findDependency(std::string_view key) const {
  for (const ManifestDependency& dependency : dependencies)
    if (dependency.key == key) return &dependency;
  return nullptr;
}

std::string packageModuleName(std::string_view name) {
  std::string out(name);
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

namespace {

class ManifestReader {
 public:
  ManifestReader(FileId file, std::string_view text, DiagnosticEmitter& diagnostics)
      : file_(file), text_(text), diagnostics_(diagnostics) {}

  PackageManifest run() {
    PackageManifest manifest;
    TomlError error;
    std::optional<TomlDocument> document = parseToml(text_, &error);
    if (!document) {
      diagnostics_.emit(DiagnosticKind::MalformedManifest, span(error.begin, error.end),
                        error.message);
      return manifest;
    }
    size_t errorsBefore = diagnostics_.errorCount();
    readTables(*document, manifest);
    manifest.valid = diagnostics_.errorCount() == errorsBefore;
    return manifest;
  }

 private:
  Span span(uint32_t begin, uint32_t end) const { return Span{file_, begin, end}; }
  Span keySpan(const TomlEntry& entry) const { return span(entry.keyBegin, entry.keyEnd); }
  Span valueSpan(const TomlValue& value) const { return span(value.begin, value.end); }

  void readTables(const TomlDocument& document, PackageManifest& manifest) {
    const TomlTable* package = nullptr;
    const TomlTable* dependencies = nullptr;
    for (const TomlTable& table : document.tables) {
      if (table.name.empty()) {
        if (!table.entries.empty())
          diagnostics_.emit(DiagnosticKind::MalformedManifest, keySpan(table.entries.front()),
                            "keys must be inside a table")
              .help("put package keys under `[package]`");
      } else if (table.name == "package") {
        package = &table;
      } else if (table.name == "dependencies") {
        dependencies = &table;
      } else {
        diagnostics_.emit(DiagnosticKind::ManifestUnknownTable,
                          span(table.headerBegin, table.headerEnd), table.name)
            .note("a manifest has a `[package]` table and may have a `[dependencies]` table");
      }
    }
    if (!package) {
      diagnostics_.emit(DiagnosticKind::ManifestMissingTable, span(0, 0), "package")
          .help("start the manifest with `[package]` and its `name`, `version` and `language`");
    } else {
      readPackage(*package, manifest);
    }
    if (dependencies) readDependencies(*dependencies, manifest);
  }

  // The string value of `key` in `table`, reporting a missing key or a value
  // of another kind.
  const TomlEntry* requireString(const TomlTable& table, std::string_view key) {
    const TomlEntry* entry = table.find(key);
    if (!entry) {
      diagnostics_.emit(DiagnosticKind::ManifestMissingKey,
                        span(table.headerBegin, table.headerEnd), table.name, key);
      return nullptr;
    }
    if (entry->value.kind != TomlValue::Kind::String) {
      diagnostics_.emit(DiagnosticKind::ManifestWrongType, valueSpan(entry->value), key,
                        "a string", entry->value.kindName());
      return nullptr;
    }
    if (entry->value.string.empty()) {
      diagnostics_.emit(DiagnosticKind::ManifestWrongType, valueSpan(entry->value), key,
                        "a non-empty string", "an empty one");
      return nullptr;
    }
    return entry;
  }

  void readPackage(const TomlTable& table, PackageManifest& manifest) {
    if (const TomlEntry* name = requireString(table, "name")) {
      manifest.name = name->value.string;
      manifest.moduleName = packageModuleName(manifest.name);
      manifest.nameSpan = valueSpan(name->value);
      if (isKeyword(manifest.moduleName) || isReservedWord(manifest.moduleName)) {
        diagnostics_.emit(DiagnosticKind::ReservedManifestName, manifest.nameSpan,
                          manifest.moduleName, "package")
            .note("the package name is the name of its root module");
      } else if (!isIdentifier(manifest.moduleName)) {
        diagnostics_.emit(DiagnosticKind::InvalidPackageName, manifest.nameSpan, manifest.name)
            .note("the package name is the name of its root module")
            .help("use ASCII letters, digits, `_` and `-`, not starting with a digit");
      }
    }
    if (const TomlEntry* version = requireString(table, "version"))
      manifest.version = version->value.string;
    if (const TomlEntry* language = requireString(table, "language")) {
      manifest.language = language->value.string;
      if (manifest.language != kLanguageVersion) {
        diagnostics_.emit(DiagnosticKind::UnsupportedLanguageVersion, valueSpan(language->value),
                          manifest.language)
            .help(fmt::format("this toolchain implements language version `{}`",
                              kLanguageVersion));
      }
    }
  }

  void readDependencies(const TomlTable& table, PackageManifest& manifest) {
    for (const TomlEntry& entry : table.entries) {
      const std::string& key = entry.key;
      if (isKeyword(key) || isReservedWord(key)) {
        diagnostics_.emit(DiagnosticKind::ReservedManifestName, keySpan(entry), key, "dependency")
            .note("a dependency key is the first segment of the imports from that package");
        continue;
      }
      if (!isIdentifier(key) || key == "std" || key == "crate") {
        diagnostics_.emit(DiagnosticKind::InvalidDependencyKey, keySpan(entry), key)
            .note("a dependency key is the first segment of the imports from that package");
        continue;
      }
      const TomlValue& value = entry.value;
      const TomlEntry* path = nullptr;
      bool pathOnly = value.kind == TomlValue::Kind::InlineTable && value.table.size() == 1 &&
                      value.table.front().key == "path";
      if (pathOnly) path = &value.table.front();
      if (!path || path->value.kind != TomlValue::Kind::String || path->value.string.empty()) {
        diagnostics_.emit(DiagnosticKind::UnsupportedDependency, valueSpan(value), key)
            .note("only path dependencies are supported")
            .help(fmt::format("write `{} = {{ path = \"../{}\" }}`", key, key));
        continue;
      }
      if (path->value.string.front() == '/' || path->value.string.front() == '\\') {
        diagnostics_.emit(DiagnosticKind::AbsoluteDependencyPath, valueSpan(path->value), key);
        continue;
      }
      if (manifest.findDependency(key)) continue;  // a duplicate key is a TOML error already
      manifest.dependencies.push_back(
          {key, path->value.string, keySpan(entry), valueSpan(path->value)});
    }
  }

  FileId file_;
  std::string_view text_;
  DiagnosticEmitter& diagnostics_;
};

}  // namespace

PackageManifest readManifest(const SourceManager& sources, FileId file,
                             DiagnosticEmitter& diagnostics) {
  return ManifestReader(file, sources.file(file).text(), diagnostics).run();
}

}  // namespace linnet::modules
