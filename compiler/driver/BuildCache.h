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
#pragma once

#include <filesystem>
#include <optional>
#include <string>

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
// that is there but damaged is also nullopt, with `*problem` saying why.
std::optional<std::string> readCachedArtifact(const std::filesystem::path& path, std::string* problem);

// Stores `built` at `path` (creating the directory), atomically.
rt::Status writeCachedArtifact(const std::filesystem::path& path, const BuiltArtifact& built);

}  // namespace linnet::driver
