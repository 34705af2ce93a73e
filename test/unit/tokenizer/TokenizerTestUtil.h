// Helpers for the tokenizer tests: the committed embedded checkpoint's
// tokenizer, and self-deleting copies of it that a test may edit or break.
#pragma once

#include "runtime/tokenizer/Tokenizer.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string_view>

namespace linnet::rt::test {

// test/data/embedded in the source tree.
std::filesystem::path embeddedDir();

// Opens the embedded tokenizer once per process; aborts the test binary if
// it cannot (every other test would fail anyway).
const Tokenizer &embeddedTokenizer();

// A temporary copy of the embedded tokenizer files, deleted with the object.
class TokenizerCopy {
public:
  TokenizerCopy();
  ~TokenizerCopy();
  TokenizerCopy(const TokenizerCopy &) = delete;
  TokenizerCopy &operator=(const TokenizerCopy &) = delete;

  const std::filesystem::path &path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

  // Rewrites tokenizer_config.json after `edit` changed the parsed JSON.
  void editConfig(const std::function<void(nlohmann::json &)> &edit) const;
  void writeFile(std::string_view name, std::string_view bytes) const;

private:
  std::filesystem::path path_;
};

} // namespace linnet::rt::test
