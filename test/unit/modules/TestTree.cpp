// TempTree: a unique directory under the system temp folder per test.
#include "test/unit/modules/TestTree.h"

#include <atomic>
#include <fstream>
#include <random>

#include <unistd.h>

namespace linnet::modules::test {

TempTree::TempTree() {
  static std::atomic<unsigned> counter{0};
  std::random_device random;
  root_ = std::filesystem::temp_directory_path() /
          ("linnet-modules-" + std::to_string(getpid()) + "-" + std::to_string(random()) + "-" +
           std::to_string(counter++));
  std::filesystem::create_directories(root_);
}

TempTree::~TempTree() {
  std::error_code ec;
  std::filesystem::remove_all(root_, ec);
}

void TempTree::write(std::string_view relative, std::string_view text) const {
  std::filesystem::path file = root_ / relative;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << text;
}

std::vector<std::string> codes(const DiagnosticEmitter& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& diagnostic : diagnostics.diagnostics())
    out.emplace_back(diagnostic.code().empty() ? "-" : diagnostic.code());
  return out;
}

std::string describe(const DiagnosticEmitter& diagnostics) {
  std::string out;
  for (const Diagnostic& diagnostic : diagnostics.diagnostics()) {
    out += std::string(diagnostic.code().empty() ? "-" : diagnostic.code()) + " " +
           diagnostic.message + "\n";
  }
  return out;
}

}  // namespace linnet::modules::test
