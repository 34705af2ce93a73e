// A chat template: a small Jinja engine for the subset of jinja2 that
// Hugging Face chat templates use, configured as transformers'
// apply_chat_template configures jinja2 (ImmutableSandboxedEnvironment with
// trim_blocks, lstrip_blocks, loopcontrols and HF's {% generation %} tag;
// the globals raise_exception, strftime_now, namespace, range and dict;
// tojson as json.dumps(ensure_ascii=False)). The goal is the exact text
// jinja2 renders; what is implemented and what is refused is listed in
// docs/tokenizer.md ("Chat template").
//
// Templates come from checkpoints, so they are untrusted: parse() and
// render() never crash or hang on any input. Malformed templates, refused
// constructs and runtime errors (including raise_exception(message)) are
// Errors naming the template line; work, output size and nesting are
// bounded by RenderLimits. A Template is immutable after parse(); render()
// is const and may run on several threads at once.
#pragma once

#include "runtime/support/Status.h"
#include "runtime/tokenizer/jinja/Value.h"

#include <cstddef>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace linnet::rt::jinja {

struct Program;

struct RenderLimits {
  // Also bounds any one string value, the str()/repr()/tojson text of any
  // value, and the bytes of strings held directly by any one list or dict.
  std::size_t maxOutputBytes = std::size_t{16} << 20;
  std::size_t maxItems = 1'000'000; // items of any one list or dict
  std::size_t maxSteps = 1'000'000;                   // statements run plus loop iterations
  int maxCallDepth = 64;                              // nested macro calls
  int maxRenderDepth = 256; // nested blocks, counted across macro calls
  // Strings, list items and dict entries built by one render, all together
  // (not only those alive at once, which would need every value's size
  // counted back when it dies): a real template builds a few hundred KiB.
  std::size_t maxValueBytes = std::size_t{256} << 20;
  // Bytes and items compared or scanned by one render, all together
  // (valueWorkDone): about a second of work at most; a real template does a
  // few thousand per message.
  std::size_t maxWork = std::size_t{1} << 28;
};

struct RenderOptions {
  RenderLimits limits;
  // What strftime_now() formats (local time); unset: the current time, as
  // transformers does. Tests fix it.
  std::optional<std::time_t> now;
};

class Template {
public:
  static Expected<Template> parse(std::string_view source);

  // Renders with `context` as the template's variables (e.g. messages,
  // add_generation_prompt, bos_token). Errors start with "line N: ".
  Expected<std::string> render(const DictData &context, const RenderOptions &options = {}) const;

private:
  explicit Template(std::shared_ptr<const Program> program) : program_(std::move(program)) {}
  std::shared_ptr<const Program> program_;
};

} // namespace linnet::rt::jinja
