// Every malformed tokenizer directory is an Error with a useful message,
// never a crash: each test breaks one thing in a copy of the embedded
// tokenizer and checks the message names the problem.
#include "TokenizerTestUtil.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

namespace linnet::rt {
namespace {

using nlohmann::json;
using test::TokenizerCopy;

// Opens `dir` and expects an error mentioning `fragment`.
void expectOpenError(const std::filesystem::path &dir, std::string_view fragment) {
  Expected<Tokenizer> tokenizer = Tokenizer::open(dir);
  ASSERT_FALSE(tokenizer.ok()) << "expected an error mentioning: " << fragment;
  EXPECT_NE(tokenizer.message().find(fragment), std::string::npos) << tokenizer.message();
}

void expectConfigError(const std::function<void(json &)> &edit, std::string_view fragment) {
  TokenizerCopy copy;
  copy.editConfig(edit);
  expectOpenError(copy.path(), fragment);
}

std::string readModel() {
  std::ifstream in(test::embeddedDir() / "tokenizer.model", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(TokenizerErrorsTest, MissingDirectoryOrModel) {
  expectOpenError("/nonexistent/linnet/checkpoint", "no tokenizer.model");
  TokenizerCopy copy;
  std::filesystem::remove(copy / "tokenizer.model");
  expectOpenError(copy.path(), "no tokenizer.model");
}

TEST(TokenizerErrorsTest, CorruptModel) {
  std::string model = readModel();
  ASSERT_GT(model.size(), 1000u);
  TokenizerCopy copy;
  copy.writeFile("tokenizer.model", "this is not a protobuf \xFF\xFF\xFF\xFF");
  expectOpenError(copy.path(), "tokenizer.model");
  // In our words, not the library's source location and call.
  expectOpenError(copy.path(), "not a valid SentencePiece model: its bytes are no serialized model");
  copy.writeFile("tokenizer.model", model.substr(0, model.size() / 2));
  expectOpenError(copy.path(), "tokenizer.model");
  copy.writeFile("tokenizer.model", "");
  expectOpenError(copy.path(), "tokenizer.model");
  // Flipped bytes all over the file: whatever SentencePiece makes of it,
  // open() either fails cleanly or yields a tokenizer that still works.
  for (std::size_t stride : {7u, 97u, 1009u}) {
    std::string damaged = model;
    for (std::size_t i = 0; i < damaged.size(); i += stride)
      damaged[i] = static_cast<char>(damaged[i] ^ 0x5A);
    copy.writeFile("tokenizer.model", damaged);
    Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
    if (!tokenizer.ok())
      continue;
    Expected<std::vector<TokenId>> ids = tokenizer->encode("Hello <|end|> world");
    if (ids.ok()) {
      EXPECT_TRUE(tokenizer->decode(*ids).ok());
    }
  }
}

TEST(TokenizerErrorsTest, MalformedConfigJson) {
  TokenizerCopy copy;
  copy.writeFile("tokenizer_config.json", "{\"add_bos_token\": true,");
  expectOpenError(copy.path(), "tokenizer_config.json");
  copy.writeFile("tokenizer_config.json", "{\"add_bos_token\": true, \"add_bos_token\": false}");
  expectOpenError(copy.path(), "add_bos_token");
  copy.writeFile("tokenizer_config.json", "[1, 2]");
  expectOpenError(copy.path(), "must be a JSON object");
}

TEST(TokenizerErrorsTest, ConfigValuesOfTheWrongType) {
  expectConfigError([](json &c) { c["add_bos_token"] = "yes"; },
                    "\"add_bos_token\" must be true or false");
  expectConfigError([](json &c) { c["legacy"] = 0; }, "\"legacy\"");
  expectConfigError([](json &c) { c["bos_token"] = 1; }, "\"bos_token\"");
  expectConfigError([](json &c) { c["eos_token"] = json{{"lstrip", false}}; }, "\"content\"");
  expectConfigError([](json &c) { c["added_tokens_decoder"] = json::array(); },
                    "added_tokens_decoder");
  expectConfigError([](json &c) { c["added_tokens_decoder"]["1507"] = "<|end|>"; }, "1507");
  expectConfigError([](json &c) { c["added_tokens_decoder"]["1507"].erase("content"); },
                    "\"content\"");
  expectConfigError([](json &c) { c["added_tokens_decoder"]["1507"]["special"] = "true"; },
                    "\"special\"");
  expectConfigError([](json &c) { c["chat_template"] = 3; }, "chat_template");
  expectConfigError([](json &c) { c["additional_special_tokens"] = "<|end|>"; },
                    "additional_special_tokens");
}

TEST(TokenizerErrorsTest, AddedTokenIdsMustBeCanonicalAndInRange) {
  auto moveEnd = [](std::string id) {
    return [id](json &c) {
      json entry = c["added_tokens_decoder"]["1507"];
      c["added_tokens_decoder"].erase("1507");
      c["added_tokens_decoder"][id] = entry;
    };
  };
  expectConfigError(moveEnd("abc"), "\"abc\"");
  expectConfigError(moveEnd("-3"), "\"-3\"");
  expectConfigError(moveEnd("01507"), "\"01507\""); // would alias 1507
  expectConfigError(moveEnd("99999999999"), "\"99999999999\"");
  // 1511 would leave a hole at 1507: ids above the pieces must be 1500..1510.
  expectConfigError(moveEnd("1511"), "must be 1500..1510");
  expectConfigError(moveEnd("1600"), "out of range");
}

TEST(TokenizerErrorsTest, AddedTokenContentAppearsOnce) {
  expectConfigError([](json &c) { c["added_tokens_decoder"]["1508"]["content"] = "<|end|>"; },
                    "appears twice");
}

TEST(TokenizerErrorsTest, SpecialTokensMustNameSomething) {
  expectConfigError([](json &c) { c["bos_token"] = "<|nothing|>"; }, "bos_token \"<|nothing|>\"");
  expectConfigError([](json &c) { c["additional_special_tokens"] = {"<|nope|>"}; }, "<|nope|>");
}

TEST(TokenizerErrorsTest, UnsupportedTokenizerClass) {
  expectConfigError([](json &c) { c["tokenizer_class"] = "GemmaTokenizer"; },
                    "unsupported tokenizer_class");
}

TEST(TokenizerErrorsTest, SpecialTokensMapIsReadOnlyForOldConfigs) {
  TokenizerCopy copy;
  // With added_tokens_decoder present (as here) the map is ignored, as in
  // transformers, so a broken map does not matter...
  copy.writeFile("special_tokens_map.json", "{\"bos_token\": 5}");
  EXPECT_TRUE(Tokenizer::open(copy.path()).ok());
  // ...but for a config without it, the map is read and must be valid.
  copy.editConfig([](json &c) { c.erase("added_tokens_decoder"); });
  expectOpenError(copy.path(), "special_tokens_map.json");
}

TEST(TokenizerErrorsTest, ATokenOfTheMapNamesTheMap) {
  TokenizerCopy copy;
  copy.editConfig([](json &c) {
    for (const char *key : {"added_tokens_decoder", "bos_token", "eos_token", "unk_token", "pad_token",
                            "additional_special_tokens"})
      c.erase(key);
  });
  copy.writeFile("special_tokens_map.json", "{\"eos_token\": \"<|nothing|>\"}");
  expectOpenError(copy.path(), "special_tokens_map.json: eos_token \"<|nothing|>\"");
  copy.writeFile("special_tokens_map.json", "{\"additional_special_tokens\": [\"<|nope|>\"]}");
  expectOpenError(copy.path(), "special_tokens_map.json: additional special token \"<|nope|>\"");
}

} // namespace
} // namespace linnet::rt
