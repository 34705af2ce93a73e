// Parser entry point and shared machinery: the token cursor, E1101
// reporting with cascade suppression, nesting limits and recovery skips.
// The grammar itself lives in ParseItem.cpp, ParseStmt.cpp, ParseExpr.cpp
// and ParseType.cpp (see ParserImpl.h for the conventions they follow).
#include "compiler/parse/Parser.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/parse/ParserImpl.h"

namespace linnet {

std::unique_ptr<ast::SourceModule> parse(const SourceManager& sources,
                                         const TokenizedBuffer& tokens,
                                         DiagnosticEmitter& diagnostics) {
  return parser::Parser(sources, tokens, diagnostics).run();
}

namespace parser {

namespace {
// A lexer that somehow produced no tokens still yields a well-formed buffer.
const std::vector<Token>& nonEmpty(const TokenizedBuffer& buffer) {
  static const std::vector<Token> kOnlyEnd = {Token{}};
  return buffer.tokens.empty() ? kOnlyEnd : buffer.tokens;
}
}  // namespace

Parser::Parser(const SourceManager& sources, const TokenizedBuffer& tokens,
               DiagnosticEmitter& diagnostics)
    : sources_(sources),
      buffer_(tokens),
      tokens_(nonEmpty(tokens)),
      diagnostics_(diagnostics),
      text_(tokens.file == kNoFile ? std::string_view() : sources.file(tokens.file).text()) {}

std::unique_ptr<ast::SourceModule> Parser::run() {
  auto module = std::make_unique<ast::SourceModule>();
  module_ = module.get();
  module->file = buffer_.file;

  // Layout facts for the formatter and for line:col in dumps.
  for (const SourceComment& comment : buffer_.comments) {
    ast::Comment c;
    c.span = comment.span;
    c.text = std::string(text_.substr(comment.span.begin, comment.span.end - comment.span.begin));
    c.trailing = comment.trailing;
    c.blankLineBefore = comment.blankLineBefore;
    if (comment.previousToken < tokens_.size()) {
      uint32_t previous = comment.previousToken;
      if (tokens_[previous].kind == TokenKind::Comma && previous > 0) --previous;
      c.attachEnd = tokens_[previous].span.end;
    }
    module->comments.push_back(std::move(c));
  }
  for (const Token& token : tokens_)
    if (token.blankLineBefore) module->blankLineBefore.push_back(token.span.begin);
  module->lineStarts.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text_[i]);
    if (c == '\n') module->lineStarts.push_back(i + 1);
    if ((c & 0xC0) == 0x80) module->continuationBytes.push_back(i);
  }

  angleMatch_.assign(tokens_.size(), -2);
  notAType_.assign(tokens_.size(), false);

  parseModuleHeader(*module);
  parseItemsUntil(module->items, /*inBlock=*/false, nullptr);

  std::sort(module->multilineLists.begin(), module->multilineLists.end());
  module->multilineLists.erase(
      std::unique(module->multilineLists.begin(), module->multilineLists.end()),
      module->multilineLists.end());
  module_ = nullptr;
  return module;
}

// ---- token cursor ------------------------------------------------------------

const Token& Parser::peekTok(size_t ahead) const {
  size_t index = pos_ + ahead;
  return index < tokens_.size() ? tokens_[index] : tokens_.back();
}

std::string_view Parser::spelling(const Token& token) const {
  if (token.span.end > text_.size() || token.span.begin > token.span.end) return {};
  return text_.substr(token.span.begin, token.span.end - token.span.begin);
}

bool Parser::atIdent(std::string_view name) const {
  return at(TokenKind::Identifier) && spelling(tok()) == name;
}

bool Parser::peekIdent(size_t ahead, std::string_view name) const {
  return peekKind(ahead) == TokenKind::Identifier && spelling(peekTok(ahead)) == name;
}

const Token& Parser::advance() {
  const Token& current = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return current;
}

bool Parser::consume(TokenKind k) {
  if (!at(k)) return false;
  advance();
  return true;
}

uint32_t Parser::lastEnd() const {
  if (pos_ == 0) return tokens_[0].span.begin;
  // At end of file the cursor stays on EndOfFile; the last real token is
  // the one before it.
  return tokens_[pos_ - 1].span.end;
}

Span Parser::spanFrom(uint32_t begin) const {
  uint32_t end = std::max(begin, lastEnd());
  return Span{buffer_.file, begin, end};
}

// ---- diagnostics ----------------------------------------------------------------

std::string Parser::quoted(TokenKind k) { return fmt::format("`{}`", tokenKindSpelling(k)); }

std::string Parser::describe(const Token& token) const {
  switch (token.kind) {
    case TokenKind::EndOfFile: return "end of file";
    case TokenKind::Error: return "invalid token";
    case TokenKind::StringLiteral: return "string literal";
    case TokenKind::Identifier: return fmt::format("identifier `{}`", spelling(token));
    case TokenKind::IntegerLiteral:
    case TokenKind::FloatLiteral: {
      std::string_view text = spelling(token);
      if (text.size() > 24) return std::string(tokenKindSpelling(token.kind));
      return fmt::format("{} `{}`", tokenKindSpelling(token.kind), text);
    }
#define TOKEN(Name, Description)
#define PUNCT(Name, Spelling) case TokenKind::Name:
#define KEYWORD(Name, Spelling) case TokenKind::Name:
#include "compiler/lex/TokenKinds.def"
      return quoted(token.kind);
  }
  return "token";
}

