// libFuzzer target for the tokenizer.json reader and the byte-level BPE
// pipeline (runtime/tokenizer/TokenizerJson.h, PreTokenizer.h, Regex.h,
// ByteLevelBpe.h). Two kinds of input:
//   - a JSON document: parsed as tokenizer.json; if accepted, a fixed mixed
//     text is pre-tokenized and every word BPE-encoded, and each resulting id
//     must be a vocab token;
//   - 'R' + pattern + '\0' + text: the pattern is compiled as a pre-tokenizer
//     regex and, if accepted, run over the text (as UTF-8, if valid); the
//     matches must be ordered, non-empty and inside the text.
// Rejections must come with a message. Seeds: corpus/tokenizer_json/
// (tools/tokenizer/make_test_tokenizers.py writes them).
#include "runtime/checkpoint/StrictJson.h"
#include "runtime/tokenizer/TokenizerJson.h"
#include "runtime/tokenizer/Utf8.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

constexpr std::string_view kText = "Hello, world! It's 12345 \xE6\x97\xA5\xE6\x9C\xAC\n\n  caf\xC3\xA9 "
                                   "\xF0\x9F\x98\x80  x\t'S";

void fuzzRegex(std::string_view input) {
  std::size_t split = input.find('\0');
  std::string_view pattern = input.substr(0, split);
  std::string_view text = split == std::string_view::npos ? kText : input.substr(split + 1);
  auto regex = linnet::rt::Regex::compile(pattern);
  if (!regex.ok()) {
    if (regex.message().empty())
      __builtin_trap();
    return;
  }
  auto chars = linnet::rt::decodeUtf8(text);
  if (!chars.ok())
    return;
  auto matches = regex->findAll(*chars);
  if (!matches.ok()) {
    if (matches.message().empty())
      __builtin_trap();
    return;
  }
  std::size_t previous = 0;
  for (auto [begin, end] : *matches)
    if (begin < previous || end <= begin || end > chars->size())
      __builtin_trap();
    else
      previous = end;
}

void fuzzTokenizerJson(std::string_view input) {
  auto root = linnet::rt::parseStrictJson(input, "<fuzz input>");
  if (!root.ok())
    return;
  auto tokenizer = linnet::rt::parseTokenizerJson(*root, "<fuzz input>");
  if (!tokenizer.ok()) {
    if (tokenizer.message().empty())
      __builtin_trap();
    return;
  }
  auto chars = linnet::rt::decodeUtf8(kText);
  auto words = tokenizer->preTokenizer.split(*chars);
  if (!words.ok())
    return;
  std::vector<linnet::rt::TokenId> ids;
  for (const std::string &word : *words)
    tokenizer->model.encodeWord(word, ids);
  for (linnet::rt::TokenId id : ids)
    if (!tokenizer->model.idToToken(id))
      __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  if (!input.empty() && input[0] == 'R')
    fuzzRegex(input.substr(1));
  else
    fuzzTokenizerJson(input);
  return 0;
}
