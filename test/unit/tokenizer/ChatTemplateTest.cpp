// applyChatTemplate on the embedded tokenizer's Phi-3 template, on other
// templates, and its errors. (The engine itself is tested against jinja2 in
// JinjaExpectedTest.cpp and JinjaErrorsTest.cpp.) Expected text and ids come from transformers 4.57.1 (slow
// tokenizer): apply_chat_template(messages, tokenize=False, ...) for the
// text, tokenizer(text)["input_ids"] for the ids with bos, and
// apply_chat_template(messages, tokenize=True, ...) for the ids without
// (it encodes with add_special_tokens=False). The fast tokenizer gives the
// same ids minus the leading 1417 ("▁"); see docs/tokenizer.md.
#include "TokenizerTestUtil.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
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

// The engine runs whatever template the checkpoint has; nothing is
// recognised by its text any more.
TEST(ChatTemplateTest, RendersOtherTemplates) {
  TokenizerCopy copy;
  copy.editConfig([](json &c) {
    c["chat_template"] = "{{ bos_token }}{% for m in messages %}{% if m['role'] == 'user' %}"
                         "[INST] {{ m['content'] }} [/INST]{% else %}{{ m['content'] }}"
                         "{{ eos_token }}{% endif %}{% endfor %}";
  });
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok());
  std::vector<ChatMessage> messages = {{"user", "Hi"}, {"assistant", "Hello."}, {"user", "Bye"}};
  EXPECT_EQ(tokenizer->applyChatTemplate(messages, true).value(),
            "<s>[INST] Hi [/INST]Hello.<|endoftext|>[INST] Bye [/INST]");
}

// As in jinja2, the embedded Phi-3 template silently skips roles it does
// not list.
TEST(ChatTemplateTest, TheTemplateDecidesAboutUnknownRoles) {
  std::vector<ChatMessage> messages = {{"tool", "42"}, {"user", "Hi"}};
  EXPECT_EQ(embeddedTokenizer().applyChatTemplate(messages, true).value(),
            "<|user|>\nHi<|end|>\n<|assistant|>\n");
}

TEST(ChatTemplateTest, RaiseExceptionIsAnError) {
  TokenizerCopy copy;
  copy.editConfig([](json &c) {
    c["chat_template"] = "{% if messages[0]['role'] != 'user' %}\n"
                         "{{ raise_exception('Conversation must start with a user message') }}"
                         "{% endif %}";
  });
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok());
  Expected<std::string> text = tokenizer->applyChatTemplate(kConversation, true);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("tokenizer_config.json: chat template: line 2: Conversation must "
                                "start with a user message"),
            std::string::npos)
      << text.message();
}

TEST(ChatTemplateTest, MalformedTemplateIsAnErrorWithTheLine) {
  TokenizerCopy copy;
  copy.editConfig([](json &c) { c["chat_template"] = "{% for m in messages %}\n{{ m.content "; });
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok());
  Expected<std::string> text = tokenizer->applyChatTemplate(kConversation, true);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("line 2: unterminated `{{` tag"), std::string::npos)
      << text.message();
}

// A byte-level BPE checkpoint (Llama 3's tokenizer.json) with the real
// Llama 3.2 template from a chat_template.jinja: bos_token is the added
// token's text, and the rendered special strings encode to single ids.
TEST(ChatTemplateTest, Llama3TemplateOnTheBpeTokenizer) {
  namespace fs = std::filesystem;
  fs::path source = fs::path(LINNET_SOURCE_DIR) / "test" / "data";
  fs::path dir = fs::temp_directory_path() / fmt::format("linnet-chat-llama3-{}", ::getpid());
  fs::remove_all(dir);
  fs::copy(source / "tokenizers" / "llama3", dir);
  fs::copy_file(source / "chat-templates" / "meta-llama-Llama-3.2-3B-Instruct.jinja",
                dir / "chat_template.jinja");
  Expected<Tokenizer> tokenizer = Tokenizer::open(dir);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  std::vector<ChatMessage> messages = {{"system", "Be brief."}, {"user", "Hi"}};
  Expected<std::string> text = tokenizer->applyChatTemplate(messages, true);
  fs::remove_all(dir);
  ASSERT_TRUE(text.ok()) << text.message();
  // The date line comes from strftime_now (today).
  EXPECT_TRUE(text->starts_with("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
                                "Cutting Knowledge Date: December 2023\nToday Date: "))
      << *text;
  EXPECT_TRUE(text->ends_with("\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>"
                              "\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"))
      << *text;
  Expected<std::vector<TokenId>> ids = tokenizer->encode(*text, {.addBos = false});
  ASSERT_TRUE(ids.ok()) << ids.message();
  EXPECT_EQ(ids->front(), tokenizer->bosId());
  EXPECT_EQ(ids->back(), tokenizer->tokenToId("\u010a\u010a")); // "\n\n" in byte-level spelling
  // The template wrote the bos token, so the prompt's encoding adds none
  // (this tokenizer's config adds one to plain text): exactly one bos.
  EXPECT_TRUE(tokenizer->addsBos());
  Expected<std::vector<TokenId>> prompt = tokenizer->encode(*text, tokenizer->chatEncodeOptions(*text));
  ASSERT_TRUE(prompt.ok()) << prompt.message();
  EXPECT_EQ(*prompt, *ids);
}

// Phi-3's template writes no bos: the prompt gets the checkpoint's.
TEST(ChatTemplateTest, ChatPromptOfATemplateWithoutBosGetsTheCheckpointsBos) {
  Expected<std::string> text = embeddedTokenizer().applyChatTemplate(kConversation, true);
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(embeddedTokenizer().encode(*text, embeddedTokenizer().chatEncodeOptions(*text)).value(),
            kWithPromptIds);
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
  copy.writeFile("chat_template.jinja", "{{ messages[:2] }}");
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok());
  // Python's repr of the list, as jinja2 prints it.
  EXPECT_EQ(tokenizer->applyChatTemplate(kConversation, true).value(),
            "[{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi there'}]");
}

// An error in a template from chat_template.jinja names that file, not the
// config whose template it replaced.
TEST(ChatTemplateTest, AnErrorNamesTheTemplateFile) {
  TokenizerCopy copy;
  copy.writeFile("chat_template.jinja", "{{ undefined_thing.x }}");
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok());
  Expected<std::string> text = tokenizer->applyChatTemplate(kConversation, true);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("chat_template.jinja: chat template: line 1:"), std::string::npos) << text.message();
  EXPECT_EQ(text.message().find("tokenizer_config.json"), std::string::npos) << text.message();
}

// A chat_template.jinja that is not UTF-8 is refused when used, naming the
// file (its rendered bytes failed the prompt's encoding naming none); a
// prompt without the chat format does not read it.
TEST(ChatTemplateTest, ATemplateFileNotUtf8IsNamed) {
  TokenizerCopy copy;
  copy.writeFile("chat_template.jinja", "\xff{{ messages }}");
  Expected<Tokenizer> tokenizer = Tokenizer::open(copy.path());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  Expected<std::string> text = tokenizer->applyChatTemplate(kConversation, true);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.message().find("chat_template.jinja: chat template: the text is not valid UTF-8"), std::string::npos)
      << text.message();
  EXPECT_TRUE(tokenizer->encode("Hello").ok());
}

} // namespace
} // namespace linnet::rt
