// Token kind tables: spellings and classification, generated from
// TokenKinds.def so that adding a kind needs no edit here.
#include "compiler/lex/Token.h"

namespace linnet {

std::string_view tokenKindSpelling(TokenKind kind) {
  switch (kind) {
#define TOKEN(Name, Description) \
  case TokenKind::Name:          \
    return Description;
#include "compiler/lex/TokenKinds.def"
  }
  return "token";
}

bool isKeyword(TokenKind kind) {
  switch (kind) {
#define TOKEN(Name, Description) \
  case TokenKind::Name:          \
    return false;
#define PUNCT(Name, Spelling) \
  case TokenKind::Name:       \
    return false;
#define KEYWORD(Name, Spelling) \
  case TokenKind::Name:         \
    return true;
#include "compiler/lex/TokenKinds.def"
  }
  return false;
}

bool isPunctuation(TokenKind kind) {
  switch (kind) {
#define TOKEN(Name, Description) \
  case TokenKind::Name:          \
    return false;
#define PUNCT(Name, Spelling) \
  case TokenKind::Name:       \
    return true;
#define KEYWORD(Name, Spelling) \
  case TokenKind::Name:         \
    return false;
#include "compiler/lex/TokenKinds.def"
  }
  return false;
}

}  // namespace linnet
