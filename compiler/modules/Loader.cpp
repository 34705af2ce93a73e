// Loader: from command-line paths to a Program of parsed modules (spec §2.1,
// §2.2, §2.5, §2.8).
//
// Files are identified by their canonical path, so a file named on the
// command line and reached again through an import is one module. Paths in
// diagnostics are the ones the user gave, extended by the import mapping
// (`models/phi3/src/attention.linnet`), not canonical ones. All filesystem
// calls use error codes: an unreadable directory or a dangling link is a
// diagnostic, never an exception. Nothing a package contains is executed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "compiler/lex/Lexer.h"
#include "compiler/modules/ImportGraph.h"
#include "compiler/modules/Manifest.h"
#include "compiler/modules/Names.h"
#include "compiler/modules/Toml.h"
#include "compiler/modules/Program.h"
#include "compiler/parse/Parser.h"
#include "runtime/artifact/ArtifactFile.h"

namespace linnet {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kManifestName = "linnet.toml";
constexpr std::string_view kSourceExtension = ".linnet";

bool isDirectory(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool isRegularFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// What is at a path an import maps to. A file that is there but cannot be
// read (a link loop, a directory, no permission) is not a module that does
// not exist: the user must hear why, or they look for a typo.
struct FileProbe {
  bool missing = false;  // nothing there at all
  bool exists = false;   // something is there (a link counts)
  std::string reason;    // why it cannot be read; empty if it can
};

FileProbe probeFile(const fs::path& file) {
  FileProbe probe;
  struct stat info {};
  if (lstat(file.c_str(), &info) != 0) {
    probe.missing = errno == ENOENT || errno == ENOTDIR;
    probe.reason = std::strerror(errno);
    return probe;
  }
  probe.exists = true;
  if (stat(file.c_str(), &info) != 0) {
    probe.reason = errno == ENOENT ? "it is a symbolic link to a file that does not exist" : std::strerror(errno);
    return probe;
  }
  if (S_ISDIR(info.st_mode)) {
    probe.reason = std::strerror(EISDIR);
    return probe;
  }
  // A FIFO would block the read, a device never end it.
  if (!S_ISREG(info.st_mode)) {
    probe.reason = "it is not a regular file";
    return probe;
  }
  int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    probe.reason = std::strerror(errno);
    return probe;
  }
  close(fd);
  return probe;
}

// "`PATH` exists but cannot be read: REASON", or without "exists" where the
// path itself could not be looked at.
std::string unreadableMessage(const std::string& path, const FileProbe& probe) {
  return fmt::format("`{}` {}cannot be read: {}", path, probe.exists ? "exists but " : "", probe.reason);
}

// A key that is the same for every spelling of one file.
std::string canonicalKey(const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  if (ec) canonical = fs::absolute(path, ec).lexically_normal();
  return canonical.string();
}

std::string displayPath(const fs::path& path) { return path.lexically_normal().string(); }

// "a.b.c" from the identifiers of a path.
std::string joinIdents(const std::vector<ast::Ident>& path) {
  std::string out;
  for (const ast::Ident& ident : path) {
    if (!out.empty()) out += '.';
    out += ident.name;
  }
  return out;
}

Span identsSpan(const std::vector<ast::Ident>& path) {
  if (path.empty()) return {};
  return path.front().span.to(path.back().span);
}

// `relative` (inside a library root) as module path segments:
// `nn/linear.linnet` -> {"nn", "linear"}.
std::vector<std::string> moduleSegments(const fs::path& relative) {
  std::vector<std::string> segments;
  for (const fs::path& part : relative) segments.push_back(part.string());
  if (!segments.empty()) {
    std::string& last = segments.back();
    if (last.ends_with(kSourceExtension)) last.resize(last.size() - kSourceExtension.size());
  }
  return segments;
}

// The path of `file` below `root` (both canonical), or nullopt if outside.
std::optional<fs::path> below(const std::string& file, const std::string& root) {
  if (root.empty() || file.size() <= root.size() + 1) return std::nullopt;
  if (file.compare(0, root.size(), root) != 0 || file[root.size()] != '/') return std::nullopt;
  return fs::path(file.substr(root.size() + 1));
}

}  // namespace

