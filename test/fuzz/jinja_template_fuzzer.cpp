// libFuzzer target for the chat-template engine (runtime/tokenizer/jinja/).
// The input is a template: parsed and, if accepted, rendered with a small
// conversation and the special tokens, under tighter limits than the
// default so that one input stays fast (the limits themselves are what is
// being exercised: a template that loops or grows its output must stop with
// an Error). Every rejection must carry a message; an accepted render must
// respect the output bound. Seeds: corpus/jinja_template/.
#include "runtime/tokenizer/jinja/Template.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using namespace linnet::rt::jinja;

DictData conversation() {
  DictData context;
  std::vector<Value> messages;
  const char *turns[][2] = {{"system", "Be brief."}, {"user", "Hi \"there\"\n{{ x }}"},
                            {"assistant", "Hello."}, {"user", "caf\xC3\xA9 \xF0\x9F\x98\x80"}};
  for (auto &turn : turns) {
    DictData message;
    message.set("role", Value::string(turn[0]));
    message.set("content", Value::string(turn[1]));
    messages.push_back(Value::dict(std::move(message)));
  }
  context.set("messages", Value::list(std::move(messages)));
  context.set("add_generation_prompt", Value::boolean(true));
  context.set("tools", Value::none());
  context.set("documents", Value::none());
  context.set("bos_token", Value::string("<s>"));
  context.set("eos_token", Value::string("</s>"));
  return context;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string_view source(reinterpret_cast<const char *>(data), size);
  auto compiled = Template::parse(source);
  if (!compiled.ok()) {
    if (compiled.message().empty())
      __builtin_trap();
    return 0;
  }
  static const DictData context = conversation();
  RenderOptions options;
  options.limits.maxSteps = 20'000;
  options.limits.maxOutputBytes = 1 << 16;
  options.now = 0;
  auto text = compiled->render(context, options);
  if (!text.ok()) {
    if (text.message().empty())
      __builtin_trap();
    return 0;
  }
  if (text->size() > options.limits.maxOutputBytes)
    __builtin_trap();
  return 0;
}
