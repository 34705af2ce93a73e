// Module header, `use` declarations and items: const, type, struct, enum,
// fn/op/entry/kernel (with kernel results and launch settings, op kernel
// bindings and `grad` clauses), blocks and their members; generic
// parameters, parameters and `where` clauses.
//
// Item-level recovery: a failed item skips to the next item keyword (or the
// enclosing block's `}`); a failed header skips to the body's `{` when it can,
// so errors inside the body are still reported.
#include <fmt/format.h>

#include <algorithm>

#include "compiler/parse/ParserImpl.h"

namespace linnet::parser {

namespace {

std::optional<ast::GenericKind> genericKindFromName(std::string_view name) {
  using ast::GenericKind;
  for (GenericKind kind : {GenericKind::Dim, GenericKind::Shape, GenericKind::DType,
                           GenericKind::Numeric, GenericKind::Integer, GenericKind::Float})
    if (ast::genericKindName(kind) == name) return kind;
  return std::nullopt;
}

}  // namespace

std::optional<ast::Ident> Parser::parseIdent(std::string_view what) {
  const Token& token = tok();
  switch (token.kind) {
    case TokenKind::Identifier:
      advance();
      return ast::Ident{std::string(spelling(token)), token.span};
    case TokenKind::KwSelf:
      advance();
      unsupported(token.span, "`self`",
                  "block members are bare names: write `weight`, not `self.weight`");
      return ast::Ident{"self", token.span};
    case TokenKind::KwSuper:
      advance();
      unsupported(token.span, "`super`", "import items with `crate.` or `std.` paths");
      return ast::Ident{"super", token.span};
    case TokenKind::KwExtern:
      advance();
      unsupported(token.span, "`extern`", "`extern` is reserved for a future language version");
      return ast::Ident{"extern", token.span};
    default:
      // A keyword where a name belongs (`fn f(type: f32)`): report it and
      // take it as the name, so the rest of the declaration still parses.
      // Only when a name-like position follows, so that a missing name
      // before the next item (`const` then `fn f()`) is not swallowed.
      if (isKeyword(token.kind)) {
        switch (peekKind(1)) {
          case TokenKind::Colon:
          case TokenKind::Equal:
          case TokenKind::Comma:
          case TokenKind::RParen:
          case TokenKind::LParen:
          case TokenKind::Less:
          case TokenKind::LBracket:
          case TokenKind::FatArrow:
          case TokenKind::KwIn:
            expected(what);
            advance();
            return ast::Ident{std::string(spelling(token)), token.span};
          default:
            break;
        }
      }
      expected(what);
      return std::nullopt;
  }
}

std::vector<Span> Parser::docCommentsAt(size_t tokenIndex) const {
  std::vector<Span> spans;
  auto first = std::lower_bound(
      buffer_.docComments.begin(), buffer_.docComments.end(), tokenIndex,
      [](const DocComment& doc, size_t index) { return doc.nextToken < index; });
  for (auto it = first; it != buffer_.docComments.end() && it->nextToken == tokenIndex; ++it)
    spans.push_back(it->span);
  return spans;
}

// ---- module header and uses ---------------------------------------------------

void Parser::parseModuleHeader(ast::SourceModule& module) {
  if (at(TokenKind::KwModule)) {
    const Token& keyword = advance();
    bool ok = true;
    do {
      std::optional<ast::Ident> segment = parseIdent("module path");
      if (!segment) {
        ok = false;
        break;
      }
      module.modulePath.push_back(std::move(*segment));
    } while (consume(TokenKind::Dot));
    module.moduleDeclSpan = spanFrom(keyword);
    if (!ok) {
      module.modulePath.clear();
      skipToItem(false);
    }
  } else {
    ++failures_;
    Span where = at(TokenKind::EndOfFile) ? Span{buffer_.file, 0, 0} : tok().span;
    lastErrorPos_ = pos_;
    diagnostics_.emit(DiagnosticKind::MissingModuleDecl, where)
        .help("start the file with its module path, such as `module models.mini`");
  }
  while (at(TokenKind::KwUse)) {
    size_t before = pos_;
    if (ast::UseDecl* use = parseUse()) {
      module.uses.push_back(use);
    } else {
      skipToItem(false);
      if (pos_ == before) advance();
    }
  }
}

ast::UseDecl* Parser::parseUse() {
  quiet_ = false;
  const Token& keyword = advance();
  auto* use = make<ast::UseDecl>();
  const Token& root = tok();
  switch (root.kind) {
    case TokenKind::KwCrate:
      advance();
      use->root = ast::ImportRoot::Crate;
      use->path.push_back({"crate", root.span});
      break;
    case TokenKind::Identifier:
      advance();
      use->root = spelling(root) == "std" ? ast::ImportRoot::Std : ast::ImportRoot::Dependency;
      use->path.push_back({std::string(spelling(root)), root.span});
      break;
    case TokenKind::KwSelf:
    case TokenKind::KwSuper:
      advance();
      unsupported(root.span, quoted(root.kind),
                  "import with `crate.`, `std.` or a dependency's name");
      return nullptr;
    default:
      expected("import path (`std`, `crate` or a dependency name)");
      return nullptr;
  }
  while (consume(TokenKind::Dot)) {
    std::optional<ast::Ident> segment = parseIdent("module name");
    if (!segment) return nullptr;
    use->path.push_back(std::move(*segment));
  }
  if (consume(TokenKind::ColonColon)) {
    use->hasSelector = true;
    if (at(TokenKind::LBrace)) {
      use->braced = true;
      const Token& open = advance();
      if (at(TokenKind::RBrace)) {
        expected("imported name", open.span, "in this list");
        advance();
        return nullptr;
      }
      ListEnd end = parseList(TokenKind::RBrace, open, [&] {
        std::optional<ast::Ident> name = parseIdent("imported name");
        if (!name) return false;
        ast::ImportName import{std::move(*name), {}};
        if (consume(TokenKind::KwAs)) {
          std::optional<ast::Ident> alias = parseIdent("name after `as`");
          if (!alias) return false;
          import.alias = std::move(*alias);
        }
        use->names.push_back(std::move(import));
        return true;
      });
      if (end == ListEnd::Aborted) return nullptr;
    } else {
      std::optional<ast::Ident> name = parseIdent("imported name or `{`");
      if (!name) return nullptr;
      use->names.push_back({std::move(*name), {}});
    }
  }
  use->span = spanFrom(keyword);
  return use;
}

// ---- items -------------------------------------------------------------------

void Parser::parseItemsUntil(std::vector<ast::Item*>& out, bool inBlock, const Token* open) {
  while (true) {
    if (at(TokenKind::EndOfFile)) {
      if (inBlock && open) expected("`}`", open->span, "to close this `{`");
      return;
    }
    if (at(TokenKind::RBrace)) {
      if (inBlock) return;
      expected("item");
      advance();
      continue;
    }
    size_t before = pos_;
    if (!inBlock && at(TokenKind::KwUse)) {
      // Uses belong before the items; parse it anyway so names resolve.
      if (auto d = expected("item")) d->help("move `use` declarations above the first item");
      if (ast::UseDecl* use = parseUse()) {
        module_->uses.push_back(use);
      } else {
        skipToItem(false);
      }
    } else if (ast::Item* item = parseItem(inBlock)) {
      out.push_back(item);
    } else {
      skipToItem(inBlock);
    }
    if (pos_ == before) advance();
  }
}

ast::Item* Parser::parseItem(bool inBlock) {
  quiet_ = false;
  size_t startIndex = pos_;
  const Token& first = tok();
  bool isPub = consume(TokenKind::KwPub);
  if (at(TokenKind::KwExtern)) {
    const Token& keyword = advance();
    unsupported(keyword.span, "`extern`",
                "`extern` declarations are reserved for a future language version");
  }
  ast::Item* item = nullptr;
  switch (kind()) {
    case TokenKind::KwConst: item = parseConst(); break;
    case TokenKind::KwType: item = parseTypeAlias(); break;
    case TokenKind::KwStruct: item = parseStruct(); break;
    case TokenKind::KwEnum: item = parseEnum(); break;
    case TokenKind::KwFn:
    case TokenKind::KwOp:
    case TokenKind::KwEntry:
    case TokenKind::KwKernel: item = parseFunction(); break;
    case TokenKind::KwBlock: item = parseBlock(); break;
    case TokenKind::KwParam:
    case TokenKind::KwBuffer:
    case TokenKind::KwState:
    case TokenKind::KwSub:
      if (!inBlock) {
        if (auto d = expected("item"))
          d->help("`param`, `buffer`, `state` and `sub` members are declared inside a `block`");
        parseMember();  // consumed whole, so it raises nothing more
        return nullptr;
      }
      // Members are never `pub`; report it and keep the member.
      if (isPub) expected("item after `pub`");
      item = parseMember();
      break;
    default:
      if (auto d = expected(inBlock ? "member or item" : "item");
          d && kind() == TokenKind::Semicolon)
        d->help("declarations end without `;`; remove it");
      return nullptr;
  }
  if (!item) return nullptr;
  item->isPub = isPub;
  item->docComments = docCommentsAt(startIndex);
  item->span = spanFrom(first);
  return item;
}

ast::Item* Parser::parseConst() {
  advance();
  auto* item = make<ast::ConstItem>();
  std::optional<ast::Ident> name = parseIdent("constant name");
  if (!name) return nullptr;
  item->name = std::move(*name);
  if (consume(TokenKind::Colon)) {
    item->type = parseType();
    if (!item->type) return nullptr;
  }
  if (!expect(TokenKind::Equal)) return nullptr;
  item->value = parseExpr();
  return item->value ? item : nullptr;
}

ast::Item* Parser::parseTypeAlias() {
  advance();
  auto* item = make<ast::TypeAliasItem>();
  std::optional<ast::Ident> name = parseIdent("type name");
  if (!name) return nullptr;
  item->name = std::move(*name);
  if (at(TokenKind::Less) && !parseGenericParams(item->generics)) return nullptr;
  if (!expect(TokenKind::Equal)) return nullptr;
  item->type = parseType();
  return item->type ? item : nullptr;
}

ast::Item* Parser::parseStruct() {
  advance();
  auto* item = make<ast::StructItem>();
  std::optional<ast::Ident> name = parseIdent("struct name");
  if (!name) return nullptr;
  item->name = std::move(*name);
  if (at(TokenKind::Less) && !parseGenericParams(item->generics)) return nullptr;
  const Token& open = tok();
  if (!expect(TokenKind::LBrace)) return nullptr;
  while (!consume(TokenKind::RBrace)) {
    if (at(TokenKind::EndOfFile) || atItemStart()) {
      expected("`}`", open.span, "to close this `{`");
      return item;
    }
    if (at(TokenKind::Comma)) {
      if (auto d = expected("field or `}`")) d->help("write one field per line, without commas");
      advance();
      continue;
    }
    const Token& first = tok();
    ast::Field field;
    bool ok = false;
    if (std::optional<ast::Ident> fieldName = parseIdent("field name")) {
      field.name = std::move(*fieldName);
      if (expect(TokenKind::Colon)) {
        field.type = parseType();
        ok = field.type != nullptr;
      }
    }
    if (ok) {
      field.span = spanFrom(first);
      item->fields.push_back(std::move(field));
      continue;
    }
    // Skip to the next `name:` or the closing brace.
    int depth = 0;
    while (!at(TokenKind::EndOfFile)) {
      TokenKind k = kind();
      if (depth == 0 && (k == TokenKind::RBrace || atItemStart())) break;
      if (depth == 0 && k == TokenKind::Identifier && peekKind(1) == TokenKind::Colon) break;
      if (k == TokenKind::LParen || k == TokenKind::LBracket || k == TokenKind::LBrace) ++depth;
      if (k == TokenKind::RParen || k == TokenKind::RBracket || k == TokenKind::RBrace) --depth;
      advance();
    }
  }
  return item;
}

ast::Item* Parser::parseEnum() {
  advance();
  auto* item = make<ast::EnumItem>();
  std::optional<ast::Ident> name = parseIdent("enum name");
  if (!name) return nullptr;
  item->name = std::move(*name);
  if (at(TokenKind::Less) && !parseGenericParams(item->generics)) return nullptr;
  const Token& open = tok();
  if (!expect(TokenKind::LBrace)) return nullptr;
  ListEnd end = parseList(TokenKind::RBrace, open, [&] {
    std::optional<ast::Ident> variant = parseIdent("variant name");
    if (!variant) return false;
    // `A(f32)`, `B { x: f32 }`: payloads are reserved (spec 3.8). Said so,
    // and skipped whole, so the rest of the enum parses.
    if (at(TokenKind::LParen) || at(TokenKind::LBrace)) {
      skipGroup();
      unsupported(Span{variant->span.file, variant->span.begin, lastEnd()}, "an enum variant with a payload",
                  "enum variants carry no data in this language version (payloads are reserved for a later "
                  "one): keep the data in a struct beside the enum");
    }
    item->variants.push_back(std::move(*variant));
    return true;
  });
  return end == ListEnd::Closed ? item : nullptr;
}

ast::Item* Parser::parseFunction() {
  const Token& keyword = advance();
  auto* fn = make<ast::FunctionItem>();
  switch (keyword.kind) {
    case TokenKind::KwOp: fn->function = ast::FunctionKind::Op; break;
    case TokenKind::KwEntry: fn->function = ast::FunctionKind::Entry; break;
    case TokenKind::KwKernel: fn->function = ast::FunctionKind::Kernel; break;
    default: fn->function = ast::FunctionKind::Fn; break;
  }
  fn->keywordSpan = keyword.span;

  bool headerOk = [&] {
    FlagScope header(braceStops_, true);
    std::optional<ast::Ident> name = parseIdent(fmt::format("{} name", keyword.kind == TokenKind::KwFn ? "function" : tokenKindSpelling(keyword.kind)));
    if (!name) return false;
    fn->name = std::move(*name);
    if (at(TokenKind::Less) && !parseGenericParams(fn->generics)) return false;
    const Token& open = tok();
    if (!expect(TokenKind::LParen)) return false;
    if (!parseParams(fn->params, open)) return false;
    if (fn->function == ast::FunctionKind::Kernel) {
      if (consume(TokenKind::Arrow) && !parseKernelResults(*fn)) return false;
      while (at(TokenKind::Identifier) && peekKind(1) == TokenKind::LParen &&
             (atIdent("grid") || atIdent("warps") || atIdent("stages"))) {
        const Token& settingName = advance();
        ast::KernelSetting setting;
        setting.name = {std::string(spelling(settingName)), settingName.span};
        const Token& settingOpen = advance();
        ListEnd end = parseList(TokenKind::RParen, settingOpen, [&] {
          ast::Expr* value = parseExpr();
          if (value) setting.values.push_back(value);
          return value != nullptr;
        });
        if (end == ListEnd::Aborted) return false;
        setting.span = spanFrom(settingName);
        fn->kernelSettings.push_back(std::move(setting));
      }
    } else {
      if (consume(TokenKind::Arrow)) {
        fn->returnType = parseType();
        if (!fn->returnType) return false;
      } else if (fn->function == ast::FunctionKind::Op) {
        // The grammar requires an op's result type; go on to the body.
        if (auto d = expected("`->`")) d->help("an `op` declares its result type: `-> Tensor[...]`");
      }
      if (at(TokenKind::KwKernel)) {
        const Token& kernelKeyword = advance();
        ast::KernelBinding binding;
        std::optional<ast::Ident> kernelName = parseIdent("kernel name");
        if (!kernelName) return false;
        binding.kernel = std::move(*kernelName);
        if (at(TokenKind::Less)) {
          binding.hasGenericArgs = true;
          if (!parseGenericArgs(binding.genericArgs)) return false;
        }
        binding.span = spanFrom(kernelKeyword);
        fn->kernelBinding = std::move(binding);
      }
    }
    if (at(TokenKind::KwWhere) && !parseWhere(fn->where)) return false;
    if (!at(TokenKind::LBrace)) {
      std::string what = fn->function == ast::FunctionKind::Kernel
                             ? "`grid`, `warps`, `stages`, `where` or `{`"
                             : "`{`";
      expected(what);
      return false;
    }
    return true;
  }();
  if (!headerOk) {
    // Resynchronize at the body so its errors are reported too.
    FlagScope header(braceStops_, true);
    int depth = 0;
    while (!at(TokenKind::EndOfFile)) {
      TokenKind k = kind();
      if (depth == 0 && (k == TokenKind::LBrace || atItemStart() || k == TokenKind::RBrace))
        break;
      if (k == TokenKind::LParen || k == TokenKind::LBracket) ++depth;
      if ((k == TokenKind::RParen || k == TokenKind::RBracket) && depth > 0) --depth;
      advance();
    }
    if (!at(TokenKind::LBrace)) return nullptr;
  }
  if (!parseBody(fn->body, &fn->bodySpan)) return nullptr;
  if (atIdent("grad") && peekKind(1) == TokenKind::LParen && !parseGrad(*fn)) return nullptr;
  return fn;
}

bool Parser::parseKernelResults(ast::FunctionItem& function) {
  auto parseResult = [&] {
    const Token& first = tok();
    ast::KernelResult result;
    std::optional<ast::Ident> name = parseIdent("result name");
    if (!name) return false;
    result.name = std::move(*name);
    if (!consume(TokenKind::Colon)) {
      if (auto d = expected("`:`")) d->help("kernel results are named: `-> y: Tensor[N; f32]`");
      return false;
    }
    result.type = parseType();
    if (!result.type) return false;
    result.span = spanFrom(first);
    function.kernelResults.push_back(std::move(result));
    return true;
  };
  if (at(TokenKind::LParen)) {
    function.kernelResultsParenthesized = true;
    const Token& open = advance();
    return parseList(TokenKind::RParen, open, parseResult) == ListEnd::Closed;
  }
  return parseResult();
}

bool Parser::parseGrad(ast::FunctionItem& function) {
  const Token& keyword = advance();
  const Token& open = tok();
  advance();
  ast::GradClause grad;
  std::optional<ast::Ident> result = parseIdent("result name");
  if (!result) return false;
  grad.result = std::move(*result);
  if (!expect(TokenKind::Comma, open.span, "in this `grad` clause")) return false;
  std::optional<ast::Ident> gradient = parseIdent("gradient name");
  if (!gradient) return false;
  grad.gradient = std::move(*gradient);
  consume(TokenKind::Comma);
  if (!expect(TokenKind::RParen, open.span, "to close this `(`")) return false;
  if (!at(TokenKind::LBrace)) {
    expected("`{`");
    return false;
  }
  if (!parseBody(grad.body)) return false;
  grad.span = spanFrom(keyword);
  function.grad = std::move(grad);
  return true;
}

ast::Item* Parser::parseBlock() {
  Nest nest(*this);
  if (!nest) {
    tooDeep();
    // Skip the whole block so its contents raise nothing more.
    while (!at(TokenKind::EndOfFile) && !at(TokenKind::LBrace)) advance();
    if (at(TokenKind::LBrace)) skipGroup();
    return nullptr;
  }
  advance();
  auto* block = make<ast::BlockItem>();
  {
    FlagScope header(braceStops_, true);
    std::optional<ast::Ident> name = parseIdent("block name");
    if (!name) return nullptr;
    block->name = std::move(*name);
    if (at(TokenKind::Less) && !parseGenericParams(block->generics)) return nullptr;
    if (at(TokenKind::KwWhere) && !parseWhere(block->where)) return nullptr;
  }
  const Token& open = tok();
  if (!expect(TokenKind::LBrace)) return nullptr;
  FlagScope body(braceStops_, false);
  parseItemsUntil(block->body, /*inBlock=*/true, &open);
  consume(TokenKind::RBrace);
  return block;
}

ast::Item* Parser::parseMember() {
  const Token& keyword = advance();
  auto* member = make<ast::MemberItem>();
  switch (keyword.kind) {
    case TokenKind::KwBuffer: member->member = ast::MemberKind::Buffer; break;
    case TokenKind::KwState: member->member = ast::MemberKind::State; break;
    case TokenKind::KwSub: member->member = ast::MemberKind::Sub; break;
    default: member->member = ast::MemberKind::Param; break;
  }
  std::optional<ast::Ident> name =
      parseIdent(fmt::format("{} name", tokenKindSpelling(keyword.kind)));
  if (!name) return nullptr;
  member->name = std::move(*name);
  if (!expect(TokenKind::Colon)) return nullptr;
  member->type = parseType();
  if (!member->type) return nullptr;
  // Only `param` and `sub` take an initializer (`= none`, checked later).
  bool takesValue =
      member->member == ast::MemberKind::Param || member->member == ast::MemberKind::Sub;
  if (takesValue && consume(TokenKind::Equal)) {
    member->initializer = parseExpr();
    if (!member->initializer) return nullptr;
  }
  return member;
}

// ---- generics, parameters, where ----------------------------------------------

bool Parser::parseGenericParams(std::vector<ast::GenericParam>& out) {
  const Token& open = advance();
  if (at(TokenKind::Greater)) {
    expected("generic parameter", open.span, "in this list");
    advance();
    return false;
  }
  ListEnd end = parseList(TokenKind::Greater, open, [&] {
    const Token& first = tok();
    ast::GenericParam param;
    param.isPack = consume(TokenKind::Star);
    std::optional<ast::Ident> name = parseIdent("generic parameter name");
    if (!name) return false;
    param.name = std::move(*name);
    if (!at(TokenKind::Colon)) {
      // `<K, V>` as other languages write it: every generic names its kind.
      if (std::optional<DiagnosticBuilder> d = expected("`:`"))
        d->help(fmt::format("a generic parameter names its kind: `{0}: DType`, `{0}: Dim`, `*{0}: Shape`",
                            param.name.name));
      return false;
    }
    advance();
    std::optional<ast::GenericKind> constraint;
    if (at(TokenKind::Identifier)) constraint = genericKindFromName(spelling(tok()));
    if (!constraint) {
      expected("generic kind (`Dim`, `Shape`, `DType`, `Numeric`, `Integer` or `Float`)");
      return false;
    }
    param.constraint = *constraint;
    param.constraintSpan = advance().span;
    if (consume(TokenKind::Equal)) {
      param.defaultValue = parseTypeOrExpr();
      if (!param.defaultValue) return false;
    }
    param.span = spanFrom(first);
    out.push_back(std::move(param));
    return true;
  });
  return end == ListEnd::Closed;
}

bool Parser::parseParams(std::vector<ast::Param>& out, const Token& open) {
  ListEnd end = parseList(TokenKind::RParen, open, [&] {
    const Token& first = tok();
    ast::Param param;
    std::optional<ast::Ident> name = parseIdent("parameter name");
    if (!name) return false;
    param.name = std::move(*name);
    if (!expect(TokenKind::Colon)) return false;
    param.type = parseType();
    if (!param.type) return false;
    if (consume(TokenKind::Equal)) {
      param.defaultValue = parseExpr();
      if (!param.defaultValue) return false;
    }
    param.span = spanFrom(first);
    out.push_back(std::move(param));
    return true;
  });
  return end == ListEnd::Closed;
}

bool Parser::parseWhere(std::vector<ast::Constraint>& out) {
  advance();
  uint32_t firstBegin = tok().span.begin;
  while (true) {
    const Token& first = tok();
    ast::Expr* expr = parseBinary(1);
    if (!expr) return false;
    auto* comparison = ast::as<ast::BinaryExpr>(expr);
    bool relation = comparison && binaryOpPrecedence(comparison->op) >= 3 &&
                    binaryOpPrecedence(comparison->op) <= 4;
    if (!relation) {
      if (auto d = expected("comparison operator"))
        d->help("each constraint compares two dimensions, such as `H % Heads == 0`; separate "
                "constraints with `,`");
      return false;
    }
    ast::Constraint constraint;
    constraint.lhs = comparison->lhs;
    constraint.relation = comparison->op;
    constraint.rhs = comparison->rhs;
    constraint.span = spanFrom(first);
    out.push_back(constraint);
    if (!consume(TokenKind::Comma)) return true;
    if (at(TokenKind::LBrace)) {
      recordMultiline(firstBegin);
      return true;
    }
  }
}

}  // namespace linnet::parser
