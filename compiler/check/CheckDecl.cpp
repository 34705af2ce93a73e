// Declarations: the types written in signatures and members (TypeNode to
// Type), dimension expressions (AST to DimExpr), generic arguments, `where`
// clauses (to shape Facts), function signatures and block member types.
// Signatures and blocks are memoized in the CheckedProgram; a cycle through
// them (which only an ill-formed program could make) yields Error silently.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "compiler/check/CheckerImpl.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/parse/ASTWalk.h"

namespace linnet::check {

const Module* Checker::moduleOf(const ast::Item& item) const {
  auto it = itemModule_.find(&item);
  return it == itemModule_.end() ? nullptr : it->second;
}

const ast::BlockItem* Checker::ownerOf(const ast::Item& item) const {
  auto it = itemOwner_.find(&item);
  return it == itemOwner_.end() ? nullptr : it->second;
}

static std::optional<shape::Relation> relationOf(ast::BinaryOp op) {
  switch (op) {
    case ast::BinaryOp::Eq: return shape::Relation::Equal;
    case ast::BinaryOp::Ne: return shape::Relation::NotEqual;
    case ast::BinaryOp::Lt: return shape::Relation::Less;
    case ast::BinaryOp::Le: return shape::Relation::LessEqual;
    case ast::BinaryOp::Gt: return shape::Relation::Greater;
    case ast::BinaryOp::Ge: return shape::Relation::GreaterEqual;
    case ast::BinaryOp::Or:
    case ast::BinaryOp::And:
    case ast::BinaryOp::BitOr:
    case ast::BinaryOp::BitXor:
    case ast::BinaryOp::BitAnd:
    case ast::BinaryOp::Add:
    case ast::BinaryOp::Sub:
    case ast::BinaryOp::Mul:
    case ast::BinaryOp::Div:
    case ast::BinaryOp::Rem:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<shape::DimExpr> Checker::dimOf(const Module& m, const ast::Expr* e, int depth) {
  // `depth` counts consts reached through consts; the syntax below a
  // const is bounded by the parser's nesting limit.
  if (!e || depth > kMaxConstDepth) return std::nullopt;
  switch (e->kind) {
    case ast::ExprKind::IntLiteral:
      return shape::DimExpr::constant(
          static_cast<int64_t>(static_cast<const ast::IntLiteralExpr*>(e)->value));
    case ast::ExprKind::Member:
    case ast::ExprKind::Name: {
      // A name, or a const named through its module (`cfg.W`).
      auto* member = ast::as<ast::MemberExpr>(e);
      const Symbol* symbol = m.symbolOf(member ? member->member : static_cast<const ast::NameExpr*>(e)->name);
      if (!symbol) return std::nullopt;
      if (member && symbol->kind != SymbolKind::Item) return std::nullopt;
      if (symbol->kind == SymbolKind::Generic && symbol->generic && !symbol->generic->isPack &&
          symbol->generic->constraint == ast::GenericKind::Dim)
        return dimSymbol(*symbol->generic);
      if (symbol->kind == SymbolKind::Item && symbol->item &&
          symbol->item->kind == ast::ItemKind::Const) {
        auto* c = static_cast<const ast::ConstItem*>(symbol->item);
        if (c->type || !symbol->module) return std::nullopt;  // typed consts are runtime values
        // Once per const: `const B = A + A` evaluated per use would double
        // along a chain of such consts. Unknown while being evaluated (only
        // a cycle, E2122, gets there).
        auto [known, first] = constDims_.try_emplace(c);
        if (!first) return known->second;
        std::optional<shape::DimExpr> value = dimOf(*symbol->module, c->value, depth + 1);
        constDims_[c] = value;  // `known` may be invalid: evaluating inserted others
        return value;
      }
      return compileTimeLocal(m, *symbol);
    }
    case ast::ExprKind::Paren:
      return dimOf(m, static_cast<const ast::ParenExpr*>(e)->inner, depth);
    case ast::ExprKind::Unary: {
      auto* u = static_cast<const ast::UnaryExpr*>(e);
      auto inner = dimOf(m, u->operand, depth);
      if (!inner) return std::nullopt;
      switch (u->op) {
        case ast::UnaryOp::Negate: return -*inner;
        case ast::UnaryOp::Plus: return inner;
        case ast::UnaryOp::Not: return std::nullopt;
      }
      return std::nullopt;
    }
    case ast::ExprKind::Binary: {
      auto* b = static_cast<const ast::BinaryExpr*>(e);
      auto l = dimOf(m, b->lhs, depth);
      auto r = dimOf(m, b->rhs, depth);
      if (!l || !r) return std::nullopt;
      switch (b->op) {
        case ast::BinaryOp::Add: return *l + *r;
        case ast::BinaryOp::Sub: return *l - *r;
        case ast::BinaryOp::Mul: return *l * *r;
        // Two numbers divide as values do (toward zero: `-7 / 2` is -3); a
        // dimension's operands are never negative and its divisor is proven
        // positive (E2205), where floor is the same. A zero divisor stays
        // unfolded, so that E2205 is what a shape dividing by it reports.
        case ast::BinaryOp::Div:
          if (l->constantValue() && r->constantValue().value_or(0) != 0)
            return shape::DimExpr::truncatingDivision(*l, *r, false);
          return shape::DimExpr::floorDiv(*l, *r);
        case ast::BinaryOp::Rem:
          if (l->constantValue() && r->constantValue().value_or(0) != 0)
            return shape::DimExpr::truncatingDivision(*l, *r, true);
          return shape::DimExpr::mod(*l, *r);
        case ast::BinaryOp::Or:
        case ast::BinaryOp::And:
        case ast::BinaryOp::Eq:
        case ast::BinaryOp::Ne:
        case ast::BinaryOp::Lt:
        case ast::BinaryOp::Le:
        case ast::BinaryOp::Gt:
        case ast::BinaryOp::Ge:
          return std::nullopt;
        case ast::BinaryOp::BitOr:
        case ast::BinaryOp::BitXor:
        case ast::BinaryOp::BitAnd: {
          // Only known values: bit operations on symbols are no polynomial.
          auto a = l->constantValue();
          auto c = r->constantValue();
          if (!a || !c) return std::nullopt;
          int64_t v = b->op == ast::BinaryOp::BitAnd ? (*a & *c)
                      : b->op == ast::BinaryOp::BitOr ? (*a | *c)
                                                       : (*a ^ *c);
          return shape::DimExpr::constant(v);
        }
      }
      return std::nullopt;
    }
    case ast::ExprKind::Call: {
      // `min(a, b)` / `max(a, b)` of dimensions.
      auto* call = static_cast<const ast::CallExpr*>(e);
      auto* callee = ast::as<ast::NameExpr>(call->callee);
      if (!callee || call->hasGenericArgs || call->args.size() != 2) return std::nullopt;
      const Symbol* symbol = m.symbolOf(callee->name);
      if (!symbol || symbol->kind != SymbolKind::Prelude) return std::nullopt;
      if (call->args[0].isNamed() || call->args[1].isNamed()) return std::nullopt;
      auto a = dimOf(m, call->args[0].value, depth);
      auto b = dimOf(m, call->args[1].value, depth);
      if (!a || !b) return std::nullopt;
      if (callee->name.name == "min") return shape::DimExpr::min(*a, *b);
      if (callee->name.name == "max") return shape::DimExpr::max(*a, *b);
      return std::nullopt;
    }
    case ast::ExprKind::FloatLiteral:
    case ast::ExprKind::StringLiteral:
    case ast::ExprKind::BoolLiteral:
    case ast::ExprKind::NoneLiteral:
    case ast::ExprKind::Some:
    case ast::ExprKind::Index:
    case ast::ExprKind::Tuple:
    case ast::ExprKind::ShapeLiteral:
    case ast::ExprKind::Reduction:
    case ast::ExprKind::If:
    case ast::ExprKind::Match:
    case ast::ExprKind::ForScan:
      return std::nullopt;
  }
  return std::nullopt;
}

// A written dimension the solver cannot read (E2123): a typed const or a
// run-time value, a float, a bit operation on symbols, a call.
void Checker::reportNonDimension(const Module& m, const ast::Expr* e) {
  // A const in a definition cycle was reported (E2122): no second error.
  bool cyclic = false;
  ast::forEachExpr(e, [&](const ast::Expr* x) {
    auto* name = ast::as<ast::NameExpr>(x);
    const Symbol* s = name ? m.symbolOf(name->name) : nullptr;
    if (s && s->kind == SymbolKind::Item && cyclic_.count(s->item)) cyclic = true;
  });
  if (cyclic) return;
  diagnostics_.emit(DiagnosticKind::DimensionNotCompileTime, e->span, ast::printExpr(e))
      .label("not a compile-time integer")
      .help("a dimension is built from integers, `Dim` generics, untyped integer consts and "
            "compile-time `let`s with `+ - * / %`, `min` and `max`");
}

// `*S` where `S` is no shape pack (a `Dim`, `S: Shape` declared without
// `*`, a const): E1208; an unknown name was reported by the resolver.
void Checker::reportNotPack(const Module& m, const ast::Ident& name) {
  const Symbol* s = m.symbolOf(name);
  if (!s || s->kind == SymbolKind::Unresolved) return;
  bool generic = s->kind == SymbolKind::Generic && s->generic;
  diagnostics_.emit(DiagnosticKind::WrongSymbolKind, name.span, name.name,
                    generic ? "a generic declared without `*`" : "not a generic", "a shape pack")
      .label("only a pack follows `*`")
      .help(generic ? fmt::format("declare it as a pack: `*{}: Shape`", name.name)
                    : std::string("a pack is a generic declared `*S: Shape`"));
}

// A dotted type name that names nothing (`f32.x`, `m.a.b`): the resolver
// looks up one name and `module.Item` and leaves the other forms here.
void Checker::reportUnresolvedType(const Module& m, const ast::NamedTypeNode& named) {
  if (named.path.size() == 1) {
    // The resolver lets prelude names through; a constraint or a bare
    // `Tensor` is no type.
    const Symbol* s = m.symbolOf(named.path[0]);
    if (!s || s->kind != SymbolKind::Prelude) return;  // the resolver reports the others
    bool tensor = s->name == "Tensor";
    diagnostics_.emit(DiagnosticKind::WrongSymbolKind, named.span, s->name,
                      tensor ? "the tensor type without its shape" : "a generic constraint",
                      "a type")
        .label(tensor ? "no shape or dtype" : "a constraint")
        .help(tensor ? "write its shape and dtype: `Tensor[N; f32]`"
                     : "a constraint bounds a generic (`T: Float`); write a dtype or a "
                       "generic here");
    return;
  }
  const Symbol* head = m.symbolOf(named.path[0]);
  if (!head || head->kind == SymbolKind::Unresolved) return;  // E1201 from the resolver
  if (head->kind == SymbolKind::Module && named.path.size() == 2) return;
  std::string path;
  for (const ast::Ident& part : named.path) path += (path.empty() ? "" : ".") + part.name;
  diagnostics_.emit(DiagnosticKind::UnknownSymbol, named.span, path)
      .label("not a type")
      .help("a type is a dtype, `Tensor[...]`, or a type, block or struct, possibly `module.Item`");
}

// The dimensions written in an alias body or struct fields, once at the
// declaration (their uses resolve them without reporting).
void Checker::reportNonDimensions(const Module& m, const ast::TypeNode* t) {
  if (!t) return;
  switch (t->kind) {
    case ast::TypeKind::Scalar: return;
    case ast::TypeKind::Tensor:
      for (const ast::ShapeElement& el : static_cast<const ast::TensorTypeNode*>(t)->shape) {
        if (el.isPack()) {
          const Symbol* s = m.symbolOf(el.pack);
          if (!s || s->kind != SymbolKind::Generic || !s->generic || !s->generic->isPack)
            reportNotPack(m, el.pack);
        } else if (!dimOf(m, el.dim)) {
          reportNonDimension(m, el.dim);
        }
      }
      return;
    case ast::TypeKind::Tuple:
      for (const ast::TypeNode* e : static_cast<const ast::TupleTypeNode*>(t)->elements)
        reportNonDimensions(m, e);
      return;
    case ast::TypeKind::Optional:
      reportNonDimensions(m, static_cast<const ast::OptionalTypeNode*>(t)->inner);
      return;
    case ast::TypeKind::Array: {
      auto* array = static_cast<const ast::ArrayTypeNode*>(t);
      reportNonDimensions(m, array->element);
      if (!dimOf(m, array->count)) reportNonDimension(m, array->count);
      return;
    }
    case ast::TypeKind::Named: {
      auto* named = static_cast<const ast::NamedTypeNode*>(t);
      if (!resolveTypeName(m, *named).item) reportUnresolvedType(m, *named);
      return;
    }
  }
}

// Every divisor of a dimension expression must be provably positive (E2205).
void Checker::checkDivisors(const Module& m, const ast::Expr* e, const shape::Facts& facts) {
  auto* b = ast::as<ast::BinaryExpr>(e);
  if (auto* p = ast::as<ast::ParenExpr>(e)) return checkDivisors(m, p->inner, facts);
  if (!b) return;
  checkDivisors(m, b->lhs, facts);
  checkDivisors(m, b->rhs, facts);
  if (b->op != ast::BinaryOp::Div && b->op != ast::BinaryOp::Rem) return;
  auto divisor = dimOf(m, b->rhs);
  if (!divisor) return;
  shape::Proof proof = facts.provablyPositive(*divisor);
  if (proof) return;
  auto d = diagnostics_.emit(DiagnosticKind::DivisorNotPositive, b->rhs->span, divisor->str());
  // A constant divisor is known: a negative one is not "maybe zero".
  std::optional<int64_t> constant = divisor->constantValue();
  d.label(constant ? fmt::format("this divisor is {}", *constant) : std::string("this divisor may be zero"));
  if (!proof.suggestion.empty()) d.help(fmt::format("add `where {}`", proof.suggestion));
}

// An alias body or struct field type has no `where` of its own: its
// divisors and dimensions are checked where it is used, with the written
// generic arguments, under the user's facts (E2205, E2208 at the use, with
// the definition as a secondary label). Types named inside the definition
// are checked at their own uses. False when reported.
bool Checker::checkDefinitionDims(const Module& declModule, const ast::TypeNode* t,
                                  const Substitution& args, const shape::Facts& facts, Span use,
                                  std::string_view item) {
  if (!t) return true;
  switch (t->kind) {
    case ast::TypeKind::Scalar:
    case ast::TypeKind::Named:
      return true;
    case ast::TypeKind::Tuple:
      for (const ast::TypeNode* e : static_cast<const ast::TupleTypeNode*>(t)->elements)
        if (!checkDefinitionDims(declModule, e, args, facts, use, item)) return false;
      return true;
    case ast::TypeKind::Optional:
      return checkDefinitionDims(declModule, static_cast<const ast::OptionalTypeNode*>(t)->inner,
                                 args, facts, use, item);
    case ast::TypeKind::Array:
      return checkDefinitionDims(declModule, static_cast<const ast::ArrayTypeNode*>(t)->element,
                                 args, facts, use, item);
    case ast::TypeKind::Tensor: break;
  }
  std::function<bool(const ast::Expr*)> divisors = [&](const ast::Expr* e) {
    if (auto* p = ast::as<ast::ParenExpr>(e)) return divisors(p->inner);
    auto* b = ast::as<ast::BinaryExpr>(e);
    if (!b) return true;
    if (!divisors(b->lhs) || !divisors(b->rhs)) return false;
    if (b->op != ast::BinaryOp::Div && b->op != ast::BinaryOp::Rem) return true;
    auto divisor = dimOf(declModule, b->rhs);
    if (!divisor) return true;
    shape::DimExpr here = shape::instantiate(*divisor, args.shapes);
    shape::Proof proof = facts.provablyPositive(here);
    if (proof) return true;
    auto d = diagnostics_.emit(DiagnosticKind::DivisorNotPositive, use, here.str());
    d.label(fmt::format("this use of `{}` divides by `{}`, which may be zero", item, here.str()))
        .secondary(b->rhs->span, fmt::format("the division in `{}`", item));
    if (!proof.suggestion.empty()) d.help(fmt::format("add `where {}`", proof.suggestion));
    return false;
  };
  for (const ast::ShapeElement& el : static_cast<const ast::TensorTypeNode*>(t)->shape) {
    if (el.isPack()) continue;
    if (!divisors(el.dim)) return false;
    auto dim = dimOf(declModule, el.dim);
    if (!dim) continue;
    shape::DimExpr here = shape::instantiate(*dim, args.shapes);
    if (!facts.provablyNegative(here)) continue;
    diagnostics_.emit(DiagnosticKind::NegativeDimension, use, here.str())
        .label(fmt::format("this use of `{}` makes a dimension `{}`, negative for every allowed "
                           "binding",
                           item, here.str()))
        .secondary(el.dim->span, fmt::format("the dimension in `{}`", item));
    return false;
  }
  return true;
}

void Checker::addWhere(const Module& m, const std::vector<ast::Constraint>& where,
                       shape::Facts& facts) {
  for (const ast::Constraint& c : where) {
    auto l = dimOf(m, c.lhs);
    auto r = dimOf(m, c.rhs);
    auto rel = relationOf(c.relation);
    // A clause the solver cannot read is ignored: that only proves less.
    if (l && r && rel) facts.add(*l, *rel, *r);
  }
}

static std::vector<WhereClause> whereClauses(Checker& checker, const Module& m,
                                             const std::vector<ast::Constraint>& where) {
  std::vector<WhereClause> out;
  for (const ast::Constraint& c : where) {
    auto l = checker.dimOf(m, c.lhs);
    auto r = checker.dimOf(m, c.rhs);
    auto rel = relationOf(c.relation);
    // A clause the solver cannot read could never be proved at a call: it
    // relates compile-time integers or it is an error (E2123).
    if (!l) checker.reportNonDimension(m, c.lhs);
    else if (!r) checker.reportNonDimension(m, c.rhs);
    if (l && r && rel) out.push_back(WhereClause{*l, *rel, *r, c.span});
  }
  return out;
}

std::optional<shape::DimExpr> Checker::namedDim(const Module& m, const ast::TypeNode* t) {
  auto* named = ast::as<ast::NamedTypeNode>(t);
  if (!named || named->path.empty() || named->hasGenericArgs) return std::nullopt;
  auto constDim = [&](const ast::Item* item, const Module* owner) -> std::optional<shape::DimExpr> {
    auto* c = ast::as<ast::ConstItem>(item);
    if (!c || c->type || !owner) return std::nullopt;
    return dimOf(*owner, c->value);
  };
  // A const named through its module (`cfg.W`).
  if (named->path.size() > 1) {
    ResolvedItem r = resolveTypeName(m, *named);
    return constDim(r.item, r.module);
  }
  const Symbol* s = m.symbolOf(named->path[0]);
  if (!s) return std::nullopt;
  if (s->kind == SymbolKind::Generic && s->generic && !s->generic->isPack &&
      s->generic->constraint == ast::GenericKind::Dim)
    return dimSymbol(*s->generic);
  if (s->kind == SymbolKind::Item) return constDim(s->item, s->module);
  return compileTimeLocal(m, *s);  // `mk<h>()` after `let h = N`
}

// A `let` of a compile-time integer (`let k = min(A, B)`) in the body being
// checked: its value.
std::optional<shape::DimExpr> Checker::compileTimeLocal(const Module& m, const Symbol& s) {
  if (s.kind != SymbolKind::Local || !scope_ || scope_->module != &m) return std::nullopt;
  auto it = scope_->locals.find(keyOf(s.declSpan));
  if (it == scope_->locals.end() ||
      (it->second.type.kind() != TypeKind::CompileInt && it->second.type.kind() != TypeKind::IntLiteral))
    return std::nullopt;
  return it->second.type.compileValue();
}

GenericValue Checker::genericValue(const Module& m, const ast::GenericArg& arg,
                                   const ast::GenericParam& target) {
  if (target.isPack) {
    if (auto* lit = ast::as<ast::ShapeLiteralExpr>(arg.expr)) {
      shape::Shape out;
      for (const ast::ShapeElement& el : lit->elements) {
        if (el.isPack()) {
          const Symbol* s = m.symbolOf(el.pack);
          if (!s || s->kind != SymbolKind::Generic || !s->generic || !s->generic->isPack)
            return std::monostate{};
          out.push_back(packOf(*s->generic));
        } else {
          auto d = dimOf(m, el.dim);
          if (!d || negativeConstant(*d)) return std::monostate{};
          out.push_back(*d);
        }
      }
      return out;
    }
    return std::monostate{};
  }
  if (target.constraint == ast::GenericKind::Dim) {
    if (arg.expr) {
      auto d = dimOf(m, arg.expr);
      if (d && !negativeConstant(*d)) return *d;
      return std::monostate{};
    }
    auto d = namedDim(m, arg.type);
    if (d && !negativeConstant(*d)) return *d;
    return std::monostate{};
  }
  // A dtype generic.
  if (auto* scalar = ast::as<ast::ScalarTypeNode>(arg.type)) return DType::of(scalar->scalar);
  if (auto* named = ast::as<ast::NamedTypeNode>(arg.type)) {
    if (named->path.size() != 1 || named->hasGenericArgs) return std::monostate{};
    const Symbol* s = m.symbolOf(named->path[0]);
    if (s && s->kind == SymbolKind::Generic && s->generic && !s->generic->isPack &&
        s->generic->constraint != ast::GenericKind::Dim)
      return DType::ofGeneric(s->generic);
  }
  return std::monostate{};
}

std::shared_ptr<const BlockInstance> Checker::instantiateBlock(const Module& from,
                                                               const ast::NamedTypeNode& named,
                                                               const ast::BlockItem& b,
                                                               const Module& blockModule) {
  auto instance = std::make_shared<BlockInstance>();
  instance->module = &blockModule;
  instance->block = &b;
  if (!bindGenerics(from, named, b.generics, b.name, blockModule, instance->args)) return nullptr;
  return instance;
}

// The first of `generics` from position `from` on that the default value `v`
// names, if any: bound in order, those have no value yet.
static const ast::GenericParam* laterGenericIn(const GenericValue& v,
                                               const std::vector<ast::GenericParam>& generics,
                                               size_t from) {
  std::vector<shape::Atom> atoms;
  std::vector<shape::SymbolId> packs;
  if (auto* d = std::get_if<shape::DimExpr>(&v)) d->collectAtoms(atoms);
  if (auto* p = std::get_if<shape::Shape>(&v))
    for (const shape::ShapeDim& sd : *p) {
      if (auto* pack = std::get_if<shape::Pack>(&sd)) packs.push_back(pack->id);
      else std::get<shape::DimExpr>(sd).collectAtoms(atoms);
    }
  auto* t = std::get_if<DType>(&v);
  for (size_t j = from; j < generics.size(); ++j) {
    const ast::GenericParam& g = generics[j];
    if (t && t->generic == &g) return &g;
    shape::SymbolId id = symbolIdOf(g);
    if (std::find(packs.begin(), packs.end(), id) != packs.end()) return &g;
    for (const shape::Atom& a : atoms)
      if ((a.kind() == shape::AtomKind::Symbol || a.kind() == shape::AtomKind::PackRank ||
           a.kind() == shape::AtomKind::PackElements) &&
          a.id() == id)
        return &g;
  }
  return nullptr;
}

bool Checker::bindGenerics(const Module& from, const ast::NamedTypeNode& named,
                           const std::vector<ast::GenericParam>& generics, const ast::Ident& name,
                           const Module& declModule, Substitution& out) {
  if (named.genericArgs.size() > generics.size()) {
    diagnostics_.emit(DiagnosticKind::WrongGenericCount, named.span, name.name,
                      generics.size(), named.genericArgs.size())
        .label("wrong number of generic arguments")
        .secondary(name.span, "declared here");
    return false;
  }
  for (size_t i = 0; i < generics.size(); ++i) {
    const ast::GenericParam& g = generics[i];
    GenericValue v;
    if (i < named.genericArgs.size()) {
      v = genericValue(from, named.genericArgs[i], g);
    } else if (g.defaultValue) {
      if (checkGenericDefault(declModule, g, name.name)) return false;  // E2112 at the declaration
      v = genericValue(declModule, *g.defaultValue, g);
      // A default may use the generics before it (`Out: Dim = In`): their
      // values replace them. One after it has no value yet (E2110), and
      // left in place it would name the item's own generic at the use.
      if (auto* d = std::get_if<shape::DimExpr>(&v)) v = shape::instantiate(*d, out.shapes);
      if (auto* p = std::get_if<shape::Shape>(&v)) v = shape::instantiate(*p, out.shapes);
      if (auto* t = std::get_if<DType>(&v)) v = instantiate(*t, out);
      if (const ast::GenericParam* later = laterGenericIn(v, generics, i)) {
        diagnostics_.emit(DiagnosticKind::CannotInfer, named.span, g.name.name, name.name)
            .label(fmt::format("the default of `{}` names `{}`, which has no value yet",
                               g.name.name, later->name.name))
            .secondary(g.defaultValue->span, "default declared here")
            .help(fmt::format("write the generic arguments: `{}<...>`", name.name));
        return false;
      }
    } else {
      diagnostics_.emit(DiagnosticKind::MissingGenericArgument, named.span, g.name.name,
                        name.name)
          .label(fmt::format("`{}` needs a value for `{}`", name.name, g.name.name))
          .secondary(g.name.span, "declared here");
      return false;
    }
    if (std::holds_alternative<std::monostate>(v)) {
      if (i < named.genericArgs.size())
        reportGenericArgument(from, named.genericArgs[i], g, name.name);
      else
        reportGenericArgument(declModule, *g.defaultValue, g, name.name);
      return false;
    }
    shape::SymbolId id = symbolIdOf(g);
    if (auto* d = std::get_if<shape::DimExpr>(&v)) out.shapes.dims[id] = *d;
    if (auto* s = std::get_if<shape::Shape>(&v)) out.shapes.packs[id] = *s;
    if (auto* t = std::get_if<DType>(&v)) {
      if (!satisfies(*t, g.constraint)) {
        Span at = i < named.genericArgs.size() ? named.genericArgs[i].span : named.span;
        diagnostics_.emit(DiagnosticKind::DTypeConstraint, at, t->str(), g.name.name,
                          ast::genericKindName(g.constraint))
            .label(fmt::format("`{}` is not {}", t->str(), ast::genericKindName(g.constraint)))
            .secondary(g.constraintSpan, "constraint declared here");
        return false;
      }
      out.dtypes[&g] = *t;
    }
  }
  return true;
}

size_t Checker::writtenParts(const Module& m, const ast::TypeNode* t) {
  if (!t) return 1;
  if (auto it = writtenParts_.find(t); it != writtenParts_.end()) return it->second;
  size_t parts = 1;
  switch (t->kind) {
    case ast::TypeKind::Scalar:
    case ast::TypeKind::Tensor:
    case ast::TypeKind::Array:  // its element is a block: one part
      break;
    case ast::TypeKind::Tuple:
      for (const ast::TypeNode* e : static_cast<const ast::TupleTypeNode*>(t)->elements)
        parts = std::min(parts + writtenParts(m, e), kMaxTypeParts + 1);
      break;
    case ast::TypeKind::Optional:
      parts = std::min(1 + writtenParts(m, static_cast<const ast::OptionalTypeNode*>(t)->inner),
                       kMaxTypeParts + 1);
      break;
    case ast::TypeKind::Named: {
      // Blocks, structs and enums are one part (a struct's fields are not
      // expanded into its type); an alias is what it stands for.
      ResolvedItem item = resolveTypeName(m, *static_cast<const ast::NamedTypeNode*>(t));
      if (auto* alias = ast::as<ast::TypeAliasItem>(item.item); alias && item.module)
        parts = aliasParts(*item.module, *alias).value_or(1);
      break;
    }
  }
  writtenParts_[t] = parts;
  return parts;
}

std::optional<size_t> Checker::aliasParts(const Module& m, const ast::TypeAliasItem& alias) {
  // One part while it is being counted: only a cycle (E2122, Error) reaches
  // it again.
  auto [it, counting] = aliasParts_.try_emplace(&alias, 1);
  if (!counting) return it->second;
  if (cyclic_.count(&alias)) return 1;
  std::optional<size_t> parts = writtenParts(m, alias.type);
  if (*parts > kMaxTypeParts) {
    diagnostics_.emit(DiagnosticKind::AliasTooLarge, alias.type->span, alias.name.name, kMaxTypeParts)
        .label("every alias in it is expanded in place")
        .help("group the values in a `struct`: its fields are not expanded into the types that "
              "use it");
    parts.reset();
  }
  aliasParts_[&alias] = parts;  // `it` may be invalid: counting inserted others
  return parts;
}

// How many values a type holds once every struct, tuple and optional in it
// is expanded into its fields (what the lowering and an entry's arguments
// carry: one per tensor or scalar, one per optional's presence), at most
// kMaxTypeParts + 1. `tooLarge` is set where a struct in it is past that
// (and reported there).
size_t Checker::expandedLeaves(const Module& m, const ast::TypeNode* t, bool& tooLarge) {
  if (!t) return 1;
  // Once per written type: an alias is walked where each use names it, and
  // aliases doubling a tuple at each of 40 levels were 2^40 walks.
  auto [known, first] = expandedLeaves_.try_emplace(t, 1, false);
  if (!first) {
    tooLarge = tooLarge || known->second.second;
    return known->second.first;
  }
  bool inside = false;
  size_t n = countLeaves(m, t, inside);
  expandedLeaves_[t] = {n, inside};  // `known` may be invalid: counting inserted others
  tooLarge = tooLarge || inside;
  return n;
}

size_t Checker::countLeaves(const Module& m, const ast::TypeNode* t, bool& tooLarge) {
  auto bounded = [](size_t n) { return std::min(n, kMaxTypeParts + 1); };
  switch (t->kind) {
    case ast::TypeKind::Scalar:
    case ast::TypeKind::Tensor:
    case ast::TypeKind::Array:
      return 1;
    case ast::TypeKind::Tuple: {
      size_t n = 0;
      for (const ast::TypeNode* e : static_cast<const ast::TupleTypeNode*>(t)->elements)
        n = bounded(n + expandedLeaves(m, e, tooLarge));
      return n;
    }
    case ast::TypeKind::Optional:
      return bounded(1 + expandedLeaves(m, static_cast<const ast::OptionalTypeNode*>(t)->inner, tooLarge));
    case ast::TypeKind::Named: {
      ResolvedItem item = resolveTypeName(m, *static_cast<const ast::NamedTypeNode*>(t));
      if (!item.module) return 1;
      if (auto* st = ast::as<ast::StructItem>(item.item)) {
        size_t n = structLeaves(*item.module, *st);
        tooLarge = tooLarge || n > kMaxTypeParts;
        return n;
      }
      if (auto* alias = ast::as<ast::TypeAliasItem>(item.item); alias && !cyclic_.count(alias))
        return expandedLeaves(*item.module, alias->type, tooLarge);
      return 1;
    }
  }
  return 1;
}

// A struct's expanded values (expandedLeaves), E2190 past kMaxTypeParts at
// the first struct that passes it: its type is one part where it is
// written, but the lowering carries each field, so a struct doubling at
// each of 40 levels (6 KB of source) grew the build to the memory's end.
size_t Checker::structLeaves(const Module& m, const ast::StructItem& st) {
  // One while being counted: only a cycle (E2122) reaches it again.
  auto [it, counting] = structLeaves_.try_emplace(&st, 1);
  if (!counting || cyclic_.count(&st)) return it->second;
  size_t n = 0;
  bool reported = false;  // at a struct in a field
  for (const ast::Field& f : st.fields) n = std::min(n + expandedLeaves(m, f.type, reported), kMaxTypeParts + 1);
  if (n > kMaxTypeParts && !reported)
    diagnostics_.emit(DiagnosticKind::StructTooLarge, st.name.span, st.name.name, kMaxTypeParts)
        .label("every value of it carries each of its fields, and theirs")
        .help("hold many values of one kind in a tensor, or blocks that repeat in a block array");
  structLeaves_[&st] = n;  // `it` may be invalid: counting inserted others
  return n;
}

bool Checker::checkTypeSize(const Module& m, const ast::TypeNode* t) {
  while (auto* optional = ast::as<ast::OptionalTypeNode>(t)) t = optional->inner;
  if (!ast::as<ast::TupleTypeNode>(t) || writtenParts(m, t) <= kMaxTypeParts) return true;
  diagnostics_.emit(DiagnosticKind::TypeTooLarge, t->span, ast::printType(t), kMaxTypeParts)
      .label("every alias in it is expanded in place")
      .help("group the values in a `struct`: its fields are not expanded into the types that "
            "use it");
  return false;
}

Type Checker::resolveType(const Module& m, const ast::TypeNode* t, const shape::Facts* facts) {
  if (!t) return Type::error();
  switch (t->kind) {
    case ast::TypeKind::Scalar:
      return Type::scalar(DType::of(static_cast<const ast::ScalarTypeNode*>(t)->scalar));
    case ast::TypeKind::Tensor: {
      auto* tensor = static_cast<const ast::TensorTypeNode*>(t);
      shape::Shape shape;
      for (const ast::ShapeElement& el : tensor->shape) {
        if (el.isPack()) {
          const Symbol* s = m.symbolOf(el.pack);
          if (!s || s->kind != SymbolKind::Generic || !s->generic || !s->generic->isPack) {
            if (facts) reportNotPack(m, el.pack);
            return Type::error();
          }
          shape.push_back(packOf(*s->generic));
          continue;
        }
        auto d = dimOf(m, el.dim);
        if (!d) {
          if (facts) reportNonDimension(m, el.dim);
          return Type::error();
        }
        if (facts) {
          checkDivisors(m, el.dim, *facts);
          // Overflow is never proved anything about (DimExpr.h): one error
          // here rather than mismatches of `<overflow>` at every use.
          if (d->overflowed()) {
            diagnostics_.emit(DiagnosticKind::DimensionTooLarge, el.dim->span,
                              ast::printExpr(el.dim))
                .label(fmt::format("it overflows 64-bit integers, or multiplies out to more than "
                                   "{} terms",
                                   shape::kMaxProductTerms));
            return Type::error();
          }
          if (facts->provablyNegative(*d)) {
            diagnostics_.emit(DiagnosticKind::NegativeDimension, el.dim->span, ast::printExpr(el.dim))
                .label(fmt::format("this is `{}`, negative for every allowed binding", d->str()));
            return Type::error();
          }
        }
        shape.push_back(*d);
      }
      Type dtype = resolveType(m, tensor->dtype, facts);
      if (facts && !dtype.isError() && !dtype.isScalar())  // an alias of another type
        diagnostics_.emit(DiagnosticKind::TypeMismatch, tensor->dtype->span, "a dtype", str(dtype))
            .label(fmt::format("this is `{}`", str(dtype)));
      if (!dtype.isScalar()) return Type::error();
      return Type::tensor(std::move(shape), dtype.dtype());
    }
    case ast::TypeKind::Tuple: {
      // Too large to build (E2190): reported where facts are given, like
      // every other problem of a written type; struct fields and const types
      // are reported at their declarations.
      if (writtenParts(m, t) > kMaxTypeParts) {
        if (facts) checkTypeSize(m, t);
        return Type::error();
      }
      std::vector<Type> elements;
      for (const ast::TypeNode* e : static_cast<const ast::TupleTypeNode*>(t)->elements)
        elements.push_back(resolveType(m, e, facts));
      return Type::tuple(std::move(elements));
    }
    case ast::TypeKind::Optional:
      return Type::optional(
          resolveType(m, static_cast<const ast::OptionalTypeNode*>(t)->inner, facts));
    case ast::TypeKind::Array: {
      auto* array = static_cast<const ast::ArrayTypeNode*>(t);
      Type element = resolveType(m, array->element, facts);
      auto count = dimOf(m, array->count);
      if (!count && facts) reportNonDimension(m, array->count);
      if (facts && !element.isError() && element.kind() != TypeKind::Block)
        diagnostics_.emit(DiagnosticKind::ArrayOfNonBlocks, array->element->span, str(element))
            .label(fmt::format("this is `{}`", str(element)))
            .help("structural arrays repeat sub-blocks (`sub layers: [Layer<H, T>; N]`); for "
                  "values use a tensor with one more axis");
      if (element.kind() != TypeKind::Block || !count) return Type::error();
      return Type::blockArray(element.blockInstance(), *count);
    }
    case ast::TypeKind::Named: {
      auto* named = static_cast<const ast::NamedTypeNode*>(t);
      if (named->path.size() == 1) {
        const Symbol* s = m.symbolOf(named->path[0]);
        if (!s) return Type::error();
        if (s->kind == SymbolKind::Generic && s->generic && !s->generic->isPack &&
            s->generic->constraint != ast::GenericKind::Dim)
          return Type::scalar(DType::ofGeneric(s->generic));
      }
      ResolvedItem item = resolveTypeName(m, *named);
      if (!item.item || !item.module) {
        if (facts) reportUnresolvedType(m, *named);
        return Type::error();
      }
      if (item.item->kind == ast::ItemKind::Block) {
        auto instance = instantiateBlock(m, *named, *static_cast<const ast::BlockItem*>(item.item),
                                         *item.module);
        if (!instance) return Type::error();
        return Type::block(std::move(instance));
      }
      if (auto* en = ast::as<ast::EnumItem>(item.item)) {
        // Variants carry no payload, so an enum's generics carry no data: the
        // arguments are checked (E2111, E2112) and do not change the type
        // (`E.A`, which cannot name them, is a value of every `E<...>`).
        if (!en->generics.empty()) {
          Substitution args;
          if (!bindGenerics(m, *named, en->generics, en->name, *item.module, args))
            return Type::error();
        }
        return Type::enumeration(item.module, en);
      }
      if (auto* alias = ast::as<ast::TypeAliasItem>(item.item)) {
        // Transparent: the aliased type with the written generic arguments.
        // A cyclic alias (E2122) or one too large to build (E2190) was
        // reported and stays unknown.
        if (cyclic_.count(alias) || !aliasParts(*item.module, *alias) ||
            !aliasesInProgress_.insert(alias).second)
          return Type::error();
        Substitution args;
        bool bound = bindGenerics(m, *named, alias->generics, alias->name, *item.module, args);
        Type aliased = bound ? resolveType(*item.module, alias->type, nullptr) : Type::error();
        aliasesInProgress_.erase(alias);
        if (bound && facts &&
            !checkDefinitionDims(*item.module, alias->type, args, *facts, named->span,
                                 alias->name.name))
          return Type::error();
        return bound ? instantiate(aliased, args) : Type::error();
      }
      if (auto* st = ast::as<ast::StructItem>(item.item)) {
        if (cyclic_.count(st)) return Type::error();
        Substitution args;
        if (!bindGenerics(m, *named, st->generics, st->name, *item.module, args))
          return Type::error();
        if (facts)
          for (const ast::Field& field : st->fields)
            if (!checkDefinitionDims(*item.module, field.type, args, *facts, named->span,
                                     st->name.name))
              return Type::error();
        return Type::structure(item.module, st, std::move(args));
      }
      return Type::error();
    }
  }
  return Type::error();
}

// Whether generic argument `arg` names something the resolver could not
// find (E1201, reported there).
static bool namesUnresolved(const Module& m, const ast::GenericArg& arg) {
  bool unresolved = false;
  auto check = [&](const ast::Ident& name) {
    const Symbol* s = m.symbolOf(name);
    if (!s || s->kind == SymbolKind::Unresolved) unresolved = true;
  };
  if (auto* named = ast::as<ast::NamedTypeNode>(arg.type)) {
    if (!named->path.empty()) check(named->path[0]);
  }
  if (arg.expr)
    ast::forEachExpr(arg.expr, [&](const ast::Expr* x) {
      if (auto* name = ast::as<ast::NameExpr>(x)) check(name->name);
    });
  return unresolved;
}

// What a generic argument of the wrong kind is, for E2112's label: "a dtype",
// "a dimension", ...
static std::string_view argumentKind(Checker& checker, const Module& m, const ast::GenericArg& arg) {
  if (arg.expr) {
    if (ast::isa<ast::ShapeLiteralExpr>(arg.expr)) return "a shape literal";
    auto d = checker.dimOf(m, arg.expr);
    return !d ? "a value" : d->constantValue() ? "a number" : "a dimension";
  }
  if (ast::isa<ast::ScalarTypeNode>(arg.type)) return "a dtype";
  if (auto* named = ast::as<ast::NamedTypeNode>(arg.type);
      named && named->path.size() == 1 && !named->hasGenericArgs) {
    const Symbol* s = m.symbolOf(named->path[0]);
    if (s && s->kind == SymbolKind::Generic && s->generic) {
      if (s->generic->isPack) return "a shape pack";
      return s->generic->constraint == ast::GenericKind::Dim ? "a dimension" : "a dtype";
    }
    if (checker.namedDim(m, arg.type)) return "a dimension";
    if (s && s->kind == SymbolKind::Item && s->item && s->item->kind == ast::ItemKind::Const)
      return "a value";
  }
  return "a type";
}

bool Checker::checkGenericDefault(const Module& m, const ast::GenericParam& g,
                                  std::string_view item) {
  if (!g.defaultValue) return false;
  if (auto known = badDefaults_.find(&g); known != badDefaults_.end()) return known->second;
  bool& bad = badDefaults_[&g];
  const ast::GenericArg& arg = *g.defaultValue;
  // Unknown names were reported by the resolver; negative dimensions are
  // E2208 (checkDimDefaults).
  if (namesUnresolved(m, arg)) return bad = true;
  if (negativeDimIn(m, arg, g)) return bad = true;
  GenericValue v = genericValue(m, arg, g);
  std::string_view kind = g.isPack ? "Shape" : ast::genericKindName(g.constraint);
  bool dim = !g.isPack && g.constraint == ast::GenericKind::Dim;
  if (auto* t = std::get_if<DType>(&v)) {
    if (satisfies(*t, g.constraint)) return false;
    diagnostics_.emit(DiagnosticKind::DTypeConstraint, arg.span, t->str(), g.name.name, kind)
        .label(fmt::format("`{}` is not {}", t->str(), kind))
        .secondary(g.constraintSpan, "constraint declared here");
    return bad = true;
  }
  if (!std::holds_alternative<std::monostate>(v)) return false;
  // Of the right kind but not readable (`N: Dim = 1.5`, `*S: Shape = [1.5]`):
  // what a use taking it would report, once, here.
  bool rightKind = g.isPack ? ast::isa<ast::ShapeLiteralExpr>(arg.expr)
                   : dim    ? arg.expr && !ast::isa<ast::ShapeLiteralExpr>(arg.expr)
                            : false;
  if (rightKind) {
    reportGenericArgument(m, arg, g, item);
    return bad = true;
  }
  std::string written = ast::printGenericArg(arg);
  std::string generic = fmt::format("{}{}: {}", g.isPack ? "*" : "", g.name.name, kind);
  auto d = diagnostics_.emit(DiagnosticKind::GenericDefaultKind, arg.span, written, generic);
  if (g.isPack)
    d.label(fmt::format("`{}` is not a shape literal", written));
  else
    d.label(fmt::format("`{}` is {}, not {}", written, argumentKind(*this, m, arg),
                        dim ? "a dimension" : "a dtype"));
  d.secondary(g.constraintSpan, "constraint declared here");
  if (g.isPack) {
    d.help(fmt::format("`{}` takes a shape literal as its default (`= [1, 2]`, `= []`)", generic));
  } else if (dim) {
    d.help(fmt::format("`{}` takes a dimension as its default: a number, a `Dim` generic or an "
                       "untyped integer const",
                       generic));
  } else {
    std::string dtype = "a dtype";
    if (g.constraint == ast::GenericKind::Integer) dtype = "an Integer dtype";
    else if (g.constraint != ast::GenericKind::DType) dtype = fmt::format("a {} dtype", kind);
    d.help(fmt::format("`{}` takes {} or a dtype generic as its default (`= {}`)", generic, dtype,
                       g.constraint == ast::GenericKind::Integer ? "i32" : "f32"));
  }
  reportedGenericArgs_.insert(&arg);
  return bad = true;
}

void Checker::checkGenericDefaults(const Module& m, const std::vector<ast::GenericParam>& generics,
                                   std::string_view item) {
  for (const ast::GenericParam& g : generics) checkGenericDefault(m, g, item);
}

// A dim generic's default, or an axis of a shape pack's, that is a negative
// number is no dimension (E2208), reported at the declaration whether or not
// a use takes it.
void Checker::checkDimDefaults(const Module& m, const std::vector<ast::GenericParam>& generics,
                               std::string_view item) {
  for (const ast::GenericParam& g : generics) {
    if (!g.defaultValue) continue;
    if (g.isPack || g.constraint == ast::GenericKind::Dim)
      if (negativeDimIn(m, *g.defaultValue, g)) reportGenericArgument(m, *g.defaultValue, g, item);
  }
}

const CheckedBlock* Checker::block(const ast::BlockItem& b) {
  if (const CheckedBlock* done = out_.blockOf(&b)) return done;
  if (blocksInProgress_.count(&b)) return nullptr;
  const Module* m = moduleOf(b);
  if (!m) return nullptr;
  blocksInProgress_.insert(&b);
  auto checked = std::make_unique<CheckedBlock>();
  checked->module = m;
  checked->item = &b;
  checkGenericDefaults(*m, b.generics, b.name.name);
  checkDimDefaults(*m, b.generics, b.name.name);
  addWhere(*m, b.where, checked->facts);
  // Divisors inside `where` clauses are not required to be positive: the
  // solver's convention (x / 0 == 0) keeps such facts sound, and the
  // reference conformance tests accept `where H % N == 0` without `N > 0`.
  checked->where = whereClauses(*this, *m, b.where);
  for (const ast::GenericParam& g : b.generics) {
    if (!g.defaultValue) continue;
    GenericValue v = genericValue(*m, *g.defaultValue, g);
    if (auto* d = std::get_if<shape::DimExpr>(&v)) checked->defaults.shapes.dims[symbolIdOf(g)] = *d;
    if (auto* s = std::get_if<shape::Shape>(&v)) checked->defaults.shapes.packs[symbolIdOf(g)] = *s;
    if (auto* t = std::get_if<DType>(&v)) checked->defaults.dtypes[&g] = *t;
  }
  uint64_t instances = 1;  // blockInstances_
  bool tooLarge = false;
  for (const ast::Item* item : b.body) {
    auto* member = ast::as<ast::MemberItem>(item);
    if (!member) continue;
    Type t = resolveType(*m, member->type, &checked->facts);
    checked->members[member] = t;
    checkMemberRules(*member, t);
    // A sub-block's `where` must hold for the arguments it is given (E2206).
    Type inner = t.kind() == TypeKind::Optional ? t.optionalInner() : t;
    if (inner.kind() != TypeKind::Block && inner.kind() != TypeKind::BlockArray) continue;
    const BlockInstance& instance = *inner.blockInstance();
    // A block being checked further up this chain of subs contains itself:
    // its parameters would have no finite set of paths (spec 7.5, 9.5), and
    // every walk over them (the manifest, the lowering) would not end.
    if (blocksInProgress_.count(instance.block)) {
      auto d = diagnostics_.emit(DiagnosticKind::InvalidMemberType, member->type->span,
                                 ast::memberKindKeyword(member->member), member->name.name);
      d.label(instance.block == &b ? fmt::format("`{}` contains itself here", b.name.name)
                                   : fmt::format("`{}` contains `{}`, which contains `{}`", b.name.name,
                                                 instance.block->name.name, b.name.name));
      d.note("a block cannot contain itself, directly or through other blocks, optional or in an array: its "
             "parameters would have no finite set of paths");
      continue;
    }
    // Each level is checked (and later walked: the manifest, the lowering's
    // state) by a call inside the level above: 8000 levels overflowed the
    // stack.
    if (blocksInProgress_.size() >= kMaxBlockDepth) {
      diagnostics_.emit(DiagnosticKind::BlockTooDeep, member->type->span, b.name.name, kMaxBlockDepth)
          .label(fmt::format("`{}` is the {}th block of a chain of subs here", instance.block->name.name,
                             blocksInProgress_.size() + 1))
          .help("blocks that repeat can be one array (`sub layers: [Layer<H>; 2]`)");
      tooLarge = true;
      continue;
    }
    const CheckedBlock* sub = block(*instance.block);
    if (!sub) continue;
    if (auto held = blockInstances_.find(instance.block); held != blockInstances_.end() && !tooLarge) {
      instances += held->second;
      if (held->second > kMaxBlockInstances) {
        tooLarge = true;  // reported at that block
      } else if (instances > kMaxBlockInstances) {
        tooLarge = true;
        diagnostics_.emit(DiagnosticKind::BlockTooLarge, b.name.span, b.name.name, kMaxBlockInstances)
            .label("every walk over the model's parameters visits each")
            .secondary(member->type->span, fmt::format("this `sub` holds {} of them", held->second))
            .help("each `sub` is an instance of its own; blocks that repeat can be one array (`sub layers: "
                  "[Layer<H>; 2]`), whose elements share one body");
      }
    }
    for (const WhereClause& w : sub->where) {
      shape::DimExpr l = shape::instantiate(w.lhs, instance.args.shapes);
      shape::DimExpr r = shape::instantiate(w.rhs, instance.args.shapes);
      shape::Proof proof = checked->facts.provablyHolds(l, w.relation, r);
      if (proof) continue;
      UnprovenClause clause = spellUnproven(w, l, r, instance.args.shapes);
      auto d = diagnostics_.emit(DiagnosticKind::ConstraintUnsatisfied, member->type->span, clause.clause,
                                 instance.block->name.name);
      d.label(fmt::format("`{}` requires `{}`", str(instance), clause.clause))
          .secondary(w.span, "required by this `where` clause");
      if (!clause.folded.empty())
        d.note(fmt::format("with {} it is `{}`, which is false", clause.values, clause.folded));
      if (!proof.suggestion.empty())
        d.help(fmt::format("add `{}` to the `where` clause of `{}`", proof.suggestion, b.name.name));
    }
  }
  blocksInProgress_.erase(&b);
  blockInstances_[&b] = tooLarge ? kMaxBlockInstances + 1 : instances;
  const CheckedBlock* result = checked.get();
  out_.blocks_[&b] = std::move(checked);
  return result;
}

// What a member may be (spec chapter 9): `state` is never optional, only an
// optional `sub` or `param` may be `= none` and nothing else has a value in
// source, a sub-block array is never optional.
void Checker::checkMemberRules(const ast::MemberItem& member, const Type& t) {
  std::string_view kind = ast::memberKindKeyword(member.member);
  bool optional = member.type && member.type->kind == ast::TypeKind::Optional;
  if (member.member == ast::MemberKind::State && optional) {
    diagnostics_.emit(DiagnosticKind::InvalidMemberType, member.type->span, kind, member.name.name)
        .label("`state` cannot be optional")
        .help("state starts at zeros and always exists; drop the `?`");
    return;
  }
  if (t.kind() == TypeKind::Optional && t.optionalInner().kind() == TypeKind::BlockArray) {
    diagnostics_.emit(DiagnosticKind::InvalidMemberType, member.type->span, kind, member.name.name)
        .label("a sub-block array cannot be optional");
    return;
  }
  // What a member can hold: a tensor (a scalar is one) for `param`,
  // `buffer` and `state`; a block or an array of blocks for `sub`.
  const Type& held = t.kind() == TypeKind::Optional ? t.optionalInner() : t;
  bool isSub = member.member == ast::MemberKind::Sub;
  bool fits = isSub ? held.kind() == TypeKind::Block || held.kind() == TypeKind::BlockArray
                    : held.isTensor();
  if (!fits && !containsError(t)) {
    diagnostics_.emit(DiagnosticKind::InvalidMemberType, member.type->span, kind, member.name.name)
        .label(fmt::format("this is `{}`", str(t)))
        .help(isSub ? "a `sub` holds a block (`sub norm: RMSNorm<H, T>`) or an array of blocks "
                      "(`sub layers: [Layer<H, T>; N]`)"
                    : fmt::format("a `{}` holds a tensor or a scalar (`Tensor[N; f32]`, `f32`); "
                                  "other values are computed by methods",
                                  kind));
    return;
  }
  // A value other than `none` was rejected by the resolver (E4102).
  if (!member.initializer) return;
  bool isNone = ast::isa<ast::NoneLiteralExpr>(member.initializer);
  if (isNone && !optional &&
      (member.member == ast::MemberKind::Sub || member.member == ast::MemberKind::Param)) {
    diagnostics_.emit(DiagnosticKind::InvalidMemberType, member.initializer->span, kind, member.name.name)
        .label("`= none` needs an optional type")
        .help("make the type optional with `?`, or remove `= none`");
  }
}

const Signature* Checker::signature(const ast::FunctionItem& f) {
  if (const Signature* done = out_.signatureOf(&f)) return done;
  if (signaturesInProgress_.count(&f)) return nullptr;
  const Module* m = moduleOf(f);
  if (!m) return nullptr;
  signaturesInProgress_.insert(&f);
  auto sig = std::make_unique<Signature>();
  sig->module = m;
  sig->item = &f;
  sig->owner = ownerOf(f);
  if (sig->owner) {
    for (const ast::GenericParam& g : sig->owner->generics) sig->generics.push_back(&g);
    if (const CheckedBlock* b = block(*sig->owner)) sig->facts = b->facts;
  }
  for (const ast::GenericParam& g : f.generics) sig->generics.push_back(&g);
  checkGenericDefaults(*m, f.generics, f.name.name);
  checkDimDefaults(*m, f.generics, f.name.name);
  addWhere(*m, f.where, sig->facts);
  sig->where = whereClauses(*this, *m, f.where);  // divisors: see block()
  for (const ast::Param& p : f.params) {
    Type t = resolveType(*m, p.type, &sig->facts);
    if (containsBlock(t)) {
      reportBlockValue(p.type->span, t);
      t = Type::error();
    }
    if (containsError(t)) sig->complete = false;
    sig->params.push_back(std::move(t));
  }
  if (f.returnType) {
    sig->result = resolveType(*m, f.returnType, &sig->facts);
    if (containsBlock(sig->result)) {
      reportBlockValue(f.returnType->span, sig->result);
      sig->result = Type::error();
    }
    if (containsError(sig->result)) sig->complete = false;
  } else if (f.function == ast::FunctionKind::Kernel) {
    sig->result = kernelResultType(f, *m, sig->facts);  // CheckKernel.cpp
    if (containsError(sig->result)) sig->complete = false;
  } else {
    sig->result = Type::unit();
  }
  signaturesInProgress_.erase(&f);
  const Signature* result = sig.get();
  out_.signatures_[&f] = std::move(sig);
  return result;
}

}  // namespace linnet::check
