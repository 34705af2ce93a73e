// Tokenizer::applyChatTemplate: runs the checkpoint's chat template with
// our Jinja engine (jinja/Template.h), with the variables transformers'
// apply_chat_template passes: `messages` (a list of {role, content} dicts),
// `add_generation_prompt`, `tools` and `documents` (None), and the special
// tokens that are set (`bos_token`, `eos_token`, `unk_token`, `pad_token`,
// as their text). Everything else a template may look at (`enable_thinking`,
// `custom_tools`, `date_string`, ...) is undefined, as it is in transformers
// when the caller does not pass it. The template decides the format; no
// model family is recognised here.
#include "runtime/tokenizer/TokenizerImpl.h"
#include "runtime/tokenizer/jinja/Template.h"
#include "runtime/tokenizer/Utf8.h"

namespace linnet::rt {

Expected<std::string> Tokenizer::applyChatTemplate(std::span<const ChatMessage> messages,
                                                   bool addGenerationPrompt) const {
  const Impl &impl = *impl_;
  // The file the template came from: chat_template.jinja, else the config.
  std::string source = impl.chatTemplateFile.empty() ? (impl.directory / "tokenizer_config.json").string()
                                                     : impl.chatTemplateFile;
  if (!impl.chatTemplate)
    return makeError("{}: the checkpoint has no chat template", source);
  // Said of the template's file here: once rendered, its bytes failed the
  // prompt's encoding with a message naming no file.
  if (Expected<std::u32string> decoded = decodeUtf8(*impl.chatTemplate); !decoded)
    return makeError("{}: chat template: {}", source, decoded.message());
  Expected<jinja::Template> compiled = jinja::Template::parse(*impl.chatTemplate);
  if (!compiled)
    return makeError("{}: chat template: {}", source, compiled.message());

  jinja::DictData context;
  std::vector<jinja::Value> list;
  for (const ChatMessage &message : messages) {
    jinja::DictData entry;
    entry.set("role", jinja::Value::string(message.role));
    entry.set("content", jinja::Value::string(message.content));
    list.push_back(jinja::Value::dict(std::move(entry)));
  }
  context.set("messages", jinja::Value::list(std::move(list)));
  context.set("tools", jinja::Value::none());
  context.set("documents", jinja::Value::none());
  context.set("add_generation_prompt", jinja::Value::boolean(addGenerationPrompt));
  auto setToken = [&](const char *name, std::optional<TokenId> id) {
    if (!id)
      return;
    Expected<std::string> text = idToToken(*id);
    if (text && !text->empty())
      context.set(name, jinja::Value::string(*text));
  };
  setToken("bos_token", impl.bos);
  setToken("eos_token", impl.eos);
  setToken("unk_token", impl.unk);
  setToken("pad_token", impl.pad);

  Expected<std::string> text = compiled->render(context);
  if (!text)
    return makeError("{}: chat template: {}", source, text.message());
  return text;
}

EncodeOptions Tokenizer::chatEncodeOptions(std::string_view rendered) const {
  EncodeOptions options;
  if (std::optional<TokenId> bos = bosId()) {
    Expected<std::string> bosText = idToToken(*bos);
    if (bosText && !bosText->empty() && rendered.starts_with(*bosText))
      options.addBos = false;
  }
  return options;
}

} // namespace linnet::rt
