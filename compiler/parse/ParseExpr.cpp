// Expressions, loosest first: `if`/`match` (expression level only), then
// binary operators by precedence climbing (`||` `&&` `== !=` `< <= > >=`
// `|` `^` `&` `+ -` `* / %`, all left-associative), one prefix operator,
// postfix calls/indexing/members, and primaries (literals, names,
// reductions, tuples, shape literals, `some(...)`, `none`, `for` scans).
//
// Operator chains and postfix chains are loops, not recursion, but each link
// counts against the nesting limit so the tree stays shallow enough for
// every later stage to walk recursively.
//
// `name<` starts generic arguments only when the matching `>` is followed by
// `(`. The match is found by a token scan that fails on tokens a generic
// argument list cannot hold outside brackets (`&&`, `==`, `{`, `;`, ...),
// so `a < b && c > (d)` stays a comparison. Scan results are memoized per
// `<`, which keeps the whole scan linear.
#include <fmt/format.h>

#include "compiler/lex/Lexer.h"
#include "compiler/parse/ParserImpl.h"

namespace linnet::parser {

namespace {

std::optional<ast::BinaryOp> binaryOpFor(TokenKind kind) {
  switch (kind) {
    case TokenKind::PipePipe: return ast::BinaryOp::Or;
    case TokenKind::AmpAmp: return ast::BinaryOp::And;
    case TokenKind::EqualEqual: return ast::BinaryOp::Eq;
    case TokenKind::BangEqual: return ast::BinaryOp::Ne;
    case TokenKind::Less: return ast::BinaryOp::Lt;
    case TokenKind::LessEqual: return ast::BinaryOp::Le;
    case TokenKind::Greater: return ast::BinaryOp::Gt;
    case TokenKind::GreaterEqual: return ast::BinaryOp::Ge;
    case TokenKind::Pipe: return ast::BinaryOp::BitOr;
    case TokenKind::Caret: return ast::BinaryOp::BitXor;
    case TokenKind::Amp: return ast::BinaryOp::BitAnd;
    case TokenKind::Plus: return ast::BinaryOp::Add;
    case TokenKind::Minus: return ast::BinaryOp::Sub;
    case TokenKind::Star: return ast::BinaryOp::Mul;
    case TokenKind::Slash: return ast::BinaryOp::Div;
    case TokenKind::Percent: return ast::BinaryOp::Rem;
    default: return std::nullopt;
  }
}

std::optional<ast::ReductionKind> reductionFor(std::string_view name) {
  using ast::ReductionKind;
  for (ReductionKind kind : {ReductionKind::Sum, ReductionKind::Prod, ReductionKind::Max,
                             ReductionKind::Min, ReductionKind::Any, ReductionKind::All})
    if (ast::reductionKindName(kind) == name) return kind;
  return std::nullopt;
}

// Tokens a generic argument list may hold outside any bracket.
bool allowedInGenericArgs(TokenKind kind) {
  switch (kind) {
    case TokenKind::Identifier:
    case TokenKind::IntegerLiteral:
    case TokenKind::FloatLiteral:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNone:
    case TokenKind::KwSome:
    case TokenKind::KwSelf:
    case TokenKind::KwSuper:
    case TokenKind::Comma:
    case TokenKind::Plus:
    case TokenKind::Minus:
    case TokenKind::Star:
    case TokenKind::Slash:
    case TokenKind::Percent:
    case TokenKind::Dot:
    case TokenKind::Question:
    case TokenKind::Bang:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool Parser::canStartExpression() const {
  switch (kind()) {
    case TokenKind::IntegerLiteral:
    case TokenKind::FloatLiteral:
    case TokenKind::StringLiteral:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNone:
    case TokenKind::KwSome:
    case TokenKind::Identifier:
    case TokenKind::KwSelf:
    case TokenKind::KwSuper:
    case TokenKind::LParen:
    case TokenKind::LBracket:
    case TokenKind::Minus:
    case TokenKind::Plus:
    case TokenKind::Bang:
    case TokenKind::KwIf:
    case TokenKind::KwMatch:
    case TokenKind::KwFor:
      return true;
    default:
      return false;
  }
}

ast::Expr* Parser::parseExpr() {
  Nest nest(*this);
  if (!nest) {
    tooDeep();
    return nullptr;
  }
  switch (kind()) {
    case TokenKind::KwIf: return parseIf();
    case TokenKind::KwMatch: return parseMatch();
    default: return parseBinary(1);
  }
}

ast::Expr* Parser::parseBinary(int minPrecedence) {
  ast::Expr* lhs = parseUnary();
  if (!lhs) return nullptr;
  int links = 0;
  while (true) {
    std::optional<ast::BinaryOp> op = binaryOpFor(kind());
    if (!op || binaryOpPrecedence(*op) < minPrecedence) break;
    ++links;
    if (++depth_ > kMaxNesting) {
      tooDeep("each operator of a chain (`a + b + c ...`) nests the ones before it: sum parts with `let` "
              "bindings, or reduce a tensor with `sum`");
      lhs = nullptr;
      break;
    }
    const Token& opToken = advance();
    ast::Expr* rhs = parseBinary(binaryOpPrecedence(*op) + 1);
    if (!rhs) {
      lhs = nullptr;
      break;
    }
    auto* binary = make<ast::BinaryExpr>();
    binary->op = *op;
    binary->opSpan = opToken.span;
    binary->lhs = lhs;
    binary->rhs = rhs;
    binary->span = lhs->span.to(rhs->span);
    lhs = binary;
  }
  depth_ -= links;
  return lhs;
}

ast::Expr* Parser::parseUnary() {
  std::optional<ast::UnaryOp> op;
  switch (kind()) {
    case TokenKind::Bang: op = ast::UnaryOp::Not; break;
    case TokenKind::Minus: op = ast::UnaryOp::Negate; break;
    case TokenKind::Plus: op = ast::UnaryOp::Plus; break;
    default: return parsePostfix();
  }
  const Token& opToken = advance();
  if (at(TokenKind::Bang) || at(TokenKind::Minus) || at(TokenKind::Plus)) {
    if (auto d = expected("expression"))
      d->help("only one prefix operator is allowed; add parentheses, as in `-(-x)`");
    return nullptr;
  }
  ast::Expr* operand = parsePostfix();
  if (!operand) return nullptr;
  auto* unary = make<ast::UnaryExpr>();
  unary->op = *op;
  unary->operand = operand;
  unary->span = spanFrom(opToken);
  return unary;
}

ast::Expr* Parser::parsePostfix() {
  ast::Expr* expr = parsePrimary();
  if (!expr) return nullptr;
  int links = 0;
  while (expr) {
    bool call = at(TokenKind::LParen);
    bool index = at(TokenKind::LBracket);
    bool member = at(TokenKind::Dot);
    bool genericCall = at(TokenKind::Less) &&
                       (ast::isa<ast::NameExpr>(expr) || ast::isa<ast::MemberExpr>(expr)) &&
                       isGenericCallAhead();
    if (!call && !index && !member && !genericCall) break;
    ++links;
    if (++depth_ > kMaxNesting) {
      tooDeep();
      expr = nullptr;
      break;
    }
    uint32_t begin = expr->span.begin;
    if (call || genericCall) {
      auto* node = make<ast::CallExpr>();
      node->callee = expr;
      if (genericCall) {
        node->hasGenericArgs = true;
        if (!parseGenericArgs(node->genericArgs) || !at(TokenKind::LParen)) {
          if (!at(TokenKind::LParen)) expected("`(`");
          expr = nullptr;
          break;
        }
      }
      if (!parseCallArgs(node->args)) {
        expr = nullptr;
        break;
      }
      node->span = spanFrom(begin);
      expr = node;
    } else if (index) {
      auto* node = make<ast::IndexExpr>();
      node->base = expr;
      const Token& open = advance();
      if (at(TokenKind::RBracket)) {
        expected("index", open.span, "in this index");
        advance();
        expr = nullptr;
        break;
      }
      ListEnd end = parseList(TokenKind::RBracket, open, [&] {
        ast::IndexComponent component;
        if (!parseIndexComponent(component)) return false;
        node->components.push_back(std::move(component));
        return true;
      });
      if (end == ListEnd::Aborted) {
        expr = nullptr;
        break;
      }
      node->span = spanFrom(begin);
      expr = node;
    } else {
      advance();  // `.`
      auto* node = make<ast::MemberExpr>();
      node->base = expr;
      std::optional<ast::Ident> name = parseIdent("member name");
      if (!name) {
        expr = nullptr;
        break;
      }
      node->member = std::move(*name);
      node->span = spanFrom(begin);
      expr = node;
    }
  }
  depth_ -= links;
  return expr;
}

bool Parser::parseCallArgs(std::vector<ast::Argument>& out) {
  const Token& open = advance();  // `(`
  ListEnd end = parseList(TokenKind::RParen, open, [&] {
    const Token& first = tok();
    ast::Argument argument;
    if (first.kind == TokenKind::Identifier && peekKind(1) == TokenKind::Equal) {
      argument.name = {std::string(spelling(first)), first.span};
      advance();
      advance();
    }
    argument.value = parseExpr();
    if (!argument.value) return false;
    argument.span = spanFrom(first);
    out.push_back(std::move(argument));
    return true;
  });
  return end == ListEnd::Closed;
}

bool Parser::parseIndexComponent(ast::IndexComponent& out) {
  const Token& first = tok();
  if (consume(TokenKind::Ellipsis)) {
    out.kind = ast::IndexComponentKind::Ellipsis;
    out.span = first.span;
    return true;
  }
  if (at(TokenKind::Star)) {
    advance();
    std::optional<ast::Ident> pack = parseIdent("pack index name");
    if (!pack) return false;
    out.kind = ast::IndexComponentKind::Pack;
    out.pack = std::move(*pack);
    out.span = spanFrom(first);
    return true;
  }
  auto atSliceEnd = [&] {
    return at(TokenKind::Comma) || at(TokenKind::RBracket) || at(TokenKind::Colon) ||
           at(TokenKind::ColonColon);
  };
  ast::Expr* start = nullptr;
  if (!at(TokenKind::Colon) && !at(TokenKind::ColonColon)) {
    start = parseExpr();
    if (!start) return false;
    if (!at(TokenKind::Colon) && !at(TokenKind::ColonColon)) {
      out.kind = ast::IndexComponentKind::Expr;
      out.value = start;
      out.span = start->span;
      return true;
    }
  }
  // A slice `[start]:[stop][:[step]]`; `::` is the two colons of an empty stop.
  out.kind = ast::IndexComponentKind::Slice;
  out.start = start;
  if (consume(TokenKind::ColonColon)) {
    out.hasStep = true;
  } else {
    advance();  // `:`
    if (!atSliceEnd()) {
      out.stop = parseExpr();
      if (!out.stop) return false;
    }
    if (consume(TokenKind::Colon)) out.hasStep = true;
  }
  if (out.hasStep && !atSliceEnd()) {
    out.step = parseExpr();
    if (!out.step) return false;
  }
  out.span = spanFrom(first);
  return true;
}

bool Parser::isReductionStart() const {
  if (!at(TokenKind::Identifier) || !reductionFor(spelling(tok()))) return false;
  if (peekKind(1) == TokenKind::LBracket) return true;
  return peekKind(1) == TokenKind::Less && peekKind(2) == TokenKind::Identifier &&
         ast::scalarTypeFromName(spelling(peekTok(2))) && peekKind(3) == TokenKind::Greater &&
         peekKind(4) == TokenKind::LBracket;
}

int32_t Parser::matchAngle(size_t open) {
  if (angleMatch_[open] != -2) return angleMatch_[open];
  struct Frame {
    size_t open;
    int brackets;
  };
  std::vector<Frame> frames{{open, 0}};
  auto fail = [&] {
    for (const Frame& frame : frames) angleMatch_[frame.open] = -1;
    return int32_t(-1);
  };
  for (size_t i = open + 1; i < tokens_.size(); ++i) {
    Frame& frame = frames.back();
    TokenKind k = tokens_[i].kind;
    switch (k) {
      case TokenKind::EndOfFile:
      case TokenKind::LBrace:
      case TokenKind::RBrace:
      case TokenKind::Error:
        return fail();
      case TokenKind::LParen:
      case TokenKind::LBracket:
        ++frame.brackets;
        break;
      case TokenKind::RParen:
      case TokenKind::RBracket:
        if (frame.brackets == 0) return fail();
        --frame.brackets;
        break;
      case TokenKind::Less:
        if (frame.brackets > 0) break;
        if (angleMatch_[i] == -1) return fail();
        if (angleMatch_[i] >= 0) {
          i = size_t(angleMatch_[i]);  // skip the nested list already matched
          break;
        }
        frames.push_back({i, 0});
        break;
      case TokenKind::Greater:
        if (frame.brackets > 0) break;
        angleMatch_[frame.open] = int32_t(i);
        frames.pop_back();
        if (frames.empty()) return int32_t(i);
        break;
      default:
        if (frame.brackets == 0 && !allowedInGenericArgs(k)) return fail();
        // Inside brackets anything goes, but not a statement or item: that
        // means the list was never closed.
        if (frame.brackets > 0 && (isItemKeyword(k) || k == TokenKind::KwLet ||
                                   k == TokenKind::KwReturn || k == TokenKind::KwVar))
          return fail();
        break;
    }
  }
  return fail();
}

bool Parser::isGenericCallAhead() {
  int32_t close = matchAngle(pos_);
  return close >= 0 && size_t(close) + 1 < tokens_.size() &&
         tokens_[size_t(close) + 1].kind == TokenKind::LParen;
}

ast::Expr* Parser::parsePrimary() {
  const Token& first = tok();
  switch (first.kind) {
    case TokenKind::IntegerLiteral:
    case TokenKind::FloatLiteral:
    case TokenKind::StringLiteral:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNone:
      return parseLiteral();
    case TokenKind::KwSome: {
      advance();
      const Token& open = tok();
      if (!expect(TokenKind::LParen)) return nullptr;
      auto* some = make<ast::SomeExpr>();
      some->value = parseExpr();
      if (!some->value || !expect(TokenKind::RParen, open.span, "to close this `(`")) {
        skipToClosing(TokenKind::RParen);
        return nullptr;
      }
      some->span = spanFrom(first);
      return some;
    }
    case TokenKind::Identifier:
    case TokenKind::KwSelf:
    case TokenKind::KwSuper: {
      if (isReductionStart()) return parseReduction();
      auto* name = make<ast::NameExpr>();
      name->name = *parseIdent("expression");
      name->span = first.span;
      return name;
    }
    case TokenKind::LParen: return parseParenOrTuple();
    case TokenKind::LBracket: return parseShapeLiteral();
    case TokenKind::KwFor: return parseForScan();
    case TokenKind::KwIf:
    case TokenKind::KwMatch:
      if (auto d = expected("expression"))
        d->help(fmt::format("put the {} expression in parentheses to use it as an operand",
                            quoted(first.kind)));
      return nullptr;
    default:
      expected("expression");
      return nullptr;
  }
}

ast::Expr* Parser::parseLiteral() {
  const Token& token = advance();
  std::string_view text = spelling(token);
  switch (token.kind) {
    case TokenKind::IntegerLiteral: {
      auto* literal = make<ast::IntLiteralExpr>();
      // A malformed literal was reported by the lexer; 0 avoids a cascade.
      literal->value = decodeIntegerLiteral(text).value_or(0);
      literal->spelling = std::string(text);
      literal->span = token.span;
      return literal;
    }
    case TokenKind::FloatLiteral: {
      auto* literal = make<ast::FloatLiteralExpr>();
      literal->value = decodeFloatLiteral(text).value_or(0.0);
      literal->spelling = std::string(text);
      literal->span = token.span;
      return literal;
    }
    case TokenKind::StringLiteral: {
      auto* literal = make<ast::StringLiteralExpr>();
      literal->value = decodeStringLiteral(text);
      literal->spelling = std::string(text);
      literal->span = token.span;
      return literal;
    }
    case TokenKind::KwNone: {
      auto* literal = make<ast::NoneLiteralExpr>();
      literal->span = token.span;
      return literal;
    }
    default: {
      auto* literal = make<ast::BoolLiteralExpr>();
      literal->value = token.kind == TokenKind::KwTrue;
      literal->span = token.span;
      return literal;
    }
  }
}

ast::Expr* Parser::parseParenOrTuple() {
  const Token& open = advance();
  if (at(TokenKind::RParen)) {
    if (auto d = expected("expression", open.span, "in these parentheses"))
      d->help("there is no empty tuple; a tuple has at least one element, as in `(a,)`");
    advance();
    return nullptr;
  }
  ast::Expr* first = parseExpr();
  if (!first) {
    skipToClosing(TokenKind::RParen);
    return nullptr;
  }
  if (consume(TokenKind::RParen)) {
    auto* paren = make<ast::ParenExpr>();
    paren->inner = first;
    paren->span = spanFrom(open);
    return paren;
  }
  if (!consume(TokenKind::Comma)) {
    expected("`,` or `)`", open.span, "to close this `(`");
    skipToClosing(TokenKind::RParen);
    return nullptr;
  }
  auto* tuple = make<ast::TupleExpr>();
  tuple->elements.push_back(first);
  bool trailing = false;
  ListEnd end = parseList(
      TokenKind::RParen, open,
      [&] {
        ast::Expr* element = parseExpr();
        if (element) tuple->elements.push_back(element);
        return element != nullptr;
      },
      &trailing);
  if (end == ListEnd::Aborted) return nullptr;
  if (trailing && tuple->elements.size() >= 2) recordMultiline(first->span.begin);
  tuple->span = spanFrom(open);
  return tuple;
}

ast::Expr* Parser::parseShapeLiteral() {
  const Token& open = advance();
  auto* shape = make<ast::ShapeLiteralExpr>();
  ListEnd end = parseList(TokenKind::RBracket, open, [&] {
    ast::ShapeElement element;
    if (!parseShapeElement(element)) return false;
    shape->elements.push_back(std::move(element));
    return true;
  });
  if (end == ListEnd::Aborted) return nullptr;
  shape->span = spanFrom(open);
  return shape;
}

ast::Expr* Parser::parseReduction() {
  const Token& name = advance();
  auto* reduction = make<ast::ReductionExpr>();
  reduction->reduction = *reductionFor(spelling(name));
  reduction->keywordSpan = name.span;
  if (consume(TokenKind::Less)) {
    // isReductionStart() checked `<` scalar `>` `[`.
    reduction->accumulator = ast::scalarTypeFromName(spelling(advance()));
    advance();
  }
  const Token& open = advance();  // `[`
  if (at(TokenKind::RBracket)) {
    expected("reduction index", open.span, "in this list");
    advance();
    return nullptr;
  }
  ListEnd end = parseList(TokenKind::RBracket, open, [&] {
    std::optional<ast::Ident> index = parseIdent("reduction index");
    if (index) reduction->indices.push_back(std::move(*index));
    return index.has_value();
  });
  if (end == ListEnd::Aborted) return nullptr;
  // The reduced expression extends as far right as it can.
  reduction->body = parseExpr();
  if (!reduction->body) return nullptr;
  reduction->span = spanFrom(name);
  return reduction;
}

ast::Expr* Parser::parseIf() {
  const Token& keyword = advance();
  auto* node = make<ast::IfExpr>();
  node->condition = parseExpr();
  if (!node->condition) return nullptr;
  auto branch = [&](ast::Expr*& out) {
    const Token& open = tok();
    if (!expect(TokenKind::LBrace)) return false;
    out = parseExpr();
    if (out && expect(TokenKind::RBrace, open.span, "to close this `{`")) return true;
    skipToClosing(TokenKind::RBrace);
    return false;
  };
  if (!branch(node->thenValue)) return nullptr;
  if (!consume(TokenKind::KwElse)) {
    if (auto d = expected("`else`"))
      d->help("`if` is an expression: both branches are required, `if c { a } else { b }`");
    return nullptr;
  }
  if (!branch(node->elseValue)) return nullptr;
  node->span = spanFrom(keyword);
  return node;
}

ast::Expr* Parser::parseMatch() {
  const Token& keyword = advance();
  auto* node = make<ast::MatchExpr>();
  node->scrutinee = parseExpr();
  if (!node->scrutinee) return nullptr;
  const Token& open = tok();
  if (!expect(TokenKind::LBrace)) return nullptr;
  if (at(TokenKind::RBrace)) {
    expected("match arm", open.span, "in this `match`");
    advance();
    return nullptr;
  }
  auto failArm = [&] {
    skipToClosing(TokenKind::RBrace);
    return nullptr;
  };
  while (!consume(TokenKind::RBrace)) {
    if (at(TokenKind::EndOfFile) || atStrongStop()) {
      expected("`}`", open.span, "to close this `{`");
      return nullptr;
    }
    const Token& first = tok();
    ast::MatchArm arm;
    switch (first.kind) {
      case TokenKind::Identifier:
      case TokenKind::KwNone:
      case TokenKind::KwSome:
        arm.pattern = parsePattern();
        break;
      case TokenKind::LParen:
        if (auto d = expected("match arm pattern")) {
          d->note("arms have no separator, so a `(` would continue the previous arm's value");
          d->help("an arm pattern is a name, `some(pattern)` or `none`; match a tuple inside "
                  "`some((a, b))`");
        }
        break;
      default:
        if (auto d = expected("match arm pattern"); d && first.kind == TokenKind::Comma)
          d->help("match arms have no separator; remove the `,`");
        break;
    }
    if (!arm.pattern) return failArm();
    if (!expect(TokenKind::FatArrow)) return failArm();
    arm.value = parseExpr();
    if (!arm.value) return failArm();
    arm.span = spanFrom(first);
    node->arms.push_back(arm);
  }
  node->span = spanFrom(keyword);
  return node;
}

ast::Expr* Parser::parseForScan() {
  const Token& keyword = advance();
  auto* scan = make<ast::ForScanExpr>();
  if (!parseRange(scan->variable, scan->start, scan->end, keyword)) return nullptr;
  if (!parseBody(scan->body)) return nullptr;
  scan->span = spanFrom(keyword);
  return scan;
}

}  // namespace linnet::parser
