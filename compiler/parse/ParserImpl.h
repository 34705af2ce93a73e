// The parser's private class, shared by Parser.cpp (tokens, diagnostics,
// recovery, module header), ParseItem.cpp, ParseStmt.cpp, ParseExpr.cpp and
// ParseType.cpp. Not part of the interface: use `parse()` from Parser.h.
//
// Conventions every parse function follows:
//  - it returns the node, or nullptr / false after an error;
//  - an error is reported once, where it is found; a caller that gets a
//    failure from a sub-parse returns failure without reporting again, and
//    the nearest recovery point (a delimited list, a statement, an item)
//    skips to a boundary and goes on;
//  - nesting (expressions, types, patterns, bodies, postfix and operator
//    chains) is counted against kMaxNesting, so no input can overflow the
//    stack here or in later stages that walk the tree recursively.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/lex/Token.h"
#include "compiler/parse/AST.h"

namespace linnet::parser {

// Deepest nesting accepted; the tree is at most a small multiple deeper.
inline constexpr int kMaxNesting = 256;

// Restores a flag on scope exit.
class FlagScope {
 public:
  FlagScope(bool& flag, bool value) : flag_(flag), saved_(flag) { flag_ = value; }
  ~FlagScope() { flag_ = saved_; }
  FlagScope(const FlagScope&) = delete;
  FlagScope& operator=(const FlagScope&) = delete;

 private:
  bool& flag_;
  bool saved_;
};

class Parser {
 public:
  Parser(const SourceManager& sources, const TokenizedBuffer& tokens,
         DiagnosticEmitter& diagnostics);
  std::unique_ptr<ast::SourceModule> run();

  // ---- token cursor (Parser.cpp) ------------------------------------------
  const Token& tok() const { return tokens_[pos_]; }
  const Token& peekTok(size_t ahead) const;
  TokenKind kind() const { return tok().kind; }
  TokenKind peekKind(size_t ahead) const { return peekTok(ahead).kind; }
  bool at(TokenKind k) const { return kind() == k; }
  bool atIdent(std::string_view name) const;
  bool peekIdent(size_t ahead, std::string_view name) const;
  std::string_view spelling(const Token& token) const;
  const Token& advance();
  bool consume(TokenKind k);
  // From `begin` to the end of the last consumed token.
  Span spanFrom(uint32_t begin) const;
  Span spanFrom(const Token& first) const { return spanFrom(first.span.begin); }
  uint32_t lastEnd() const;

  // ---- diagnostics (Parser.cpp) -------------------------------------------
  // Reports "expected `what`, found <current token>" unless suppressed
  // (speculating, an invalid token the lexer reported, or a second error at
  // the same token). `open` marks the delimiter being closed.
  std::optional<DiagnosticBuilder> expected(std::string_view what, Span open = {},
                                            std::string_view openLabel = {});
  // Consumes `k` or reports that it was expected.
  bool expect(TokenKind k, Span open = {}, std::string_view openLabel = {});
  void unsupported(Span where, std::string_view what, std::string_view help);
  std::string describe(const Token& token) const;
  static std::string quoted(TokenKind k);
  void recordMultiline(uint32_t firstElement);

  // ---- nesting ------------------------------------------------------------
  class Nest {
   public:
    explicit Nest(Parser& parser) : parser_(parser) { ok_ = ++parser_.depth_ <= kMaxNesting; }
    ~Nest() { --parser_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    // False when too deep; the caller then calls tooDeep() and fails.
    explicit operator bool() const { return ok_; }

   private:
    Parser& parser_;
    bool ok_;
  };
  // `help` says how to undo the nesting found (a chain of operators nests
  // each one in the next).
  void tooDeep(const char* help = "split the expression with `let` bindings");

  // ---- recovery (Parser.cpp) ----------------------------------------------
  bool isItemKeyword(TokenKind k) const;
  bool isStatementStart() const;
  // An item keyword in a position where it starts an item.
  bool atItemStart() const;
  // A token that ends a runaway skip inside a delimited construct.
  bool atStrongStop() const;
  // At an opener: skips to after its matching closer (or to end of file).
  void skipGroup();
  // Skips to `closer` at depth 0 and consumes it; stops before a strong
  // token (returning false) when the closer is missing.
  bool skipToClosing(TokenKind closer);
  void skipToStatement();
  void skipToItem(bool inBlock);
  enum class ListEnd { Closed, Aborted };
  // Parses `elem (, elem)* ,? close` after the opener; element errors skip
  // to the next `,` or the closer. A trailing comma is recorded for the
  // formatter (one element per line).
  template <typename Element>
  ListEnd parseList(TokenKind close, const Token& open, Element element,
                    bool* trailingComma = nullptr);

  // ---- module and items (ParseItem.cpp) -----------------------------------
  void parseModuleHeader(ast::SourceModule& module);
  ast::UseDecl* parseUse();
  std::optional<ast::Ident> parseIdent(std::string_view what);
  ast::Item* parseItem(bool inBlock);
  ast::Item* parseConst();
  ast::Item* parseTypeAlias();
  ast::Item* parseStruct();
  ast::Item* parseEnum();
  ast::Item* parseFunction();
  ast::Item* parseBlock();
  ast::Item* parseMember();
  bool parseGenericParams(std::vector<ast::GenericParam>& out);
  bool parseParams(std::vector<ast::Param>& out, const Token& open);
  bool parseWhere(std::vector<ast::Constraint>& out);
  bool parseKernelResults(ast::FunctionItem& function);
  bool parseGrad(ast::FunctionItem& function);
  std::vector<Span> docCommentsAt(size_t tokenIndex) const;
  void parseItemsUntil(std::vector<ast::Item*>& out, bool inBlock, const Token* open);

