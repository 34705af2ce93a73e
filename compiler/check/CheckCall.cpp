// Calls of fns, ops, entries and block methods (spec §5.5, §7): the callee,
// the argument list (positional, then named, defaults), explicit generic
// arguments, inference of the remaining generics (packs included) by
// matching parameter types against argument types, dtype constraints, the
// argument types themselves, and every `where` clause of the callee proved
// at the call site under the caller's facts. Prelude calls are in
// CheckPrelude.cpp.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "compiler/check/CheckerImpl.h"
#include "compiler/parse/ASTPrinter.h"

namespace linnet::check {

// A dtype generic `g` that only numbers fix, given (declared type, argument
// type) pairs (`mk(2.5)` for `v: T`, `Boxed(value = 1.0)`): the numbers'
// default dtype (spec 1.7: f64 if any is a float, else i64; an integer for
// a Float generic, f64), when `g` admits it.
static std::optional<DType> numberDefault(const ast::GenericParam& g,
                                          const std::vector<std::pair<const Type*, const Type*>>& given) {
  if (g.isPack || g.constraint == ast::GenericKind::Dim) return std::nullopt;
  bool any = false, anyFloat = false;
  for (const auto& [declared, argument] : given) {
    if (!declared->isTensor() || !declared->isScalar() || declared->dtype().generic != &g) continue;
    if (!argument->isUntypedNumber()) continue;
    any = true;
    anyFloat = anyFloat || argument->kind() == TypeKind::FloatLiteral;
  }
  if (!any) return std::nullopt;
  DType fallback = DType::of(anyFloat ? ast::ScalarType::F64 : ast::ScalarType::I64);
  if (!satisfies(fallback, g.constraint)) fallback = DType::of(ast::ScalarType::F64);
  if (!satisfies(fallback, g.constraint)) return std::nullopt;
  return fallback;
}

bool Inference::isOpenUnbound(const ast::GenericParam* g) const {
  if (g->isPack || g->constraint == ast::GenericKind::Dim) {
    shape::SymbolId id = symbolIdOf(*g);
    if (!openShapes.count(id)) return false;
    return g->isPack ? !subst.shapes.packs.count(id) : !subst.shapes.dims.count(id);
  }
  return openDTypes.count(g) && !subst.dtypes.count(g);
}

Type Checker::resolveCallee(const ast::Expr* callee) {
  if (auto* name = ast::as<ast::NameExpr>(callee)) {
    Type t = record(callee, checkName(name));
    switch (t.kind()) {
      case TypeKind::Function:
      case TypeKind::Error:
        return t;
      case TypeKind::Tensor:
      case TypeKind::IntLiteral:
      case TypeKind::FloatLiteral:
      case TypeKind::CompileInt:
      case TypeKind::Tuple:
      case TypeKind::Optional:
      case TypeKind::Block:
      case TypeKind::BlockArray:
      case TypeKind::Enum:
      case TypeKind::Struct:
      case TypeKind::Unit:
      case TypeKind::None: {
        const Symbol* s = module().symbolOf(name->name);
        auto d = diagnostics_.emit(DiagnosticKind::NotCallable, callee->span, name->name.name, str(t));
        d.label(fmt::format("this is `{}`", str(t)));
        if (s && s->declSpan.valid()) d.secondary(s->declSpan, "declared here");
        return Type::error();
      }
      case TypeKind::Module:  // the resolver rejects a module as a value (E1208)
        return Type::error();
    }
    return Type::error();
  }
  if (auto* member = ast::as<ast::MemberExpr>(callee)) {
    Type base = checkExpr(member->base);
    if (base.kind() == TypeKind::Block || base.kind() == TypeKind::Module || base.isError()) {
      Type t = base.kind() == TypeKind::Block
                   ? memberOfBlock(*base.blockInstance(), member->member, callee->span, true)
               : base.isError() ? base
                                : checkMember(member);
      if (t.kind() != TypeKind::Function && !t.isError()) {
        diagnostics_.emit(DiagnosticKind::NotCallable, callee->span, ast::printExpr(callee), str(t))
            .label(fmt::format("this is `{}`", str(t)));
        t = Type::error();
      }
      return record(callee, t);
    }
    diagnostics_.emit(DiagnosticKind::UnknownMember, member->member.span, str(base),
                      member->member.name)
        .label(fmt::format("`{}` has no methods", str(base)));
    return Type::error();
  }
  Type t = checkExpr(callee);
  if (t.kind() == TypeKind::Function || t.isError()) return t;
  diagnostics_.emit(DiagnosticKind::NotCallable, callee->span, ast::printExpr(callee), str(t))
      .label(fmt::format("this is `{}`", str(t)));
  return Type::error();
}

// The struct a call's callee names (`S` or `module.S`), if any.
static std::pair<const ast::StructItem*, const Module*> structNamedBy(const Module& m,
                                                                     const ast::Expr* callee) {
  const Symbol* s = nullptr;
  if (auto* name = ast::as<ast::NameExpr>(callee)) s = m.symbolOf(name->name);
  else if (auto* member = ast::as<ast::MemberExpr>(callee)) s = m.symbolOf(member->member);
  if (!s || s->kind != SymbolKind::Item || !s->module) return {nullptr, nullptr};
  return {ast::as<ast::StructItem>(s->item), s->module};
}

static bool mentionsAny(const Type& t, const Inference& inf);

void Checker::reportGenericArgument(const Module& m, const ast::GenericArg& arg,
                                    const ast::GenericParam& g, std::string_view item) {
  if (!reportedGenericArgs_.insert(&arg).second) return;
  if (auto negative = negativeDimIn(m, arg, g)) {
    diagnostics_.emit(DiagnosticKind::NegativeDimension, negative->span, negative->written)
        .label(fmt::format("this is {}; a dimension is never negative", negative->value))
        .secondary(g.name.span, fmt::format("`{}{}` is {}", g.isPack ? "*" : "", g.name.name,
                                            g.isPack ? "a shape of dimensions" : "a dimension"));
    return;
  }
  bool dim = !g.isPack && g.constraint == ast::GenericKind::Dim;
  if (dim && arg.expr && !ast::isa<ast::ShapeLiteralExpr>(arg.expr)) {
    reportNonDimension(m, arg.expr);
    return;
  }
  const char* what = g.isPack ? "a shape literal" : dim ? "a dimension" : "a type";
  diagnostics_.emit(DiagnosticKind::GenericArgumentKind, arg.span, g.name.name, item,
                    g.isPack ? "Shape" : ast::genericKindName(g.constraint))
      .label(fmt::format("expected {} here", what))
      .secondary(g.name.span, "generic declared here");
}

Type Checker::checkStructConstruction(const ast::CallExpr* call, const ast::StructItem& st,
                                      const Module& sm, const Type* expected) {
  recordNonValue(call->callee);  // the struct's name is not a value
  checkGenericDefaults(sm, st.generics, st.name.name);  // before a use takes one (E2112)
  bool cyclic = cyclic_.count(&st) > 0;
  std::vector<Type> fieldTypes;
  if (!cyclic)
    for (const ast::Field& field : st.fields)
      fieldTypes.push_back(resolveType(sm, field.type, nullptr));
  // The struct type the context requires (an annotation, the field of an
  // enclosing construction) gives the generics nothing written gives, so
  // each field's type is the context of its value: literals take their
  // types from it at any depth (spec §1.7), nested constructions their
  // struct type.
  const Substitution* context = expected && expected->kind() == TypeKind::Struct &&
                                        expected->structItem() == &st && !call->hasGenericArgs
                                    ? &expected->structArgs() : nullptr;
  Inference own;  // the struct's generics: a field type naming one is no context
  for (const ast::GenericParam& g : st.generics) {
    if (g.isPack || g.constraint == ast::GenericKind::Dim) own.openShapes[symbolIdOf(g)] = &g;
    else own.openDTypes.insert(&g);
  }
  std::vector<Type> args;
  for (const ast::Argument& a : call->args) {
    size_t f = 0;
    while (a.isNamed() && f < fieldTypes.size() && st.fields[f].name.name != a.name.name) ++f;
    std::optional<Type> fieldContext;
    if (a.isNamed() && f < fieldTypes.size()) {
      Type t = context ? instantiate(fieldTypes[f], *context) : fieldTypes[f];
      if (!mentionsAny(t, own)) fieldContext = std::move(t);
    }
    args.push_back(checkExpr(a.value, fieldContext ? &*fieldContext : nullptr));
  }
  if (cyclic) return Type::error();
  // Every field named exactly once (E2102).
  std::vector<const ast::Argument*> byField(st.fields.size(), nullptr);
  std::vector<size_t> argOfField(st.fields.size(), 0);
  bool ok = true;
  bool positionalReported = false;  // one error for all positional arguments
  for (size_t i = 0; i < call->args.size(); ++i) {
    const ast::Argument& a = call->args[i];
    if (!a.isNamed()) {
      ok = false;
      if (positionalReported) continue;
      positionalReported = true;
      bool allPositional = std::none_of(call->args.begin(), call->args.end(),
                                        [](const ast::Argument& x) { return x.isNamed(); });
      std::string named;
      if (allPositional && call->args.size() == st.fields.size())
        for (size_t f = 0; f < st.fields.size(); ++f)
          named += fmt::format("{}{} = {}", f ? ", " : "", st.fields[f].name.name,
                               ast::printExpr(call->args[f].value));
      else
        named = "field = value, ...";
      diagnostics_.emit(DiagnosticKind::PositionalField, a.span, st.name.name)
          .label("a positional argument")
          .help(fmt::format("name every field: `{}({})`", st.name.name, named));
      continue;
    }
    size_t f = 0;
    while (f < st.fields.size() && st.fields[f].name.name != a.name.name) ++f;
    if (f == st.fields.size()) {
      diagnostics_.emit(DiagnosticKind::UnknownField, a.name.span, st.name.name, a.name.name)
          .label("no such field")
          .secondary(st.name.span, fmt::format("`{}` is declared here", st.name.name));
      ok = false;
      continue;
    }
    if (byField[f]) {
      diagnostics_.emit(DiagnosticKind::DuplicateArgument, a.name.span, a.name.name)
          .label("given again here")
          .secondary(byField[f]->name.span, "first given here");
      ok = false;
      continue;
    }
    byField[f] = &a;
    argOfField[f] = i;
  }
  if (!ok) return Type::error();
  for (size_t f = 0; f < st.fields.size(); ++f) {
    if (byField[f]) continue;
    diagnostics_.emit(DiagnosticKind::MissingField, call->span, st.name.name, st.fields[f].name.name)
        .label(fmt::format("`{}` is not given", st.fields[f].name.name))
        .secondary(st.fields[f].name.span, "field declared here");
    return Type::error();
  }
  // Generics: written ones bind in order, the others are inferred from the
  // fields (as for a call).
  Inference inf;
  if (call->genericArgs.size() > st.generics.size()) {
    diagnostics_.emit(DiagnosticKind::WrongGenericCount, call->callee->span, st.name.name,
                      st.generics.size(), call->genericArgs.size())
        .label("wrong number of generic arguments")
        .secondary(st.name.span, "declared here");
    return Type::error();
  }
  for (size_t i = 0; i < st.generics.size(); ++i) {
    const ast::GenericParam& g = st.generics[i];
    if (i < call->genericArgs.size()) {
      GenericValue v = genericValue(module(), call->genericArgs[i], g);
      if (std::holds_alternative<std::monostate>(v)) {
        reportGenericArgument(module(), call->genericArgs[i], g, st.name.name);
        return Type::error();
      }
      if (auto* d = std::get_if<shape::DimExpr>(&v)) {
        requireNonNegative(*d, call->genericArgs[i].span);
        inf.subst.shapes.dims[symbolIdOf(g)] = *d;
      }
      if (auto* p = std::get_if<shape::Shape>(&v)) inf.subst.shapes.packs[symbolIdOf(g)] = *p;
      if (auto* t = std::get_if<DType>(&v)) inf.subst.dtypes[&g] = *t;
      continue;
    }
    // Then the context's, which typed the field values already.
    if (context) {
      shape::SymbolId id = symbolIdOf(g);
      auto d = context->shapes.dims.find(id);
      auto p = context->shapes.packs.find(id);
      auto t = context->dtypes.find(&g);
      if (d != context->shapes.dims.end()) inf.subst.shapes.dims[id] = d->second;
      if (p != context->shapes.packs.end()) inf.subst.shapes.packs[id] = p->second;
      if (t != context->dtypes.end()) inf.subst.dtypes[&g] = t->second;
      if (d != context->shapes.dims.end() || p != context->shapes.packs.end() ||
          t != context->dtypes.end())
        continue;
    }
    if (g.isPack || g.constraint == ast::GenericKind::Dim) inf.openShapes[symbolIdOf(g)] = &g;
    else inf.openDTypes.insert(&g);
  }
  for (size_t f = 0; f < st.fields.size(); ++f)
    unify(fieldTypes[f], args[argOfField[f]], inf, byField[f]->value->span);
  for (const ast::GenericParam& g : st.generics) {
    bool bound = g.isPack ? inf.subst.shapes.packs.count(symbolIdOf(g))
                 : g.constraint == ast::GenericKind::Dim ? inf.subst.shapes.dims.count(symbolIdOf(g))
                                                          : inf.subst.dtypes.count(&g);
    if (bound) {
      auto it = inf.subst.dtypes.find(&g);
      if (it != inf.subst.dtypes.end() && !satisfies(it->second, g.constraint)) {
        diagnostics_.emit(DiagnosticKind::DTypeConstraint, call->callee->span, it->second.str(),
                          g.name.name, ast::genericKindName(g.constraint))
            .label(fmt::format("`{}` is not {}", it->second.str(), ast::genericKindName(g.constraint)))
            .secondary(g.constraintSpan, "constraint declared here");
        return Type::error();
      }
      continue;
    }
    std::vector<std::pair<const Type*, const Type*>> given;
    for (size_t f = 0; f < st.fields.size(); ++f) given.push_back({&fieldTypes[f], &args[argOfField[f]]});
    if (auto d = numberDefault(g, given)) {
      // A declared default is the numbers' context, as at a function call.
      if (!bindGenericDefault(sm, g, inf, call->callee->span)) inf.subst.dtypes[&g] = *d;
      continue;
    }
    // A generic in a field whose argument did not bind it: the argument is
    // unknown (reported already), or inference does not solve the field's
    // form (`N * N`): it must be written.
    Inference probe;
    if (g.isPack || g.constraint == ast::GenericKind::Dim) probe.openShapes[symbolIdOf(g)] = &g;
    else probe.openDTypes.insert(&g);
    for (size_t f = 0; f < st.fields.size(); ++f) {
      if (!mentionsAny(fieldTypes[f], probe)) continue;
      if (containsError(args[argOfField[f]])) return Type::error();
      diagnostics_.emit(DiagnosticKind::CannotInfer, call->callee->span, g.name.name, st.name.name)
          .label(fmt::format("cannot infer `{}`", g.name.name))
          .secondary(st.fields[f].type->span,
                     fmt::format("`{}` appears here only in a form inference does not solve from "
                                 "`{}`", g.name.name, str(args[argOfField[f]])))
          .help(fmt::format("write the generic arguments: `{}<...>(...)`", st.name.name));
      return Type::error();
    }
    // In no field: its default, or it must be written (E2110).
    if (bindGenericDefault(sm, g, inf, call->callee->span)) continue;
    if (defaultReported(g)) return Type::error();  // E2112 at the declaration
    diagnostics_.emit(DiagnosticKind::CannotInfer, call->callee->span, g.name.name, st.name.name)
        .label(fmt::format("`{}` appears in no field", g.name.name))
        .secondary(g.name.span, "generic declared here")
        .help(fmt::format("write the generic arguments: `{}<...>(...)`", st.name.name));
    return Type::error();
  }
  bool fieldsOk = true;
  for (size_t f = 0; f < st.fields.size(); ++f) {
    Type expected = instantiate(fieldTypes[f], inf.subst);
    if (!requireType(args[argOfField[f]], expected, byField[f]->value->span, st.fields[f].type->span,
                     "field type declared here", byField[f]->value, DiagnosticKind::TypeMismatch))
      fieldsOk = false;
  }
  if (!fieldsOk) return Type::error();
  return Type::structure(&sm, &st, inf.subst);
}

Type Checker::checkCall(const ast::CallExpr* call, const Type* expected) {
  // Positional arguments come first, then named ones (spec 5, "Calls"): a
  // positional one after a name would be bound by position all the same.
  const ast::Argument* firstNamed = nullptr;
  for (const ast::Argument& a : call->args) {
    if (a.isNamed()) {
      if (!firstNamed) firstNamed = &a;
      continue;
    }
    if (!firstNamed) continue;
    diagnostics_.emit(DiagnosticKind::PositionalAfterNamed, a.span)
        .label("a positional argument after a named one")
        .secondary(firstNamed->span, "named here")
        .help("give positional arguments first, or name this one too");
    for (const ast::Argument& b : call->args)
      if (!ast::isa<ast::ShapeLiteralExpr>(b.value)) checkExpr(b.value);
    return Type::error();
  }
  if (auto [st, sm] = structNamedBy(module(), call->callee); st)
    return checkStructConstruction(call, *st, *sm, expected);
  if (auto t = checkKernelBuiltin(call)) return *t;  // program_id, load (CheckKernel.cpp)
  Type callee = resolveCallee(call->callee);
  if (callee.kind() != TypeKind::Function) {
    // Still type the arguments so their own mistakes are found.
    for (const ast::Argument& a : call->args)
      if (!ast::isa<ast::ShapeLiteralExpr>(a.value)) checkExpr(a.value);
    return Type::error();
  }
  if (!callee.functionItem()) return checkPreludeCall(call, callee.preludeName(), expected);
  return checkFunctionCall(call, callee);
}

static bool dimMentionsOpen(const shape::DimExpr& d, const Inference& inf) {
  std::vector<shape::Atom> atoms;
  d.collectAtoms(atoms);
  for (const shape::Atom& a : atoms) {
    if (a.kind() == shape::AtomKind::Symbol || a.kind() == shape::AtomKind::PackRank ||
        a.kind() == shape::AtomKind::PackElements) {
      auto it = inf.openShapes.find(a.id());
      if (it != inf.openShapes.end() && inf.isOpenUnbound(it->second)) return true;
    }
  }
  return false;
}

static bool mentionsAny(const Type& t, const Inference& inf) {
  if (t.isTensor()) {
    if (t.dtype().generic && inf.isOpenUnbound(t.dtype().generic)) return true;
    for (const shape::ShapeDim& d : t.shape()) {
      if (auto* p = std::get_if<shape::Pack>(&d)) {
        auto it = inf.openShapes.find(p->id);
        if (it != inf.openShapes.end() && inf.isOpenUnbound(it->second)) return true;
      } else if (dimMentionsOpen(std::get<shape::DimExpr>(d), inf)) {
        return true;
      }
    }
    return false;
  }
  if (t.kind() == TypeKind::Struct) {
    const Substitution& args = t.structArgs();
    for (const auto& [id, dim] : args.shapes.dims)
      if (dimMentionsOpen(dim, inf)) return true;
    for (const auto& [id, pack] : args.shapes.packs)
      if (mentionsAny(Type::tensor(pack, DType::of(ast::ScalarType::Bool)), inf)) return true;
    for (const auto& [g, d] : args.dtypes)
      if (d.generic && inf.isOpenUnbound(d.generic)) return true;
    return false;
  }
  for (const Type& e : t.elements())
    if (mentionsAny(e, inf)) return true;
  return false;
}

void Checker::unify(const Type& pattern, const Type& actual, Inference& inf, Span span) {
  if (pattern.isError() || actual.isError()) return;
  if (pattern.kind() == TypeKind::Optional) {
    if (actual.kind() == TypeKind::Optional) unify(pattern.optionalInner(), actual.optionalInner(), inf, span);
    else unify(pattern.optionalInner(), actual, inf, span);
    return;
  }
  if (pattern.kind() == TypeKind::Tuple && actual.kind() == TypeKind::Tuple &&
      pattern.elements().size() == actual.elements().size()) {
    for (size_t i = 0; i < pattern.elements().size(); ++i)
      unify(pattern.elements()[i], actual.elements()[i], inf, span);
    return;
  }
  if (pattern.kind() == TypeKind::Struct && actual.kind() == TypeKind::Struct &&
      pattern.structItem() == actual.structItem()) {
    // Each generic argument of the struct, matched as a one-axis tensor (a
    // dim), a shape (a pack) or a scalar (a dtype).
    const Substitution& p = pattern.structArgs();
    const Substitution& a = actual.structArgs();
    DType anyDType = DType::of(ast::ScalarType::Bool);
    for (const ast::GenericParam& g : pattern.structItem()->generics) {
      shape::SymbolId id = symbolIdOf(g);
      if (g.isPack) {
        auto i = p.shapes.packs.find(id), j = a.shapes.packs.find(id);
        if (i != p.shapes.packs.end() && j != a.shapes.packs.end())
          unify(Type::tensor(i->second, anyDType), Type::tensor(j->second, anyDType), inf, span);
      } else if (g.constraint == ast::GenericKind::Dim) {
        auto i = p.shapes.dims.find(id), j = a.shapes.dims.find(id);
        if (i != p.shapes.dims.end() && j != a.shapes.dims.end())
          unify(Type::tensor({i->second}, anyDType), Type::tensor({j->second}, anyDType), inf, span);
      } else {
        auto i = p.dtypes.find(&g), j = a.dtypes.find(&g);
        if (i != p.dtypes.end() && j != a.dtypes.end())
          unify(Type::scalar(i->second), Type::scalar(j->second), inf, span);
      }
    }
    return;
  }
  if (!pattern.isTensor() || !actual.isTensor()) return;
  if (const ast::GenericParam* g = pattern.dtype().generic; g && inf.isOpenUnbound(g)) {
    inf.subst.dtypes[g] = actual.dtype();
    inf.boundAt[g] = span;
  }
  const shape::Shape& p = pattern.shape();
  const shape::Shape& a = actual.shape();
  auto bindDim = [&](const shape::ShapeDim& pd, const shape::ShapeDim& ad) {
    auto* pdim = std::get_if<shape::DimExpr>(&pd);
    auto* adim = std::get_if<shape::DimExpr>(&ad);
    if (!pdim || !adim) return;
    auto atom = pdim->asAtom();
    if (atom && atom->kind() == shape::AtomKind::Symbol) {
      auto it = inf.openShapes.find(atom->id());
      if (it == inf.openShapes.end() || !inf.isOpenUnbound(it->second)) return;
      inf.subst.shapes.dims[atom->id()] = *adim;
      inf.boundAt[it->second] = span;
      return;
    }
    // `c * X + rest` with one open X and c > 0: X := (actual - rest) / c.
    // The argument check afterwards proves the pattern equal to the actual
    // dimension, so a guess that does not divide evenly is still caught.
    std::optional<shape::Atom> open;
    int64_t coefficient = 0;
    shape::DimExpr rest = shape::DimExpr::constant(pdim->constantTerm());
    for (const shape::Term& term : pdim->terms()) {
      bool linearOpen = term.monomial.size() == 1 && term.monomial[0].power == 1 &&
                        term.monomial[0].atom.kind() == shape::AtomKind::Symbol &&
                        inf.openShapes.count(term.monomial[0].atom.id()) &&
                        inf.isOpenUnbound(inf.openShapes.at(term.monomial[0].atom.id()));
      if (linearOpen && !open) {
        open = term.monomial[0].atom;
        coefficient = term.coefficient;
        continue;
      }
      shape::DimExpr part = shape::DimExpr::constant(term.coefficient) * shape::monomialExpr(term.monomial);
      if (dimMentionsOpen(part, inf)) return;  // more than one unknown
      rest = rest + part;
    }
    if (!open || coefficient <= 0) return;
    const ast::GenericParam* g = inf.openShapes.at(open->id());
    // `rest` is in the callee's generics; the bound ones (its block's, or
    // those inferred from earlier arguments) must be replaced first.
    rest = shape::instantiate(rest, inf.subst.shapes);
    inf.subst.shapes.dims[open->id()] =
        facts().simplify(shape::DimExpr::floorDiv(*adim - rest, shape::DimExpr::constant(coefficient)));
    inf.boundAt[g] = span;
  };
  size_t packAt = p.size();
  for (size_t i = 0; i < p.size(); ++i)
    if (std::holds_alternative<shape::Pack>(p[i])) {
      if (packAt != p.size()) return;  // two packs: not inferred (verified later)
      packAt = i;
    }
  if (packAt == p.size()) {
    if (p.size() != a.size()) return;
    for (size_t i = 0; i < p.size(); ++i) bindDim(p[i], a[i]);
    return;
  }
  size_t before = packAt, after = p.size() - packAt - 1;
  if (a.size() < before + after) return;
  for (size_t i = 0; i < before; ++i) bindDim(p[i], a[i]);
  for (size_t i = 0; i < after; ++i) bindDim(p[packAt + 1 + i], a[a.size() - after + i]);
  const shape::Pack& pack = std::get<shape::Pack>(p[packAt]);
  auto it = inf.openShapes.find(pack.id);
  if (it == inf.openShapes.end() || !inf.isOpenUnbound(it->second)) return;
  // The pack takes the middle of the actual shape; a pack of the actual
  // shape may only land there, never on a single dimension of the pattern.
  for (size_t i = 0; i < before; ++i)
    if (std::holds_alternative<shape::Pack>(a[i])) return;
  for (size_t i = a.size() - after; i < a.size(); ++i)
    if (std::holds_alternative<shape::Pack>(a[i])) return;
  inf.subst.shapes.packs[pack.id] = shape::Shape(a.begin() + before, a.end() - after);
  inf.boundAt[it->second] = span;
}

static std::string calleeName(const ast::FunctionItem& f) { return f.name.name; }

bool Checker::bindGenericDefault(const Module& declModule, const ast::GenericParam& g,
                                 Inference& inf, Span at) {
  if (!inf.isOpenUnbound(&g) || !g.defaultValue) return false;
  if (defaultReported(g)) return false;  // E2112 at the declaration: left open, not reported again
  // A default is written in the callee's generics (`M: Dim = 2 * N`): they
  // are replaced by their values here, or the callee's symbols would leak
  // into the caller's types.
  GenericValue v = genericValue(declModule, *g.defaultValue, g);
  shape::SymbolId id = symbolIdOf(g);
  if (auto* d = std::get_if<shape::DimExpr>(&v)) {
    shape::DimExpr value = shape::instantiate(*d, inf.subst.shapes);
    if (dimMentionsOpen(value, inf)) return false;
    inf.subst.shapes.dims[id] = value;
  } else if (auto* p = std::get_if<shape::Shape>(&v)) {
    shape::Shape value = shape::instantiate(*p, inf.subst.shapes);
    if (mentionsAny(Type::tensor(value, DType::of(ast::ScalarType::Bool)), inf)) return false;
    inf.subst.shapes.packs[id] = value;
  } else if (auto* t = std::get_if<DType>(&v)) {
    DType value = instantiate(*t, inf.subst);
    if (value.generic && inf.isOpenUnbound(value.generic)) return false;
    inf.subst.dtypes[&g] = value;
  } else {
    return false;  // not a value of its kind: left open, so the caller says so (E2110)
  }
  inf.boundAt[&g] = at;
  return true;
}

bool Checker::inferredDTypesSatisfyBounds(const std::vector<ast::GenericParam>& generics,
                                          Inference& inf, Span fallback) {
  for (const ast::GenericParam& g : generics) {
    auto it = inf.subst.dtypes.find(&g);
    if (it == inf.subst.dtypes.end() || satisfies(it->second, g.constraint)) continue;
    Span at = inf.boundAt.count(&g) ? inf.boundAt[&g] : fallback;
    auto d = diagnostics_.emit(DiagnosticKind::DTypeConstraint, at, it->second.str(), g.name.name,
                               ast::genericKindName(g.constraint));
    d.label(fmt::format("`{}` is `{}` here", g.name.name, it->second.str()))
        .secondary(g.constraintSpan, fmt::format("`{}` must be {}", g.name.name,
                                                 ast::genericKindName(g.constraint)));
    if (it->second.isGeneric())
      d.help(fmt::format("constrain `{}` to `{}`", it->second.str(), ast::genericKindName(g.constraint)));
    return false;
  }
  return true;
}

Type Checker::checkFunctionCall(const ast::CallExpr* call, const Type& callee) {
  const ast::FunctionItem& f = *callee.functionItem();
  if (scope_ && scope_->signature) calls_.push_back({scope_->signature->item, &f, call->span});
  const Signature* sig = signature(f);
  std::vector<const ast::Expr*> argFor(f.params.size(), nullptr);
  bool bad = false;
  // ---- arguments to parameters ----
  size_t positional = 0;
  for (const ast::Argument& a : call->args) {
    if (!a.isNamed()) {
      if (positional >= f.params.size()) {
        diagnostics_.emit(DiagnosticKind::TooManyArguments, a.span, calleeName(f), f.params.size(),
                          call->args.size())
            .label("unexpected argument")
            .secondary(f.name.span, fmt::format("`{}` is declared here", calleeName(f)));
        bad = true;
        break;
      }
      argFor[positional++] = a.value;
      continue;
    }
    size_t i = 0;
    while (i < f.params.size() && f.params[i].name.name != a.name.name) ++i;
    if (i == f.params.size()) {
      diagnostics_.emit(DiagnosticKind::UnknownNamedArgument, a.name.span, calleeName(f), a.name.name)
          .label("no parameter of this name")
          .secondary(f.name.span, fmt::format("`{}` is declared here", calleeName(f)));
      bad = true;
      continue;
    }
    if (argFor[i]) {
      diagnostics_.emit(DiagnosticKind::DuplicateArgument, a.span, a.name.name)
          .label("given again here")
          .secondary(argFor[i]->span, "first given here");
      bad = true;
      continue;
    }
    argFor[i] = a.value;
  }
  if (!bad) {
    for (size_t i = 0; i < f.params.size(); ++i) {
      if (argFor[i] || f.params[i].defaultValue) continue;
      diagnostics_.emit(DiagnosticKind::MissingArgument, call->span, calleeName(f),
                        f.params[i].name.name)
          .label(fmt::format("argument `{}` is missing", f.params[i].name.name))
          .secondary(f.params[i].span, "parameter declared here");
      bad = true;
    }
  }
  // Argument expressions are typed even when the call is malformed.
  std::vector<Type> argTypes(f.params.size());
  for (size_t i = 0; i < f.params.size(); ++i)
    if (argFor[i]) argTypes[i] = checkExpr(argFor[i]);
  if (bad || !sig) return Type::error();

  // ---- generics: the owner block's are fixed, the function's own inferred ----
  Inference inf;
  if (callee.blockInstance() && sig->owner) inf.subst = callee.blockInstance()->args;
  for (const ast::GenericParam& g : f.generics) {
    if (g.isPack || g.constraint == ast::GenericKind::Dim) inf.openShapes[symbolIdOf(g)] = &g;
    else inf.openDTypes.insert(&g);
  }
  if (call->hasGenericArgs) {
    if (call->genericArgs.size() > f.generics.size()) {
      diagnostics_.emit(DiagnosticKind::WrongGenericCount, call->genericArgs[f.generics.size()].span,
                        calleeName(f), f.generics.size(), call->genericArgs.size())
          .label("unexpected generic argument")
          .secondary(f.name.span, fmt::format("`{}` is declared here", calleeName(f)));
      return Type::error();
    }
    for (size_t i = 0; i < call->genericArgs.size(); ++i) {
      const ast::GenericParam& g = f.generics[i];
      GenericValue v = genericValue(module(), call->genericArgs[i], g);
      if (std::holds_alternative<std::monostate>(v)) {
        const ast::GenericArg& arg = call->genericArgs[i];
        bool dimGotType = !g.isPack && g.constraint == ast::GenericKind::Dim &&
                          ast::isa<ast::ScalarTypeNode>(arg.type);
        bool dtypeGotExpr = !g.isPack && g.constraint != ast::GenericKind::Dim && arg.expr &&
                            !ast::isa<ast::ShapeLiteralExpr>(arg.expr);
        if (dimGotType || dtypeGotExpr)
          diagnostics_.emit(DiagnosticKind::GenericArgumentKind, arg.span, g.name.name,
                            calleeName(f), g.isPack ? "Shape" : ast::genericKindName(g.constraint))
              .label(dimGotType ? "a type where a dimension is expected"
                                : "an expression where a dtype is expected")
              .secondary(g.name.span, "generic declared here");
        else
          reportGenericArgument(module(), arg, g, calleeName(f));
        return Type::error();
      }
      shape::SymbolId id = symbolIdOf(g);
      if (auto* d = std::get_if<shape::DimExpr>(&v)) {
        requireNonNegative(*d, call->genericArgs[i].span);
        inf.subst.shapes.dims[id] = *d;
      }
      if (auto* s = std::get_if<shape::Shape>(&v)) inf.subst.shapes.packs[id] = *s;
      if (auto* t = std::get_if<DType>(&v)) inf.subst.dtypes[&g] = *t;
      inf.boundAt[&g] = call->genericArgs[i].span;
    }
  }
  for (size_t i = 0; i < f.params.size(); ++i)
    if (argFor[i]) unify(sig->params[i], argTypes[i], inf, argFor[i]->span);
  // Defaults only after inference: an argument that fixes a generic wins.
  for (const ast::GenericParam& g : f.generics)
    bindGenericDefault(*sig->module, g, inf, call->callee->span);

  // ---- every generic must be known ----
  for (const ast::GenericParam& g : f.generics) {
    if (!inf.isOpenUnbound(&g)) continue;
    std::vector<std::pair<const Type*, const Type*>> given;
    for (size_t i = 0; i < f.params.size(); ++i)
      if (argFor[i]) given.push_back({&sig->params[i], &argTypes[i]});
    if (auto d = numberDefault(g, given)) {
      inf.subst.dtypes[&g] = *d;
      continue;
    }
    // A negative default is E2208 at its declaration already, one of the
    // wrong kind E2112.
    if (g.defaultValue && negativeDimIn(*sig->module, *g.defaultValue, g)) return Type::error();
    if (defaultReported(g)) return Type::error();
    // A generic in a parameter that got an argument was not bound by it:
    // the argument is unknown (reported already), has another form than
    // the parameter (that mismatch is the error), or the generic appears
    // only in a pattern inference does not solve (`N * N`): then it must be
    // written (E2110).
    Inference probe;
    if (g.isPack || g.constraint == ast::GenericKind::Dim) probe.openShapes[symbolIdOf(g)] = &g;
    else probe.openDTypes.insert(&g);
    std::optional<size_t> in;
    for (size_t i = 0; i < f.params.size() && !in; ++i)
      if (argFor[i] && mentionsAny(sig->params[i], probe)) in = i;
    if (in) {
      const Type& param = sig->params[*in];
      const Type& arg = argTypes[*in];
      if (containsError(arg)) return Type::error();
      // With a pack, the argument needs at least the parameter's other axes
      // (`Tensor[*S, N]` takes no scalar).
      auto fixedAxes = [](const Type& t) {
        return static_cast<size_t>(std::count_if(t.shape().begin(), t.shape().end(), [](const shape::ShapeDim& d) {
          return !std::holds_alternative<shape::Pack>(d);
        }));
      };
      bool sameForm = param.isTensor() && arg.isTensor() &&
                      (arg.hasPack() || (param.hasPack() ? arg.shape().size() >= fixedAxes(param)
                                                         : param.shape().size() == arg.shape().size()));
      // A literal for a scalar of a dtype generic fits it (no dtype to
      // infer from): then the generic must be written, as below.
      if (!sameForm && !requireType(arg, param, argFor[*in]->span, f.params[*in].span,
                                    "parameter declared here", argFor[*in]))
        return Type::error();
    }
    auto d = diagnostics_.emit(DiagnosticKind::CannotInfer, call->callee->span, g.name.name,
                               calleeName(f));
    d.label(fmt::format("cannot infer `{}`", g.name.name));
    bool dtypeGeneric = !g.isPack && g.constraint != ast::GenericKind::Dim;
    if (in && dtypeGeneric)
      d.secondary(f.params[*in].span,
                  fmt::format("`{}` is inferred from a tensor's dtype; a number has none",
                              g.name.name));
    else if (in)
      d.secondary(f.params[*in].span,
                  fmt::format("`{}` appears here only in a form inference does not solve (it "
                              "solves `{}`, `{} + k`, `c * {}` alone in an axis)",
                              g.name.name, g.name.name, g.name.name, g.name.name));
    else if (g.defaultValue)
      d.secondary(g.defaultValue->span, "this default names a generic that has no value yet");
    else
      d.secondary(g.name.span, "generic declared here");
    d.help(fmt::format("write the generic arguments: `{}<...>(...)`", calleeName(f)));
    return Type::error();
  }

  // ---- dtype constraints ----
  if (!inferredDTypesSatisfyBounds(f.generics, inf, call->span)) return Type::error();

  // ---- argument types ----
  bool ok = true;
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (!argFor[i]) continue;
    Type expected = instantiate(sig->params[i], inf.subst);
    if (!requireType(argTypes[i], expected, argFor[i]->span, f.params[i].span,
                     fmt::format("parameter `{}` declared here", f.params[i].name.name), argFor[i]))
      ok = false;
  }
  if (!ok) return Type::error();

