// Encoding, decoding and look-ups on the committed embedded tokenizer
// (test/data/embedded: a 1500-piece SentencePiece BPE model with Phi-3's
// added tokens at 1500..1510, legacy: false, add_bos_token: true).
//
// The expected ids were produced by transformers 4.57.1 (tokenizers 0.22.1,
// sentencepiece 0.2.1) from build/reference-venv:
//   AutoTokenizer.from_pretrained("test/data/embedded", use_fast=False).encode(text)
// and the same with use_fast=True, whose ids are listed too where they
// differ. Expected decodes are the fast tokenizer's decode of the slow ids
// (the slow decode inserts spaces around added tokens; see
// docs/tokenizer.md).
#include "TokenizerTestUtil.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace linnet::rt {
namespace {

using test::embeddedTokenizer;
using test::TokenizerCopy;
using Ids = std::vector<TokenId>;

struct ParityCase {
  const char *text;
  Ids slowIds;                // LlamaTokenizer (what we match)
  Ids fastIds;                // LlamaTokenizerFast
  const char *decoded;        // fast decode(slowIds)
  const char *decodedSkipped; // fast decode(slowIds, skip_special_tokens=True)
};

const ParityCase kParity[] = {
    {"Hello world",
     {1, 711, 533, 387, 283, 276, 1426, 1428},
     {1, 711, 533, 387, 283, 276, 1426, 1428},
     "<s> Hello world",
     "Hello world"},
    {"", {1}, {1}, "<s>", ""},
    {"  leading spaces",
     {1, 1258, 614, 335, 279, 1380, 1242},
     {1, 1417, 614, 335, 279, 1380, 1242},
     "<s>   leading spaces",
     "  leading spaces"},
    {"Hello\nworld",
     {1, 711, 533, 387, 13, 1438, 276, 1426, 1428},
     {1, 711, 533, 387, 13, 1438, 276, 1426, 1428},
     "<s> Hello\nworld",
     "Hello\nworld"},
    {"<|user|>\nHi<|end|>\n<|assistant|>\n",
     {1, 1417, 1510, 13, 1476, 1421, 1507, 13, 1501, 13},
     {1, 1510, 13, 1476, 1421, 1507, 13, 1501, 13},
     "<s> <|user|>\nHi<|end|>\n<|assistant|>\n",
     "\nHi\n\n"},
    {"a <|end|> b",
     {1, 260, 1417, 1507, 277},
     {1, 260, 1417, 1507, 277},
     "<s> a <|end|> b",
     "a  b"},
    // </s> is an added token with "special": false here: the slow tokenizer
    // keeps it when skipping special tokens (as we do), the fast one drops it.
    {"<s>x</s>", {1, 1, 1445, 2}, {1, 1, 1445, 2}, "<s><s>x</s>", "x</s>"},
    {"Tab\there 12345",
     {1, 305, 371, 12, 261, 264, 1417, 1477, 1474, 1480, 1483, 1488},
     {1, 305, 371, 12, 261, 264, 1417, 1477, 1474, 1480, 1483, 1488},
     "<s> Tab\there 12345",
     "Tab\there 12345"},
    {"Unicode: h\xC3\xA9llo \xE2\x98\x83 \xE6\x97\xA5\xE6\x9C\xAC",
     {1,   996, 321, 486,  1464, 345, 198, 172, 1426, 387, 1417,
      229, 155, 134, 1417, 233,  154, 168, 233, 159,  175},
     {1,   996, 321, 486,  1464, 345, 198, 172, 1426, 387, 1417,
      229, 155, 134, 1417, 233,  154, 168, 233, 159,  175},
     "<s> Unicode: h\xC3\xA9llo \xE2\x98\x83 \xE6\x97\xA5\xE6\x9C\xAC",
     "Unicode: h\xC3\xA9llo \xE2\x98\x83 \xE6\x97\xA5\xE6\x9C\xAC"},
    {"\xE2\x96\x81literal", {1, 1417, 1348}, {1, 1348}, "<s>  literal", " literal"},
    {" <|end|>", {1, 1258, 1507}, {1, 1417, 1507}, "<s>  <|end|>", " "},
    {"x<|user|><|end|>",
     {1, 1417, 1445, 1510, 1507},
     {1, 1417, 1445, 1510, 1507},
     "<s> x<|user|><|end|>",
     "x"},
};

TEST(TokenizerTest, OpensTheEmbeddedTokenizer) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  EXPECT_EQ(tokenizer.pieceCount(), 1500u);
  EXPECT_EQ(tokenizer.vocabSize(), 1511u);
  EXPECT_EQ(tokenizer.bosId(), 1);
  EXPECT_EQ(tokenizer.eosId(), 1500);
  EXPECT_EQ(tokenizer.unkId(), 0);
  EXPECT_EQ(tokenizer.padId(), 1500);
  EXPECT_TRUE(tokenizer.addsBos());
  EXPECT_FALSE(tokenizer.addsEos());
  EXPECT_FALSE(tokenizer.isLegacy());
}

