// Statements and patterns. Statements need no separators because each one
// starts with a keyword or `name =` and there are no expression statements;
// so after an error the parser skips to the next such start (or the `}`)
// and reports the next independent mistake.
//
// Decisions where the spec is silent (docs/syntax.md): `store(...)` and the
// `atomic_*` statements are parsed in any body and the checker rejects them
// outside a kernel; `yield` is parsed anywhere and checked later; `for x in
// xs` (reserved future syntax) is E1103.
#include <fmt/format.h>

#include "compiler/parse/ParserImpl.h"

namespace linnet::parser {

namespace {
bool isKernelStatementName(std::string_view name) {
  return name == "store" || name == "atomic_add" || name == "atomic_max" || name == "atomic_min";
}

}  // namespace

bool Parser::parseBody(std::vector<ast::Stmt*>& out, Span* bodySpan) {
  Nest nest(*this);
  if (!nest) {
    tooDeep();
    return false;
  }
  FlagScope body(braceStops_, false);
  const Token& open = advance();  // `{`
  while (!consume(TokenKind::RBrace)) {
    // A missing `}`: the body ends where the next item starts.
    if (at(TokenKind::EndOfFile) || atItemStart()) {
      expected("`}`", open.span, "to close this `{`");
      break;
    }
    size_t before = pos_;
    if (ast::Stmt* stmt = parseStatement()) {
      out.push_back(stmt);
    } else {
      skipToStatement();
    }
    if (pos_ == before) advance();
  }
  if (bodySpan) *bodySpan = spanFrom(open);
  return true;
}

ast::Stmt* Parser::parseStatement() {
  quiet_ = false;
  const Token& first = tok();
  ast::Stmt* stmt = nullptr;
  switch (first.kind) {
    case TokenKind::KwLet: stmt = parseLet(); break;
    case TokenKind::KwVar: stmt = parseVar(); break;
    case TokenKind::KwReturn: stmt = parseReturn(); break;
    case TokenKind::KwStatic: stmt = parseStaticFor(); break;
    case TokenKind::KwWhile: stmt = parseWhile(); break;
    case TokenKind::KwFor: stmt = parseFor(); break;
    case TokenKind::KwYield: {
      advance();
      auto* yield = make<ast::YieldStmt>();
      yield->value = parseExpr();
      stmt = yield->value ? yield : nullptr;
      break;
    }
    case TokenKind::Identifier:
    case TokenKind::KwSelf:
    case TokenKind::KwSuper:
      if (peekKind(1) == TokenKind::Equal) {
        stmt = parseAssign();
      } else if (first.kind == TokenKind::Identifier && isKernelStatementName(spelling(first)) &&
                 peekKind(1) == TokenKind::LParen) {
        stmt = parseKernelCall();
      } else if (auto d = expected("statement")) {
        d->help("Linnet has no expression statements: bind the value with `let` or `return` it");
      }
      break;
    default:
      if (canStartExpression()) {
        if (auto d = expected("statement"))
          d->help("Linnet has no expression statements: bind the value with `let` or `return` it");
      } else if (auto d = expected("statement or `}`"); d && first.kind == TokenKind::Semicolon) {
        d->help("statements end at the end of their expression; remove the `;`");
      }
      break;
  }
  if (stmt) stmt->span = spanFrom(first);
  return stmt;
}

ast::Stmt* Parser::parseLet() {
  advance();
  if (at(TokenKind::Identifier) && peekKind(1) == TokenKind::LBracket) {
    // Index notation: `let c[m, *s] = ...`.
    auto* let = make<ast::LetComprehensionStmt>();
    const Token& name = advance();
    let->name = {std::string(spelling(name)), name.span};
    const Token& open = advance();
    if (at(TokenKind::RBracket)) {
      expected("output index", open.span, "in this list");
      advance();
      return nullptr;
    }
    ListEnd end = parseList(TokenKind::RBracket, open, [&] {
      ast::IndexOutput output;
      output.isPack = consume(TokenKind::Star);
      std::optional<ast::Ident> index = parseIdent("index name");
      if (!index) return false;
      output.name = std::move(*index);
      let->outputs.push_back(std::move(output));
      return true;
    });
    if (end == ListEnd::Aborted) return nullptr;
    if (!expect(TokenKind::Equal)) return nullptr;
    let->value = parseExpr();
    return let->value ? let : nullptr;
  }
  auto* let = make<ast::LetStmt>();
  let->pattern = parsePattern();
  if (!let->pattern) return nullptr;
  if (consume(TokenKind::Colon)) {
    let->type = parseType();
    if (!let->type) return nullptr;
  }
  if (!expect(TokenKind::Equal)) return nullptr;
  let->value = parseExpr();
  return let->value ? let : nullptr;
}

ast::Stmt* Parser::parseVar() {
  advance();
  auto* var = make<ast::VarStmt>();
  std::optional<ast::Ident> name = parseIdent("variable name");
  if (!name) return nullptr;
  var->name = std::move(*name);
  if (consume(TokenKind::Colon)) {
    var->type = parseType();
    if (!var->type) return nullptr;
  }
  if (!expect(TokenKind::Equal)) return nullptr;
  var->value = parseExpr();
  return var->value ? var : nullptr;
}

ast::Stmt* Parser::parseReturn() {
  advance();
  auto* ret = make<ast::ReturnStmt>();
  if (canStartExpression()) {
    ret->value = parseExpr();
    if (!ret->value) return nullptr;
  }
  return ret;
}

ast::Stmt* Parser::parseAssign() {
  auto* assign = make<ast::AssignStmt>();
  std::optional<ast::Ident> target = parseIdent("assignment target");
  if (!target) return nullptr;
  assign->target = std::move(*target);
  advance();  // `=`
  assign->value = parseExpr();
  return assign->value ? assign : nullptr;
}

ast::Stmt* Parser::parseKernelCall() {
  const Token& name = advance();
  auto* callee = make<ast::NameExpr>();
  callee->name = {std::string(spelling(name)), name.span};
  callee->span = name.span;
  auto* call = make<ast::CallExpr>();
  call->callee = callee;
  if (!parseCallArgs(call->args)) return nullptr;
  call->span = spanFrom(name);
  auto* stmt = make<ast::KernelCallStmt>();
  stmt->call = call;
  return stmt;
}

ast::Stmt* Parser::parseStaticFor() {
  advance();
  if (!expect(TokenKind::KwFor)) return nullptr;
  auto* loop = make<ast::StaticForStmt>();
  loop->pattern = parsePattern();
  if (!loop->pattern) return nullptr;
  if (!expect(TokenKind::KwIn)) return nullptr;
  loop->iterable = parseExpr();
  if (!loop->iterable) return nullptr;
  if (consume(TokenKind::DotDot)) {
    loop->rangeEnd = parseExpr();
    if (!loop->rangeEnd) return nullptr;
  }
  if (!at(TokenKind::LBrace)) {
    expected(loop->rangeEnd ? "`{`" : "`..` or `{`");
    return nullptr;
  }
  return parseBody(loop->body) ? loop : nullptr;
}

ast::Stmt* Parser::parseWhile() {
  advance();
  auto* loop = make<ast::WhileStmt>();
  loop->condition = parseExpr();
  if (!loop->condition) return nullptr;
  if (!at(TokenKind::LBrace)) {
    expected("`{`");
    return nullptr;
  }
  return parseBody(loop->body) ? loop : nullptr;
}

bool Parser::parseRange(ast::Ident& variable, ast::Expr*& start, ast::Expr*& end,
                        const Token& forTok) {
  std::optional<ast::Ident> name = parseIdent("loop variable");
  if (!name) return false;
  variable = std::move(*name);
  if (!expect(TokenKind::KwIn)) return false;
  start = parseExpr();
  if (!start) return false;
  if (!consume(TokenKind::DotDot)) {
    if (!at(TokenKind::LBrace)) {
      expected("`..`");
      return false;
    }
    unsupported(spanFrom(forTok), "`for` over a collection",
                "a runtime `for` counts over a range, `for i in 0..N`; iterate sub-block "
                "arrays with `static for`");
    skipGroup();
    return false;
  }
  end = parseExpr();
  if (!end) return false;
  if (!at(TokenKind::LBrace)) {
    expected("`{`");
    return false;
  }
  return true;
}

ast::Stmt* Parser::parseFor() {
  const Token& forTok = advance();
  auto* loop = make<ast::ForStmt>();
  if (!parseRange(loop->variable, loop->start, loop->end, forTok)) return nullptr;
  return parseBody(loop->body) ? loop : nullptr;
}

ast::Pattern* Parser::parsePattern() {
  Nest nest(*this);
  if (!nest) {
    tooDeep();
    return nullptr;
  }
  const Token& first = tok();
  switch (first.kind) {
    case TokenKind::Identifier:
    case TokenKind::KwSelf:
    case TokenKind::KwSuper: {
      auto* pattern = make<ast::Pattern>(ast::PatternKind::Binding);
      std::optional<ast::Ident> name = parseIdent("pattern");
      pattern->name = std::move(*name);
      pattern->span = first.span;
      return pattern;
    }
    case TokenKind::KwNone: {
      advance();
      auto* pattern = make<ast::Pattern>(ast::PatternKind::None);
      pattern->span = first.span;
      return pattern;
    }
    case TokenKind::KwSome: {
      advance();
      const Token& open = tok();
      if (!expect(TokenKind::LParen)) return nullptr;
      auto* pattern = make<ast::Pattern>(ast::PatternKind::Some);
      pattern->inner = parsePattern();
      if (!pattern->inner) {
        skipToClosing(TokenKind::RParen);
        return nullptr;
      }
      if (!expect(TokenKind::RParen, open.span, "to close this `(`")) {
        skipToClosing(TokenKind::RParen);
        return nullptr;
      }
      pattern->span = spanFrom(first);
      return pattern;
    }
    case TokenKind::LParen: {
      const Token& open = advance();
      auto* pattern = make<ast::Pattern>(ast::PatternKind::Tuple);
      if (at(TokenKind::RParen)) {
        expected("pattern", open.span, "in this tuple");
        advance();
        return nullptr;
      }
      bool trailing = false;
      ListEnd end = parseList(
          TokenKind::RParen, open,
          [&] {
            ast::Pattern* element = parsePattern();
            if (element) pattern->elements.push_back(element);
            return element != nullptr;
          },
          &trailing);
      if (end == ListEnd::Aborted) return nullptr;
      if (trailing && pattern->elements.size() >= 2)
        recordMultiline(pattern->elements.front()->span.begin);
      pattern->span = spanFrom(first);
      return pattern;
    }
    default:
      if (isKeyword(first.kind)) {
        // A keyword as a name: parseIdent reports it (and takes it when a
        // name-like position follows).
        std::optional<ast::Ident> name = parseIdent("pattern");
        if (!name) return nullptr;
        auto* pattern = make<ast::Pattern>(ast::PatternKind::Binding);
        pattern->name = std::move(*name);
        pattern->span = first.span;
        return pattern;
      }
      expected("pattern");
      return nullptr;
  }
}

}  // namespace linnet::parser
