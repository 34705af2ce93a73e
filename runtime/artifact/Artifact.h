// A loaded artifact: its validated manifest and its native code, with every
// entry's symbol resolved.
//
// open() maps the `.lnpkg` file, splits it (ArtifactFile.h), parses the
// manifest (Manifest.h), checks the target against this machine (the
// triple's architecture, and the CPU features the runtime can test for), then
// loads the shared object from memory (SharedObject.h) and resolves each
// entry's symbol: a missing symbol is an error at load, never at call time.
// load() does the same for an artifact image already in memory (the compiler's
// `linnet run` after building in-process); the bytes are not kept.
//
// Move-only. Entry functions are valid while the Artifact lives. Immutable
// after loading: concurrent reads are safe (calling entries is the Session's
// business).
#pragma once

#include "runtime/artifact/Manifest.h"
#include "runtime/artifact/SharedObject.h"
#include "runtime/support/Status.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace linnet::rt {

// The calling convention of every entry symbol (docs/abi.md).
using EntryFunction = void (*)(void **slots);

class Artifact {
public:
  static Expected<Artifact> open(const std::filesystem::path &path);
  static Expected<Artifact> load(std::span<const std::byte> image, std::string sourceName);

  Artifact(Artifact &&) noexcept = default;
  Artifact &operator=(Artifact &&) noexcept = default;
  Artifact(const Artifact &) = delete;
  Artifact &operator=(const Artifact &) = delete;

  const std::string &sourceName() const { return sourceName_; }
  const Manifest &manifest() const { return manifest_; }
  // The function of manifest().entries[index].
  EntryFunction entryFunction(std::size_t index) const { return functions_[index]; }

  // The generated code's allocation controls (docs/abi.md "Allocation"):
  // the byte limit, the live bytes of the call in flight, and the failure
  // handler's slot. All null for code built before they existed.
  struct AllocationControl {
    std::int64_t *limit = nullptr;
    std::int64_t *live = nullptr;
    void **handler = nullptr;
  };
  const AllocationControl &allocationControl() const { return allocation_; }

private:
  Artifact() = default;
  std::string sourceName_;
  Manifest manifest_;
  SharedObject code_;
  std::vector<EntryFunction> functions_;
  AllocationControl allocation_;
};

// Checks that code for `target` can run on this machine: the triple's
// architecture, and each "+feature" the runtime knows how to test.
Status checkTargetRunsHere(const TargetSpec &target, std::string_view sourceName);

} // namespace linnet::rt
