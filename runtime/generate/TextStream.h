// Generated token ids to text, written as they come.
//
// A SentencePiece piece does not decode alone to the text it adds: "▁is"
// is " is" after other text but "is" at the start, and a character split
// into byte pieces (<0xE2><0x80><0x94>) is only text once all its bytes are
// there. So the stream decodes the whole sequence (context + generated, with
// special tokens skipped) after every token and writes the part past what it
// has written already; text ending in an incomplete UTF-8 character (which
// decodes as U+FFFD) is held back until the next token or finish().
//
// The context is the prompt: its decoded text is either written first
// (echo) or only counted, so the first generated word gets its space.
// Decoding everything again costs O(n) per token; generations here are at
// most MaxSeq tokens and decoding is far cheaper than a model step.
#pragma once

#include "runtime/support/Status.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <cstdio>
#include <string>
#include <vector>

namespace linnet::rt {

class TextStream {
public:
  // `tokenizer` and `out` must outlive the stream.
  TextStream(const Tokenizer &tokenizer, std::vector<TokenId> context, std::FILE *out);

  // Writes the context's text (echo) or skips it; call once, first.
  Status start(bool echo);
  // Appends one generated id and writes the text that became complete.
  Status push(TokenId id);
  // Writes whatever was held back, then a newline.
  Status finish();
  // After a failure: ends the line of text written so far, if any, so that
  // an error message starts on its own line and a failure before any text
  // prints nothing.
  void endLine();

  const std::vector<TokenId> &generated() const { return generated_; }
  // Generated ids past the tokenizer's vocabulary, which have no text.
  std::size_t untokenized() const { return untokenized_; }

private:
  Status writeNew(bool final);

  const Tokenizer &tokenizer_;
  std::vector<TokenId> ids_; // context, then generated
  std::vector<TokenId> generated_;
  std::size_t written_ = 0;  // bytes of the decoded text already written or skipped
  std::size_t untokenized_ = 0;
  bool wroteText_ = false;
  std::FILE *out_;
};

} // namespace linnet::rt
