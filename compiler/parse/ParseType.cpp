// Types (`f32`, `Tensor[B, *S; T]`, `(A, B)`, `[Layer<H>; N]`, `a.b.Name<..>`,
// postfix `?`) and generic argument lists.
//
// A generic argument is a type when it parses as one and is followed by `,`
// or `>`; otherwise it is an additive expression (`3 * H`, `[Out]`). The type
// attempt is speculative (diagnostics off, cursor restored on failure). To
// keep nested arguments from being re-parsed exponentially often, failed type
// attempts and clean results are memoized by token position.
#include <fmt/format.h>

#include "compiler/parse/ParserImpl.h"

namespace linnet::parser {

ast::TypeNode* Parser::parseType() {
  Nest nest(*this);
  if (!nest) {
    tooDeep();
    return nullptr;
  }
  ast::TypeNode* type = parseTypePrimary();
  if (!type) return nullptr;
  if (at(TokenKind::Question)) {
    advance();
    auto* optional = make<ast::OptionalTypeNode>();
    optional->inner = type;
    optional->span = spanFrom(type->span.begin);
    return optional;
  }
  return type;
}

ast::TypeNode* Parser::parseTypePrimary() {
  const Token& first = tok();
  switch (first.kind) {
    case TokenKind::Identifier:
      if (atIdent("Tensor") && peekKind(1) == TokenKind::LBracket) return parseTensorType();
      return parseNamedType();
    case TokenKind::KwSelf:
    case TokenKind::KwSuper:
      return parseNamedType();
    case TokenKind::LParen: {
      const Token& open = advance();
      auto* tuple = make<ast::TupleTypeNode>();
      if (at(TokenKind::RParen)) {
        expected("type", open.span, "in this tuple type");
        advance();
        return nullptr;
      }
      ast::TypeNode* element = parseType();
      if (!element) {
        skipToClosing(TokenKind::RParen);
        return nullptr;
      }
      tuple->elements.push_back(element);
      if (!consume(TokenKind::Comma)) {
        if (auto d = expected("`,`", open.span, "in this tuple type"))
          d->help("a tuple type has two or more elements, `(A, B)`; a single type needs no "
                  "parentheses");
        skipToClosing(TokenKind::RParen);
        return nullptr;
      }
      bool trailing = false;
      ListEnd end = parseList(
          TokenKind::RParen, open,
          [&] {
            ast::TypeNode* next = parseType();
            if (next) tuple->elements.push_back(next);
            return next != nullptr;
          },
          &trailing);
      if (end == ListEnd::Aborted) return nullptr;
      if (trailing && tuple->elements.size() >= 2) recordMultiline(element->span.begin);
      tuple->span = spanFrom(open);
      return tuple;
    }
    case TokenKind::LBracket: {
      const Token& open = advance();
      auto* array = make<ast::ArrayTypeNode>();
      array->element = parseType();
      bool ok = array->element != nullptr;
      if (ok && !consume(TokenKind::Semicolon)) {
        if (auto d = expected("`;`", open.span, "in this array type"))
          d->help("a block array type is `[Block<...>; N]`");
        ok = false;
      }
      if (ok) array->count = parseExpr();
      ok = ok && array->count && expect(TokenKind::RBracket, open.span, "to close this `[`");
      if (!ok) {
        skipToClosing(TokenKind::RBracket);
        return nullptr;
      }
      array->span = spanFrom(open);
      return array;
    }
    default:
      expected("type");
      return nullptr;
  }
}

ast::TypeNode* Parser::parseTensorType() {
  const Token& name = advance();  // `Tensor`
  const Token& open = advance();  // `[`
  auto* tensor = make<ast::TensorTypeNode>();
  auto fail = [&]() -> ast::TypeNode* {
    skipToClosing(TokenKind::RBracket);
    return nullptr;
  };
  // The spec reserves zero-rank tensor syntax (section 3.2): a scalar is
  // written as its scalar type.
  if (at(TokenKind::Semicolon)) {
    unsupported(spanFrom(name), "zero-rank tensor syntax `Tensor[; T]`",
                fmt::format("the syntax is reserved; a scalar is written as its type: `{}`",
                            spelling(peekTok(1))));
  } else {
    do {
      ast::ShapeElement element;
      if (!parseShapeElement(element)) return fail();
      tensor->shape.push_back(std::move(element));
    } while (consume(TokenKind::Comma));
  }
  if (!consume(TokenKind::Semicolon)) {
    if (auto d = expected("`,` or `;`", open.span, "in this tensor type"))
      d->help("a tensor type lists its dimensions, then `;` and the element type: "
              "`Tensor[B, S; f32]`");
    return fail();
  }
  if (!at(TokenKind::Identifier) && !at(TokenKind::KwSelf) && !at(TokenKind::KwSuper)) {
    expected("element type");
    return fail();
  }
  tensor->dtype = parseNamedType();
  if (!tensor->dtype) return fail();
  if (!expect(TokenKind::RBracket, open.span, "to close this `[`")) return fail();
  tensor->span = spanFrom(name);
  return tensor;
}

ast::TypeNode* Parser::parseNamedType(bool allowGenerics) {
  const Token& first = tok();
  std::vector<ast::Ident> path;
  std::optional<ast::Ident> segment = parseIdent("type name");
  if (!segment) return nullptr;
  path.push_back(std::move(*segment));
  while (at(TokenKind::Dot)) {
    advance();
    std::optional<ast::Ident> next = parseIdent("type name");
    if (!next) return nullptr;
    path.push_back(std::move(*next));
  }
  if (path.size() == 1 && !at(TokenKind::Less)) {
    if (std::optional<ast::ScalarType> scalar = ast::scalarTypeFromName(path.front().name)) {
      auto* node = make<ast::ScalarTypeNode>();
      node->scalar = *scalar;
      node->span = first.span;
      return node;
    }
  }
  auto* named = make<ast::NamedTypeNode>();
  named->path = std::move(path);
  if (allowGenerics && at(TokenKind::Less)) {
    named->hasGenericArgs = true;
    if (!parseGenericArgs(named->genericArgs)) return nullptr;
  }
  named->span = spanFrom(first);
  return named;
}

bool Parser::parseShapeElement(ast::ShapeElement& out) {
  const Token& first = tok();
  if (consume(TokenKind::Star)) {
    std::optional<ast::Ident> pack = parseIdent("shape pack name");
    if (!pack) return false;
    out.pack = std::move(*pack);
    out.span = spanFrom(first);
    return true;
  }
  out.dim = parseExpr();
  if (!out.dim) return false;
  out.span = out.dim->span;
  return true;
}

bool Parser::parseGenericArgs(std::vector<ast::GenericArg>& out) {
  Nest nest(*this);
  if (!nest) {
    tooDeep();
    return false;
  }
  const Token& open = advance();  // `<`
  if (at(TokenKind::Greater)) {
    expected("generic argument", open.span, "in this list");
    advance();
    return false;
  }
  ListEnd end = parseList(TokenKind::Greater, open, [&] {
    std::optional<ast::GenericArg> arg = parseTypeOrExpr();
    if (arg) out.push_back(*arg);
    return arg.has_value();
  });
  return end == ListEnd::Closed;
}

std::optional<ast::GenericArg> Parser::parseTypeOrExpr() {
  size_t start = pos_;
  if (auto memo = argMemo_.find(start); memo != argMemo_.end()) {
    pos_ = memo->second.end;
    return memo->second.arg;
  }
  uint64_t failuresBefore = failures_;
  if (!notAType_[start]) {
    uint64_t depthBefore = depthFailures_;
    ++speculating_;
    ast::TypeNode* type = parseType();
    bool clean = failures_ == failuresBefore;
    --speculating_;
    if (depthFailures_ != depthBefore) {
      // Too deep either way: say so instead of trying the expression reading.
      pos_ = start;
      tooDeep();
      return std::nullopt;
    }
    if (type && clean && (at(TokenKind::Comma) || at(TokenKind::Greater))) {
      ast::GenericArg arg{type, nullptr, type->span};
      argMemo_[start] = {arg, pos_};
      return arg;
    }
    // Not a type: forget the attempt (its failures were never reported).
    pos_ = start;
    failures_ = failuresBefore;
    notAType_[start] = true;
  }
  ast::Expr* expr = parseBinary(binaryOpPrecedence(ast::BinaryOp::Add));
  if (!expr) return std::nullopt;
  ast::GenericArg arg{nullptr, expr, expr->span};
  if (failures_ == failuresBefore) argMemo_[start] = {arg, pos_};
  return arg;
}

}  // namespace linnet::parser