  // ---- the callee's `where`, proved here ----
  for (const WhereClause& w : sig->where) {
    shape::DimExpr l = shape::instantiate(w.lhs, inf.subst.shapes);
    shape::DimExpr r = shape::instantiate(w.rhs, inf.subst.shapes);
    shape::Proof proof = facts().provablyHolds(l, w.relation, r);
    if (proof) continue;
    UnprovenClause clause = spellUnproven(w, l, r, inf.subst.shapes);
    auto d = diagnostics_.emit(DiagnosticKind::ConstraintUnsatisfied, call->span, clause.clause, calleeName(f));
    d.label(fmt::format("`{}` requires `{}`", calleeName(f), clause.clause))
        .secondary(w.span, "required by this `where` clause");
    if (!clause.folded.empty())
      d.note(fmt::format("with {} it is `{}`, which is false", clause.values, clause.folded));
    else if (!proof.reason.empty())
      d.note(proof.reason);
    if (!proof.suggestion.empty() && scope_ && scope_->signature)
      d.help(fmt::format("add `where {}` to `{}`", proof.suggestion,
                         scope_->signature->item->name.name));
    ok = false;
  }
  if (!ok) return Type::error();
  if (scope_ && scope_->out)
    scope_->out->calls[call] =
        CallBinding{callee.module(), &f, sig->owner ? callee.blockInstance() : nullptr, argFor, inf.subst};
  return instantiate(sig->result, inf.subst);
}

