// Expressions (spec chapter 5): literals with contextual typing, names,
// unary and binary operators without implicit dtype promotion and with
// provable right-aligned broadcasting, `if`, `match` on optionals, tuples,
// `some`/`none`, member access on sub-blocks. Calls are in CheckCall.cpp,
// indexing in CheckIndex.cpp. Each expression's type is recorded.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

#include "compiler/check/CheckerImpl.h"
#include "compiler/parse/ASTPrinter.h"

namespace linnet::check {

namespace {

// `e` with each division by a zero constant replaced by its value as code
// computes it (`x / 0 == -1`, `x % 0 == x`: docs/lowering.md), so that a
// compile-time integer that overflows only through one (`INT64_MIN + 5 / 0`)
// is seen to (check passed it, build stopped at "a dimension that overflows").
shape::DimExpr withTotalDivision(const shape::DimExpr& e) {
  if (e.overflowed() || e.isConstant()) return e;
  std::vector<shape::Atom> atoms;
  e.collectAtoms(atoms);
  if (std::none_of(atoms.begin(), atoms.end(), [](const shape::Atom& a) {
        return (a.kind() == shape::AtomKind::FloorDiv || a.kind() == shape::AtomKind::Mod) &&
               a.operands()[1].constantValue() == 0;
      }))
    return e;
  std::function<shape::DimExpr(const shape::Atom&)> atom = [&](const shape::Atom& a) -> shape::DimExpr {
    switch (a.kind()) {
      case shape::AtomKind::FloorDiv:
      case shape::AtomKind::Mod: {
        shape::DimExpr n = withTotalDivision(a.operands()[0]);
        shape::DimExpr d = withTotalDivision(a.operands()[1]);
        if (d.constantValue() == 0) return a.kind() == shape::AtomKind::Mod ? n : shape::DimExpr::constant(-1);
        return a.kind() == shape::AtomKind::Mod ? shape::DimExpr::mod(n, d) : shape::DimExpr::floorDiv(n, d);
      }
      case shape::AtomKind::Min:
      case shape::AtomKind::Max: {
        std::vector<shape::DimExpr> operands;
        for (const shape::DimExpr& o : a.operands()) operands.push_back(withTotalDivision(o));
        return a.kind() == shape::AtomKind::Min ? shape::DimExpr::minOf(operands) : shape::DimExpr::maxOf(operands);
      }
      default: return shape::DimExpr::atom(a);
    }
  };
  shape::DimExpr out = shape::DimExpr::constant(e.constantTerm());
  for (const shape::Term& t : e.terms()) {
    shape::DimExpr product = shape::DimExpr::constant(t.coefficient);
    for (const shape::Factor& f : t.monomial) {
      shape::DimExpr value = atom(f.atom);
      for (uint32_t k = 0; k < f.power; ++k) product = product * value;
    }
    out = out + product;
  }
  return out;
}

}  // namespace

const shape::Facts& Checker::facts() const {
  return scope_ && scope_->signature ? scope_->signature->facts : emptyFacts_;
}

Type Checker::record(const ast::Expr* e, Type t) {
  if (t.isError() && !unexplainedError_ && !diagnostics_.hasErrors()) unexplainedError_ = e;
  if (scope_ && scope_->out) scope_->out->exprTypes[e] = t;
  return t;
}

void Checker::recordNonValue(const ast::Expr* e) {
  if (scope_ && scope_->out) scope_->out->exprTypes[e] = Type::error();
}

bool Checker::sameShape(const shape::Shape& a, const shape::Shape& b) const {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto* pa = std::get_if<shape::Pack>(&a[i]);
    auto* pb = std::get_if<shape::Pack>(&b[i]);
    if (pa || pb) {
      if (!pa || !pb || pa->id != pb->id) return false;
      continue;
    }
    if (!facts().provablyEqual(std::get<shape::DimExpr>(a[i]), std::get<shape::DimExpr>(b[i])))
      return false;
  }
  return true;
}

bool Checker::sameType(const Type& a, const Type& b) const {
  if (containsError(a) || containsError(b)) return true;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case TypeKind::Tensor: return a.dtype() == b.dtype() && sameShape(a.shape(), b.shape());
    case TypeKind::Tuple:
      if (a.elements().size() != b.elements().size()) return false;
      for (size_t i = 0; i < a.elements().size(); ++i)
        if (!sameType(a.elements()[i], b.elements()[i])) return false;
      return true;
    case TypeKind::Optional: return sameType(a.optionalInner(), b.optionalInner());
    case TypeKind::Enum: return a.enumItem() == b.enumItem();
    case TypeKind::Struct: {
      if (a.structItem() != b.structItem()) return false;
      const Substitution& x = a.structArgs();
      const Substitution& y = b.structArgs();
      for (const ast::GenericParam& g : a.structItem()->generics) {
        shape::SymbolId id = symbolIdOf(g);
        if (g.isPack) {
          auto i = x.shapes.packs.find(id), j = y.shapes.packs.find(id);
          if (i == x.shapes.packs.end() || j == y.shapes.packs.end()) continue;
          if (!sameShape(i->second, j->second)) return false;
        } else if (g.constraint == ast::GenericKind::Dim) {
          auto i = x.shapes.dims.find(id), j = y.shapes.dims.find(id);
          if (i == x.shapes.dims.end() || j == y.shapes.dims.end()) continue;
          if (!facts().provablyEqual(i->second, j->second)) return false;
        } else {
          auto i = x.dtypes.find(&g), j = y.dtypes.find(&g);
          if (i == x.dtypes.end() || j == y.dtypes.end()) continue;
          if (!(i->second == j->second)) return false;
        }
      }
      return true;
    }
    case TypeKind::Error:
    case TypeKind::Unit:
    case TypeKind::IntLiteral:
    case TypeKind::FloatLiteral:
    case TypeKind::CompileInt:
    case TypeKind::None:
    case TypeKind::Block:
    case TypeKind::BlockArray:
    case TypeKind::Function:
    case TypeKind::Module:
      // Not compared yet: never a false error.
      return true;
  }
  return true;
}

