// `linnet bench PATH --checkpoint DIR [--bind K=V]... [--json]`: the speed of
// a model on this machine (docs/bench.md). A package is built twice, timed:
// with Batch = 1 (prefill and decode) and, when its root block has a `Batch`
// generic, with Batch = 8 (decode_rows at 8 rows). The measuring is done by
// `linnet-run --bench` (runtime/bench/Bench.h) in its own process, so that
// load time and peak memory are the runtime's alone, not the compiler's.
// A `.lnpkg` goes straight to `linnet-run --bench`.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "compiler/driver/BuildPipeline.h"
#include "compiler/driver/Driver.h"
#include "compiler/driver/DriverSupport.h"
#include "compiler/inspect/RootBinding.h"
#include "runtime/artifact/ArtifactFile.h"

namespace linnet::driver {

namespace {

// linnet-run beside this executable.
std::optional<std::filesystem::path> runnerPath() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  std::filesystem::path runner = self.parent_path() / "linnet-run";
  if (!std::filesystem::exists(runner, ec)) return std::nullopt;
  return runner;
}

// Runs `argv` and waits; its exit code, or kExitErrors if it could not run.
int runAndWait(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return kExitErrors;
  if (pid == 0) {
    execv(args[0], args.data());
    std::perror("linnet: bench: cannot run linnet-run");
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return kExitErrors;
  if (WIFSIGNALED(status)) {
    // linnet-run prints its own errors; a death by signal prints nothing.
    std::cerr << "linnet: error: bench: " << args[0] << " was killed by signal " << WTERMSIG(status) << " ("
              << strsignal(WTERMSIG(status)) << ")\n";
    return kExitErrors;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : kExitErrors;
}

bool hasBind(const std::vector<std::string>& binds, const std::string& name) {
  for (const std::string& b : binds)
    if (b.compare(0, name.size() + 1, name + "=") == 0) return true;
  return false;
}

}  // namespace

int runBench(const CommonOptions& common, const BenchCommandOptions& options) {
  std::optional<std::filesystem::path> runner = runnerPath();
  if (!runner) {
    std::cerr << "linnet: error: bench needs linnet-run beside the linnet executable\n";
    return kExitErrors;
  }
  std::vector<std::string> command{runner->string()};
  std::error_code ec;
  bool isArtifact = std::filesystem::is_regular_file(options.path, ec);
  std::filesystem::path work;
  // The temporary artifacts go on every return, a failed build's included.
  struct RemoveOnExit {
    std::filesystem::path path;
    ~RemoveOnExit() {
      std::error_code ignored;
      if (!path.empty()) std::filesystem::remove_all(path, ignored);
    }
  } cleanup;
  if (isArtifact) {
    if (!options.binds.empty()) {
      std::cerr << "linnet: error: a built artifact takes no --bind: its generics are fixed\n";
      return kExitUsage;
    }
    command.push_back(options.path);
  } else {
    if (hasBind(options.binds, "Batch")) {
      std::cerr << "linnet: error: bench chooses Batch itself (1, and 8 for decode_rows)\n";
      return kExitUsage;
    }
    char pattern[] = "/tmp/linnet-bench-XXXXXX";
    if (!mkdtemp(pattern)) {
      std::cerr << "linnet: error: cannot make a temporary directory: " << std::strerror(errno) << "\n";
      return kExitErrors;
    }
    work = pattern;
    cleanup.path = work;
    int code = kExitOk;
    std::unique_ptr<LoadedPackage> package = loadPackage(common, options.path, &code);
    if (!package) return code;
    std::optional<manifest::BlockRef> root = inspect::findRootBlock(*package->program, package->diagnostics);
    if (!root) return finishDiagnostics(common, package->sources, package->diagnostics);
    bool batched = false;
    if (root->block)
      for (const ast::GenericParam& g : root->block->generics) batched |= g.name.name == "Batch";
    std::vector<int> batches = batched ? std::vector<int>{1, 8} : std::vector<int>{0};
    double buildSeconds = 0;
    for (int batch : batches) {
      if (!options.quiet)
        std::cerr << "bench: building " << options.path << (batch ? " with Batch=" + std::to_string(batch) : "")
                  << "...\n";
      BuildOptions build;
      build.path = options.path;
      build.checkpoint = options.checkpoint;
      build.binds = options.binds;
      if (batch) build.binds.push_back("Batch=" + std::to_string(batch));
      // Each build from a freshly loaded package, as a user's would be.
      std::unique_ptr<LoadedPackage> fresh = package ? std::move(package) : loadPackage(common, options.path, &code);
      if (!fresh) return code;
      auto start = std::chrono::steady_clock::now();
      BuiltArtifact built;
      code = buildArtifact(common, *fresh, build, &built);
      if (code != kExitOk) return code;
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::filesystem::path file = work / ("batch" + std::to_string(batch) + ".lnpkg");
      rt::Status written = rt::writeArtifact(file.string(), built.manifestJson, built.sharedObject);
      if (!written.ok()) {
        std::cerr << "linnet: error: " << written.message() << "\n";
        return kExitErrors;
      }
      if (batch <= 1) {
        buildSeconds = seconds;
        command.push_back(file.string());
      } else {
        command.push_back("--batch8");
        command.push_back(file.string());
      }
    }
    command.push_back("--build-seconds");
    command.push_back(std::to_string(buildSeconds));
  }
  command.push_back("--bench");
  command.push_back("--checkpoint");
  command.push_back(options.checkpoint);
  if (options.json) command.push_back("--json");
  return runAndWait(command);
}

}  // namespace linnet::driver