std::optional<NegativeDim> Checker::negativeDimIn(const Module& m, const ast::GenericArg& arg,
                                                  const ast::GenericParam& g) {
  auto negative = [](Span at, std::string written, const std::optional<shape::DimExpr>& d)
      -> std::optional<NegativeDim> {
    if (!d || !negativeConstant(*d)) return std::nullopt;
    return NegativeDim{at, std::move(written), *d->constantValue()};
  };
  if (g.isPack) {
    if (auto* lit = ast::as<ast::ShapeLiteralExpr>(arg.expr))
      for (const ast::ShapeElement& el : lit->elements)
        if (!el.isPack())
          if (auto n = negative(el.dim->span, ast::printExpr(el.dim), dimOf(m, el.dim))) return n;
    return std::nullopt;
  }
  if (g.constraint != ast::GenericKind::Dim) return std::nullopt;
  if (!arg.expr) return arg.type ? negative(arg.span, ast::printType(arg.type), namedDim(m, arg.type)) : std::nullopt;
  if (ast::isa<ast::ShapeLiteralExpr>(arg.expr)) return std::nullopt;
  return negative(arg.expr->span, ast::printExpr(arg.expr), dimOf(m, arg.expr));
}

UnprovenClause spellUnproven(const WhereClause& w, const shape::DimExpr& lhs, const shape::DimExpr& rhs,
                             const shape::Bindings& values) {
  std::string relation(shape::spelling(w.relation));
  UnprovenClause out;
  out.clause = fmt::format("{} {} {}", lhs.str(), relation, rhs.str());
  if (!lhs.isConstant() || !rhs.isConstant()) return out;
  // Every generic the written clause names, once, in order of appearance.
  std::vector<shape::Atom> atoms;
  w.lhs.collectAtoms(atoms);
  w.rhs.collectAtoms(atoms);
  std::vector<std::string> named;
  std::vector<shape::SymbolId> seen;
  for (const shape::Atom& a : atoms) {
    if (a.kind() != shape::AtomKind::Symbol || std::find(seen.begin(), seen.end(), a.id()) != seen.end()) continue;
    seen.push_back(a.id());
    auto it = values.dims.find(a.id());
    if (it != values.dims.end()) named.push_back(fmt::format("`{} = {}`", a.name(), it->second.str()));
  }
  if (named.empty()) return out;
  out.folded = out.clause;
  out.clause = fmt::format("{} {} {}", w.lhs.str(), relation, w.rhs.str());
  out.values = fmt::format("{}", fmt::join(named, ", "));
  return out;
}

}  // namespace linnet::check