TEST(TokenizerTest, LooksUpTokens) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  EXPECT_EQ(tokenizer.tokenToId("<|end|>"), 1507);
  EXPECT_EQ(tokenizer.tokenToId("<0x0A>"), 13);
  EXPECT_EQ(tokenizer.tokenToId("<s>"), 1);
  EXPECT_EQ(tokenizer.tokenToId("<unk>"), 0);
  EXPECT_EQ(tokenizer.tokenToId("no such piece"), std::nullopt);
  EXPECT_EQ(tokenizer.idToToken(1507).value(), "<|end|>");
  EXPECT_EQ(tokenizer.idToToken(283).value(), "\xE2\x96\x81w");
  EXPECT_FALSE(tokenizer.idToToken(1511).ok());
  EXPECT_FALSE(tokenizer.idToToken(-1).ok());
  for (TokenId id = 0; id < static_cast<TokenId>(tokenizer.vocabSize()); ++id) {
    Expected<std::string> token = tokenizer.idToToken(id);
    ASSERT_TRUE(token.ok()) << id;
    EXPECT_EQ(tokenizer.tokenToId(*token), id) << *token;
  }
}

TEST(TokenizerTest, KnowsWhichTokensAreSpecial) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  EXPECT_TRUE(tokenizer.isSpecial(0));    // <unk>
  EXPECT_TRUE(tokenizer.isSpecial(1));    // <s>
  EXPECT_FALSE(tokenizer.isSpecial(2));   // </s>: "special": false in the config
  EXPECT_TRUE(tokenizer.isSpecial(1507)); // <|end|>
  EXPECT_FALSE(tokenizer.isSpecial(711)); // an ordinary piece
  EXPECT_FALSE(tokenizer.isSpecial(1511));
  EXPECT_TRUE(tokenizer.isAddedToken(1510));
  EXPECT_FALSE(tokenizer.isAddedToken(711));
}

TEST(TokenizerTest, EncodesLikeTransformersSlowTokenizer) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  for (const ParityCase &c : kParity) {
    Expected<Ids> ids = tokenizer.encode(c.text);
    ASSERT_TRUE(ids.ok()) << ids.message();
    EXPECT_EQ(*ids, c.slowIds) << "text: " << c.text;
    // Without special tokens: the same ids minus the leading bos.
    Expected<Ids> bare = tokenizer.encode(c.text, {.addBos = false});
    ASSERT_TRUE(bare.ok());
    EXPECT_EQ(*bare, Ids(c.slowIds.begin() + 1, c.slowIds.end())) << "text: " << c.text;
  }
}

TEST(TokenizerTest, DiffersFromTheFastTokenizerOnlyWhereDocumented) {
  // The three documented differences: a lone "▁" before a leading added
  // token that is not a named special token, whitespace-only runs after the
  // prefix, and a literal "▁" in the text.
  int differing = 0;
  for (const ParityCase &c : kParity)
    differing += c.slowIds != c.fastIds;
  EXPECT_EQ(differing, 4);
}

TEST(TokenizerTest, DecodesLikeTransformersFastDecode) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  for (const ParityCase &c : kParity) {
    Expected<std::string> text = tokenizer.decode(c.slowIds);
    ASSERT_TRUE(text.ok()) << text.message();
    EXPECT_EQ(*text, c.decoded);
    Expected<std::string> skipped = tokenizer.decode(c.slowIds, {.skipSpecialTokens = true});
    ASSERT_TRUE(skipped.ok());
    EXPECT_EQ(*skipped, c.decodedSkipped);
  }
}

TEST(TokenizerTest, RoundTripsPlainText) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  for (const char *text :
       {"Hello world", "  two leading, two trailing  ", "\n\nnewlines\n", "tabs\tand 0123456789",
        "caf\xC3\xA9 \xE2\x98\x83 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80", "x", " ",
        "The quick brown fox jumps over the lazy dog."}) {
    Expected<Ids> ids = tokenizer.encode(text);
    ASSERT_TRUE(ids.ok());
    EXPECT_EQ(tokenizer.decode(*ids, {.skipSpecialTokens = true}).value(), text);
    Expected<Ids> bare = tokenizer.encode(text, {.addBos = false});
    EXPECT_EQ(tokenizer.decode(*bare).value(), text);
  }
}

TEST(TokenizerTest, MatchesAddedTokensLongestFirstAndNotInsidePieces) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  // "<|end" alone is no token: it goes through SentencePiece.
  EXPECT_EQ(tokenizer.encode("<|end").value(), (Ids{1, 1351, 127, 540}));
  EXPECT_EQ(tokenizer.encode("<|endoftext|>").value(), (Ids{1, 1500}));
  EXPECT_EQ(tokenizer.encode("<unk>").value(), (Ids{1, 0}));
}

