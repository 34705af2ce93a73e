// The prelude functions (spec §5): each becomes one `linnet` op on tensors,
// or scalar arithmetic inside a notation body. Result types are the
// checker's type of the call, instantiated; arguments that are literals take
// their dtype from it.
#include <fmt/format.h>

#include <cmath>

#include <mlir/Dialect/Arith/IR/Arith.h>

#include "compiler/lower/LowerImpl.h"

namespace linnet::lower {

namespace {

std::optional<UnaryKind> unaryKind(const std::string& name) {
  if (name == "exp") return UnaryKind::Exp;
  if (name == "log") return UnaryKind::Log;
  if (name == "sqrt") return UnaryKind::Sqrt;
  if (name == "rsqrt") return UnaryKind::Rsqrt;
  if (name == "sin") return UnaryKind::Sin;
  if (name == "cos") return UnaryKind::Cos;
  if (name == "tanh") return UnaryKind::Tanh;
  if (name == "abs") return UnaryKind::Abs;
  return std::nullopt;
}

bool isUnsigned(ast::ScalarType s) {
  return s == ast::ScalarType::U8 || s == ast::ScalarType::U16 || s == ast::ScalarType::U32 ||
         s == ast::ScalarType::U64;
}

}  // namespace

Result Lowerer::lowerPrelude(const ast::CallExpr* call, const std::string& name) {
  std::vector<const ast::Expr*> positional;
  const ast::Expr* axisArg = nullptr;
  for (const ast::Argument& a : call->args) {
    if (a.isNamed() && a.name.name == "axis") axisArg = a.value;
    else positional.push_back(a.value);
  }
  check::Type result = typeOf(call);
  mlir::Location at = loc(call->span);
  auto resultDType = [&]() -> std::optional<ast::ScalarType> {
    if (!result.isTensor()) return std::nullopt;
    return concreteDType(result.dtype(), call->span);
  };
  // The type an argument takes when it is a literal: its checked type if it
  // has one, else a scalar of `fallback`. `lowered`: the argument already
  // lowered (once only: it may call a method that writes state).
  auto argTensor = [&](size_t i, ast::ScalarType fallback,
                       const std::optional<Val>& lowered = std::nullopt) -> std::optional<Val> {
    auto v = lowered ? lowered : lowerExpr(positional[i]);
    if (!v) return std::nullopt;
    check::Type t = typeOf(positional[i]);
    ast::ScalarType d = fallback;
    if (t.isTensor()) {
      auto c = concreteDType(t.dtype(), positional[i]->span);
      if (!c) return std::nullopt;
      d = *c;
    }
    if (notation_) {
      auto el = asElement(*v, d, positional[i]->span);
      if (!el) return std::nullopt;
      return Val::element(*el, scalarTypeOf(d));
    }
    // An untyped value computed at run time (an `if` between literals) is
    // converted like a literal.
    if (v->kind == Val::Kind::Tensor && t.isTensor()) return v;
    auto tv = asScalarTensor(*v, d, positional[i]->span);
    if (!tv) return std::nullopt;
    return Val::tensor(*tv, scalarTypeOf(d));
  };
  auto done = [&](mlir::Value v) {
    return notation_ ? Val::element(v, result) : Val::tensor(v, result);
  };

  std::optional<Val> untypedOperand;  // lowered once, for the typed path below when it is data
  if (unaryKind(name) && !result.isTensor() && positional.size() == 1) {
    untypedOperand = lowerExpr(positional[0]);
    if (!untypedOperand) return std::nullopt;
    const Val& x = *untypedOperand;
    if (x.isData()) {
      // Of a value without a dtype computed at run time: in its own (widest)
      // type, as a typed operand is below.
      result = computedLiteralType(result);
    } else {
      // Of a number without a dtype: the number (computed in f64, or an exact
      // integer for `abs`), which takes its dtype where it is used. `abs` of
      // i64's MIN wraps to itself, as the generated code's does.
      if (name == "abs" && x.kind == Val::Kind::Int) {
        if (auto v = x.dim.constantValue())
          return Val::integer(shape::DimExpr::constant(*v == INT64_MIN ? *v : (*v < 0 ? -*v : *v)));
        return Val::integer(shape::DimExpr::max(x.dim, -x.dim));
      }
      double v = 0;
      if (x.kind == Val::Kind::Float) v = x.number;
      else if (x.kind == Val::Kind::Int && x.dim.constantValue()) v = double(*x.dim.constantValue());
      else return unsupported(call->span, fmt::format("this `{}`", name));
      switch (*unaryKind(name)) {
        case UnaryKind::Exp: return Val::floating(std::exp(v));
        case UnaryKind::Log: return Val::floating(std::log(v));
        case UnaryKind::Sqrt: return Val::floating(std::sqrt(v));
        case UnaryKind::Rsqrt: return Val::floating(1.0 / std::sqrt(v));
        case UnaryKind::Sin: return Val::floating(std::sin(v));
        case UnaryKind::Cos: return Val::floating(std::cos(v));
        case UnaryKind::Tanh: return Val::floating(std::tanh(v));
        case UnaryKind::Abs: return Val::floating(std::fabs(v));
        default: return unsupported(call->span, fmt::format("this `{}`", name));
      }
    }
  }

  if (name == "cast" || unaryKind(name)) {
    auto rd = resultDType();
    if (!rd || positional.size() != 1) return unsupported(call->span, fmt::format("this `{}`", name));
    check::Type xt = typeOf(positional[0]);
    ast::ScalarType from = *rd;
    if (xt.isTensor()) {
      auto c = concreteDType(xt.dtype(), positional[0]->span);
      if (!c) return std::nullopt;
      from = *c;
    } else if (name == "cast") {
      // A number without a dtype is converted from its own value, an i64 or
      // an f64 (`cast<bool>(2)` is true, `cast<i32>(2.9)` is 2), not first
      // made the target type.
      if (xt.kind() == check::TypeKind::FloatLiteral) from = ast::ScalarType::F64;
      else if (xt.kind() == check::TypeKind::IntLiteral || xt.kind() == check::TypeKind::CompileInt)
        from = ast::ScalarType::I64;
    }
    auto x = argTensor(0, from, untypedOperand);
    if (!x) return std::nullopt;
    if (name != "cast") {
      UnaryKind k = *unaryKind(name);
      if (notation_) return done(emit::scalarUnary(builder_, at, k, x->value, isUnsigned(from)));
      return done(emit::unary(builder_, at, k, x->value, isUnsigned(from)));
    }
    if (from == *rd) return done(x->value);
    if (notation_)
      return done(emit::scalarCast(builder_, at, x->value, elementType(*rd), isUnsigned(from), isUnsigned(*rd)));
    auto rt = tensorType(result, call->span);
    if (!rt) return std::nullopt;
    return done(emit::cast(builder_, at, x->value, *rt, isUnsigned(from), isUnsigned(*rd)));
  }

  if (name == "min" || name == "max" || name == "shl" || name == "shr") {
    if (positional.size() != 2) return unsupported(call->span, fmt::format("this `{}`", name));
    auto a0 = lowerExpr(positional[0]);
    auto b0 = a0 ? lowerExpr(positional[1]) : std::nullopt;
    if (!b0) return std::nullopt;
    if (a0->kind == Val::Kind::Int && b0->kind == Val::Kind::Int && (name == "min" || name == "max"))
      return Val::integer(name == "min" ? shape::DimExpr::min(a0->dim, b0->dim)
                                        : shape::DimExpr::max(a0->dim, b0->dim));
    if (a0->kind == Val::Kind::Float && b0->kind == Val::Kind::Float)
      return Val::floating(name == "min" ? std::min(a0->number, b0->number) : std::max(a0->number, b0->number));
    // Shifts of two known integers fold as the checker folds them (its type
    // is then a number without a dtype); any other pair runs in i64.
    if (a0->kind == Val::Kind::Int && b0->kind == Val::Kind::Int) {
      std::optional<int64_t> v = a0->dim.constantValue(), bits = b0->dim.constantValue();
      if (v && bits && *bits >= 0 && *bits <= 62) {
        __int128 folded = name == "shl" ? static_cast<__int128>(*v) * (int64_t{1} << *bits) : *v >> *bits;
        if (folded <= INT64_MAX && folded >= INT64_MIN && !resultDType())
          return Val::integer(shape::DimExpr::constant(static_cast<int64_t>(folded)));
      }
    }
    // Numbers without a dtype of which one is computed at run time: in the
    // widest type of their kind.
    result = computedLiteralType(result);
    auto rd = resultDType();
    if (!rd) return unsupported(call->span, fmt::format("this `{}`", name));
    BinaryKind k = name == "min" ? BinaryKind::Min : name == "max" ? BinaryKind::Max
                 : name == "shl" ? BinaryKind::Shl : BinaryKind::Shr;
    auto a = argTensor(0, *rd, a0);
    auto b = a ? argTensor(1, *rd, b0) : std::nullopt;
    if (!b) return std::nullopt;
    if (notation_) return done(emit::scalarBinary(builder_, at, k, a->value, b->value, isUnsigned(*rd)));
    auto rt = tensorType(result, call->span);
    if (!rt) return std::nullopt;
    return done(emit::binary(builder_, at, k, pinProvenOnes(a->value, positional[0], call), pinProvenOnes(b->value, positional[1], call),
                             *rt, isUnsigned(*rd)));
  }

  if (name == "select") {
    result = computedLiteralType(result);
    auto rd = resultDType();
    if (!rd || positional.size() != 3) return unsupported(call->span, "this `select`");
    auto c = argTensor(0, ast::ScalarType::Bool);
    auto a = c ? argTensor(1, *rd) : std::nullopt;
    auto b = a ? argTensor(2, *rd) : std::nullopt;
    if (!b) return std::nullopt;
    if (notation_) {
      mlir::Value v = builder_.create<mlir::arith::SelectOp>(at, c->value, a->value, b->value);
      return done(v);
    }
    auto rt = tensorType(result, call->span);
    if (!rt) return std::nullopt;
    return done(emit::select(builder_, at, pinProvenOnes(c->value, positional[0], call),
                             pinProvenOnes(a->value, positional[1], call), pinProvenOnes(b->value, positional[2], call),
                             *rt));
  }

  // A shape function with a 0-d result (`fill<f32>([], t)`, a reshape to
  // `[]`) in a notation body: a tensor there, read as its element.
  if (notation_) return tensorsInNotationBody([&] { return lowerPrelude(call, name); });
  auto rt = tensorType(result, call->span);
  if (!rt) return std::nullopt;
  auto dyn = dynamicDims(result, call->span);
  if (!dyn) return std::nullopt;

  if (name == "reshape" || name == "broadcast_to") {
    auto x = lowerExpr(positional[0]);
    if (!x) return std::nullopt;
    auto xv = asTensor(*x, check::Type::scalar(result.dtype()), positional[0]->span);
    if (!xv) return std::nullopt;
    if (name == "reshape") return done(emit::reshape(builder_, at, *xv, *rt, *dyn));
    return done(emit::broadcastTo(builder_, at, pinProvenOnes(*xv, positional[0], call), *rt, *dyn));
  }
  if (name == "permute") {
    auto x = lowerExpr(positional[0]);
    if (!x || x->kind != Val::Kind::Tensor) return unsupported(call->span, "this `permute`");
    auto* lit = ast::as<ast::ShapeLiteralExpr>(positional[1]);
    std::vector<int64_t> perm;
    for (const ast::ShapeElement& el : lit->elements) {
      auto v = el.dim ? lowerExpr(el.dim) : std::nullopt;
      auto c = v && v->kind == Val::Kind::Int ? v->dim.constantValue() : std::nullopt;
      if (!c) return unsupported(el.span, "this axis");
      perm.push_back(*c);
    }
    return done(emit::permute(builder_, at, x->value, *rt, perm));
  }
  if (name == "iota") return done(emit::iota(builder_, at, *rt, *dyn));
  if (name == "fill") {
    auto rd = resultDType();
    auto v = rd ? lowerExpr(positional[1]) : std::nullopt;
    if (!v) return std::nullopt;
    auto s = asScalarTensor(*v, *rd, positional[1]->span);
    if (!s) return std::nullopt;
    return done(emit::fill(builder_, at, *s, *rt, *dyn));
  }
  if (name == "cumsum" || name == "concat") {
    if (!axisArg) return unsupported(call->span, fmt::format("this `{}`", name));
    auto ax = lowerExpr(axisArg);
    auto c = ax && ax->kind == Val::Kind::Int ? ax->dim.constantValue() : std::nullopt;
    if (!c) return unsupported(axisArg->span, "this axis");
    int64_t axis = *c < 0 ? *c + rt->getRank() : *c;
    std::vector<mlir::Value> parts;
    for (const ast::Expr* p : positional) {
      auto v = lowerExpr(p);
      if (!v) return std::nullopt;
      auto t = asTensor(*v, check::Type::scalar(result.dtype()), p->span);
      if (!t) return std::nullopt;
      parts.push_back(*t);
    }
    if (name == "cumsum") return done(emit::cumsum(builder_, at, parts[0], axis));
    return done(emit::concat(builder_, at, parts, *rt, axis));
  }
  return unsupported(call->span, fmt::format("the prelude function `{}`", name));
}

}  // namespace linnet::lower
