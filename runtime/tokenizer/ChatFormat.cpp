// Tokenizer::applyChatTemplate: the Phi-3 chat format without a Jinja
// engine.
//
// Running arbitrary Jinja is out of scope, so the template text is only
// recognised, not executed: a Phi-3-family template mentions `<|end|>` and
// `add_generation_prompt`. Which role markers exist comes from the
// checkpoint's added tokens, and whether the template emits the bos token
// first, or the eos token when no generation prompt is asked for, from
// whether it mentions `bos_token` / `eos_token` (Phi-3-mini's current
// template ends with `{% else %}{{ eos_token }}`; an older one started with
// `{{ bos_token }}`). Templates of other shapes, including Phi-3's oldest
// (no `add_generation_prompt`, assistant turns without a role marker), are
// refused rather than rendered wrongly.
#include "runtime/checkpoint/StrictJson.h"
#include "runtime/tokenizer/TokenizerImpl.h"

#include <algorithm>
#include <array>

namespace linnet::rt {

namespace {

constexpr std::array<std::string_view, 3> kRoles = {"system", "user", "assistant"};

std::string roleMarker(std::string_view role) { return fmt::format("<|{}|>", role); }

} // namespace

Expected<std::string> Tokenizer::applyChatTemplate(std::span<const ChatMessage> messages,
                                                   bool addGenerationPrompt) const {
  const Impl &impl = *impl_;
  std::string source = (impl.directory / "tokenizer_config.json").string();
  if (!impl.chatTemplate)
    return makeError("{}: the checkpoint has no chat template", source);
  const std::string &chatTemplate = *impl.chatTemplate;
  if (chatTemplate.find("<|end|>") == std::string::npos ||
      chatTemplate.find("add_generation_prompt") == std::string::npos)
    return makeError("{}: unsupported chat template: only the Phi-3 format "
                     "(<|role|>\\n...<|end|>\\n, then <|assistant|>\\n) is implemented",
                     source);

  // The markers must be added tokens: otherwise encode() would cut them
  // into ordinary pieces and the model would never see its role tokens.
  auto requireMarker = [&](std::string_view marker) -> Status {
    if (!impl.addedIdByContent.contains(marker))
      return makeError("{}: the chat template needs the added token {}, which the checkpoint "
                       "does not have",
                       source, marker);
    return Status::success();
  };
  for (std::string_view marker : {"<|user|>", "<|assistant|>", "<|end|>"})
    if (Status status = requireMarker(marker); !status)
      return status.error();

  std::string text;
  if (chatTemplate.find("bos_token") != std::string::npos && impl.bos)
    text += impl.added[static_cast<std::size_t>(impl.addedIndexById[*impl.bos])].content;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage &message = messages[i];
    if (std::find(kRoles.begin(), kRoles.end(), message.role) == kRoles.end())
      return makeError("chat message {}: role {} is not supported by the Phi-3 format (system, "
                       "user, assistant)",
                       i, jsonQuoted(message.role));
    std::string marker = roleMarker(message.role);
    if (Status status = requireMarker(marker); !status)
      return status.error();
    text += marker;
    text += '\n';
    text += message.content;
    text += "<|end|>\n";
  }
  if (addGenerationPrompt)
    text += "<|assistant|>\n";
  else if (chatTemplate.find("eos_token") != std::string::npos && impl.eos)
    text += impl.added[static_cast<std::size_t>(impl.addedIndexById[*impl.eos])].content;
  return text;
}

} // namespace linnet::rt
