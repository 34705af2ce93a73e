// Index notation (spec chapter 6): comprehensions `let c[m, *s] = body` and
// reductions `sum<f32>[k] body`. Inside notation, expressions are typed
// element-wise: an access `x[i, j]` that subscripts every axis of x has x's
// scalar dtype, and each index variable learns its domain (an extent, or a
// shape for a pack index `*s`) from the axes it subscripts; all uses must
// agree (E2201). Output indices need a domain (E3103), reduction indices
// must subscript something (E3102), pack and plain indices must not be mixed
// up (E3106), and an access must subscript every axis (E2204). Integer
// subscripts that are not index variables are data gathers (runtime
// integers) or compile-time positions not refuted (constantIndexInRange, E2209). What index
// notation does not allow is E3104: a slice or `...` in an access,
// arithmetic on an index inside a subscript, an index used as a value, and a
// tensor that is not subscripted down to its elements.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "compiler/check/CheckerImpl.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/parse/ASTWalk.h"

namespace linnet::check {

// The index variable an expression names, if it is a bare index name.
const Symbol* Checker::indexVariable(const ast::Expr* e) const {
  auto* name = ast::as<ast::NameExpr>(e);
  if (!name) return nullptr;
  const Symbol* s = module().symbolOf(name->name);
  return s && s->kind == SymbolKind::IndexVariable ? s : nullptr;
}

bool Checker::bindDomain(const Symbol& index, Span use, const shape::ShapeDim* dim,
                         const shape::Shape* pack) {
  auto it = notation_->domains.find(keyOf(index.declSpan));
  if (it == notation_->domains.end()) return false;  // not ours: not checked
  IndexDomain& d = it->second;
  if (d.isPack != (pack != nullptr)) {
    diagnostics_.emit(DiagnosticKind::PackIndexMisuse, use, index.name,
                      d.isPack ? "a pack index" : "a plain index")
        .label(d.isPack ? fmt::format("write `*{}`", index.name)
                        : fmt::format("`{}` is not a pack; remove the `*`", index.name))
        .secondary(index.declSpan, "declared here");
    return false;
  }
  if (pack) {
    if (!d.shape) {
      d.shape = *pack;
      d.firstUse = use;
      return true;
    }
    if (sameShape(*d.shape, *pack)) return true;
    diagnostics_.emit(DiagnosticKind::ContractionMismatch, use, index.name,
                      fmt::format("[{}]", shapeString(*d.shape)), fmt::format("[{}]", shapeString(*pack)))
        .label(fmt::format("here `*{}` ranges over `[{}]`", index.name, shapeString(*pack)))
        .secondary(d.firstUse, fmt::format("here over `[{}]`", shapeString(*d.shape)));
    return false;
  }
  const auto* extent = std::get_if<shape::DimExpr>(dim);
  if (!extent) return false;
  if (!d.extent) {
    d.extent = *extent;
    d.firstUse = use;
    return true;
  }
  if (facts().provablyEqual(*d.extent, *extent)) return true;
  auto emitted = diagnostics_.emit(DiagnosticKind::ContractionMismatch, use, index.name, d.extent->str(),
                                   extent->str());
  emitted.label(fmt::format("here `{}` ranges over `{}`", index.name, extent->str()))
      .secondary(d.firstUse, fmt::format("here over `{}`", d.extent->str()));
  // `where 2 == 3` (or `N == N + 1`) can never hold: no clause to suggest.
  if ((*d.extent - *extent).isConstant())
    emitted.help("the two extents always differ: use a separate index for each, or slice one tensor to the "
                 "other's extent first");
  else
    emitted.help(fmt::format("add `where {} == {}` if they are equal", d.extent->str(), extent->str()));
  return false;
}

// The first index variable `e` computes with, if any: subscripts of nested
// accesses are positions of their own and do not count.
const Symbol* Checker::indexVariableIn(const ast::Expr* e) const {
  if (!e || ast::isa<ast::IndexExpr>(e)) return nullptr;
  if (ast::isa<ast::NameExpr>(e)) return indexVariable(e);
  const Symbol* found = nullptr;
  ast::forEachChild(e, [&](const ast::Expr* child) {
    if (!found) found = indexVariableIn(child);
  });
  return found;
}

// E3104 for the body of a comprehension or reduction that is not one
// element: the first operand (through operators, parentheses and call
// arguments) that is still a tensor with axes, else the whole body.
void Checker::reportUnindexed(const ast::Expr* body, const Type& type) {
  std::function<const ast::Expr*(const ast::Expr*)> find = [&](const ast::Expr* e) -> const ast::Expr* {
    const ast::Expr* inner = nullptr;
    if (ast::isa<ast::ParenExpr>(e) || ast::isa<ast::UnaryExpr>(e) || ast::isa<ast::BinaryExpr>(e) ||
        ast::isa<ast::CallExpr>(e))
      ast::forEachChild(e, [&](const ast::Expr* child) {
        if (!inner) inner = find(child);
      });
    if (inner) return inner;
    const Type* t = scope_->out->typeOf(e);
    return t && t->isTensor() && !t->isScalar() ? e : nullptr;
  };
  const ast::Expr* at = find(body);
  const Type* t = at ? scope_->out->typeOf(at) : nullptr;
  std::string found = str(t ? *t : type);
  diagnostics_.emit(DiagnosticKind::UnindexedTensor, at ? at->span : body->span, found)
      .label(fmt::format("this is `{}`", found))
      .help("subscript every axis with an index (`x[i, j]`), or reduce it first");
}

std::string Checker::shapeString(const shape::Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + shape::str(s[i]);
  return out;
}

Type Checker::checkAccess(const ast::IndexExpr* e) {
  Type base = checkExpr(e->base);
  if (!base.isTensor()) {
    for (const ast::IndexComponent& c : e->components)
      if (c.kind == ast::IndexComponentKind::Expr && !indexVariableIn(c.value)) checkExpr(c.value);
    if (!base.isError())
      diagnostics_.emit(DiagnosticKind::InvalidOperand, e->base->span, "[]", str(base))
          .label(fmt::format("`{}` cannot be indexed", str(base)));
    return Type::error();
  }
  const shape::Shape& shape = base.shape();
  size_t packComponent = e->components.size();
  for (size_t i = 0; i < e->components.size(); ++i) {
    switch (e->components[i].kind) {
      case ast::IndexComponentKind::Expr: break;
      case ast::IndexComponentKind::Pack:
        if (packComponent != e->components.size()) {
          // Two packs would split the axes between them in no known way.
          diagnostics_.emit(DiagnosticKind::SecondPackIndex, e->components[i].span)
              .label("a second pack index")
              .secondary(e->components[packComponent].span, "the first")
              .help("subscript the axes with one pack index and plain indices");
          return Type::error();
        }
        packComponent = i;
        break;
      case ast::IndexComponentKind::Ellipsis:
      case ast::IndexComponentKind::Slice: {
        bool slice = e->components[i].kind == ast::IndexComponentKind::Slice;
        diagnostics_.emit(DiagnosticKind::SliceInNotation, e->components[i].span,
                          slice ? "a slice" : "`...`")
            .label(slice ? "a slice keeps its axis" : "`...` stands for axes without indices")
            .help(slice ? "slice first (`let part = x[0:K]`), then subscript `part` inside the "
                          "notation"
                        : "subscript every axis: an index each, or a pack index `*s` for a pack");
        return Type::error();
      }
    }
  }
  // Components before a pack index take the leading axes, those after it
  // the trailing ones; the pack index takes the rest.
  size_t n = e->components.size();
  bool hasPackComponent = packComponent != n;
  size_t before = hasPackComponent ? packComponent : n;
  size_t after = hasPackComponent ? n - packComponent - 1 : 0;
  bool rankOk = hasPackComponent ? shape.size() >= before + after : shape.size() == n;
  if (!rankOk) {
    if (base.hasPack() && !hasPackComponent) {
      // Only a pack index subscripts the axes of a pack, however many.
      size_t at = 0;
      while (!std::holds_alternative<shape::Pack>(shape[at])) ++at;
      const shape::Pack& pack = std::get<shape::Pack>(shape[at]);
      const ast::IndexComponent& c = e->components[std::min(at, n - 1)];
      const Symbol* index = indexVariable(c.value);
      diagnostics_.emit(DiagnosticKind::PlainIndexOverPack, c.span,
                        index ? index->name : ast::printExpr(c.value), "*" + pack.name)
          .label(fmt::format("this subscripts the axes of `*{}`", pack.name))
          .help(fmt::format("`*{}` may hold any number of axes; subscript them with a pack "
                            "index, `*s`, listed as an output or reduced",
                            pack.name));
      return Type::error();
    }
    diagnostics_.emit(DiagnosticKind::RankMismatch, e->span, str(base), shape.size(), n)
        .label("every axis must be subscripted inside index notation");
    return Type::error();
  }
  bool error = false;
  auto axisFor = [&](size_t component) {
    return component < before ? component : shape.size() - (n - component);
  };
  for (size_t i = 0; i < n; ++i) {
    const ast::IndexComponent& c = e->components[i];
    if (c.kind == ast::IndexComponentKind::Pack) {
      const Symbol* s = module().symbolOf(c.pack);
      if (!s || s->kind != SymbolKind::IndexVariable) {
        if (s && s->kind != SymbolKind::Unresolved)  // unknown names: the resolver's E1201
          diagnostics_.emit(DiagnosticKind::PackIndexMisuse, c.span, c.pack.name,
                            "not an index of this notation")
              .label("a pack index is declared as an output (`let y[*s] = ...`) or reduced")
              .secondary(s->declSpan, "declared here");
        error = true;
        continue;
      }
      shape::Shape middle(shape.begin() + before, shape.end() - after);
      if (!bindDomain(*s, c.span, nullptr, &middle)) error = true;
      continue;
    }
    const shape::ShapeDim& axis = shape[axisFor(i)];
    if (const Symbol* s = indexVariable(c.value)) {
      recordNonValue(c.value);  // an index is not a value
      const auto* pack = std::get_if<shape::Pack>(&axis);
      auto d = notation_->domains.find(keyOf(s->declSpan));
      if (pack && d != notation_->domains.end() && !d->second.isPack) {
        diagnostics_.emit(DiagnosticKind::PlainIndexOverPack, c.value->span, s->name,
                          "*" + pack->name)
            .label(fmt::format("this subscripts the axes of `*{}`", pack->name))
            .help(fmt::format("`*{}` may hold any number of axes; subscript them with a pack "
                              "index, `*s`, listed as an output or reduced",
                              pack->name));
        return Type::error();
      }
      if (!bindDomain(*s, c.value->span, &axis, nullptr)) error = true;
      continue;
    }
    if (const Symbol* s = indexVariableIn(c.value)) {
      diagnostics_.emit(DiagnosticKind::IndexArithmetic, c.value->span, s->name)
          .label(fmt::format("this computes with `{}`", s->name))
          .help("an index subscripts an axis as it is; to shift or stride, slice the tensor "
                "first (`let next = x[1:N]`) and subscript that");
      return Type::error();
    }
    // A position: data (a runtime integer scalar: a gather) or a
    // compile-time integer provably in range.
    Type t = checkExpr(c.value);
    if (t.isError()) {
      error = true;
      continue;
    }
    if (const auto* pack = std::get_if<shape::Pack>(&axis)) {
      diagnostics_.emit(DiagnosticKind::PlainIndexOverPack, c.value->span,
                        ast::printExpr(c.value), "*" + pack->name)
          .label(fmt::format("this subscripts the axes of `*{}`", pack->name))
          .help(fmt::format("`*{}` may hold any number of axes; subscript them with a pack "
                            "index, `*s`, listed as an output or reduced",
                            pack->name));
      error = true;
      continue;
    }
    if (t.isScalar() && isInteger(t.dtype())) continue;
    if (t.isTensor() && !t.isScalar()) {
      // A tensor of positions must itself be subscripted: `x[ids[b]]`.
      diagnostics_.emit(DiagnosticKind::UnindexedTensor, c.value->span, str(t))
          .label(fmt::format("this is `{}`", str(t)))
          .help("subscript it too, as a gather does: `table[ids[b], h]`");
      error = true;
      continue;
    }
    auto value = (t.kind() == TypeKind::CompileInt || t.kind() == TypeKind::IntLiteral)
                     ? dimOf(module(), c.value) : std::nullopt;
    if (!value) {
      diagnostics_.emit(DiagnosticKind::InvalidSlice, c.value->span,
                        fmt::format("an index must be an integer, found `{}`", str(t)))
          .label(fmt::format("this is `{}`", str(t)));
      error = true;
      continue;
    }
    const auto& extent = std::get<shape::DimExpr>(axis);
    if (!constantIndexInRange(*value, extent, c.value->span)) error = true;
  }
  if (error) return Type::error();
  return Type::scalar(base.dtype());
}

// E3105: a name listed twice in one index list. Reported at the second
// occurrence; true when reported (the construct is then not checked further:
// the uses bind to one of the two, so domains would be misleading).
bool Checker::duplicateIndex(const std::vector<const ast::Ident*>& indices) {
  for (size_t i = 0; i < indices.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      if (indices[i]->name != indices[j]->name) continue;
      diagnostics_.emit(DiagnosticKind::DuplicateIndex, indices[i]->span, indices[i]->name)
          .label("listed again here")
          .secondary(indices[j]->span, "first listed here")
          .help("a repeated subscript (a diagonal) is written in the accesses, `a[i, i]`, not in the index list");
      return true;
    }
  return false;
}

Type Checker::checkReduction(const ast::ReductionExpr* e, const Type* expected) {
  std::vector<const ast::Ident*> listed;
  for (const ast::Ident& index : e->indices) listed.push_back(&index);
  if (duplicateIndex(listed)) return Type::error();
  NotationScope local;
  bool own = notation_ == nullptr;
  if (own) notation_ = &local;
  for (const ast::Ident& index : e->indices) {
    notation_->domains[keyOf(index.span)] = IndexDomain{false, std::nullopt, std::nullopt, Span{}};
    notation_->reductionIndices.push_back(&index);
  }
  // The summand's literals take their dtype from the accumulator
  // (`sum<i32>[n] select(m[n], 1, 0)`), else from what the context expects of
  // the reduction (`let c: i32 = sum[n] ...`), which is the summand's dtype
  // (spec 1.7: literals are typed by their context).
  std::optional<Type> summand;
  if (e->accumulator) summand = Type::scalar(DType::of(*e->accumulator));
  else if (expected && expected->isTensor() && expected->isScalar()) summand = *expected;
  Type body = checkExpr(e->body, summand ? &*summand : nullptr);
  bool error = body.isError();
  if (!error && body.isTensor() && !body.isScalar()) {
    reportUnindexed(e->body, body);
    error = true;
  }
  for (const ast::Ident& index : e->indices) {
    const IndexDomain& d = notation_->domains[keyOf(index.span)];
    if (d.extent || error) continue;
    diagnostics_.emit(DiagnosticKind::UnusedReductionIndex, index.span, index.name)
        .label(fmt::format("`{}` subscripts no tensor in the reduced expression", index.name))
        .help("remove it, or use it to subscript the tensor it should range over");
    error = true;
  }
  if (own) notation_ = nullptr;
  if (error) return Type::error();
  std::string_view kind = ast::reductionKindName(e->reduction);
  bool logical = e->reduction == ast::ReductionKind::Any || e->reduction == ast::ReductionKind::All;
  if (e->accumulator) {
    DType acc = DType::of(*e->accumulator);
    if (body.isUntypedNumber()) {
      if (!literalFits(body, acc, e->body, e->body->span)) return Type::error();
      body = Type::scalar(acc);
    } else if (body.isTensor() && !(body.dtype() == acc)) {
      diagnostics_.emit(DiagnosticKind::DTypeMismatch, e->body->span,
                        fmt::format("accumulator and the summand of `{}`", kind))
          .label(fmt::format("this has dtype `{}`", body.dtype().str()))
          .note(fmt::format("the accumulator is `{}`", acc.str()))
          .help(fmt::format("cast the summand: `cast<{}>(...)`", acc.str()));
      return Type::error();
    }
  }
  if (body.isUntypedNumber()) return Type::error();  // a reduction of literals: not typed yet
  if (!body.isScalar()) return Type::error();
  bool valid = logical ? isBool(body.dtype()) : isNumeric(body.dtype());
  if (!valid) {
    diagnostics_.emit(DiagnosticKind::InvalidOperand, e->keywordSpan, kind, str(body))
        .label(fmt::format("`{}` reduces {} values", kind, logical ? "`bool`" : "Numeric"));
    return Type::error();
  }
  return body;
}

void Checker::checkComprehension(const ast::LetComprehensionStmt* let) {
  std::vector<const ast::Ident*> listed;
  for (const ast::IndexOutput& output : let->outputs) listed.push_back(&output.name);
  if (duplicateIndex(listed)) {
    scope_->locals[keyOf(let->name.span)] = LocalInfo{Type::error(), false, let->name.span};
    return;
  }
  NotationScope scope;
  NotationScope* saved = notation_;
  notation_ = &scope;
  for (const ast::IndexOutput& output : let->outputs)
    scope.domains[keyOf(output.name.span)] =
        IndexDomain{output.isPack, std::nullopt, std::nullopt, Span{}};
  Type body = checkExpr(let->value);
  notation_ = saved;
  Type result = Type::error();
  if (body.isTensor() && !body.isScalar()) {
    reportUnindexed(let->value, body);
    body = Type::error();
  }
  if (!body.isError() && !body.isScalar() && !body.isUntypedNumber()) {
    diagnostics_.emit(DiagnosticKind::NotationBodyType, let->value->span, str(body))
        .label(fmt::format("this is `{}`", str(body)))
        .help("index notation defines one number per element; write a comprehension per value");
    body = Type::error();
  }
  // Numbers alone take their defaults, as a `let` gives them (spec §1.7).
  if (body.isUntypedNumber()) body = concretize(body);
  bool error = body.isError() || !body.isScalar();
  shape::Shape out;
  for (const ast::IndexOutput& output : let->outputs) {
    const IndexDomain& d = scope.domains[keyOf(output.name.span)];
    if (d.isPack ? d.shape.has_value() : d.extent.has_value()) {
      if (d.isPack) out.insert(out.end(), d.shape->begin(), d.shape->end());
      else out.push_back(*d.extent);
      continue;
    }
    if (body.isError()) continue;  // the body was not understood: no domain is known
    auto hider = std::find_if(scope.reductionIndices.begin(), scope.reductionIndices.end(),
                              [&](const ast::Ident* r) { return r->name == output.name.name; });
    auto report = diagnostics_.emit(DiagnosticKind::IndexWithoutDomain, output.name.span, output.name.name);
    report.label(fmt::format("`{}` subscripts no tensor on the right-hand side", output.name.name));
    if (hider != scope.reductionIndices.end())
      report.secondary((*hider)->span, fmt::format("this reduction index is also `{}`: inside the reduction, `{}` is "
                                              "it, not the output index",
                                              output.name.name, output.name.name))
          .help("give the reduction index another name");
    else
      report.help("an output index takes its extent from an axis it subscripts");
    error = true;
  }
  if (!error) result = Type::tensor(std::move(out), body.dtype());
  scope_->locals[keyOf(let->name.span)] = LocalInfo{result, false, let->name.span};
}

}  // namespace linnet::check
