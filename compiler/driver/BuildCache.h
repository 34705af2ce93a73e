// The build cache of `linnet run PKG`: artifacts kept under
// $XDG_CACHE_HOME/linnet (or ~/.cache/linnet) as KEY.lnpkg, so running the
// same package again starts at once.
//
// The key is a 128-bit FNV-1a hash (Fnv128.h) of everything the artifact
// depends on, each part length-prefixed so no two inputs run together:
//   - the format of this key and linnet's version, plus the size and
//     modification time of the running `linnet` executable (a rebuilt
//     compiler never reuses an older one's output);
//   - the target (triple, CPU, features);
//   - every source file the program loaded (stdlib and linnet.toml files
//     included), with its path;
//   - each package's JSON files beside its linnet.toml (bindings.json,
//     generics.json, ...);
//   - the build's --bind values (sorted) and --entry list;
//   - the checkpoint's config.json and every tensor's name, dtype and shape.
//     Not the weights: they are bound at run time, so the same model with
//     other weights of the same shapes shares the artifact.
// Entries are written atomically (temporary file, rename). A cached file is
// checked (container and manifest) before it is used; a damaged one is
// reported and rebuilt, and the runtime validates it again when it loads.
// Anything at an entry's path that is not a regular file (a FIFO, a
// directory, a socket, a device, any symbolic link) is never opened for
// reading: it is a miss, and the rebuilt entry is renamed over it.
//
// One process compiles a given entry at a time: a miss takes the entry's
// lock (BuildCacheLock, flock on KEY.lock beside it), looks again, and only
// then compiles; another process missing the same entry waits for the lock
// and finds the entry written (docs/runtime.md, "linnet run").
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "compiler/driver/BuildPipeline.h"
#include "runtime/support/Status.h"

namespace linnet::driver {

// $XDG_CACHE_HOME/linnet, else $HOME/.cache/linnet, else the password
// database's home directory's .cache/linnet. An empty or relative
// XDG_CACHE_HOME is ignored and an empty HOME is unset (the XDG base
// directory spec). Errors: no directory can be found (then nothing is
// cached); the message says why.
rt::Expected<std::filesystem::path> buildCacheDirectory();

// The hex key of building `package` with `options` for `target`
// (hostTargetDescription()). Errors: the checkpoint cannot be opened.
rt::Expected<std::string> buildCacheKey(const LoadedPackage& package, const BuildOptions& options,
                                        const std::string& target);

// The artifact stored at `path`, checked: nullopt if there is none. A file
// that is there but damaged (short, bad magic, a bad checksum...) or is no
// regular file (a FIFO, a directory, a socket, a device, a symbolic link) is
// also nullopt, with `*problem` saying why. Never blocks: `path` is opened
// with O_NONBLOCK | O_NOFOLLOW and checked with fstat before anything is read.
// An artifact built from another package than `package` (its manifest's
// `source.package`; a valid artifact copied to the entry's path) is refused
// the same way.
std::optional<std::string> readCachedArtifact(const std::filesystem::path& path, const std::string& package,
                                              std::string* problem);

// Stores the artifact image `image` (rt::encodeArtifact) at `path`
// atomically: a temporary `.KEY.lnpkg.XXXXXX` in the same directory, synced
// and renamed over `path`, so whatever was there (a damaged entry, a FIFO, a
// symbolic link) is replaced, never written through. Creates the directory.
// Errors (a directory at `path`, a read-only cache) name the path and why.
rt::Status writeCachedArtifact(const std::filesystem::path& path, std::string_view image);

// The lock a process holds while it compiles one cache entry, so that two
// `linnet run`s of the same build on a cold cache compile it once: an
// flock(LOCK_EX) on `KEY.lock` beside `KEY.lnpkg`. An flock dies with its
// process, so a lock file left by a killed run never blocks anyone (no
// O_EXCL lock files). The file is removed when the lock is released; since
// a waiter may then hold a lock on the removed file, acquire() checks after
// locking that the file it locked is still the one at the path, and tries
// again if not.
class BuildCacheLock {
public:
  // Takes the lock on `lockPath` (creating the directory and the file),
  // waiting as long as another process holds it; when it has to wait, says
  // so once on `progress` (if not null). Errors: the lock file cannot be
  // created or locked (a read-only cache directory, something other than a
  // regular file at the path); the message names the path and why.
  static rt::Expected<BuildCacheLock> acquire(const std::filesystem::path& lockPath, std::ostream* progress);

  BuildCacheLock() = default;
  BuildCacheLock(BuildCacheLock&& other) noexcept;
  BuildCacheLock& operator=(BuildCacheLock&& other) noexcept;
  BuildCacheLock(const BuildCacheLock&) = delete;
  BuildCacheLock& operator=(const BuildCacheLock&) = delete;
  ~BuildCacheLock() { release(); }

  // Removes the lock file and unlocks; nothing if not held.
  void release() noexcept;
  bool held() const { return fd_ >= 0; }
  // Whether acquire() had to wait for another process.
  bool waited() const { return waited_; }

private:
  std::filesystem::path path_;
  int fd_ = -1;
  bool waited_ = false;
};

}  // namespace linnet::driver
