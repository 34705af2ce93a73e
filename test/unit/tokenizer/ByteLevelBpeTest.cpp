// The tokenizer.json (byte-level BPE) path against the `tokenizers` library.
//
// test/data/tokenizers/<name>/ holds tiny tokenizers trained by `tokenizers`
// 0.22.1 and, in expected.json, the ids and decodes it gives for ~50 strings
// each (tools/tokenizer/make_test_tokenizers.py writes both; transformers'
// AutoTokenizer was checked to agree). Every case must match exactly.
#include "TokenizerTestUtil.h"

#include "runtime/checkpoint/StrictJson.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>
#include <string>
#include <vector>

namespace linnet::rt {
namespace {

using Ids = std::vector<TokenId>;
namespace fs = std::filesystem;

fs::path tokenizersDir(std::string_view name) {
  return fs::path(LINNET_SOURCE_DIR) / "test" / "data" / "tokenizers" / std::string(name);
}

nlohmann::json readExpected(std::string_view name) {
  std::ifstream in(tokenizersDir(name) / "expected.json");
  return nlohmann::json::parse(in);
}

Tokenizer openOrDie(std::string_view name) {
  Expected<Tokenizer> tokenizer = Tokenizer::open(tokenizersDir(name));
  EXPECT_TRUE(tokenizer.ok()) << (tokenizer.ok() ? "" : tokenizer.message());
  if (!tokenizer.ok())
    std::abort();
  return std::move(tokenizer).value();
}

class ByteLevelBpeParity : public ::testing::TestWithParam<const char *> {};

TEST_P(ByteLevelBpeParity, EncodeAndDecodeMatchTokenizers) {
  Tokenizer tokenizer = openOrDie(GetParam());
  nlohmann::json expected = readExpected(GetParam());
  ASSERT_GE(expected["cases"].size(), 40u);
  int checked = 0;
  for (const nlohmann::json &entry : expected["cases"]) {
    std::string text = entry["text"].get<std::string>();
    Ids want = entry["ids"].get<Ids>();
    Expected<Ids> ids = tokenizer.encode(text);
    ASSERT_TRUE(ids.ok()) << jsonQuoted(text) << ": " << ids.message();
    EXPECT_EQ(*ids, want) << "encode " << jsonQuoted(text);
    Expected<std::string> decoded = tokenizer.decode(want);
    ASSERT_TRUE(decoded.ok()) << decoded.message();
    EXPECT_EQ(*decoded, entry["decoded"].get<std::string>()) << "decode " << jsonQuoted(text);
    Expected<std::string> skipped = tokenizer.decode(want, {.skipSpecialTokens = true});
    ASSERT_TRUE(skipped.ok()) << skipped.message();
    EXPECT_EQ(*skipped, entry["decoded_skip"].get<std::string>())
        << "decode(skip) " << jsonQuoted(text);
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(expected["cases"].size()));
}

// decode([id]) for every id: partial UTF-8 sequences become U+FFFD exactly
// as String::from_utf8_lossy makes them (what the streaming output relies
// on to wait for the rest of a character).
TEST_P(ByteLevelBpeParity, SingleTokenDecodes) {
  nlohmann::json expected = readExpected(GetParam());
  ASSERT_TRUE(expected.contains("single_decodes"));
  Tokenizer tokenizer = openOrDie(GetParam());
  const nlohmann::json &single = expected["single_decodes"];
  ASSERT_EQ(single.size(), tokenizer.vocabSize());
  for (std::size_t id = 0; id < single.size(); ++id) {
    Ids ids{static_cast<TokenId>(id)};
    Expected<std::string> decoded = tokenizer.decode(ids);
    ASSERT_TRUE(decoded.ok()) << decoded.message();
    EXPECT_EQ(*decoded, single[id].get<std::string>()) << "id " << id;
  }
}

INSTANTIATE_TEST_SUITE_P(Tokenizers, ByteLevelBpeParity,
                         ::testing::Values("gpt2", "gpt2-prefix", "llama3", "smollm", "qwen2"),
                         [](const ::testing::TestParamInfo<const char *> &info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

TEST(ByteLevelBpe, Llama3AddsBeginOfText) {
  Tokenizer tokenizer = openOrDie("llama3");
  std::optional<TokenId> bos = tokenizer.tokenToId("<|begin_of_text|>");
  ASSERT_TRUE(bos.has_value());
  EXPECT_EQ(tokenizer.bosId(), bos);
  EXPECT_EQ(tokenizer.eosId(), tokenizer.tokenToId("<|end_of_text|>"));
  EXPECT_TRUE(tokenizer.addsBos());
  EXPECT_FALSE(tokenizer.addsEos());
  EXPECT_FALSE(tokenizer.isLegacy());
  Expected<Ids> with = tokenizer.encode("Hello world");
  Expected<Ids> without = tokenizer.encode("Hello world", {.addBos = false});
  ASSERT_TRUE(with.ok() && without.ok());
  ASSERT_EQ(with->size(), without->size() + 1);
  EXPECT_EQ(with->front(), *bos);
  EXPECT_TRUE(std::equal(without->begin(), without->end(), with->begin() + 1));
  Expected<Ids> eos = tokenizer.encode("x", {.addBos = false, .addEos = true});
  ASSERT_TRUE(eos.ok());
  EXPECT_EQ(eos->back(), *tokenizer.eosId());
  EXPECT_TRUE(tokenizer.isSpecial(*bos));
  EXPECT_TRUE(tokenizer.isAddedToken(*bos));
}

TEST(ByteLevelBpe, Gpt2AndQwen2AddNothing) {
  for (const char *name : {"gpt2", "qwen2"}) {
    Tokenizer tokenizer = openOrDie(name);
    EXPECT_FALSE(tokenizer.addsBos()) << name;
    EXPECT_FALSE(tokenizer.addsEos()) << name;
    Expected<Ids> ids = tokenizer.encode("");
    ASSERT_TRUE(ids.ok());
    EXPECT_TRUE(ids->empty()) << name;
  }
  Tokenizer qwen = openOrDie("qwen2");
  EXPECT_FALSE(qwen.bosId().has_value());
  EXPECT_EQ(qwen.eosId(), qwen.tokenToId("<|im_end|>"));
  // <think> is an added token but not a special one.
  std::optional<TokenId> think = qwen.tokenToId("<think>");
  ASSERT_TRUE(think.has_value());
  EXPECT_TRUE(qwen.isAddedToken(*think));
  EXPECT_FALSE(qwen.isSpecial(*think));
}

TEST(ByteLevelBpe, LookupsUseByteLevelSpelling) {
  Tokenizer tokenizer = openOrDie("gpt2");
  std::optional<TokenId> space = tokenizer.tokenToId("\xC4\xA0"); // "Ġ", the byte ' '
  ASSERT_TRUE(space.has_value());
  Expected<std::string> token = tokenizer.idToToken(*space);
  ASSERT_TRUE(token.ok());
  EXPECT_EQ(*token, "\xC4\xA0");
  Ids ids{*space};
  EXPECT_EQ(tokenizer.decode(ids).value(), " ");
  EXPECT_EQ(tokenizer.pieceCount(), tokenizer.vocabSize());
  EXPECT_FALSE(tokenizer.tokenToId("no such token").has_value());
  EXPECT_FALSE(tokenizer.idToToken(static_cast<TokenId>(tokenizer.vocabSize())).ok());
}

TEST(ByteLevelBpe, DecodeRejectsOutOfRangeIds) {
  Tokenizer tokenizer = openOrDie("qwen2");
  for (TokenId bad : {-1, static_cast<TokenId>(tokenizer.vocabSize()), 1 << 30}) {
    Ids ids{5, bad};
    Expected<std::string> text = tokenizer.decode(ids);
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.message().find("position 1"), std::string::npos) << text.message();
  }
}

TEST(ByteLevelBpe, EncodeRejectsMalformedUtf8) {
  Tokenizer tokenizer = openOrDie("llama3");
  for (std::string_view bad : {std::string_view("abc\xFF"), std::string_view("\xC3"),
                               std::string_view("a\xED\xA0\x80z"), std::string_view("\xC0\x80"),
                               std::string_view("\xF4\x90\x80\x80")}) {
    Expected<Ids> ids = tokenizer.encode(bad);
    ASSERT_FALSE(ids.ok());
    EXPECT_NE(ids.message().find("not valid UTF-8"), std::string::npos) << ids.message();
  }
}

TEST(ByteLevelBpe, NfcNormalizerRefusesTextThatNeedsIt) {
  Tokenizer tokenizer = openOrDie("qwen2");
  // Decomposed é (e + U+0301): NFC would compose it; we refuse instead of
  // giving ids `tokenizers` would not give.
  Expected<Ids> ids = tokenizer.encode("caf" "e\xCC\x81");
  ASSERT_FALSE(ids.ok());
  EXPECT_NE(ids.message().find("NFC"), std::string::npos) << ids.message();
  EXPECT_TRUE(tokenizer.encode("caf\xC3\xA9").ok()); // precomposed: fine
  // The GPT-2 tokenizer has no normalizer: the same text encodes.
  EXPECT_TRUE(openOrDie("gpt2").encode("caf" "e\xCC\x81").ok());
}

TEST(ByteLevelBpe, LargeInputs) {
  Tokenizer tokenizer = openOrDie("llama3");
  std::string text;
  while (text.size() < (1u << 20))
    text += "Some words, 12345 numbers,\n\n   spaces\t\xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80 ";
  Expected<Ids> ids = tokenizer.encode(text);
  ASSERT_TRUE(ids.ok()) << ids.message();
  Expected<std::string> back = tokenizer.decode(*ids, {.skipSpecialTokens = true});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, text);
  // One huge run of spaces, and one huge word.
  for (char fill : {' ', 'a', '\n', '7'}) {
    std::string run(1u << 18, fill);
    Expected<Ids> runIds = tokenizer.encode(run);
    ASSERT_TRUE(runIds.ok()) << runIds.message();
    EXPECT_EQ(tokenizer.decode(*runIds, {.skipSpecialTokens = true}).value(), run);
  }
}

TEST(ByteLevelBpe, ThreadsShareOneTokenizer) {
  Tokenizer tokenizer = openOrDie("qwen2");
  Ids expected = tokenizer.encode("Hello, world! \xE4\xBD\xA0\xE5\xA5\xBD").value();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i)
        if (tokenizer.encode("Hello, world! \xE4\xBD\xA0\xE5\xA5\xBD").value() != expected)
          ++failures;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
}

} // namespace
} // namespace linnet::rt