TEST(TokenizerTest, HonoursAddBosAndAddEos) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  EXPECT_EQ(tokenizer.encode("Hi", {.addBos = false, .addEos = true}).value(),
            (Ids{711, 1421, 1500}));
  TokenizerCopy copy;
  copy.editConfig([](nlohmann::json &config) {
    config["add_bos_token"] = false;
    config["add_eos_token"] = true;
  });
  Expected<Tokenizer> edited = Tokenizer::open(copy.path());
  ASSERT_TRUE(edited.ok()) << edited.message();
  // transformers 4.57.1, slow: encode("Hi") with these settings.
  EXPECT_EQ(edited->encode("Hi").value(), (Ids{711, 1421, 1500}));
}

TEST(TokenizerTest, LegacyModeEncodesEachSegmentWithADummyPrefix) {
  TokenizerCopy copy;
  copy.editConfig([](nlohmann::json &config) { config["legacy"] = true; });
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  EXPECT_TRUE(tokenizer->isLegacy());
  // transformers 4.57.1, slow, legacy: true (also what a missing key means).
  EXPECT_EQ(tokenizer->encode("Hello world").value(),
            (Ids{1, 711, 533, 387, 283, 276, 1426, 1428}));
  EXPECT_EQ(tokenizer->encode("a <|end|> b").value(), (Ids{1, 260, 1417, 1507, 1417, 277}));
  EXPECT_EQ(tokenizer->encode("<|user|> x").value(), (Ids{1, 1510, 1258, 1445}));
  // Decoding drops the prefix of every SentencePiece run: the inverse.
  EXPECT_EQ(tokenizer->decode(Ids{260, 1417, 1507, 1417, 277}).value(), "a <|end|> b");
}

TEST(TokenizerTest, LstripAndRstripEatNeighbouringWhitespace) {
  TokenizerCopy copy;
  copy.editConfig([](nlohmann::json &config) {
    config["added_tokens_decoder"]["1507"]["lstrip"] = true; // <|end|>
    config["added_tokens_decoder"]["1510"]["rstrip"] = true; // <|user|>
  });
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  // transformers 4.57.1, slow, with the same edits.
  EXPECT_EQ(tokenizer->encode("a <|end|> b").value(), (Ids{1, 260, 1507, 277}));
  EXPECT_EQ(tokenizer->encode("<|user|>  x").value(), (Ids{1, 1417, 1510, 1445}));
  // U+00A0 counts as whitespace (Python's str.isspace); U+3000 on the right
  // stays, since <|end|> has no rstrip.
  EXPECT_EQ(tokenizer
                ->encode("a\xC2\xA0<|end|>\xE3\x80\x80"
                         "b")
                .value(),
            (Ids{1, 260, 1507, 230, 131, 131, 1435}));
}

TEST(TokenizerTest, WorksWithOnlyTokenizerModel) {
  TokenizerCopy copy;
  std::filesystem::remove(copy / "tokenizer_config.json");
  std::filesystem::remove(copy / "special_tokens_map.json");
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  // bos/eos/unk come from the model's own control pieces; legacy rules.
  EXPECT_EQ(tokenizer->bosId(), 1);
  EXPECT_EQ(tokenizer->eosId(), 2);
  EXPECT_EQ(tokenizer->vocabSize(), 1500u);
  EXPECT_TRUE(tokenizer->isLegacy());
  EXPECT_EQ(tokenizer->encode("Hello world").value(),
            (Ids{1, 711, 533, 387, 283, 276, 1426, 1428}));
  EXPECT_FALSE(tokenizer->applyChatTemplate({}, true).ok());
}

TEST(TokenizerTest, RejectsInvalidUtf8) {
  // SentencePiece split such bytes into byte pieces silently (text from a
  // terminal in Latin-1, say); it is an error, as on the tokenizer.json path.
  const Tokenizer &tokenizer = embeddedTokenizer();
  for (std::string_view bad : {std::string_view("a\xFF\xC3 b\x80"), std::string_view("\xC3"),
                               std::string_view("a\xED\xA0\x80z"), std::string_view("\xC0\x80")}) {
    Expected<Ids> ids = tokenizer.encode(bad);
    ASSERT_FALSE(ids.ok());
    EXPECT_NE(ids.message().find("not valid UTF-8"), std::string::npos) << ids.message();
  }
  // A lone byte piece decodes to U+FFFD rather than invalid UTF-8.
  EXPECT_TRUE(tokenizer.decode(Ids{229}).ok());
}

TEST(TokenizerTest, RejectsIdsOutOfRange) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  Expected<std::string> high = tokenizer.decode(Ids{711, 1511});
  ASSERT_FALSE(high.ok());
  EXPECT_NE(high.message().find("1511 at position 1"), std::string::npos) << high.message();
  EXPECT_FALSE(tokenizer.decode(Ids{-1}).ok());
  EXPECT_EQ(tokenizer.decode(Ids{}).value(), "");
}

TEST(TokenizerTest, IsSafeToUseFromSeveralThreads) {
  const Tokenizer &tokenizer = embeddedTokenizer();
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i)
        for (const ParityCase &c : kParity)
          failures[t] += tokenizer.encode(c.text).value() != c.slowIds;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

} // namespace
} // namespace linnet::rt