std::optional<DiagnosticBuilder> Parser::expected(std::string_view what, Span open,
                                                  std::string_view openLabel) {
  ++failures_;
  const Token& found = tok();
  // The lexer already reported an invalid token; one error per token keeps
  // a single mistake from producing a cascade.
  if (speculating_ > 0 || quiet_ || found.kind == TokenKind::Error || pos_ == lastErrorPos_ ||
      (found.kind == TokenKind::EndOfFile && buffer_.endsInsideLiteral))
    return std::nullopt;
  lastErrorPos_ = pos_;
  Span where = found.span;
  if (found.kind == TokenKind::EndOfFile) where = Span{buffer_.file, lastEnd(), lastEnd()};
  DiagnosticBuilder builder =
      diagnostics_.emit(DiagnosticKind::UnexpectedToken, where, what, describe(found));
  if (open.valid()) builder.secondary(open, std::string(openLabel));
  if (isKeyword(found.kind) && (what.find("name") != std::string_view::npos || what == "pattern"))
    builder.help(fmt::format("{} is a keyword and cannot be used as a name", quoted(found.kind)));
  return std::optional<DiagnosticBuilder>(std::move(builder));
}

bool Parser::expect(TokenKind k, Span open, std::string_view openLabel) {
  if (consume(k)) return true;
  expected(quoted(k), open, openLabel);
  return false;
}

void Parser::unsupported(Span where, std::string_view what, std::string_view help) {
  ++failures_;
  if (speculating_ > 0) return;
  diagnostics_.emit(DiagnosticKind::UnsupportedSyntax, where, what).help(std::string(help));
}

void Parser::recordMultiline(uint32_t firstElement) {
  module_->multilineLists.push_back(firstElement);
}

void Parser::tooDeep(const char* help) {
  ++failures_;
  ++depthFailures_;
  if (speculating_ == 0) quiet_ = true;
  if (speculating_ == 0 && !reportedTooDeep_) {
    reportedTooDeep_ = true;
    lastErrorPos_ = pos_;
    Span where = at(TokenKind::EndOfFile) ? Span{buffer_.file, lastEnd(), lastEnd()} : tok().span;
    diagnostics_.emit(DiagnosticKind::NestingTooDeep, where, kMaxNesting).help(help);
  }
  TokenKind k = kind();
  if (k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace) skipGroup();
}

// ---- recovery ----------------------------------------------------------------

bool Parser::isItemKeyword(TokenKind k) const {
  switch (k) {
    case TokenKind::KwPub:
    case TokenKind::KwConst:
    case TokenKind::KwType:
    case TokenKind::KwStruct:
    case TokenKind::KwEnum:
    case TokenKind::KwFn:
    case TokenKind::KwOp:
    case TokenKind::KwEntry:
    case TokenKind::KwKernel:
    case TokenKind::KwBlock:
    case TokenKind::KwUse:
    case TokenKind::KwModule:
    case TokenKind::KwExtern:
    case TokenKind::KwParam:
    case TokenKind::KwBuffer:
    case TokenKind::KwState:
    case TokenKind::KwSub:
      return true;
    default:
      return false;
  }
}

bool Parser::isStatementStart() const {
  switch (kind()) {
    case TokenKind::KwLet:
    case TokenKind::KwVar:
    case TokenKind::KwReturn:
    case TokenKind::KwStatic:
    case TokenKind::KwWhile:
    case TokenKind::KwFor:
    case TokenKind::KwYield:
      return true;
    case TokenKind::Identifier:
    case TokenKind::KwSelf:
    case TokenKind::KwSuper:
      return peekKind(1) == TokenKind::Equal;
    default:
      return false;
  }
}

bool Parser::atItemStart() const {
  if (!isItemKeyword(kind())) return false;
  // `state`, `param`, `type`, ... are also a plausible mistaken variable
  // name; they start an item only when a name or keyword follows.
  TokenKind next = peekKind(1);
  return next == TokenKind::Identifier || isKeyword(next);
}

bool Parser::atStrongStop() const {
  switch (kind()) {
    case TokenKind::KwLet:
    case TokenKind::KwVar:
    case TokenKind::KwReturn:
    case TokenKind::KwStatic:
    case TokenKind::KwWhile:
    case TokenKind::KwYield:
      return true;
    case TokenKind::LBrace:
      return braceStops_;
    default:
      return atItemStart();
  }
}

void Parser::skipGroup() {
  int depth = 0;
  do {
    TokenKind k = kind();
    if (k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace) ++depth;
    if (k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace) --depth;
    advance();
  } while (depth > 0 && !at(TokenKind::EndOfFile));
}

bool Parser::skipToClosing(TokenKind closer) {
  int depth = 0;
  while (!at(TokenKind::EndOfFile)) {
    TokenKind k = kind();
    bool opener = k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace;
    bool closing = k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace;
    if (depth == 0) {
      if (k == closer) {
        advance();
        return true;
      }
      if (closing || atStrongStop()) return false;
    }
    if (opener) ++depth;
    if (closing) --depth;
    advance();
  }
  return false;
}

void Parser::skipToStatement() {
  int depth = 0;
  while (!at(TokenKind::EndOfFile)) {
    TokenKind k = kind();
    if (depth == 0) {
      if (k == TokenKind::RBrace || atItemStart() || isStatementStart()) return;
      if (k == TokenKind::RParen || k == TokenKind::RBracket) {
        advance();  // a stray closer of the failed statement
        continue;
      }
    }
    if (k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace) ++depth;
    if (k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace) --depth;
    advance();
  }
}

void Parser::skipToItem(bool inBlock) {
  int depth = 0;
  while (!at(TokenKind::EndOfFile)) {
    TokenKind k = kind();
    if (depth == 0) {
      if (atItemStart()) return;
      if (k == TokenKind::RBrace && inBlock) return;
      if (k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace) {
        advance();
        continue;
      }
    }
    if (k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace) ++depth;
    if (k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace) --depth;
    advance();
  }
}

}  // namespace parser
}  // namespace linnet
