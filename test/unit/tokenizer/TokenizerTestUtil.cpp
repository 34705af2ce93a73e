// Implementation of TokenizerTestUtil.h.
#include "TokenizerTestUtil.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <unistd.h>

namespace linnet::rt::test {

namespace fs = std::filesystem;

fs::path embeddedDir() { return fs::path(LINNET_SOURCE_DIR) / "test" / "data" / "embedded"; }

const Tokenizer &embeddedTokenizer() {
  static const Tokenizer tokenizer = [] {
    Expected<Tokenizer> opened = Tokenizer::open(embeddedDir());
    if (!opened) {
      std::fprintf(stderr, "cannot open the embedded tokenizer: %s\n", opened.message().c_str());
      std::abort();
    }
    return std::move(opened).value();
  }();
  return tokenizer;
}

TokenizerCopy::TokenizerCopy() {
  static std::atomic<int> counter{0};
  path_ = fs::temp_directory_path() /
          ("linnet-tokenizer-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(path_);
  for (const char *name : {"tokenizer.model", "tokenizer_config.json", "special_tokens_map.json"})
    fs::copy_file(embeddedDir() / name, path_ / name);
}

TokenizerCopy::~TokenizerCopy() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

void TokenizerCopy::editConfig(const std::function<void(nlohmann::json &)> &edit) const {
  std::ifstream in(path_ / "tokenizer_config.json");
  nlohmann::json config = nlohmann::json::parse(in);
  edit(config);
  writeFile("tokenizer_config.json", config.dump(1));
}

void TokenizerCopy::writeFile(std::string_view name, std::string_view bytes) const {
  std::ofstream out(path_ / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

} // namespace linnet::rt::test