  // ---- statements and patterns (ParseStmt.cpp) ----------------------------
  // At `{`: the statements up to the matching `}`.
  bool parseBody(std::vector<ast::Stmt*>& out, Span* bodySpan = nullptr);
  ast::Stmt* parseStatement();
  ast::Stmt* parseLet();
  ast::Stmt* parseVar();
  ast::Stmt* parseReturn();
  ast::Stmt* parseStaticFor();
  ast::Stmt* parseWhile();
  ast::Stmt* parseFor();
  ast::Stmt* parseAssign();
  ast::Stmt* parseKernelCall();
  ast::Pattern* parsePattern();
  bool parseRange(ast::Ident& variable, ast::Expr*& start, ast::Expr*& end, const Token& forTok);

  // ---- expressions (ParseExpr.cpp) ----------------------------------------
  ast::Expr* parseExpr();
  ast::Expr* parseBinary(int minPrecedence);
  ast::Expr* parseUnary();
  ast::Expr* parsePostfix();
  ast::Expr* parsePrimary();
  ast::Expr* parseParenOrTuple();
  ast::Expr* parseShapeLiteral();
  ast::Expr* parseReduction();
  ast::Expr* parseIf();
  ast::Expr* parseMatch();
  ast::Expr* parseForScan();
  ast::Expr* parseLiteral();
  bool parseCallArgs(std::vector<ast::Argument>& out);
  bool parseIndexComponent(ast::IndexComponent& out);
  bool canStartExpression() const;
  bool isReductionStart() const;
  // `name<`: true when the `<` opens generic arguments of a call.
  bool isGenericCallAhead();
  int32_t matchAngle(size_t open);

  // ---- types and generic arguments (ParseType.cpp) ------------------------
  ast::TypeNode* parseType();
  ast::TypeNode* parseTypePrimary();
  ast::TypeNode* parseTensorType();
  ast::TypeNode* parseNamedType(bool allowGenerics = true);
  bool parseShapeElement(ast::ShapeElement& out);
  bool parseGenericArgs(std::vector<ast::GenericArg>& out);
  std::optional<ast::GenericArg> parseTypeOrExpr();

  template <typename T, typename... Args>
  T* make(Args&&... args) {
    return module_->arena->make<T>(std::forward<Args>(args)...);
  }

  const SourceManager& sources_;
  const TokenizedBuffer& buffer_;
  const std::vector<Token>& tokens_;
  DiagnosticEmitter& diagnostics_;
  std::string_view text_;
  ast::SourceModule* module_ = nullptr;
  size_t pos_ = 0;

  int depth_ = 0;
  bool reportedTooDeep_ = false;
  // Times the limit was hit, speculating or not: a speculative parse that
  // failed for depth must report it rather than try the other reading.
  uint64_t depthFailures_ = 0;
  // After "nesting is too deep" the enclosing statement or item is lost;
  // nothing more is reported until the next one starts.
  bool quiet_ = false;
  size_t lastErrorPos_ = size_t(-1);
  // Every failure, reported or not; a memoized result is reusable only when
  // no failure happened while it was parsed.
  uint64_t failures_ = 0;
  int speculating_ = 0;
  // Set while parsing an item header: a `{` there most likely opens the
  // body, so recovery skips stop at it.
  bool braceStops_ = false;

  // matchAngle results per `<` token: -2 unknown, -1 no match, else the `>`.
  std::vector<int32_t> angleMatch_;
  // Positions where a generic argument did not parse as a type.
  std::vector<bool> notAType_;
  struct MemoArg {
    ast::GenericArg arg;
    size_t end;
  };
  std::unordered_map<size_t, MemoArg> argMemo_;
};

// ---- template definitions --------------------------------------------------

template <typename Element>
Parser::ListEnd Parser::parseList(TokenKind close, const Token& open, Element element,
                                  bool* trailingComma) {
  std::string closeText = quoted(close);
  std::string openLabel = "to close this " + quoted(open.kind);
  if (consume(close)) return ListEnd::Closed;
  uint32_t firstBegin = tok().span.begin;
  while (true) {
    if (!element()) {
      // Skip the rest of the element: to the next `,` or the closer.
      int depth = 0;
      while (!at(TokenKind::EndOfFile)) {
        TokenKind k = kind();
        if (depth == 0 && (k == TokenKind::Comma || k == close)) break;
        if (depth == 0 && atStrongStop()) break;
        if (k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace) ++depth;
        if (k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace) {
          if (depth == 0) break;
          --depth;
        }
        advance();
      }
      if (!at(TokenKind::Comma) && !at(close)) return ListEnd::Aborted;
    }
    if (consume(TokenKind::Comma)) {
      if (consume(close)) {
        // Callers that ask (tuples) decide themselves whether the comma
        // makes the list multi-line: `(a,)` is a one-element tuple.
        if (trailingComma) {
          *trailingComma = true;
        } else {
          recordMultiline(firstBegin);
        }
        return ListEnd::Closed;
      }
      continue;
    }
    if (consume(close)) return ListEnd::Closed;
    expected("`,` or " + closeText, open.span, openLabel);
    return skipToClosing(close) ? ListEnd::Closed : ListEnd::Aborted;
  }
}

}  // namespace linnet::parser
