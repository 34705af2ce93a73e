// `linnet run PATH`: a `.lnpkg` goes straight to the runtime's run command
// (rt::runCommand, exactly as `linnet-run` runs it); a package is built in
// process through the build cache (BuildCache.h) and its artifact image
// handed to the same command, so both tools behave and report the same.
//
// The command line is checked (rt::checkCommandLine) before anything is
// compiled, so a misspelt flag costs no build. With --prompt the build
// binds Batch = 1 (generation runs one sequence).
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <system_error>

#include "compiler/driver/BuildCache.h"
#include "compiler/driver/BuildPipeline.h"
#include "compiler/driver/Driver.h"
#include "compiler/driver/DriverSupport.h"
#include "compiler/inspect/RootBinding.h"
#include "runtime/artifact/ArtifactFile.h"
#include "runtime/support/ShownName.h"

namespace linnet::driver {

namespace {

// A regular file that starts with the artifact magic (a package is a
// directory or a `.ln` file).
bool looksLikeArtifact(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  if (std::filesystem::path(path).extension() == ".lnpkg") return true;
  char magic[sizeof rt::kArtifactMagic] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(magic, sizeof magic);
  return in.gcount() == sizeof magic && std::memcmp(magic, rt::kArtifactMagic, sizeof magic) == 0;
}

std::string bindName(const std::string& bind) { return bind.substr(0, bind.find('=')); }

}  // namespace

int runRun(const CommonOptions& common, const RunPackageOptions& options) {
  rt::RunOptions run = options.run;
  run.toolName = "linnet";
  run.artifactPath = options.path;
  run.progress = !options.quiet;

  if (looksLikeArtifact(options.path)) {
    run.binds = options.binds;
    return rt::runCommand(run);
  }
  if (int code = rt::checkCommandLine(run); code != rt::kExitOk) return code;

  int code = kExitOk;
  std::unique_ptr<LoadedPackage> package = loadPackage(common, options.path, &code);
  if (!package) return code;

  // Root generics and the entries' type generics and pack lengths are the
  // build's; every other bind (an entry's dimensions) is the run's.
  std::optional<manifest::BlockRef> root =
      inspect::findRootBlock(*package->program, package->diagnostics, options.root);
  if (!root) return finishDiagnostics(common, package->sources, package->diagnostics);
  std::set<std::string> generics;
  if (root->block)
    for (const ast::GenericParam& generic : root->block->generics) generics.insert(generic.name.name);
  for (const manifest::EntryRef& entry : manifest::programEntries(package->program->rootModules(), *root))
    for (const ast::GenericParam& generic : entry.entry->generics)
      if (generic.isPack || generic.constraint != ast::GenericKind::Dim) generics.insert(generic.name.name);
  BuildOptions build;
  build.path = options.path;
  build.root = options.root;
  build.checkpoint = run.checkpointDir.value_or("");
  run.binds.clear();
  for (const std::string& bind : options.binds)
    (generics.count(bindName(bind)) ? build.binds : run.binds).push_back(bind);
  if (run.prompt && generics.count("Batch")) {
    bool bound = false;
    for (const std::string& bind : build.binds) {
      if (bindName(bind) != "Batch") continue;
      if (bind != "Batch=1") {
        std::cerr << "linnet: error: --prompt generates one sequence: it needs Batch=1, not " << rt::shownName(bind)
                  << "\n";
        return kExitUsage;
      }
      bound = true;
    }
    if (!bound) build.binds.push_back("Batch=1");
  }

  std::optional<std::filesystem::path> cachePath;
  // Held from a miss until the entry is written, so that a second `linnet
  // run` of the same build waits for this one's entry instead of compiling
  // it too (BuildCache.h).
  BuildCacheLock lock;
  rt::Expected<std::filesystem::path> dir = buildCacheDirectory();
  // Always said (not only under --verbose), as a cache that can never work
  // is a setup problem the user cannot otherwise see; --no-cache wants none.
  if (!dir && !options.noCache) std::cerr << "linnet: note: the build cache is off: " << dir.message() << "\n";
  if (dir && !options.noCache) {
    rt::Expected<std::string> key = buildCacheKey(*package, build, hostTargetDescription());
    if (!key) {
      std::cerr << "linnet: error: " << key.message() << "\n";
      return kExitErrors;
    }
    cachePath = *dir / (*key + ".lnpkg");
    auto runCached = [&](std::string image) {
      if (options.verbose) std::cerr << "linnet: using the cached build " << cachePath->string() << "\n";
      lock.release();
      run.artifactPath = cachePath->string();
      run.artifactImage = std::move(image);
      package.reset();
      return rt::runCommand(run);
    };
    std::string problem;
    if (std::optional<std::string> cached = readCachedArtifact(*cachePath, build.path, &problem))
      return runCached(std::move(*cached));
    if (!problem.empty())
      std::cerr << "linnet: warning: the cached build " << cachePath->string() << " is damaged (" << problem
                << "); rebuilding it\n";
    // A miss: compile under the entry's lock, looking again once it is held
    // (another process may have written the entry meanwhile; the problem
    // found above is not reported twice). Without a lock (a read-only cache
    // directory) the build is compiled and run but not stored.
    rt::Expected<BuildCacheLock> locked =
        BuildCacheLock::acquire(*dir / (*key + ".lock"), options.quiet ? nullptr : &std::cerr);
    if (!locked) {
      std::cerr << "linnet: warning: the build is not cached: " << locked.message() << "\n";
      cachePath.reset();
    } else {
      lock = std::move(*locked);
      std::string again;
      if (std::optional<std::string> cached = readCachedArtifact(*cachePath, build.path, &again))
        return runCached(std::move(*cached));
    }
  }

  BuiltArtifact built;
  code = buildArtifact(common, *package, build, &built, options.quiet ? nullptr : &std::cerr);
  if (code != kExitOk) return code;
  package.reset();
  run.artifactImage = rt::encodeArtifact(built.manifestJson, built.sharedObject);
  built = {};
  if (cachePath) {
    // Where the entry cannot be stored (a directory in its place, a full
    // disk) the build runs from memory, as with --no-cache.
    rt::Status written = writeCachedArtifact(*cachePath, *run.artifactImage);
    if (!written.ok())
      std::cerr << "linnet: warning: the build is not cached: " << written.message() << "\n";
    else if (options.verbose)
      std::cerr << "linnet: cached the build as " << cachePath->string() << "\n";
  }
  lock.release();
  return rt::runCommand(run);
}

}  // namespace linnet::driver
