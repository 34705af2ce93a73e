// Token: a kind plus the span of its spelling in the source buffer. The text
// is read back through the SourceManager; literal values are decoded by the
// parser (integers) or lexer (strings) when needed.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "compiler/source/SourceManager.h"

namespace linnet {

enum class TokenKind : uint8_t {
#define TOKEN(Name, Description) Name,
#include "compiler/lex/TokenKinds.def"
};

// The spelling of a punctuation or keyword token, or a description such as
// "identifier" for the others.
std::string_view tokenKindSpelling(TokenKind kind);
bool isKeyword(TokenKind kind);
bool isPunctuation(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::EndOfFile;
  Span span;
  // True when whitespace or a comment separates this token from the previous
  // one (the parser uses it to tell `>` `>` from `>>`-like contexts).
  bool leadingSpace = false;
  // True when an empty line precedes this token (since the previous token or
  // comment); the formatter keeps one blank line there.
  bool blankLineBefore = false;
};

// A `///` or `/** */` doc comment: kept with the token that follows it.
struct DocComment {
  Span span;
  uint32_t nextToken;  // index into TokenizedBuffer::tokens
};

// Any comment (doc comments included), kept for the formatter: comments are
// not tokens, so `linnet fmt` re-attaches them by position.
struct SourceComment {
  Span span;
  // The comment shares its line with the token before it (`x = 1 // note`).
  bool trailing = false;
  // An empty line precedes the comment.
  bool blankLineBefore = false;
  // Index of the token before the comment (tokens.size() at that point;
  // UINT32_MAX when the comment comes first).
  uint32_t previousToken = UINT32_MAX;
};

struct TokenizedBuffer {
  FileId file = kNoFile;
  std::vector<Token> tokens;  // always ends with EndOfFile
  std::vector<DocComment> docComments;
  std::vector<SourceComment> comments;  // every comment, in source order
  // The file ends inside an unterminated comment or string (already
  // reported): an "expected ..., found end of file" would only repeat it.
  bool endsInsideLiteral = false;
};

}  // namespace linnet
