// applyChatTemplate on the embedded tokenizer's Phi-3 template, and its
// refusals. Expected text and ids come from transformers 4.57.1 (slow
// tokenizer): apply_chat_template(messages, tokenize=False, ...) for the
// text, tokenizer(text)["input_ids"] for the ids with bos, and
// apply_chat_template(messages, tokenize=True, ...) for the ids without
// (it encodes with add_special_tokens=False). The fast tokenizer gives the
// same ids minus the leading 1417 ("▁"); see docs/tokenizer.md.
#include "TokenizerTestUtil.h"

#include <gtest/gtest.h>

#include <vector>

namespace linnet::rt {
namespace {

using nlohmann::json;
using test::embeddedTokenizer;
using test::TokenizerCopy;
using Ids = std::vector<TokenId>;

const std::vector<ChatMessage> kConversation = {
    {"system", "Be brief."}, {"user", "Hi there"}, {"assistant", "Hello."}, {"user", "Bye"}};

const char kWithPrompt[] = "<|system|>\nBe brief.<|end|>\n<|user|>\nHi there<|end|>\n"
                           "<|assistant|>\nHello.<|end|>\n<|user|>\nBye<|end|>\n<|assistant|>\n";
const char kWithoutPrompt[] = "<|system|>\nBe brief.<|end|>\n<|user|>\nHi there<|end|>\n"
                              "<|assistant|>\nHello.<|end|>\n<|user|>\nBye<|end|>\n<|endoftext|>";

const Ids kWithPromptIds = {1,    1417, 1506, 13,   1475, 1418, 277,  612, 1418, 1432,
                            1436, 1507, 13,   1510, 13,   1476, 1421, 815, 1507, 13,
                            1501, 13,   1476, 533,  387,  1436, 1507, 13,  1510, 13,
                            1475, 1437, 1418, 1507, 13,   1501, 13};

TEST(ChatTemplateTest, RendersThePhi3FormatWithAGenerationPrompt) {
  Expected<std::string> text = embeddedTokenizer().applyChatTemplate(kConversation, true);
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text, kWithPrompt);
  EXPECT_EQ(embeddedTokenizer().encode(*text).value(), kWithPromptIds);
  // As apply_chat_template(tokenize=True): no bos.
  EXPECT_EQ(embeddedTokenizer().encode(*text, {.addBos = false}).value(),
            Ids(kWithPromptIds.begin() + 1, kWithPromptIds.end()));
}

TEST(ChatTemplateTest, EndsWithEosWithoutAGenerationPrompt) {
  Expected<std::string> text = embeddedTokenizer().applyChatTemplate(kConversation, false);
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text, kWithoutPrompt);
  Ids expected(kWithPromptIds.begin(), kWithPromptIds.end() - 2);
  expected.push_back(1500);
  EXPECT_EQ(embeddedTokenizer().encode(*text).value(), expected);
}

TEST(ChatTemplateTest, EmptyConversation) {
  EXPECT_EQ(embeddedTokenizer().applyChatTemplate({}, true).value(), "<|assistant|>\n");
}

TEST(ChatTemplateTest, EmitsBosWhenTheTemplateDoes) {
  TokenizerCopy copy;
  copy.editConfig([](json &c) {
    c["chat_template"] = "{{ bos_token }}" + c["chat_template"].get<std::string>();
  });
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok());
  std::vector<ChatMessage> messages = {{"user", "Hi"}};
  EXPECT_EQ(tokenizer->applyChatTemplate(messages, true).value(),
            "<s><|user|>\nHi<|end|>\n<|assistant|>\n");
}

TEST(ChatTemplateTest, RefusesOtherTemplates) {
  TokenizerCopy copy;
  copy.editConfig([](json &c) {
    c["chat_template"] = "{% for m in messages %}[INST] {{ m['content'] }} [/INST]{% endfor %}";
  });
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok());
  Expected<std::string> text = tokenizer->applyChatTemplate(kConversation, true);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("unsupported chat template"), std::string::npos);
}

TEST(ChatTemplateTest, NeedsTheRoleTokens) {
  TokenizerCopy copy;
  copy.editConfig([](json &c) { c["added_tokens_decoder"]["1510"]["content"] = "<|human|>"; });
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  Expected<std::string> text = tokenizer->applyChatTemplate(kConversation, true);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("<|user|>"), std::string::npos) << text.message();
}

TEST(ChatTemplateTest, RefusesUnknownRoles) {
  std::vector<ChatMessage> messages = {{"tool", "42"}};
  Expected<std::string> text = embeddedTokenizer().applyChatTemplate(messages, true);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("\"tool\""), std::string::npos) << text.message();
}

TEST(ChatTemplateTest, NoTemplate) {
  TokenizerCopy copy;
  copy.editConfig([](json &c) { c.erase("chat_template"); });
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok());
  Expected<std::string> text = tokenizer->applyChatTemplate(kConversation, true);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("no chat template"), std::string::npos);
}

TEST(ChatTemplateTest, ATemplateFileTakesPriority) {
  TokenizerCopy copy;
  copy.writeFile("chat_template.jinja", "{{ messages }}");
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok());
  EXPECT_FALSE(tokenizer->applyChatTemplate(kConversation, true).ok());
}

} // namespace
} // namespace linnet::rt
