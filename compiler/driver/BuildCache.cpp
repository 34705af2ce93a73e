// Implementation of BuildCache.h.
#include "compiler/driver/BuildCache.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <vector>

#include "compiler/driver/Fnv128.h"
#include "runtime/artifact/ArtifactFile.h"
#include "runtime/artifact/Manifest.h"
#include "runtime/artifact/SharedObject.h"
#include "runtime/checkpoint/MappedFile.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/support/DType.h"

namespace linnet::driver {

namespace {

// Bumped whenever what goes into a key changes.
constexpr std::string_view kKeyFormat = "linnet-build-cache/1";

// A file's bytes, mapped (reading a file of gigabytes into a string took
// two or three times its size in memory), or nullopt if it cannot be read
// (absent is a fact the key records, not an error: the package may have no
// bindings.json).
std::optional<rt::MappedFile> mapFile(const std::filesystem::path& path) {
  // A FIFO or a device is no file of the package (reading one would block
  // or never end): absent, as the build that reads it then reports.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  rt::Expected<rt::MappedFile> file = rt::MappedFile::open(path);
  if (!file) return std::nullopt;
  return std::move(*file);
}

void addOptionalFile(Fnv128& hash, const std::filesystem::path& path) {
  std::optional<rt::MappedFile> file = mapFile(path);
  hash.addPart(path.string());
  hash.addPart(file ? "present" : "absent");
  if (file) hash.addPart(std::string_view(reinterpret_cast<const char*>(file->data()), file->size()));
}

// The running executable's size and mtime: cheap, and different after every
// rebuild of the compiler.
std::string executableIdentity() {
  struct stat info {};
  if (stat("/proc/self/exe", &info) != 0) return "unknown";
  return std::to_string(info.st_size) + ":" + std::to_string(info.st_mtim.tv_sec) + "." +
         std::to_string(info.st_mtim.tv_nsec);
}

// The user's home directory in the password database (a service started
// without HOME still has one there), or nullopt.
std::optional<std::string> passwordDatabaseHome() {
  long suggested = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(suggested > 0 ? static_cast<std::size_t>(suggested) : 4096);
  struct passwd entry {};
  struct passwd* found = nullptr;
  int error = 0;
  while ((error = getpwuid_r(getuid(), &entry, buffer.data(), buffer.size(), &found)) == ERANGE &&
         buffer.size() < (std::size_t{1} << 20))
    buffer.resize(buffer.size() * 2);
  if (error != 0 || !found || !found->pw_dir || !*found->pw_dir) return std::nullopt;
  return std::string(found->pw_dir);
}

}  // namespace

rt::Expected<std::filesystem::path> buildCacheDirectory() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // A relative one is ignored, as the XDG base directory spec says: the
  // cache would move with the working directory.
  if (xdg && *xdg && std::filesystem::path(xdg).is_absolute()) return std::filesystem::path(xdg) / "linnet";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::filesystem::path(home) / ".cache" / "linnet";
  if (std::optional<std::string> passwordHome = passwordDatabaseHome())
    return std::filesystem::path(*passwordHome) / ".cache" / "linnet";
  std::string unset = xdg && *xdg ? "XDG_CACHE_HOME is not an absolute path and HOME is unset"
                                   : "XDG_CACHE_HOME and HOME are unset";
  return rt::makeError("{} and uid {} has no home directory in the password database; set XDG_CACHE_HOME to cache "
                       "builds",
                       unset, getuid());
}

rt::Expected<std::string> buildCacheKey(const LoadedPackage& package, const BuildOptions& options,
                                        const std::string& target) {
  Fnv128 hash;
  hash.addPart(kKeyFormat);
  hash.addPart(kLinnetVersion);
  hash.addPart(executableIdentity());
  hash.addPart(target);
  hash.addPart(options.path);

  const SourceManager& sources = package.sources;
  hash.addPart(std::to_string(sources.fileCount()));
  for (FileId id = 1; id <= sources.fileCount(); ++id) {
    const SourceFile& file = sources.file(id);
    hash.addPart(file.path());
    hash.addPart(file.text());
  }
  // bindings.json, generics.json and any other JSON the binder reads beside
  // linnet.toml (constants.json): all of them, in name order.
  for (const std::unique_ptr<Package>& p : package.program->packages()) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(p->rootDir, ec))
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    hash.addPart(p->rootDir);
    for (const std::filesystem::path& file : files) addOptionalFile(hash, file);
  }

  std::vector<std::string> binds = options.binds;
  std::sort(binds.begin(), binds.end());
  hash.addPart("binds");
  for (const std::string& bind : binds) hash.addPart(bind);
  hash.addPart("entries");
  for (const std::string& entry : options.entries) hash.addPart(entry);
  hash.addPart("root");
  hash.addPart(options.root);

  hash.addPart("checkpoint");
  if (!options.checkpoint.empty()) {
    rt::Expected<rt::Checkpoint> checkpoint = rt::Checkpoint::open(options.checkpoint);
    if (!checkpoint) return checkpoint.error();
    hash.addPart(checkpoint->hasConfig() ? checkpoint->config().dump() : "no config.json");
    for (const rt::TensorView* tensor : checkpoint->tensors()) {
      hash.addPart(tensor->name);
      hash.addPart(rt::dtypeName(tensor->dtype));
      std::string shape;
      for (std::int64_t d : tensor->shape) shape += std::to_string(d) + ",";
      hash.addPart(shape);
    }
  }
  return hash.hex();
}

std::optional<std::string> readCachedArtifact(const std::filesystem::path& path, std::string* problem) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::optional<rt::MappedFile> file = mapFile(path);
  if (!file) {
    *problem = "cannot be read";
    return std::nullopt;
  }
  // Checked where it lies, so a damaged entry of any size costs nothing.
  rt::Expected<rt::ArtifactContents> contents = rt::splitArtifact(file->bytes(), path.string());
  if (!contents) {
    *problem = contents.message();
    return std::nullopt;
  }
  rt::Expected<rt::Manifest> manifest = rt::parseManifest(contents->manifestJson, path.string());
  if (!manifest) {
    *problem = manifest.message();
    return std::nullopt;
  }
  if (rt::Status object = rt::SharedObject::check(contents->sharedObject, path.string()); !object) {
    *problem = object.message();
    return std::nullopt;
  }
  return std::string(reinterpret_cast<const char*>(file->data()), file->size());
}

rt::Status writeCachedArtifact(const std::filesystem::path& path, const BuiltArtifact& built) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return rt::makeError("{}: cannot create the cache directory: {}", path.parent_path().string(), ec.message());
  return rt::writeArtifact(path.string(), built.manifestJson, built.sharedObject);
}

}  // namespace linnet::driver
