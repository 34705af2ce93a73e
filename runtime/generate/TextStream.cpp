// Implementation of TextStream.h.
#include "runtime/generate/TextStream.h"

#include <string_view>

namespace linnet::rt {

namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD"; // U+FFFD, an incomplete byte sequence

} // namespace

TextStream::TextStream(const Tokenizer &tokenizer, std::vector<TokenId> context, std::FILE *out)
    : tokenizer_(tokenizer), ids_(std::move(context)), out_(out) {}

Status TextStream::start(bool echo) {
  Expected<std::string> text = tokenizer_.decode(ids_, {.skipSpecialTokens = true});
  if (!text)
    return text.error();
  if (echo && !text->empty()) {
    std::fwrite(text->data(), 1, text->size(), out_);
    std::fflush(out_);
    wroteText_ = true;
  }
  written_ = text->size();
  return Status::success();
}

Status TextStream::push(TokenId id) {
  generated_.push_back(id);
  // A model's vocabulary may be larger than its tokenizer's (Phi-3-mini:
  // 32064 rows, 32011 ids; the rest pad the embedding). Such an id, drawn
  // when sampling, has no text: it is printed as nothing, as transformers'
  // fast tokenizers decode it, and generation goes on.
  if (id >= 0 && static_cast<std::size_t>(id) >= tokenizer_.vocabSize()) {
    ++untokenized_;
    return Status::success();
  }
  ids_.push_back(id);
  return writeNew(false);
}

Status TextStream::finish() {
  if (Status s = writeNew(true); !s)
    return s;
  std::fputc('\n', out_);
  std::fflush(out_);
  return Status::success();
}

void TextStream::endLine() {
  if (!wroteText_)
    return;
  std::fputc('\n', out_);
  std::fflush(out_);
}

Status TextStream::writeNew(bool final) {
  Expected<std::string> text = tokenizer_.decode(ids_, {.skipSpecialTokens = true});
  if (!text)
    return text.error();
  std::string_view all = *text;
  if (!final && all.ends_with(kReplacementCharacter))
    return Status::success(); // wait for the rest of the character
  // Decoding is prefix-stable for SentencePiece in practice; if a later token
  // ever rewrote earlier text, write only what lies past the old length.
  if (all.size() > written_) {
    std::fwrite(all.data() + written_, 1, all.size() - written_, out_);
    std::fflush(out_);
    written_ = all.size();
    wroteText_ = true;
  }
  return Status::success();
}

} // namespace linnet::rt
