// Broken, hostile and unsupported tokenizer.json files: each gives an Error
// naming tokenizer.json and what is wrong, never a crash (the sanitizer build
// runs these too).
#include "TokenizerTestUtil.h"

#include "runtime/tokenizer/TokenizerJson.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>

namespace linnet::rt {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A temporary copy of test/data/tokenizers/<name>.
class JsonCopy {
public:
  explicit JsonCopy(std::string_view name) {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("linnet-tokjson-test-" + std::to_string(getpid()) + "-" +
                                         std::to_string(counter++));
    fs::create_directories(path_);
    fs::path from = fs::path(LINNET_SOURCE_DIR) / "test" / "data" / "tokenizers" / std::string(name);
    for (const char *file : {"tokenizer.json", "tokenizer_config.json"})
      fs::copy_file(from / file, path_ / file);
    original_ = readFile(path_ / "tokenizer.json");
  }
  ~JsonCopy() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path &path() const { return path_; }
  const std::string &original() const { return original_; }
  void write(std::string_view name, std::string_view bytes) const {
    std::ofstream out(path_ / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  // Writes the original tokenizer.json after `change` edited it.
  void edit(const std::function<void(json &)> &change) const {
    json root = json::parse(original_);
    change(root);
    write("tokenizer.json", root.dump());
  }

private:
  fs::path path_;
  std::string original_;
};

void expectOpenError(const fs::path &dir, std::string_view fragment) {
  Expected<Tokenizer> tokenizer = Tokenizer::open(dir);
  ASSERT_FALSE(tokenizer.ok()) << "expected an error mentioning " << fragment;
  EXPECT_NE(tokenizer.message().find(fragment), std::string::npos) << tokenizer.message();
}

TEST(TokenizerJsonErrors, OpensTheCopies) {
  for (const char *name : {"gpt2", "llama3", "qwen2"}) {
    JsonCopy copy(name);
    EXPECT_TRUE(Tokenizer::open(copy.path()).ok()) << name;
  }
}

TEST(TokenizerJsonErrors, TruncatedOrNotJson) {
  JsonCopy copy("llama3");
  const std::string &text = copy.original();
  for (std::size_t length : {std::size_t(0), std::size_t(1), text.size() / 3, text.size() - 2}) {
    copy.write("tokenizer.json", text.substr(0, length));
    expectOpenError(copy.path(), "tokenizer.json");
  }
  copy.write("tokenizer.json", "[1, 2, 3]");
  expectOpenError(copy.path(), "must be a JSON object");
}

TEST(TokenizerJsonErrors, MergesNamingUnknownTokens) {
  JsonCopy copy("qwen2");
  copy.edit([](json &root) { root["model"]["merges"].push_back({"nope", "\xC4\xA0"}); });
  expectOpenError(copy.path(), "\"nope\"");
  copy.edit([](json &root) { root["model"]["merges"][0] = "a b c"; });
  expectOpenError(copy.path(), "merge 0");
  copy.edit([](json &root) { root["model"]["merges"][0] = 7; });
  expectOpenError(copy.path(), "merge 0");
}

TEST(TokenizerJsonErrors, BadVocab) {
  JsonCopy copy("gpt2");
  copy.edit([](json &root) { root["model"]["vocab"]["\xC4\xA0zz"] = -3; });
  expectOpenError(copy.path(), "not an integer");
  copy.edit([](json &root) { root["model"]["vocab"] = json::object({{"a", 0}, {"b", 0}}); });
  expectOpenError(copy.path(), "vocab id 0");
  copy.edit([](json &root) { root["model"]["vocab"] = json::object({{"a", 0}, {"b", 2000000000}}); });
  expectOpenError(copy.path(), "vocab ids go up to");
  // A hole: the id below the added tokens is no token.
  copy.edit([](json &root) {
    json &vocab = root["model"]["vocab"];
    vocab.erase(vocab.begin());
    root["model"]["merges"] = json::array();
  });
  expectOpenError(copy.path(), "without holes");
}

TEST(TokenizerJsonErrors, BadAddedTokens) {
  JsonCopy copy("llama3");
  copy.edit([](json &root) { root["added_tokens"][0]["single_word"] = true; });
  expectOpenError(copy.path(), "single_word");
  copy.edit([](json &root) { root["added_tokens"][1]["id"] = root["added_tokens"][0]["id"]; });
  expectOpenError(copy.path(), "appears twice");
  copy.edit([](json &root) { root["added_tokens"][0]["id"] = 100000; });
  expectOpenError(copy.path(), "without holes");
  copy.edit([](json &root) { root["added_tokens"][0]["id"] = 2147483640; });
  expectOpenError(copy.path(), "without holes");
  copy.edit([](json &root) { root["added_tokens"][0]["content"] = ""; });
  expectOpenError(copy.path(), "non-empty string");
}

TEST(TokenizerJsonErrors, UnsupportedPipelines) {
  JsonCopy copy("qwen2");
  struct Case {
    std::function<void(json &)> edit;
    std::string_view fragment;
  };
  const Case cases[] = {
      {[](json &r) { r["model"]["type"] = "WordPiece"; }, "unsupported model type \"WordPiece\""},
      {[](json &r) { r["model"]["byte_fallback"] = true; }, "byte_fallback"},
      {[](json &r) { r["model"]["continuing_subword_prefix"] = "##"; }, "continuing_subword_prefix"},
      {[](json &r) { r["model"]["dropout"] = 0.1; }, "dropout"},
      {[](json &r) { r["normalizer"] = {{"type", "Lowercase"}}; }, "\"normalizer\" \"Lowercase\""},
      {[](json &r) { r["pre_tokenizer"] = {{"type", "Metaspace"}}; }, "\"Metaspace\""},
      {[](json &r) { r["pre_tokenizer"] = nullptr; }, "no \"pre_tokenizer\""},
      {[](json &r) { r["pre_tokenizer"]["pretokenizers"].erase(1); }, "no ByteLevel step"},
      {[](json &r) {
         json byteLevel = r["pre_tokenizer"]["pretokenizers"][1];
         for (int i = 0; i < 40; ++i)
           r["pre_tokenizer"]["pretokenizers"].push_back(byteLevel);
       },
       "it has 41 ByteLevel steps"},
      {[](json &r) { r["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\d+|\\s+"; },
       "unsupported regex construct"},
      {[](json &r) { r["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed"; }, "behavior"},
      {[](json &r) { r["pre_tokenizer"]["pretokenizers"][0]["invert"] = true; }, "invert"},
      {[](json &r) { r["decoder"] = {{"type", "WordPiece"}}; }, "\"decoder\""},
      {[](json &r) { r.erase("decoder"); }, "\"decoder\""},
      {[](json &r) { r["post_processor"] = {{"type", "BertProcessing"}}; }, "post_processor"},
      {[](json &r) {
         r["post_processor"] = {{"type", "TemplateProcessing"},
                                {"single", {{{"SpecialToken", {{"id", "<x>"}, {"type_id", 0}}}}}},
                                {"special_tokens", json::object()}};
       },
       "does not define"},
  };
  for (const Case &c : cases) {
    copy.edit(c.edit);
    expectOpenError(copy.path(), c.fragment);
  }
}

TEST(TokenizerJsonErrors, SpecialTokenThatNamesNothing) {
  JsonCopy copy("qwen2");
  copy.write("tokenizer_config.json", R"({"eos_token": "<|nope|>"})");
  expectOpenError(copy.path(), "<|nope|>");
}

// The embedded checkpoint's tokenizer.json is a SentencePiece-style
// (Metaspace, byte_fallback) BPE: without tokenizer.model it is refused.
TEST(TokenizerJsonErrors, SentencePieceStyleJsonIsRefused) {
  test::TokenizerCopy copy;
  fs::remove(copy / "tokenizer.model");
  fs::copy_file(test::embeddedDir() / "tokenizer.json", copy / "tokenizer.json");
  expectOpenError(copy.path(), "tokenizer.json");
  Expected<Tokenizer> opened = Tokenizer::open(copy.path());
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.message().find("unsupported"), std::string::npos) << opened.message();
}

// Random damage to a tokenizer.json: an Error or a working tokenizer.
TEST(TokenizerJsonErrors, CorruptedFilesNeverCrash) {
  JsonCopy copy("llama3");
  const std::string &original = copy.original();
  std::mt19937 rng(1234);
  int opened = 0;
  for (int round = 0; round < 120; ++round) {
    std::string damaged = original;
    std::uniform_int_distribution<std::size_t> position(0, damaged.size() - 1);
    int edits = 1 + round % 4;
    for (int e = 0; e < edits; ++e) {
      std::size_t at = position(rng);
      switch ((round + e) % 3) {
      case 0: damaged[at] = static_cast<char>(rng() & 0xFF); break;
      case 1: damaged.erase(at, 1 + rng() % 8); break;
      default: damaged.insert(at, 1, "\"[]{},:\\0a"[rng() % 11]); break;
      }
      position = std::uniform_int_distribution<std::size_t>(0, damaged.size() - 1);
    }
    copy.write("tokenizer.json", damaged);
    Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
    if (!tokenizer.ok()) {
      EXPECT_FALSE(tokenizer.message().empty());
      continue;
    }
    ++opened;
    Expected<std::vector<TokenId>> ids = tokenizer->encode("Hello, world! 12345 \xE6\x97\xA5 \n\n x");
    if (ids.ok())
      (void)tokenizer->decode(*ids);
  }
  SUCCEED() << opened << " of 120 damaged files still opened";
}

} // namespace
} // namespace linnet::rt
