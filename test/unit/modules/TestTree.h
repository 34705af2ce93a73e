// Helpers for the modules tests: a self-deleting temporary directory into
// which a test writes the exact tree of files (packages, manifests, std
// modules) it is about, and a way to run diagnostics through the emitter
// and look at their codes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/diagnostics/DiagnosticEmitter.h"

namespace linnet::modules::test {

class TempTree {
 public:
  TempTree();
  ~TempTree();
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  const std::filesystem::path& root() const { return root_; }
  std::string path(std::string_view relative) const { return (root_ / relative).string(); }
  // Writes `text` to `relative`, creating directories.
  void write(std::string_view relative, std::string_view text) const;

 private:
  std::filesystem::path root_;
};

// The codes of every diagnostic the emitter holds, in emission order
// ("E1201", "W1001", ...).
std::vector<std::string> codes(const DiagnosticEmitter& diagnostics);
// "E1201 cannot find `x` in this scope" lines, for failure messages.
std::string describe(const DiagnosticEmitter& diagnostics);

}  // namespace linnet::modules::test