std::string findStdDir(std::string_view executablePath, const char* linnetStdEnv) {
  if (linnetStdEnv && *linnetStdEnv) return std::string(linnetStdEnv);
  std::error_code ec;
  fs::path executable(executablePath);
  // A bare name was found through PATH; ask the kernel where it lives.
  if (!executable.has_parent_path()) {
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    executable = self;
  }
  fs::path dir = fs::absolute(executable, ec).lexically_normal().parent_path();
  if (ec) return {};
  for (int level = 0; level <= 4 && !dir.empty(); ++level) {
    for (const char* candidate : {"stdlib", "share/linnet/stdlib"}) {
      fs::path stdDir = dir / candidate;
      if (isDirectory(stdDir)) return stdDir.lexically_normal().string();
    }
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return {};
}

std::string findStdDir(std::string_view executablePath) {
  return findStdDir(executablePath, std::getenv("LINNET_STD"));
}

// Builds a Program; a friend of Program so that the finished structure is
// read-only to everyone else.
class ProgramBuilder {
 public:
  ProgramBuilder(SourceManager& sources, DiagnosticEmitter& diagnostics, const LoadOptions& options)
      : sources_(sources), diagnostics_(diagnostics), options_(options) {
    if (!options_.stdDir.empty()) stdKey_ = canonicalKey(options_.stdDir);
  }

  std::unique_ptr<Program> run(const std::vector<std::string>& paths) {
    program_ = std::make_unique<Program>();
    std::vector<fs::path> files;
    for (const std::string& path : paths) collect(path, files);
    for (const fs::path& file : files) {
      Module* module = loadFile(file);
      if (module && std::find(program_->roots_.begin(), program_->roots_.end(), module) ==
                        program_->roots_.end())
        program_->roots_.push_back(module);
    }
    if (!paths.empty()) program_->rootPackage_ = rootPackageOf(paths.front());
    // Breadth-first over imports; `modules_` grows while we walk it.
    for (size_t i = 0; i < program_->modules_.size(); ++i) followUses(*program_->modules_[i]);
    reportCycles();
    return std::move(program_);
  }

 private:
  // Expands one command-line path into source files.
  void collect(const std::string& path, std::vector<fs::path>& files) {
    fs::path root(path);
    std::error_code ec;
    fs::file_status status = fs::status(root, ec);
    if (ec || !fs::exists(status)) {
      // A link loop or a directory that cannot be searched is not "no such
      // file".
      diagnostics_.emit(DiagnosticKind::CannotReadPath, Span{}, path,
                        status.type() == fs::file_type::not_found ? "no such file or directory" : ec.message());
      return;
    }
    if (!fs::is_directory(status)) {
      files.push_back(root);
      return;
    }
    if (isRegularFile(root / kManifestName)) packageAt(root);
    std::vector<fs::path> found;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      diagnostics_.emit(DiagnosticKind::CannotReadPath, Span{}, path, ec.message());
      return;
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      const fs::path& entry = it->path();
      std::string name = entry.filename().string();
      std::error_code typeError;
      if (it->is_directory(typeError)) {
        if (name.starts_with('.') || name == "build") it.disable_recursion_pending();
        continue;
      }
      if (entry.extension() == kSourceExtension && it->is_regular_file(typeError))
        found.push_back(entry);
    }
    if (ec) diagnostics_.emit(DiagnosticKind::CannotReadPath, Span{}, path, ec.message());
    std::sort(found.begin(), found.end(),
              [](const fs::path& a, const fs::path& b) { return a.string() < b.string(); });
    files.insert(files.end(), found.begin(), found.end());
  }

  // ------------------------------------------------------------ packages --

  // The package whose manifest is `dir`/linnet.toml (which must exist),
  // read once.
  Package* packageAt(const fs::path& dir) {
    std::string key = canonicalKey(dir);
    auto found = packages_.find(key);
    if (found != packages_.end()) return found->second;
    auto package = std::make_unique<Package>();
    Package* raw = package.get();
    packages_[key] = raw;
    program_->packages_.push_back(std::move(package));
    raw->rootDir = displayPath(dir);
    raw->manifestPath = displayPath(dir / kManifestName);

    std::error_code ec;
    uintmax_t size = fs::file_size(dir / kManifestName, ec);
    if (!ec && size > modules::kMaxTomlBytes) {
      diagnostics_.emit(DiagnosticKind::UnreadableManifest, Span{}, raw->manifestPath,
                        "it is larger than 1 MiB");
      return raw;
    }
    std::string error;
    std::optional<FileId> file = sources_.addFile(raw->manifestPath, &error);
    if (!file) {
      diagnostics_.emit(DiagnosticKind::UnreadableManifest, Span{}, raw->manifestPath,
                        ec ? ec.message() : error);
      return raw;
    }
    raw->manifestFile = *file;
    modules::PackageManifest manifest = modules::readManifest(sources_, *file, diagnostics_);
    raw->name = manifest.name;
    raw->version = manifest.version;
    raw->language = manifest.language;
    raw->valid = manifest.valid;
    if (modules::isIdentifier(manifest.moduleName) && !modules::isKeyword(manifest.moduleName) &&
        !modules::isReservedWord(manifest.moduleName))
      raw->moduleName = manifest.moduleName;
    for (const modules::ManifestDependency& dependency : manifest.dependencies) {
      fs::path depDir = (dir / dependency.path).lexically_normal();
      if (!isRegularFile(depDir / kManifestName)) {
        diagnostics_.emit(DiagnosticKind::MissingDependencyManifest, dependency.pathSpan,
                          dependency.key, displayPath(depDir))
            .note("a path dependency is a directory holding its own `linnet.toml`");
        raw->valid = false;
        continue;
      }
      raw->dependencies.push_back({dependency.key, displayPath(depDir), dependency.keySpan});
    }
    return raw;
  }

  // The package of the nearest `linnet.toml` in `dir` or above it.
  Package* nearestPackage(const fs::path& dir) {
    std::error_code ec;
    fs::path absolute = fs::absolute(dir.empty() ? fs::path(".") : dir, ec).lexically_normal();
    if (ec) return nullptr;
    // Walk the spelled path and the absolute one together, so that the
    // package's directory keeps the user's spelling while it can.
    fs::path spelled = dir;
    bool spelledUsable = !dir.empty();
    while (true) {
      if (isRegularFile(absolute / kManifestName))
        return packageAt(spelledUsable ? spelled : absolute);
      // A linnet.toml that is a directory, a FIFO or a link to nothing marks
      // a package the build cannot read: say so, rather than only that
      // `crate` is used outside a package.
      fs::path manifest = absolute / kManifestName;
      std::error_code linkError;
      if (fs::symlink_status(manifest, linkError).type() != fs::file_type::not_found && !linkError) {
        if (reportedManifests_.insert(manifest.string()).second)
          diagnostics_.emit(DiagnosticKind::CannotReadPath, Span{}, manifest.string(),
                            "a package manifest must be a readable regular file");
        return nullptr;
      }
      if (absolute == absolute.parent_path() || absolute.empty()) return nullptr;
      absolute = absolute.parent_path();
      if (spelledUsable) {
        spelled = spelled.parent_path();
        spelledUsable = !spelled.empty();
      }
    }
  }

  const Package* rootPackageOf(const std::string& path) {
    fs::path root(path);
    if (isDirectory(root) && isRegularFile(root / kManifestName)) return packageAt(root);
    return nearestPackage(isDirectory(root) ? root : root.parent_path());
  }

  // ------------------------------------------------------------- modules --

  // Reads and parses `file` once; null if it cannot be read (the caller
  // reports that).
  Module* loadFile(const fs::path& file, std::string* readError = nullptr) {
    std::string key = canonicalKey(file);
    auto found = modulesByKey_.find(key);
    if (found != modulesByKey_.end()) return found->second;
    std::string path = displayPath(file);
    std::string error;
    std::optional<FileId> id = sources_.addFile(path, &error);
    if (!id) {
      FileProbe probe = probeFile(file);
      if (readError) *readError = probe.reason.empty() ? error : unreadableMessage(path, probe);
      else
        diagnostics_.emit(DiagnosticKind::CannotReadPath, Span{}, path,
                          probe.reason.empty() ? "cannot open the file" : probe.reason);
      return nullptr;
    }
    // A compiled artifact given where source is expected (`linnet check
    // model.lnpkg`) gave hundreds of lexer errors over its bytes.
    if (sources_.file(*id).text().starts_with(std::string_view(rt::kArtifactMagic, sizeof rt::kArtifactMagic))) {
      std::string why = "it is a compiled linnet artifact, not Linnet source: run it with `linnet run` or `linnet-run`";
      if (readError) *readError = why;
      else diagnostics_.emit(DiagnosticKind::CannotReadPath, Span{}, path, why);
      return nullptr;
    }
    auto module = std::make_unique<Module>();
    Module* raw = module.get();
    modulesByKey_[key] = raw;
    program_->modules_.push_back(std::move(module));
    raw->path = path;
    raw->file = *id;

    size_t errorsBefore = diagnostics_.errorCount();
    TokenizedBuffer tokens = lex(sources_, *id, diagnostics_);
    raw->ast = parse(sources_, tokens, diagnostics_);
    if (!raw->ast) raw->ast = std::make_unique<ast::SourceModule>();
    raw->hasParseErrors = diagnostics_.errorCount() != errorsBefore;
    raw->name = raw->ast->moduleName();
    for (const ast::Item* item : raw->ast->items)
      raw->itemIndex.try_emplace(item->name.name, item);
    raw->useTargets.assign(raw->ast->uses.size(), nullptr);

    placeModule(*raw, key, file);
    return raw;
  }

  // Decides whether `module` is part of std or of a package, and checks
  // that its `module` line agrees with where the file is.
  void placeModule(Module& module, const std::string& key, const fs::path& file) {
    std::vector<std::string> expected;
    if (std::optional<fs::path> inStd = below(key, stdKey_)) {
      module.isStd = true;
      expected.push_back("std");
      for (std::string& segment : moduleSegments(*inStd)) expected.push_back(std::move(segment));
    } else {
      module.package = nearestPackage(file.parent_path());
      if (!module.package || module.package->moduleName.empty()) return;
      std::optional<fs::path> inSrc =
          below(key, canonicalKey(fs::path(module.package->rootDir) / "src"));
      if (!inSrc) return;  // tests, examples: not importable, so not checked
      expected.push_back(module.package->moduleName);
      std::vector<std::string> segments = moduleSegments(*inSrc);
      if (!(segments.size() == 1 && segments.front() == "lib"))
        for (std::string& segment : segments) expected.push_back(std::move(segment));
    }
    if (module.ast->modulePath.empty()) return;  // E1102 already
    Span declared = identsSpan(module.ast->modulePath);
    for (size_t i = 1; i < expected.size(); ++i) {
      const std::string& segment = expected[i];
      if (modules::isKeyword(segment) || modules::isReservedWord(segment)) {
        diagnostics_.emit(DiagnosticKind::ReservedModuleName, declared, segment)
            .note(fmt::format("the module's name comes from its file, `{}`", module.path))
            .help("rename the file");
        return;
      }
      if (!modules::isIdentifier(segment)) {
        diagnostics_.emit(DiagnosticKind::InvalidModuleFileName, declared, segment)
            .note(fmt::format("the module's name comes from its file, `{}`", module.path))
            .help("rename the file or directory: module names are ASCII letters, digits and `_`");
        return;
      }
    }
    std::string expectedName;
    for (const std::string& segment : expected)
      expectedName += (expectedName.empty() ? "" : ".") + segment;
    if (module.name != expectedName) {
      diagnostics_.emit(DiagnosticKind::ModulePathMismatch, declared, module.name, expectedName)
          .label(fmt::format("expected `{}`", expectedName))
          .note(module.isStd ? "a standard library file `a/b.linnet` holds module `std.a.b`"
                             : "in a package, `src/lib.linnet` holds the module named after the "
                               "package and `src/a/b.linnet` holds `<package>.a.b`")
          .help(fmt::format("write `module {}`", expectedName));
    }
  }

  // Maps each `use` of `module` to its file and loads it.
  void followUses(Module& module) {
    for (size_t i = 0; i < module.ast->uses.size(); ++i)
      module.useTargets[i] = followUse(module, *module.ast->uses[i]);
  }

  const Module* followUse(const Module& from, const ast::UseDecl& use) {
    if (use.path.empty()) return nullptr;
    std::string logical = joinIdents(use.path);
    Span pathSpan = identsSpan(use.path);
    const ast::Ident& rootIdent = use.path.front();
    fs::path file;
    switch (use.root) {
      case ast::ImportRoot::Std: {
        if (options_.stdDir.empty()) {
          // One report for the program: every other `std` import fails the
          // same way for the same reason.
          if (!reportedNoStd_)
            diagnostics_.emit(DiagnosticKind::NoStandardLibrary, pathSpan, logical)
                .note("no `--std DIR` was given, `LINNET_STD` is not set, and no `stdlib` "
                      "directory was found near the `linnet` executable")
                .help("pass `--std DIR` or set `LINNET_STD`");
          reportedNoStd_ = true;
          return nullptr;
        }
        if (use.path.size() == 1) {
          diagnostics_.emit(DiagnosticKind::UnknownModule, pathSpan, logical)
              .note("`std` is the standard library's root; its modules are `std.nn.linear`, "
                    "`std.random`, ...");
          return nullptr;
        }
        file = fs::path(options_.stdDir);
        for (size_t k = 1; k < use.path.size(); ++k) file /= use.path[k].name;
        file += kSourceExtension;
        break;
      }
      case ast::ImportRoot::Crate: {
        if (from.isStd || !from.package) {
          auto diag = diagnostics_.emit(DiagnosticKind::CrateOutsidePackage, rootIdent.span);
          if (from.isStd)
            diag.note("standard library modules import each other as `std.a.b`");
          else
            diag.note(fmt::format("no `linnet.toml` was found in the directory of `{}` or above it",
                                  from.path))
                .help("create a package with a `linnet.toml`, or import through `std`");
          return nullptr;
        }
        file = libraryFile(from.package->rootDir, use.path);
        break;
      }
      case ast::ImportRoot::Dependency: {
        const Dependency* dependency =
            from.package && !from.isStd ? from.package->findDependency(rootIdent.name) : nullptr;
        if (!dependency) {
          auto diag =
              diagnostics_.emit(DiagnosticKind::UnknownDependency, rootIdent.span, rootIdent.name);
          if (from.package && !from.isStd)
            diag.note(fmt::format("`{}` lists no dependency `{}`", from.package->manifestPath,
                                  rootIdent.name))
                .help(fmt::format("add `{} = {{ path = \"...\" }}` under `[dependencies]`",
                                  rootIdent.name));
          else
            diag.note(fmt::format("`{}` is not part of a package, so it has no dependencies",
                                  from.path));
          return nullptr;
        }
        packageAt(dependency->dir);
        file = libraryFile(dependency->dir, use.path);
        break;
      }
    }
    FileProbe probe = probeFile(file);
    if (probe.missing) {
      diagnostics_.emit(DiagnosticKind::UnknownModule, pathSpan, logical)
          .note(fmt::format("no file `{}`", displayPath(file)));
      return nullptr;
    }
    if (!probe.reason.empty()) {
      diagnostics_.emit(DiagnosticKind::UnreadableModule, pathSpan, logical,
                        unreadableMessage(displayPath(file), probe));
      return nullptr;
    }
    std::string error;
    Module* target = loadFile(file, &error);
    if (!target) diagnostics_.emit(DiagnosticKind::UnreadableModule, pathSpan, logical, error);
    return target;
  }

  // `<root>/src/lib.linnet` for a bare root, `<root>/src/a/b.linnet` for
  // `root.a.b`.
  static fs::path libraryFile(const std::string& root, const std::vector<ast::Ident>& path) {
    fs::path file = fs::path(root) / "src";
    if (path.size() == 1) return file / "lib.linnet";
    for (size_t k = 1; k < path.size(); ++k) file /= path[k].name;
    file += kSourceExtension;
    return file;
  }

  // ------------------------------------------------------------- cycles --

  void reportCycles() {
    const auto& modules = program_->modules_;
    std::map<const Module*, uint32_t> index;
    for (uint32_t i = 0; i < modules.size(); ++i) index[modules[i].get()] = i;
    std::vector<modules::ImportEdge> edges;
    for (uint32_t i = 0; i < modules.size(); ++i)
      for (uint32_t u = 0; u < modules[i]->useTargets.size(); ++u)
        if (const Module* target = modules[i]->useTargets[u])
          edges.push_back({i, index[target], u});
    auto name = [&](uint32_t m) {
      return modules[m]->name.empty() ? modules[m]->path : modules[m]->name;
    };
    for (const std::vector<modules::ImportEdge>& cycle :
         modules::findImportCycles(static_cast<uint32_t>(modules.size()), edges)) {
      std::string chain = fmt::format("`{}`", name(cycle.front().from));
      for (const modules::ImportEdge& edge : cycle) chain += fmt::format(" -> `{}`", name(edge.to));
      auto useSpan = [&](const modules::ImportEdge& edge) {
        return identsSpan(modules[edge.from]->ast->uses[edge.tag]->path);
      };
      const modules::ImportEdge& first = cycle.front();
      auto diag = diagnostics_.emit(DiagnosticKind::ImportCycle, useSpan(first), chain);
      diag.label(fmt::format("`{}` imports `{}` here", name(first.from), name(first.to)));
      for (size_t k = 1; k < cycle.size(); ++k)
        diag.secondary(useSpan(cycle[k]), fmt::format("`{}` imports `{}` here",
                                                      name(cycle[k].from), name(cycle[k].to)));
      diag.note("modules may not import each other, directly or indirectly")
          .help("move what they share into a module that none of them imports");
    }
  }

  SourceManager& sources_;
  DiagnosticEmitter& diagnostics_;
  const LoadOptions& options_;
  std::string stdKey_;
  bool reportedNoStd_ = false;
  std::unique_ptr<Program> program_;
  std::map<std::string, Module*> modulesByKey_;
  std::set<std::string> reportedManifests_;  // unreadable linnet.toml files, reported once
  std::map<std::string, Package*> packages_;
};

std::unique_ptr<Program> loadProgram(SourceManager& sources, DiagnosticEmitter& diagnostics,
                                     const std::vector<std::string>& paths,
                                     const LoadOptions& options) {
  return ProgramBuilder(sources, diagnostics, options).run(paths);
}

}  // namespace linnet