// `l op r` on untyped integers that do not fold to one compile-time value
// (an operand joins branches): the range of values it may have, never a
// dimension. Unknown (unchecked, as a symbol is) past what i64 holds or for
// a divisor that is not one non-zero constant.
static Type foldRange(ast::BinaryOp op, const Type& l, const Type& r) {
  auto x = integerValues(l), y = integerValues(r);
  if (!x || !y) return Type::intLiteralRange(0, 0);
  using Wide = __int128;
  std::vector<Wide> ends;
  auto [a, b] = *x;
  auto [c, d] = *y;
  switch (op) {
    case ast::BinaryOp::Add: ends = {Wide(a) + c, Wide(b) + d}; break;
    case ast::BinaryOp::Sub: ends = {Wide(a) - d, Wide(b) - c}; break;
    case ast::BinaryOp::Mul: ends = {Wide(a) * c, Wide(a) * d, Wide(b) * c, Wide(b) * d}; break;
    case ast::BinaryOp::Div:
      if (c != d || c == 0) return Type::intLiteralRange(0, 0);
      ends = {Wide(a) / c, Wide(b) / c};  // truncation is monotonic
      break;
    case ast::BinaryOp::Rem: {
      if (c != d || c == 0) return Type::intLiteralRange(0, 0);
      // Smaller than the divisor, with the dividend's sign.
      Wide m = c < 0 ? -Wide(c) - 1 : Wide(c) - 1;
      ends = {a >= 0 ? Wide(0) : std::max(Wide(a), -m), b <= 0 ? Wide(0) : std::min(Wide(b), m)};
      break;
    }
    case ast::BinaryOp::Or:
    case ast::BinaryOp::And:
    case ast::BinaryOp::Eq:
    case ast::BinaryOp::Ne:
    case ast::BinaryOp::Lt:
    case ast::BinaryOp::Le:
    case ast::BinaryOp::Gt:
    case ast::BinaryOp::Ge:
    case ast::BinaryOp::BitOr:
    case ast::BinaryOp::BitXor:
    case ast::BinaryOp::BitAnd:
      return Type::intLiteralRange(0, 0);
  }
  Wide lo = *std::min_element(ends.begin(), ends.end());
  Wide hi = *std::max_element(ends.begin(), ends.end());
  if (lo < INT64_MIN || hi > INT64_MAX) return Type::intLiteralRange(0, 0);
  return Type::intLiteralRange(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
}

static std::pair<int64_t, int64_t> integerRange(ast::ScalarType s) {
  using S = ast::ScalarType;
  auto range = [](auto min, auto max) {
    return std::pair{static_cast<int64_t>(min), static_cast<int64_t>(max)};
  };
  switch (s) {
    case S::I8: return range(INT8_MIN, INT8_MAX);
    case S::I16: return range(INT16_MIN, INT16_MAX);
    case S::I32: return range(INT32_MIN, INT32_MAX);
    case S::U8: return range(0, UINT8_MAX);
    case S::U16: return range(0, UINT16_MAX);
    case S::U32: return range(0, UINT32_MAX);
    case S::U64: return range(0, INT64_MAX);  // untyped integers are i64 values
    case S::I64:
    case S::Bool:
    case S::F16:
    case S::BF16:
    case S::F32:
    case S::F64:
      break;
  }
  return range(INT64_MIN, INT64_MAX);
}

// The largest finite value of a float dtype, and the magnitude from which a
// value rounds to infinity instead (that value plus half its last place: a
// tie rounds to the even significand, which is infinity's).
static std::pair<double, double> floatLimits(ast::ScalarType s) {
  using S = ast::ScalarType;
  switch (s) {
    case S::F16: return {65504.0, 65520.0};
    case S::BF16: return {std::ldexp(1.0, 128) - std::ldexp(1.0, 120),
                          std::ldexp(1.0, 128) - std::ldexp(1.0, 119)};
    case S::F32: return {std::ldexp(1.0, 128) - std::ldexp(1.0, 104),
                         std::ldexp(1.0, 128) - std::ldexp(1.0, 103)};
    case S::F64:
    case S::I8:
    case S::I16:
    case S::I32:
    case S::I64:
    case S::U8:
    case S::U16:
    case S::U32:
    case S::U64:
    case S::Bool:
      break;
  }
  // A finite double is an f64 (the lexer rejects literals that are not).
  return {std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity()};
}

// The largest finite value of a float dtype as E2105 prints it (shortest
// form: `65504`, `3.4028235e+38`).
static std::string largestText(ast::ScalarType s) {
  double largest = floatLimits(s).first;
  if (s == ast::ScalarType::F64) return fmt::format("{}", largest);
  return fmt::format("{}", static_cast<float>(largest));
}

// How a float literal is quoted in E2105: as written when `e` is one.
static std::string floatSpelling(const ast::Expr* e, double magnitude) {
  const ast::Expr* x = e;
  while (auto* p = ast::as<ast::ParenExpr>(x)) x = p->inner;
  bool negated = false;
  if (auto* u = ast::as<ast::UnaryExpr>(x)) {
    negated = u->op == ast::UnaryOp::Negate;
    x = u->operand;
  }
  auto* literal = ast::as<ast::FloatLiteralExpr>(x);
  if (literal && !literal->spelling.empty()) return (negated ? "-" : "") + literal->spelling;
  if (literal) return ast::printExpr(e);
  return fmt::format("{}", magnitude);
}

// Every adoption of a dtype by an untyped number goes through here (spec
// §1.7): a literal converts only to a dtype that represents its value. A
// dtype generic stands for dtypes not known here, so only its class is
// checked.
bool Checker::literalFits(const Type& literal, const DType& d, const ast::Expr* e, Span span) {
  switch (literal.kind()) {
    case TypeKind::FloatLiteral: {
      if (!isFloat(d)) {
        diagnostics_.emit(DiagnosticKind::FloatLiteralDType, span, d.str())
            .label(fmt::format("this is a float, the context needs `{}`", d.str()))
            .help(isInteger(d) ? "write an integer, or `cast` the other operand"
                               : "write an explicit `cast`");
        return false;
      }
      if (d.isGeneric()) return true;
      if (literal.floatMagnitude() < floatLimits(d.scalar).second) return true;
      diagnostics_.emit(DiagnosticKind::LiteralOutOfRange, span,
                        floatSpelling(e, literal.floatMagnitude()), d.str())
          .label(fmt::format("the largest `{}` is {}", d.str(), largestText(d.scalar)))
          .help("a float literal must not round to infinity in its dtype");
      return false;
    }
    case TypeKind::IntLiteral:
    case TypeKind::CompileInt: {
      if (!isNumeric(d)) {
        diagnostics_.emit(DiagnosticKind::IntegerDType, span, d.str())
            .label(fmt::format("this is an integer, the context needs `{}`", d.str()))
            .help(isBool(d) ? "write `true` or `false`" : "write an explicit `cast`");
        return false;
      }
      auto values = integerValues(literal);
      if (d.isGeneric() || !values) return true;
      auto [lo, hi] = *values;
      if (isFloat(d)) {
        // Every i64 is finite in bf16, f32 and f64; f16 stops at 65504.
        int64_t far = -static_cast<double>(lo) > static_cast<double>(hi) ? lo : hi;
        if (std::abs(static_cast<double>(far)) < floatLimits(d.scalar).second) return true;
        diagnostics_.emit(DiagnosticKind::LiteralOutOfRange, span, std::to_string(far), d.str())
            .label(fmt::format("the largest `{}` is {}", d.str(), largestText(d.scalar)));
        return false;
      }
      auto [min, max] = integerRange(d.scalar);
      if (hi > max) {
        diagnostics_.emit(DiagnosticKind::LiteralOutOfRange, span, std::to_string(hi), d.str())
            .label(fmt::format("the largest `{}` is {}", d.str(), max));
        return false;
      }
      if (lo < min) {
        diagnostics_.emit(DiagnosticKind::LiteralOutOfRange, span, std::to_string(lo), d.str())
            .label(fmt::format("the smallest `{}` is {}", d.str(), min));
        return false;
      }
      return true;
    }
    case TypeKind::Error:
    case TypeKind::Unit:
    case TypeKind::Tensor:
    case TypeKind::None:
    case TypeKind::Tuple:
    case TypeKind::Optional:
    case TypeKind::Block:
    case TypeKind::BlockArray:
    case TypeKind::Function:
    case TypeKind::Module:
    case TypeKind::Enum:
    case TypeKind::Struct:
      return true;
  }
  return true;
}

Type Checker::adoptExpected(const Type& t, const Type* expected, const ast::Expr* e) {
  if (!expected || !t.isUntypedNumber() || !expected->isScalar()) return t;
  return literalFits(t, expected->dtype(), e, e->span) ? *expected : Type::error();
}

Type Checker::concretize(const Type& t) {
  switch (t.kind()) {
    case TypeKind::IntLiteral: return Type::scalar(DType::of(ast::ScalarType::I64));
    case TypeKind::FloatLiteral: return Type::scalar(DType::of(ast::ScalarType::F64));
    case TypeKind::Tuple: {
      std::vector<Type> elements;
      for (const Type& e : t.elements()) elements.push_back(concretize(e));
      return Type::tuple(std::move(elements));
    }
    case TypeKind::Optional: return Type::optional(concretize(t.optionalInner()));
    case TypeKind::Error:
    case TypeKind::Unit:
    case TypeKind::Tensor:
    case TypeKind::CompileInt:
    case TypeKind::None:
    case TypeKind::Block:
    case TypeKind::BlockArray:
    case TypeKind::Function:
    case TypeKind::Module:
    case TypeKind::Enum:
    case TypeKind::Struct:
      return t;
  }
  return t;
}

static const ast::Expr* unparenthesized(const ast::Expr* e) {
  while (auto* p = ast::as<ast::ParenExpr>(e)) e = p->inner;
  return e;
}

bool Checker::literalsCanTake(const Type& actual, const Type& expected) const {
  if (actual.isUntypedNumber()) return expected.isScalar();
  if (actual.kind() == TypeKind::None) return expected.kind() == TypeKind::Optional;
  if (actual.kind() == TypeKind::Optional && expected.kind() == TypeKind::Optional)
    return literalsCanTake(actual.optionalInner(), expected.optionalInner());
  if (actual.kind() == TypeKind::Tuple && expected.kind() == TypeKind::Tuple) {
    if (actual.elements().size() != expected.elements().size()) return false;
    for (size_t i = 0; i < actual.elements().size(); ++i)
      if (!literalsCanTake(actual.elements()[i], expected.elements()[i])) return false;
    return true;
  }
  return actual.kind() == expected.kind() && sameType(actual, expected);
}

bool Checker::requireType(const Type& actual, const Type& expected, Span span, Span declSpan,
                          std::string_view declLabel, const ast::Expr* valueExpr,
                          DiagnosticKind shapeKind) {
  if (containsError(actual) || containsError(expected)) return true;
  auto mismatch = [&](DiagnosticKind kind, std::string label) {
    auto d = diagnostics_.emit(kind, span, str(expected), str(actual));
    d.label(std::move(label));
    if (declSpan.valid()) d.secondary(declSpan, std::string(declLabel));
    return false;
  };
  if (expected.kind() == TypeKind::Optional) {
    if (actual.kind() == TypeKind::None) return true;
    if (actual.kind() == TypeKind::Optional) {
      auto* some = ast::as<ast::SomeExpr>(unparenthesized(valueExpr));
      return requireType(actual.optionalInner(), expected.optionalInner(),
                         some ? some->value->span : span, declSpan, declLabel,
                         some ? some->value : nullptr, shapeKind);
    }
    if (sameType(actual, expected.optionalInner()) && actual.kind() == TypeKind::Tensor) {
      auto d = diagnostics_.emit(DiagnosticKind::TypeMismatch, span, str(expected), str(actual));
      d.label("a plain value where an optional is expected");
      if (declSpan.valid()) d.secondary(declSpan, std::string(declLabel));
      d.help("wrap it: `some(...)`");
      return false;
    }
    return mismatch(DiagnosticKind::TypeMismatch, fmt::format("expected `{}`", str(expected)));
  }
  if (actual.kind() == TypeKind::None) {
    diagnostics_.emit(DiagnosticKind::NoneWithoutOptional, span, str(expected))
        .label("`none` needs an optional type")
        .secondary(declSpan, std::string(declLabel));
    return false;
  }
  if (expected.kind() == TypeKind::Tensor && actual.isUntypedNumber()) {
    if (!expected.isScalar())
      return mismatch(DiagnosticKind::TypeMismatch,
                      fmt::format("a scalar number where `{}` is expected", str(expected)));
    return literalFits(actual, expected.dtype(), valueExpr, span);
  }
  if (expected.kind() == TypeKind::Tensor && actual.kind() == TypeKind::Tensor) {
    bool shapes = sameShape(actual.shape(), expected.shape());
    if (!shapes) {
      auto d = diagnostics_.emit(shapeKind, span, str(expected), str(actual));
      d.label(fmt::format("this is `{}`", str(actual)));
      if (declSpan.valid()) d.secondary(declSpan, std::string(declLabel));
      // The first axis pair that is not provably equal, and the clause that
      // would make it so when the solver has one.
      const shape::Shape& a = actual.shape();
      const shape::Shape& x = expected.shape();
      for (size_t i = 0; a.size() == x.size() && i < a.size(); ++i) {
        auto* ad = std::get_if<shape::DimExpr>(&a[i]);
        auto* xd = std::get_if<shape::DimExpr>(&x[i]);
        if (!ad || !xd) continue;
        shape::Proof p = facts().provablyEqual(*ad, *xd);
        if (p) continue;
        d.note(fmt::format("axis {}: `{}` is not provably equal to `{}`", i, ad->str(), xd->str()));
        // Suggesting the equality itself (`3 * H == H`) would mislead: a
        // shape mismatch is fixed in the code. Divisibility or positivity
        // clauses are real missing facts.
        bool justTheEquality = p.suggestion == fmt::format("{} == {}", ad->str(), xd->str()) ||
                               p.suggestion == fmt::format("{} == {}", xd->str(), ad->str());
        if (!p.suggestion.empty() && !justTheEquality)
          d.help(fmt::format("add `where {}`", p.suggestion));
        break;
      }
      return false;
    }
    if (!(actual.dtype() == expected.dtype()))
      return mismatch(DiagnosticKind::TypeMismatch,
                      fmt::format("this has dtype `{}`", actual.dtype().str()));
    return true;
  }
  if (expected.kind() == TypeKind::Tuple && actual.kind() == TypeKind::Tuple &&
      expected.elements().size() == actual.elements().size()) {
    // Report the first element that differs, with the whole types in the
    // message; a literal that cannot take its type is reported at itself.
    auto* tuple = ast::as<ast::TupleExpr>(unparenthesized(valueExpr));
    if (tuple && tuple->elements.size() != expected.elements().size()) tuple = nullptr;
    for (size_t i = 0; i < expected.elements().size(); ++i) {
      const Type& a = actual.elements()[i];
      const Type& x = expected.elements()[i];
      const ast::Expr* part = tuple ? tuple->elements[i] : nullptr;
      if (a.isUntypedNumber() && x.isScalar()) {
        if (!literalFits(a, x.dtype(), part, part ? part->span : span)) return false;
        continue;
      }
      // Literals deeper inside (a tuple or an optional in the tuple) take
      // their types from the expected element the same way (spec §1.7).
      if (!sameType(a, x) && literalsCanTake(a, x)) {
        if (!requireType(a, x, part ? part->span : span, declSpan, declLabel, part, shapeKind))
          return false;
        continue;
      }
      if (!sameType(a, x)) {
        bool shapeOnly = a.isTensor() && x.isTensor() && a.dtype() == x.dtype();
        return mismatch(shapeOnly ? shapeKind : DiagnosticKind::TypeMismatch,
                        fmt::format("element {} is `{}`, expected `{}`", i, str(a), str(x)));
      }
    }
    return true;
  }
  if (expected.kind() == TypeKind::Unit || actual.kind() == TypeKind::Unit ||
      expected.kind() != actual.kind())
    return mismatch(DiagnosticKind::TypeMismatch, fmt::format("this is `{}`", str(actual)));
  if (!sameType(actual, expected))
    return mismatch(DiagnosticKind::TypeMismatch, fmt::format("this is `{}`", str(actual)));
  return true;
}

// The parts of `t` (each tuple and optional counts, and what it holds),
// at most `cap + 1`: the walk stops there.
static size_t partsOf(const Type& t, size_t cap) {
  switch (t.kind()) {
    case TypeKind::Tuple:
    case TypeKind::Optional: {
      size_t parts = 1;
      for (const Type& e : t.elements()) {
        parts += partsOf(e, cap);
        if (parts > cap) return cap + 1;
      }
      return parts;
    }
    case TypeKind::Error:
    case TypeKind::Unit:
    case TypeKind::Tensor:
    case TypeKind::IntLiteral:
    case TypeKind::FloatLiteral:
    case TypeKind::CompileInt:
    case TypeKind::None:
    case TypeKind::Block:
    case TypeKind::BlockArray:
    case TypeKind::Function:
    case TypeKind::Module:
    case TypeKind::Enum:
    case TypeKind::Struct:  // its fields are not part of its type
      return 1;
  }
  return 1;
}

Type Checker::checkExpr(const ast::Expr* e, const Type* expected) {
  if (!e) return Type::error();
  switch (e->kind) {
    case ast::ExprKind::IntLiteral:
      return record(e, Type::intLiteral(
                           static_cast<int64_t>(static_cast<const ast::IntLiteralExpr*>(e)->value)));
    case ast::ExprKind::FloatLiteral:
      return record(e, Type::floatLiteral(
                           std::abs(static_cast<const ast::FloatLiteralExpr*>(e)->value)));
    case ast::ExprKind::StringLiteral:
      // Strings name things (weights); no expression has a string type.
      diagnostics_.emit(DiagnosticKind::StringValue, e->span)
          .label("strings have no type in expressions");
      return record(e, Type::error());
    case ast::ExprKind::BoolLiteral: return record(e, Type::scalar(DType::of(ast::ScalarType::Bool)));
    case ast::ExprKind::NoneLiteral:
      if (expected && expected->kind() == TypeKind::Optional) return record(e, *expected);
      return record(e, Type::none());
    case ast::ExprKind::Name: return record(e, checkName(static_cast<const ast::NameExpr*>(e)));
    case ast::ExprKind::Some: {
      const Type* inner = expected && expected->kind() == TypeKind::Optional
                              ? &expected->optionalInner() : nullptr;
      auto* value = static_cast<const ast::SomeExpr*>(e)->value;
      Type t = adoptExpected(checkExpr(value, inner), inner, value);
      if (t.isError()) return record(e, t);
      return record(e, Type::optional(t));
    }
    case ast::ExprKind::Unary: return record(e, checkUnary(static_cast<const ast::UnaryExpr*>(e)));
    case ast::ExprKind::Binary:
      return record(e, checkBinary(static_cast<const ast::BinaryExpr*>(e)));
    case ast::ExprKind::Call:
      return record(e, checkCall(static_cast<const ast::CallExpr*>(e), expected));
    case ast::ExprKind::Index:
      if (notation_) return record(e, checkAccess(static_cast<const ast::IndexExpr*>(e)));
      return record(e, checkIndex(static_cast<const ast::IndexExpr*>(e)));
    case ast::ExprKind::Member:
      return record(e, checkMember(static_cast<const ast::MemberExpr*>(e)));
    case ast::ExprKind::Tuple: {
      std::vector<Type> elements;
      auto* tuple = static_cast<const ast::TupleExpr*>(e);
      for (size_t i = 0; i < tuple->elements.size(); ++i) {
        const Type* x = expected && expected->kind() == TypeKind::Tuple &&
                                expected->elements().size() == tuple->elements.size()
                            ? &expected->elements()[i] : nullptr;
        elements.push_back(adoptExpected(checkExpr(tuple->elements[i], x), x, tuple->elements[i]));
      }
      // A tuple of tuples copies them: `let b = (a, a)` doubles `a`, so a few
      // lines build a type too large to hold (E2190).
      Type t = Type::tuple(std::move(elements));
      if (partsOf(t, kMaxTypeParts) > kMaxTypeParts) {
        diagnostics_.emit(DiagnosticKind::TupleTooLarge, e->span, kMaxTypeParts)
            .label("a type this large is not supported")
            .help("group the values in a `struct`: its fields are not expanded into the types "
                  "that use it");
        return record(e, Type::error());
      }
      return record(e, std::move(t));
    }
    case ast::ExprKind::Paren:
      return record(e, checkExpr(static_cast<const ast::ParenExpr*>(e)->inner, expected));
    case ast::ExprKind::If: return record(e, checkIf(static_cast<const ast::IfExpr*>(e), expected));
    case ast::ExprKind::Match:
      return record(e, checkMatch(static_cast<const ast::MatchExpr*>(e), expected));
    case ast::ExprKind::ShapeLiteral:
      // Meaningful only as an argument of a shape primitive (CheckPrelude.cpp,
      // which never gets here): anywhere else it is no value (spec §5.9).
      diagnostics_.emit(DiagnosticKind::ShapeNotValue, e->span)
          .label("a compile-time shape, not a tensor")
          .help("shapes are arguments of `reshape`, `broadcast_to`, `permute` and `fill`; for a "
                "tensor of values use `iota` or `fill`");
      return record(e, Type::error());
    case ast::ExprKind::Reduction:
      return record(e, checkReduction(static_cast<const ast::ReductionExpr*>(e), expected));
    case ast::ExprKind::ForScan: {
      // A scan reaches here only as an operand (checkValue takes the others).
      Span keyword{e->span.file, e->span.begin, e->span.begin + 3};
      diagnostics_.emit(DiagnosticKind::ScanAsOperand, keyword)
          .label("this scan is used inside a larger expression")
          .help("bind it first: `let ys = for i in A..B { ... yield e }`, then use `ys`");
      return record(e, Type::error());
    }
  }
  return Type::error();
}

Type Checker::checkName(const ast::NameExpr* e) {
  const Symbol* s = module().symbolOf(e->name);
  if (!s) return Type::error();
  if (kernel_)  // tensors in memory (CheckKernel.cpp)
    if (auto memory = kernelMemoryName(e, *s)) return *memory;
  switch (s->kind) {
    case SymbolKind::Param: {
      const Signature* sig = scope_->signature;
      if (!sig) return Type::error();
      const auto& params = sig->item->params;
      for (size_t i = 0; i < params.size(); ++i)
        if (&params[i] == s->param) return sig->params[i];
      return Type::error();
    }
    case SymbolKind::Local:
    case SymbolKind::GradName: {  // `y` and `dy` are bound by checkGrad
      auto it = scope_->locals.find(keyOf(s->declSpan));
      return it == scope_->locals.end() ? Type::error() : it->second.type;
    }
    case SymbolKind::Generic:
      if (s->generic && !s->generic->isPack && s->generic->constraint == ast::GenericKind::Dim)
        return Type::compileInt(dimSymbol(*s->generic));
      return Type::error();
    case SymbolKind::Member: {
      auto* member = ast::as<ast::MemberItem>(s->item);
      const ast::BlockItem* owner = member ? ownerOf(*member) : nullptr;
      const CheckedBlock* b = owner ? block(*owner) : nullptr;
      if (!b) return Type::error();
      auto it = b->members.find(member);
      return it == b->members.end() ? Type::error() : it->second;
    }
    case SymbolKind::Item: {
      if (!s->item || !s->module) return Type::error();
      if (auto* c = ast::as<ast::ConstItem>(s->item)) return constType(*c, *s->module);
      if (auto* f = ast::as<ast::FunctionItem>(s->item)) {
        if (f->function == ast::FunctionKind::Kernel) return kernelUsedAsValue(*f, e->span);
        return Type::function(s->module, f, nullptr);
      }
      return Type::error();  // blocks, structs, enums, aliases: the resolver rejects them as values (E1208)
    }
    case SymbolKind::Module: return s->module ? Type::module(s->module) : Type::error();
    case SymbolKind::Prelude: return Type::prelude(std::string(s->name));
    case SymbolKind::IndexVariable: {
      // Subscripts never reach here (checkAccess reads them): this is an
      // index used as a value.
      std::string position = fmt::format("iota(N)[{}]` with `N` its extent", s->name);
      if (notation_) {
        auto d = notation_->domains.find(keyOf(s->declSpan));
        if (d != notation_->domains.end() && d->second.extent)
          position = fmt::format("iota({})[{}]`", d->second.extent->str(), s->name);
      }
      diagnostics_.emit(DiagnosticKind::IndexAsValue, e->span, s->name)
          .label(fmt::format("`{}` only subscripts tensors", s->name))
          .secondary(s->declSpan, "declared as an index here")
          .help(fmt::format("for its position as a value write `{}", position));
      return Type::error();
    }
    case SymbolKind::KernelBuiltin:  // `load`, `store`, ... only called
      diagnostics_.emit(DiagnosticKind::KernelBuiltinAsValue, e->span, s->name)
          .label("a kernel builtin, not a value")
          .help(fmt::format("call it: `{}(...)`", s->name));
      return Type::error();
    case SymbolKind::KernelResult:  // named outside a kernel's body: the resolver's error
    case SymbolKind::EnumVariant:   // only a `match` pattern: the resolver's error
    case SymbolKind::Unresolved:
      return Type::error();
  }
  return Type::error();
}

Type Checker::checkUnary(const ast::UnaryExpr* e) {
  Type t = checkExpr(e->operand);
  if (t.isError()) return t;
  switch (e->op) {
    case ast::UnaryOp::Not:
      if (t.isScalarBool()) return t;
      diagnostics_.emit(DiagnosticKind::LogicalNotBool, e->operand->span, "!", str(t))
          .label(fmt::format("this is `{}`", str(t)))
          .help("`!` negates a scalar `bool`; for a bool tensor write `mask ^ true`");
      return Type::error();
    case ast::UnaryOp::Negate:
    case ast::UnaryOp::Plus: {
      if (t.kind() == TypeKind::IntLiteral && !t.isExactInt()) {
        // The values of branches, negated (`-i64::MIN` is no i64: unknown).
        auto [lo, hi] = t.intRange();
        if (e->op == ast::UnaryOp::Plus) return t;
        return lo == INT64_MIN ? Type::intLiteralRange(0, 0) : Type::intLiteralRange(-hi, -lo);
      }
      if (t.kind() == TypeKind::IntLiteral)
        return e->op == ast::UnaryOp::Negate ? Type::compileInt(-t.compileValue()) : t;
      if (t.kind() == TypeKind::CompileInt)
        return e->op == ast::UnaryOp::Negate ? Type::compileInt(-t.compileValue()) : t;
      if (t.kind() == TypeKind::FloatLiteral) return t;
      if (t.isTensor() && isNumeric(t.dtype())) return t;
      diagnostics_.emit(DiagnosticKind::InvalidOperand, e->operand->span,
                        ast::unaryOpSpelling(e->op), str(t))
          .label(fmt::format("this is `{}`", str(t)));
      return Type::error();
    }
  }
  return Type::error();
}

Type Checker::elementwise(const Type& l, const Type& r, Span span, Span lSpan, Span rSpan,
                          std::string_view what, std::string_view lName, std::string_view rName) {
  if (l.isError() || r.isError()) return Type::error();
  if (l.isUntypedNumber() && r.isUntypedNumber()) {
    if (l.kind() == TypeKind::FloatLiteral || r.kind() == TypeKind::FloatLiteral)
      return Type::floatLiteral(std::max(untypedMagnitude(l), untypedMagnitude(r)));
    return Type::error();  // compile-time arithmetic is folded by the callers
  }
  if (l.isUntypedNumber()) {
    if (!r.isTensor()) return Type::error();
    return literalFits(l, r.dtype(), nullptr, lSpan) ? r : Type::error();
  }
  if (r.isUntypedNumber()) {
    if (!l.isTensor()) return Type::error();
    return literalFits(r, l.dtype(), nullptr, rSpan) ? l : Type::error();
  }
  if (!l.isTensor() || !r.isTensor()) return Type::error();
  if (!(l.dtype() == r.dtype())) {
    diagnostics_.emit(DiagnosticKind::DTypeMismatch, span, what)
        .label(fmt::format("`{}` and `{}`", l.dtype().str(), r.dtype().str()))
        .note(fmt::format("{} has dtype `{}`", lName, l.dtype().str()))
        .note(fmt::format("{} has dtype `{}`", rName, r.dtype().str()))
        .help("Linnet does not implicitly promote tensor dtypes; use an explicit `cast`");
    return Type::error();
  }
  return broadcastOperands(l, r, span, lName, rName);
}

Type Checker::broadcastOperands(const Type& l, const Type& r, Span span, std::string_view lName,
                                std::string_view rName, bool rPlural) {
  shape::BroadcastResult b = facts().broadcastCompatible(l.shape(), r.shape());
  if (!b.compatible) {
    auto d = diagnostics_.emit(DiagnosticKind::UnprovenBroadcast, span, str(l), str(r));
    d.label("these shapes may not broadcast")
        .note(fmt::format("{} is `{}`", lName, str(l)))
        .note(fmt::format("{} {} `{}`", rName, rPlural ? "are" : "is", str(r)));
    if (!b.reason.empty()) d.note(b.reason);
    if (!b.suggestion.empty()) d.help(fmt::format("add `where {}`", b.suggestion));
    else d.help("axes broadcast when they are provably equal or one of them is `1`; use `reshape` or `broadcast_to`");
    return Type::error();
  }
  return l.withShape(b.shape);
}

static bool isArithmetic(ast::BinaryOp op) {
  return op == ast::BinaryOp::Add || op == ast::BinaryOp::Sub || op == ast::BinaryOp::Mul ||
         op == ast::BinaryOp::Div || op == ast::BinaryOp::Rem;
}
static bool isOrdering(ast::BinaryOp op) {
  return op == ast::BinaryOp::Lt || op == ast::BinaryOp::Le || op == ast::BinaryOp::Gt ||
         op == ast::BinaryOp::Ge;
}
static bool isBitwise(ast::BinaryOp op) {
  return op == ast::BinaryOp::BitAnd || op == ast::BinaryOp::BitOr || op == ast::BinaryOp::BitXor;
}

static bool isOperand(const Type& t) { return t.isTensor() || t.isUntypedNumber(); }

Type Checker::checkBinary(const ast::BinaryExpr* e) {
  Type l = checkExpr(e->lhs);
  Type r = checkExpr(e->rhs);
  std::string_view op = ast::binaryOpSpelling(e->op);
  if (e->op == ast::BinaryOp::And || e->op == ast::BinaryOp::Or) {
    // One error per operator: the first operand that is not a scalar bool,
    // with the other one labelled too when it is not one either.
    auto bad = [](const Type& t) { return !t.isError() && !t.isScalarBool(); };
    if (bad(l) || bad(r)) {
      const Type& t = bad(l) ? l : r;
      const ast::Expr* x = bad(l) ? e->lhs : e->rhs;
      auto d = diagnostics_.emit(DiagnosticKind::LogicalNotBool, x->span, op, str(t));
      d.label(fmt::format("this is `{}`", str(t)));
      if (bad(l) && bad(r)) d.secondary(e->rhs->span, fmt::format("and this is `{}`", str(r)));
      if (t.isTensor() && isBool(t.dtype()))
        d.help(fmt::format("for bool tensors use `{}`", e->op == ast::BinaryOp::And ? "&" : "|"));
      return Type::error();
    }
    if (l.isError() || r.isError()) return Type::error();
    return l;
  }
  if (l.isError() || r.isError()) return Type::error();
  // Enum values compare with `==` and `!=` to values of the same enum.
  bool equality = e->op == ast::BinaryOp::Eq || e->op == ast::BinaryOp::Ne;
  if (equality && (l.kind() == TypeKind::Enum || r.kind() == TypeKind::Enum)) {
    if (l.kind() == r.kind() && l.enumItem() == r.enumItem())
      return Type::scalar(DType::of(ast::ScalarType::Bool));
    const Type& enumSide = l.kind() == TypeKind::Enum ? l : r;
    const Type& other = l.kind() == TypeKind::Enum ? r : l;
    const ast::Expr* otherExpr = l.kind() == TypeKind::Enum ? e->rhs : e->lhs;
    diagnostics_.emit(DiagnosticKind::TypeMismatch, otherExpr->span, str(enumSide), str(other))
        .label(fmt::format("`{}` compares only with `{}`", str(enumSide), str(enumSide)));
    return Type::error();
  }
  for (auto [t, x] : {std::pair{&l, e->lhs}, std::pair{&r, e->rhs}}) {
    if (isOperand(*t)) continue;
    diagnostics_.emit(DiagnosticKind::InvalidOperand, x->span, op, str(*t))
        .label(fmt::format("this is `{}`", str(*t)));
    return Type::error();
  }
  // Two compile-time integers fold to a compile-time integer.
  if ((l.kind() == TypeKind::CompileInt || l.kind() == TypeKind::IntLiteral) &&
      (r.kind() == TypeKind::CompileInt || r.kind() == TypeKind::IntLiteral)) {
    if (isArithmetic(e->op)) {
      auto v = dimOf(module(), e);
      if (!v) return foldRange(e->op, l, r);
      // Integer arithmetic the compiler folds is exact or refused: a value
      // past 64 bits has no type to wrap in (a typed operand would wrap).
      // A zero divisor stays unfolded in `v` (a shape dividing by it is
      // E2205), so the value is also taken as code computes it.
      if (v->overflowed() || withTotalDivision(*v).overflowed()) {
        diagnostics_.emit(DiagnosticKind::LiteralOutOfRange, e->span, ast::printExpr(e), "i64")
            .label("its value overflows 64-bit integers")
            .help("give one operand a dtype (`cast<i64>(...)`) to compute it at run time, wrapping");
        return Type::error();
      }
      auto c = v->constantValue();
      bool literals = l.kind() == TypeKind::IntLiteral && r.kind() == TypeKind::IntLiteral;
      return literals && c && *c >= 0 ? Type::intLiteral(*c) : Type::compileInt(*v);
    }
    if (isBitwise(e->op)) {
      // Known values fold; symbolic ones (`H & 1`) are no dimension the
      // solver can reason about, but their value is known at run time: an
      // i64 scalar, usable as data and never in a shape. So is the join of
      // branches (`if c { 1 } else { 2 }`), whose value is not one number.
      auto a = l.compileValue().constantValue();
      auto b = r.compileValue().constantValue();
      bool joins = (l.kind() == TypeKind::IntLiteral && !l.isExactInt()) ||
                   (r.kind() == TypeKind::IntLiteral && !r.isExactInt());
      if (!a || !b || joins) return Type::scalar(DType::of(ast::ScalarType::I64));
      int64_t v = e->op == ast::BinaryOp::BitAnd ? (*a & *b)
                  : e->op == ast::BinaryOp::BitOr ? (*a | *b)
                                                   : (*a ^ *b);
      return v >= 0 ? Type::intLiteral(v) : Type::compileInt(shape::DimExpr::constant(v));
    }
    return Type::scalar(DType::of(ast::ScalarType::Bool));
  }
  // `a == b & a < b` is `a == ((b & a) < b)`: `&`, `|` and `^` bind tighter
  // than comparisons, so an unparenthesized comparison or bitwise operand of
  // a comparison whose dtypes then differ is most likely that misreading.
  bool comparison = equality || isOrdering(e->op);
  auto regrouped = [](const ast::Expr* x) {
    auto* b = ast::as<ast::BinaryExpr>(x);
    return b && (isBitwise(b->op) || isOrdering(b->op) || b->op == ast::BinaryOp::Eq ||
                 b->op == ast::BinaryOp::Ne);
  };
  // One level of grouping made visible: `b & a < b` shows as `(b & a) < b`.
  auto grouped = [](const ast::Expr* x) {
    auto* b = ast::as<ast::BinaryExpr>(x);
    if (!b) return ast::printExpr(x);
    auto side = [](const ast::Expr* y) {
      return ast::as<ast::BinaryExpr>(y) ? "(" + ast::printExpr(y) + ")" : ast::printExpr(y);
    };
    return fmt::format("{} {} {}", side(b->lhs), ast::binaryOpSpelling(b->op), side(b->rhs));
  };
  if (comparison && l.isTensor() && r.isTensor() && !(l.dtype() == r.dtype()) &&
      (regrouped(e->lhs) || regrouped(e->rhs))) {
    diagnostics_.emit(DiagnosticKind::DTypeMismatch, e->span, fmt::format("operands of `{}`", op))
        .label(fmt::format("`{}` and `{}`", l.dtype().str(), r.dtype().str()))
        .note(fmt::format("`&`, `|` and `^` bind tighter than comparisons: the operands of this `{}` are `{}` "
                          "(`{}`) and `{}` (`{}`)",
                          op, grouped(e->lhs), l.dtype().str(), grouped(e->rhs), r.dtype().str()))
        .help("to combine comparisons, parenthesize each: `(a == b) & (i < n)`");
    return Type::error();
  }
  Type joined = elementwise(l, r, e->span, e->lhs->span, e->rhs->span,
                            fmt::format("operands of `{}`", op));
  if (joined.isError()) return joined;
  if (joined.isUntypedNumber()) {
    if (isArithmetic(e->op)) return joined;
    if (isBitwise(e->op)) {  // two integers folded above: a float literal is involved
      diagnostics_.emit(DiagnosticKind::InvalidOperand, e->opSpan, op, str(joined))
          .label(fmt::format("`{}` is defined for integers and `bool`", op));
      return Type::error();
    }
    return Type::scalar(DType::of(ast::ScalarType::Bool));
  }
  const DType& d = joined.dtype();
  bool valid = true;
  std::string help;
  if (isArithmetic(e->op) || isOrdering(e->op)) {
    valid = isNumeric(d);
    if (!valid && d.isGeneric())
      help = fmt::format("`{}` may be any dtype; constrain it with `{}: Numeric`", d.str(), d.str());
  } else if (isBitwise(e->op)) {
    valid = isInteger(d) || isBool(d);
    if (!valid && d.isGeneric())
      help = fmt::format("`{}` may be a float dtype; bitwise operators need `{}: Integer`", d.str(),
                         d.str());
  }
  if (!valid) {
    auto diag = diagnostics_.emit(DiagnosticKind::InvalidOperand, e->opSpan, op, str(joined));
    diag.label(fmt::format("`{}` is not defined for dtype `{}`", op, d.str()));
    if (!help.empty()) diag.help(help);
    return Type::error();
  }
  if (isArithmetic(e->op) || isBitwise(e->op)) return joined;
  return joined.withDType(DType::of(ast::ScalarType::Bool));
}

Type Checker::checkIf(const ast::IfExpr* e, const Type* expected) {
  Type c = checkExpr(e->condition);
  if (!c.isError() && !c.isScalarBool()) {
    diagnostics_.emit(DiagnosticKind::ConditionNotBool, e->condition->span, str(c))
        .label(fmt::format("this is `{}`", str(c)))
        .help(c.isTensor() && isBool(c.dtype()) ? "for an elementwise choice use `select(cond, a, b)`"
                                                : "compare it to get a `bool`");
  }
  Type a = checkExpr(e->thenValue, expected);
  Type b = checkExpr(e->elseValue, expected);
  if (a.isError() || b.isError()) return Type::error();
  std::optional<Type> joined = joinBranches(a, b, e->elseValue->span);
  if (!joined) {
    diagnostics_.emit(DiagnosticKind::BranchMismatch, e->span, str(a), str(b))
        .label("the branches differ")
        .note(fmt::format("the `then` branch is `{}`", str(a)))
        .note(fmt::format("the `else` branch is `{}`", str(b)))
        .help("both branches must have the same type, shape and dtype");
    return Type::error();
  }
  return *joined;
}

std::optional<Type> Checker::joinBranches(const Type& a, const Type& b, Span bSpan) {
  if (a.isError() || b.isError()) return Type::error();
  if (a.isUntypedNumber() && b.isUntypedNumber()) {
    if (a.kind() == TypeKind::FloatLiteral || b.kind() == TypeKind::FloatLiteral)
      return Type::floatLiteral(std::max(untypedMagnitude(a), untypedMagnitude(b)));
    if (a.kind() == TypeKind::CompileInt && b.kind() == TypeKind::CompileInt &&
        facts().provablyEqual(a.compileValue(), b.compileValue()))
      return a;
    // Either value: each must fit the dtype the join takes. A symbol's
    // value is not known here (and never checked), so only the other's is.
    auto x = integerValues(a), y = integerValues(b);
    if (x && y)
      return Type::intLiteralRange(std::min(x->first, y->first), std::max(x->second, y->second));
    if (x || y) return Type::intLiteralRange((x ? x : y)->first, (x ? x : y)->second);
    return Type::intLiteralRange(0, 0);
  }
  if (a.isUntypedNumber() && b.isScalar())
    return literalFits(a, b.dtype(), nullptr, bSpan) ? std::optional<Type>(b) : Type::error();
  if (b.isUntypedNumber() && a.isScalar())
    return literalFits(b, a.dtype(), nullptr, bSpan) ? std::optional<Type>(a) : Type::error();
  if (a.kind() == TypeKind::None && b.kind() == TypeKind::Optional) return b;
  if (b.kind() == TypeKind::None && a.kind() == TypeKind::Optional) return a;
  if (a.kind() == TypeKind::None && b.kind() == TypeKind::None) return a;
  // Element-wise, so a literal inside a tuple or an optional adopts the other
  // branch's dtype too.
  if (a.kind() == TypeKind::Tuple && b.kind() == TypeKind::Tuple &&
      a.elements().size() == b.elements().size()) {
    std::vector<Type> elements;
    for (size_t i = 0; i < a.elements().size(); ++i) {
      std::optional<Type> joined = joinBranches(a.elements()[i], b.elements()[i], bSpan);
      if (!joined || joined->isError()) return joined;
      elements.push_back(std::move(*joined));
    }
    return Type::tuple(std::move(elements));
  }
  if (a.kind() == TypeKind::Optional && b.kind() == TypeKind::Optional) {
    std::optional<Type> joined = joinBranches(a.optionalInner(), b.optionalInner(), bSpan);
    if (!joined || joined->isError()) return joined;
    return Type::optional(std::move(*joined));
  }
  if (a.kind() != b.kind() || !sameType(a, b)) return std::nullopt;
  return a;
}

static std::string patternText(const ast::Pattern* p) {
  switch (p->kind) {
    case ast::PatternKind::Binding: return p->name.name;
    case ast::PatternKind::Some: return "some(...)";
    case ast::PatternKind::None: return "none";
    case ast::PatternKind::Tuple: return "(...)";
  }
  return "_";
}

Type Checker::checkMatch(const ast::MatchExpr* e, const Type* expected) {
  Type s = checkExpr(e->scrutinee);
  // Optionals match `some`/`none`, enums their variants; any other value
  // (a struct, a tuple, a tensor) only a catch-all binding.
  bool optional = s.kind() == TypeKind::Optional;
  bool enumeration = s.kind() == TypeKind::Enum;
  bool sawSome = false, sawNone = false, sawCatchAll = false, impossible = false;
  std::set<uint32_t> variants;
  // The first arm matching each form, for W1004: a later arm of the same
  // form, or any arm after a catch-all or after arms covering every value,
  // is never reached.
  const ast::Pattern *catchAllAt = nullptr, *someAt = nullptr, *noneAt = nullptr;
  std::map<uint32_t, const ast::Pattern*> variantAt;
  std::optional<Type> result;
  bool error = s.isError();
  for (const ast::MatchArm& arm : e->arms) {
    const ast::Pattern* p = arm.pattern;
    if (!s.isError() && p) {
      const Symbol* v =
          p->kind == ast::PatternKind::Binding ? module().symbolOf(p->name) : nullptr;
      bool isVariant = v && v->kind == SymbolKind::EnumVariant;
      bool catchAll = p->kind == ast::PatternKind::Binding && !isVariant;
      bool covered = (optional && someAt && noneAt) ||
                     (enumeration && variants.size() == s.enumItem()->variants.size());
      const ast::Pattern* first = nullptr;  // an earlier arm of the same form
      if (optional && p->kind == ast::PatternKind::Some) first = someAt;
      if (optional && p->kind == ast::PatternKind::None) first = noneAt;
      if (enumeration && isVariant && v->item == s.enumItem())
        if (auto it = variantAt.find(v->variant); it != variantAt.end()) first = it->second;
      if (catchAllAt) {
        unreachableArms_.push_back({p->span, "never reached",
                                    {{catchAllAt->span, "this arm matches every value"}}, ""});
      } else if (first) {
        std::string text = patternText(p);
        unreachableArms_.push_back(
            {p->span, fmt::format("`{}` is matched by an earlier arm", text),
             {{first->span, fmt::format("`{}` is matched here first", text)}}, ""});
      } else if (covered) {
        unreachableArms_.push_back(
            {p->span, "never reached", std::nullopt,
             fmt::format("the arms above cover every value of `{}`", str(s))});
      }
      if (catchAll && !catchAllAt) catchAllAt = p;
      if (optional && p->kind == ast::PatternKind::Some && !someAt) someAt = p;
      if (optional && p->kind == ast::PatternKind::None && !noneAt) noneAt = p;
      if (enumeration && isVariant && v->item == s.enumItem()) variantAt.try_emplace(v->variant, p);
      bool fits = true;
      if (!optional && !enumeration) {
        fits = p->kind == ast::PatternKind::Binding && !isVariant;
        if (fits) {
          sawCatchAll = true;
          bindPattern(p, s, false);
        }
      } else if (enumeration) {
        if (isVariant && v->item == s.enumItem()) variants.insert(v->variant);
        else if (p->kind == ast::PatternKind::Binding && !isVariant) {
          sawCatchAll = true;
          bindPattern(p, s, false);
        } else fits = false;
      } else {
        switch (p->kind) {
          case ast::PatternKind::Some:
            sawSome = true;
            if (p->inner) {
              // `some(Up)` on an optional enum would read as the variant but
              // binds a name (and matches every `some`): refused, as rustc
              // refuses a binding named like a variant.
              const Type& payload = s.optionalInner();
              if (p->inner->kind == ast::PatternKind::Binding && payload.kind() == TypeKind::Enum) {
                const ast::EnumItem* item = payload.enumItem();
                const std::string& name = p->inner->name.name;
                if (std::any_of(item->variants.begin(), item->variants.end(),
                                [&](const auto& variant) { return variant.name == name; })) {
                  diagnostics_.emit(DiagnosticKind::VariantNameBound, p->inner->span, name, item->name.name)
                      .label(fmt::format("this binds the payload, whatever variant it is, to `{}`", name))
                      .help(fmt::format("match the payload: `some(m) => match m {{ {} => ... }}`; or give the "
                                        "binding another name",
                                        name));
                  error = true;
                  impossible = true;
                }
              }
              bindPattern(p->inner, payload, false);
            }
            break;
          case ast::PatternKind::None: sawNone = true; break;
          case ast::PatternKind::Binding:
            if (isVariant) {
              fits = false;
              break;
            }
            sawCatchAll = true;
            bindPattern(p, s, false);
            break;
          case ast::PatternKind::Tuple: fits = false; break;
        }
      }
      if (!fits) {
        auto d = diagnostics_.emit(DiagnosticKind::ImpossiblePattern, p->span, patternText(p), str(s));
        d.label(isVariant ? fmt::format("a variant of `{}`", v->item->name.name)
                          : fmt::format("`{}` never has this form", str(s)));
        d.secondary(e->scrutinee->span, fmt::format("this is `{}`", str(s)));
        impossible = true;
        error = true;
      }
    }
    Type t = checkExpr(arm.value, expected);
    if (t.isError() || error) {
      error = true;
      continue;
    }
    if (!result) {
      result = t;
      continue;
    }
    std::optional<Type> joined = joinBranches(*result, t, arm.value->span);
    if (!joined) {
      diagnostics_.emit(DiagnosticKind::BranchMismatch, arm.value->span, str(*result), str(t))
          .label(fmt::format("this arm is `{}`", str(t)))
          .secondary(e->arms.front().value->span, fmt::format("the first arm is `{}`", str(*result)));
      error = true;
      continue;
    }
    if (joined->isError()) error = true;
    result = *joined;
  }
  if (impossible) return Type::error();
  if (optional && !sawCatchAll && (!sawSome || !sawNone)) {
    diagnostics_.emit(DiagnosticKind::NonExhaustiveMatch, e->scrutinee->span, str(s),
                      sawSome ? "none" : "some(_)")
        .label(fmt::format("`{}` is not covered", sawSome ? "none" : "some(_)"))
        .help(fmt::format("add an arm `{} => ...`", sawSome ? "none" : "some(value)"));
    return Type::error();
  }
  if (enumeration && !sawCatchAll && variants.size() < s.enumItem()->variants.size()) {
    std::vector<std::string> missing;
    for (uint32_t i = 0; i < s.enumItem()->variants.size(); ++i)
      if (!variants.count(i)) missing.push_back(s.enumItem()->variants[i].name);
    std::string list = fmt::format("{}", fmt::join(missing, "`, `"));
    diagnostics_.emit(DiagnosticKind::NonExhaustiveMatch, e->scrutinee->span, str(s), list)
        .label(fmt::format("`{}` {} not covered", list, missing.size() == 1 ? "is" : "are"))
        .secondary(s.enumItem()->name.span, fmt::format("`{}` is declared here", str(s)))
        .help(fmt::format("add an arm for each missing variant, or a catch-all `other => ...`"));
    return Type::error();
  }
  if (error || !result) return Type::error();
  return *result;
}

Type Checker::memberOfBlock(const BlockInstance& instance, const ast::Ident& member, Span span,
                            bool callee) {
  for (const ast::Item* item : instance.block->body) {
    if (item->name.name != member.name) continue;
    if (auto* f = ast::as<ast::FunctionItem>(item)) {
      if (f->function == ast::FunctionKind::Kernel) return Type::error();
      // Reached through an instance (`sub.method`): from outside the block,
      // where only its `pub fn` methods may be called (spec: "Inside a
      // block, `pub fn` methods are callable by the parent").
      if (!f->isPub) {
        diagnostics_.emit(DiagnosticKind::PrivateMethod, member.span, member.name, instance.block->name.name)
            .label("not `pub`")
            .secondary(f->name.span, "declared here without `pub`")
            .help(fmt::format("mark it `pub fn {}` to call it from the block's parent", member.name));
        return Type::error();
      }
      return Type::function(instance.module, f,
                            std::make_shared<BlockInstance>(instance));
    }
    if (auto* m = ast::as<ast::MemberItem>(item)) {
      readThroughPath_.insert(m);  // read from outside its block: not unused (W1003)
      const CheckedBlock* b = block(*instance.block);
      if (!b) return Type::error();
      auto it = b->members.find(m);
      if (it == b->members.end()) return Type::error();
      return instantiate(it->second, instance.args);
    }
    // A const, type or struct declared inside the block is no member.
    diagnostics_.emit(DiagnosticKind::UnknownMember, member.span, str(instance), member.name)
        .label(fmt::format("`{}` is an item declared in `{}`, not a member or method", member.name,
                           instance.block->name.name))
        .secondary(item->name.span, "declared here");
    return Type::error();
  }
  diagnostics_.emit(DiagnosticKind::UnknownMember, member.span, str(instance), member.name)
      .label(callee ? "no such method" : "no such member")
      .secondary(instance.block->name.span, fmt::format("`{}` is declared here", instance.block->name.name));
  return Type::error();
}

// `E.A`: the enum named by `base`, when it names one (`E` or `module.E`).
static const ast::EnumItem* enumNamedBy(const Module& m, const ast::Expr* base) {
  const Symbol* s = nullptr;
  if (auto* name = ast::as<ast::NameExpr>(base)) s = m.symbolOf(name->name);
  else if (auto* member = ast::as<ast::MemberExpr>(base)) s = m.symbolOf(member->member);
  if (!s || s->kind != SymbolKind::Item) return nullptr;
  return ast::as<ast::EnumItem>(s->item);
}

Type Checker::checkMember(const ast::MemberExpr* e) {
  if (const ast::EnumItem* en = enumNamedBy(module(), e->base)) {
    recordNonValue(e->base);  // the enum's name is not a value
    const Symbol* s = nullptr;
    if (auto* name = ast::as<ast::NameExpr>(e->base)) s = module().symbolOf(name->name);
    else s = module().symbolOf(static_cast<const ast::MemberExpr*>(e->base)->member);
    for (const ast::Ident& v : en->variants)
      if (v.name == e->member.name) return Type::enumeration(s->module, en);
    diagnostics_.emit(DiagnosticKind::UnknownMember, e->member.span, en->name.name, e->member.name)
        .label(fmt::format("not a variant of `{}`", en->name.name))
        .secondary(en->name.span, fmt::format("`{}` is declared here", en->name.name));
    return Type::error();
  }
  Type base = checkExpr(e->base);
  switch (base.kind()) {
    case TypeKind::Error: return base;
    case TypeKind::Block: return memberOfBlock(*base.blockInstance(), e->member, e->span, false);
    case TypeKind::Module: {
      const Symbol* s = module().symbolOf(e->member);
      if (!s || s->kind != SymbolKind::Item || !s->item || !s->module) return Type::error();
      if (auto* c = ast::as<ast::ConstItem>(s->item)) return constType(*c, *s->module);
      if (auto* f = ast::as<ast::FunctionItem>(s->item)) {
        if (f->function == ast::FunctionKind::Kernel) return kernelUsedAsValue(*f, e->member.span);
        return Type::function(s->module, f, nullptr);
      }
      return Type::error();
    }
    case TypeKind::Tensor:
    case TypeKind::IntLiteral:
    case TypeKind::FloatLiteral:
    case TypeKind::CompileInt:
    case TypeKind::Tuple:
    case TypeKind::Optional:
    case TypeKind::BlockArray:
      diagnostics_.emit(DiagnosticKind::UnknownMember, e->member.span, str(base), e->member.name)
          .label(fmt::format("`{}` has no members", str(base)));
      return Type::error();
    case TypeKind::Enum:
    case TypeKind::Unit:
    case TypeKind::None:
    case TypeKind::Function:
      diagnostics_.emit(DiagnosticKind::UnknownMember, e->member.span, str(base), e->member.name)
          .label(fmt::format("`{}` has no members", str(base)));
      return Type::error();
    case TypeKind::Struct: {
      const ast::StructItem* st = base.structItem();
      const Module* sm = base.module();
      for (const ast::Field& f : st->fields) {
        if (f.name.name != e->member.name) continue;
        return instantiate(resolveType(*sm, f.type, nullptr), base.structArgs());
      }
      diagnostics_.emit(DiagnosticKind::UnknownMember, e->member.span, str(base), e->member.name)
          .label("no such field")
          .secondary(st->name.span, fmt::format("`{}` is declared here", st->name.name));
      return Type::error();
    }
  }
  return Type::error();
}

}  // namespace linnet::check
