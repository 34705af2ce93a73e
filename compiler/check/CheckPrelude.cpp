// The prelude functions (spec §2.3, §5, §6): cast, elementwise math,
// min/max, shifts, select, and the shape primitives reshape, broadcast_to,
// permute and concat with their own proofs (E2203, E2207, E2210), iota,
// fill and cumsum. `pad`, `gather` and `scatter` have no specified signature
// and are rejected (E2190).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "compiler/check/CheckerImpl.h"
#include "compiler/parse/ASTPrinter.h"

namespace linnet::check {

namespace {

struct PreludeArgs {
  std::vector<const ast::Expr*> positional;
  std::vector<const ast::Argument*> named;
  const ast::Expr* namedValue(std::string_view name) const {
    for (const ast::Argument* a : named)
      if (a->name.name == name) return a->value;
    return nullptr;
  }
};

}  // namespace

std::optional<shape::Shape> Checker::shapeArg(const ast::Expr* e, std::string_view callee) {
  auto* lit = ast::as<ast::ShapeLiteralExpr>(e);
  if (!lit) {
    Type t = checkExpr(e);
    if (!t.isError())
      diagnostics_.emit(DiagnosticKind::ShapeExpected, e->span, callee, str(t))
          .label(fmt::format("this is `{}`", str(t)))
          .help("write the shape out: `[B, S, H]`; shapes are compile-time, never tensors");
    return std::nullopt;
  }
  shape::Shape out;
  for (const ast::ShapeElement& el : lit->elements) {
    if (el.isPack()) {
      const Symbol* s = module().symbolOf(el.pack);
      if (!s || s->kind != SymbolKind::Generic || !s->generic || !s->generic->isPack) {
        reportNotPack(module(), el.pack);
        return std::nullopt;
      }
      out.push_back(packOf(*s->generic));
      continue;
    }
    auto d = dimOf(module(), el.dim);
    if (!d) {
      reportNonDimension(module(), el.dim);
      return std::nullopt;
    }
    checkDivisors(module(), el.dim, facts());
    if (facts().provablyNegative(*d)) {
      diagnostics_.emit(DiagnosticKind::NegativeDimension, el.dim->span, ast::printExpr(el.dim))
          .label(fmt::format("this is `{}`, negative for every allowed binding", d->str()));
      return std::nullopt;
    }
    requireNonNegative(*d, el.dim->span);
    out.push_back(*d);
  }
  recordNonValue(e);
  return out;
}

std::optional<int64_t> Checker::constantArg(const ast::Expr* e) {
  auto d = dimOf(module(), e);
  if (!d) return std::nullopt;
  return d->constantValue();
}

static std::optional<DType> dtypeArg(const Module& m, const ast::GenericArg& arg) {
  if (auto* s = ast::as<ast::ScalarTypeNode>(arg.type)) return DType::of(s->scalar);
  if (auto* n = ast::as<ast::NamedTypeNode>(arg.type)) {
    if (n->path.size() != 1 || n->hasGenericArgs) return std::nullopt;
    const Symbol* s = m.symbolOf(n->path[0]);
    if (s && s->kind == SymbolKind::Generic && s->generic && !s->generic->isPack &&
        s->generic->constraint != ast::GenericKind::Dim)
      return DType::ofGeneric(s->generic);
  }
  return std::nullopt;
}

// The dtype a prelude call's generic argument names (E2111 when it names
// something else: a dimension, a block, a shape).
static std::optional<DType> dtypeArgument(DiagnosticEmitter& diagnostics, const Module& m,
                                          const ast::GenericArg& arg, std::string_view callee) {
  if (auto d = dtypeArg(m, arg)) return d;
  diagnostics.emit(DiagnosticKind::GenericArgumentKind, arg.span, "T", callee, "a dtype")
      .label("not a dtype")
      .help(fmt::format("write a dtype (`{}<f32>`) or a dtype generic", callee));
  return std::nullopt;
}

// Whether `t`, an operand of a prelude function that takes tensors, is not
// one: reported (E2104) unless it is an Error already reported.
static bool notTensor(DiagnosticEmitter& diagnostics, const Type& t, const ast::Expr* e,
                      std::string_view callee) {
  if (t.isTensor()) return false;
  if (t.isError()) return true;
  diagnostics.emit(DiagnosticKind::InvalidOperand, e->span, callee, str(t))
      .label(fmt::format("`{}` takes a tensor; this is `{}`", callee, str(t)));
  return true;
}

// `min max shl shr` of two numbers without a dtype: still one, taking its
// dtype from context, with the values it may have (checked when it does).
Type Checker::untypedPrelude(const std::string& name, const Type& a, const Type& b,
                             const ast::CallExpr* call, const ast::Expr* aExpr,
                             const ast::Expr* bExpr) {
  bool shift = name == "shl" || name == "shr";
  for (auto [t, e] : {std::pair{&a, aExpr}, std::pair{&b, bExpr}}) {
    if (!shift || t->kind() != TypeKind::FloatLiteral) continue;
    diagnostics_.emit(DiagnosticKind::InvalidOperand, e->span, name, str(*t))
        .label(fmt::format("`{}` shifts integers", name));
    return Type::error();
  }
  if (a.kind() == TypeKind::FloatLiteral || b.kind() == TypeKind::FloatLiteral)
    return Type::floatLiteral(std::max(untypedMagnitude(a), untypedMagnitude(b)));
  if (!shift)
    if (auto d = dimOf(module(), call)) return Type::compileInt(*d);  // a dimension
  auto x = integerValues(a), y = integerValues(b);
  if (!x || !y) {
    // A symbol (`shl(1, H)`): known at run time only, as `H & 1` is.
    if (shift) return Type::scalar(DType::of(ast::ScalarType::I64));
    return Type::intLiteralRange(0, 0);
  }
  if (!shift) {  // `min`/`max` of an operand that joins branches
    if (name == "min")
      return Type::intLiteralRange(std::min(x->first, y->first), std::min(x->second, y->second));
    return Type::intLiteralRange(std::max(x->first, y->first), std::max(x->second, y->second));
  }
  // Shifts of two known values fold; past 63 bits, or of a join of
  // branches, the value is one only the run knows.
  bool exact = a.kind() != TypeKind::IntLiteral || a.isExactInt();
  exact = exact && (b.kind() != TypeKind::IntLiteral || b.isExactInt());
  int64_t v = x->first, bits = y->first;
  if (!exact || bits < 0 || bits > 62) return Type::scalar(DType::of(ast::ScalarType::I64));
  __int128 folded = name == "shl" ? static_cast<__int128>(v) * (int64_t{1} << bits) : v >> bits;
  if (folded > INT64_MAX || folded < INT64_MIN)
    return Type::scalar(DType::of(ast::ScalarType::I64));
  int64_t r = static_cast<int64_t>(folded);
  return r >= 0 ? Type::intLiteral(r) : Type::compileInt(shape::DimExpr::constant(r));
}

Type Checker::checkPreludeCall(const ast::CallExpr* call, const std::string& name,
                               const Type* expected) {
  PreludeArgs args;
  for (const ast::Argument& a : call->args) {
    if (a.isNamed()) args.named.push_back(&a);
    else args.positional.push_back(a.value);
  }
  auto arity = [&](size_t n) {
    if (args.positional.size() == n && args.named.empty()) return true;
    diagnostics_.emit(DiagnosticKind::PreludeArity, call->span, name, n,
                      args.positional.size() + args.named.size())
        .label(fmt::format("`{}` takes {} positional argument{}", name, n, n == 1 ? "" : "s"));
    for (const ast::Expr* e : args.positional)
      if (!ast::isa<ast::ShapeLiteralExpr>(e)) checkExpr(e);
    return false;
  };
  auto noGenerics = [&]() {
    if (!call->hasGenericArgs) return true;
    diagnostics_.emit(DiagnosticKind::WrongGenericCount, call->genericArgs.front().span, name, 0,
                      call->genericArgs.size())
        .label(fmt::format("`{}` takes no generic arguments", name));
    return false;
  };
  auto needDType = [&](const Type& t, const ast::Expr* e, bool (*ok)(const DType&),
                       const char* what) {
    if (!t.isTensor() || ok(t.dtype())) return true;
    auto d = diagnostics_.emit(DiagnosticKind::PreludeDType, e->span, name, what, t.dtype().str());
    d.label(fmt::format("this has dtype `{}`", t.dtype().str()));
    if (t.dtype().isGeneric())
      d.help(fmt::format("constrain `{}` to `{}`", t.dtype().str(), what));
    return false;
  };

  if (name == "pad" || name == "gather" || name == "scatter") {
    diagnostics_.emit(DiagnosticKind::ReservedPrelude, call->callee->span, name)
        .label("no signature is specified for this prelude function")
        .help(name == "gather" ? "index with a runtime integer inside index notation instead"
                               : "write it with index notation and `select`");
    return Type::error();
  }

  if (name == "cast") {
    if (!call->hasGenericArgs || call->genericArgs.size() != 1) {
      if (call->hasGenericArgs)
        diagnostics_.emit(DiagnosticKind::WrongGenericCount, call->span, name, 1,
                          call->genericArgs.size())
            .label("`cast` takes exactly one dtype");
      else
        diagnostics_.emit(DiagnosticKind::CannotInferPrelude, call->callee->span, "T", name)
            .label("the target dtype is missing")
            .help("write it: `cast<f32>(x)`");
      return Type::error();
    }
    auto target = dtypeArgument(diagnostics_, module(), call->genericArgs[0], name);
    if (!arity(1)) return Type::error();
    Type x = checkExpr(args.positional[0]);
    if (!target || x.isError()) return Type::error();
    if (x.isUntypedNumber()) return Type::scalar(*target);
    if (!x.isTensor()) {
      diagnostics_.emit(DiagnosticKind::InvalidOperand, args.positional[0]->span, "cast", str(x))
          .label(fmt::format("this is `{}`", str(x)));
      return Type::error();
    }
    return x.withDType(*target);
  }

  if (name == "exp" || name == "log" || name == "sqrt" || name == "rsqrt" || name == "sin" ||
      name == "cos" || name == "tanh" || name == "abs") {
    if (!noGenerics() || !arity(1)) return Type::error();
    Type x = checkExpr(args.positional[0]);
    if (x.isError()) return x;
    if (x.isUntypedNumber() && name != "abs") return Type::floatLiteral();  // value not tracked
    if (x.isUntypedNumber()) {
      // `abs` of a number: the values it may have, made non-negative.
      auto v = integerValues(x);
      if (x.kind() == TypeKind::FloatLiteral || !v) return x;
      auto [lo, hi] = *v;
      if (lo == INT64_MIN) return Type::intLiteralRange(0, 0);  // |i64::MIN| is no i64
      if (lo >= 0) return x;
      if (lo == hi) return Type::intLiteral(-lo);
      return Type::intLiteralRange(hi <= 0 ? -hi : 0, std::max(-lo, hi));
    }
    if (!x.isTensor()) {
      diagnostics_.emit(DiagnosticKind::InvalidOperand, args.positional[0]->span, name, str(x))
          .label(fmt::format("this is `{}`", str(x)));
      return Type::error();
    }
    bool ok = name == "abs" ? needDType(x, args.positional[0], isNumeric, "Numeric")
                            : needDType(x, args.positional[0], isFloat, "Float");
    return ok ? x : Type::error();
  }

  if (name == "min" || name == "max" || name == "shl" || name == "shr") {
    if (!noGenerics() || !arity(2)) return Type::error();
    Type a = checkExpr(args.positional[0]);
    Type b = checkExpr(args.positional[1]);
    if (a.isError() || b.isError()) return Type::error();
    for (auto [t, e] : {std::pair{&a, args.positional[0]}, std::pair{&b, args.positional[1]}}) {
      if (t->isTensor() || t->isUntypedNumber()) continue;
      diagnostics_.emit(DiagnosticKind::InvalidOperand, e->span, name, str(*t))
          .label(fmt::format("this is `{}`", str(*t)));
      return Type::error();
    }
    if (a.isUntypedNumber() && b.isUntypedNumber())
      return untypedPrelude(name, a, b, call, args.positional[0], args.positional[1]);
    Type r = elementwise(a, b, call->span, args.positional[0]->span, args.positional[1]->span,
                         fmt::format("arguments of `{}`", name), "the first argument",
                         "the second argument");
    if (r.isError()) return r;
    bool shift = name == "shl" || name == "shr";
    bool ok = shift ? needDType(r, call, isInteger, "Integer")
                    : needDType(r, call, isNumeric, "Numeric");
    return ok ? r : Type::error();
  }

  if (name == "select") {
    if (!noGenerics() || !arity(3)) return Type::error();
    Type c = checkExpr(args.positional[0]);
    Type a = checkExpr(args.positional[1]);
    Type b = checkExpr(args.positional[2]);
    if (!c.isError() && !(c.isTensor() && isBool(c.dtype()))) {
      diagnostics_.emit(DiagnosticKind::ConditionNotBool, args.positional[0]->span, str(c))
          .label(fmt::format("this is `{}`", str(c)))
          .help("the condition of `select` is a `bool` scalar or tensor; compare to get one");
      return Type::error();
    }
    if (c.isError() || a.isError() || b.isError()) return Type::error();
    for (auto [t, e] : {std::pair{&a, args.positional[1]}, std::pair{&b, args.positional[2]}}) {
      if (t->isTensor() || t->isUntypedNumber()) continue;
      diagnostics_.emit(DiagnosticKind::InvalidOperand, e->span, name, str(*t))
          .label(fmt::format("this is `{}`", str(*t)));
      return Type::error();
    }
    Type v;
    if (a.isUntypedNumber() && b.isUntypedNumber()) {
      // Two numbers and no dtype from either choice: the context's, or
      // their defaults (spec §1.7), i64 or, with a float among them, f64.
      bool isFloat = a.kind() == TypeKind::FloatLiteral || b.kind() == TypeKind::FloatLiteral;
      DType d = expected && expected->isTensor()
                    ? expected->dtype()
                    : DType::of(isFloat ? ast::ScalarType::F64 : ast::ScalarType::I64);
      if (!literalFits(a, d, args.positional[1], args.positional[1]->span) ||
          !literalFits(b, d, args.positional[2], args.positional[2]->span))
        return Type::error();
      v = Type::scalar(d);
    } else {
      v = elementwise(a, b, call->span, args.positional[1]->span, args.positional[2]->span,
                      "choices of `select`", "the first choice", "the second choice");
    }
    if (!v.isTensor()) return Type::error();
    // The condition broadcasts with the choices; the result has their dtype.
    Type r = broadcastOperands(c, v, call->span, "the condition", "the choices", true);
    if (r.isError()) return r;
    return r.withDType(v.dtype());
  }

  if (name == "reshape" || name == "broadcast_to") {
    if (!noGenerics() || !arity(2)) return Type::error();
    Type x = checkExpr(args.positional[0]);
    if (notTensor(diagnostics_, x, args.positional[0], name)) return Type::error();
    auto target = shapeArg(args.positional[1], name);
    if (!target) return Type::error();
    Type result = x.withShape(*target);
    if (name == "reshape") {
      shape::Proof proof = facts().equalElementCount(x.shape(), *target);
      if (proof) return result;
      auto d = diagnostics_.emit(DiagnosticKind::ReshapeCount, call->span, str(x), str(result));
      d.label("the element counts may differ");
      if (!proof.reason.empty()) d.note(proof.reason);
      if (!proof.suggestion.empty()) d.help(fmt::format("add `where {}`", proof.suggestion));
      return Type::error();
    }
    shape::BroadcastResult b = facts().broadcastCompatible(x.shape(), *target);
    if (b.compatible && sameShape(b.shape, *target)) return result;
    auto d = diagnostics_.emit(DiagnosticKind::UnprovenBroadcast, call->span, str(x), str(result));
    d.label(fmt::format("cannot broadcast to `{}`", str(result)));
    if (!b.suggestion.empty()) d.help(fmt::format("add `where {}`", b.suggestion));
    else d.help("each trailing axis must be provably equal to the target's or literally `1`");
    return Type::error();
  }

  if (name == "permute") {
    if (!noGenerics() || !arity(2)) return Type::error();
    Type x = checkExpr(args.positional[0]);
    auto* axesLit = ast::as<ast::ShapeLiteralExpr>(args.positional[1]);
    if (!axesLit) {
      shapeArg(args.positional[1], name);  // reports what was given instead
      return Type::error();
    }
    recordNonValue(axesLit);
    if (x.isError()) return x;
    if (!x.isTensor() || x.hasPack()) {
      diagnostics_.emit(DiagnosticKind::PermuteUnknownRank, args.positional[0]->span, str(x))
          .label(fmt::format("this is `{}`", str(x)))
          .help(x.hasPack() ? "a pack may hold any number of axes; reshape to a known rank first"
                            : "`permute` reorders the axes of a tensor");
      return Type::error();
    }
    size_t rank = x.shape().size();
    std::vector<int64_t> axes;
    for (const ast::ShapeElement& el : axesLit->elements) {
      auto v = el.isPack() ? std::nullopt : constantArg(el.dim);
      if (!v) {
        diagnostics_.emit(DiagnosticKind::InvalidPermutation, el.span, rank, str(x))
            .label("an axis of `permute` is an integer constant");
        return Type::error();
      }
      axes.push_back(*v);
    }
    std::vector<int64_t> sorted = axes;
    std::sort(sorted.begin(), sorted.end());
    bool valid = sorted.size() == rank;
    for (size_t i = 0; valid && i < rank; ++i) valid = sorted[i] == static_cast<int64_t>(i);
    if (!valid) {
      diagnostics_.emit(DiagnosticKind::InvalidPermutation, args.positional[1]->span, rank, str(x))
          .label(fmt::format("expected each of the axes 0 to {} exactly once", rank - 1));
      return Type::error();
    }
    shape::Shape out;
    for (int64_t a : axes) out.push_back(x.shape()[static_cast<size_t>(a)]);
    return x.withShape(std::move(out));
  }

  if (name == "concat" || name == "cumsum") {
    if (!noGenerics()) return Type::error();
    const ast::Expr* axisExpr = args.namedValue("axis");
    std::vector<Type> parts;
    for (const ast::Expr* e : args.positional) parts.push_back(checkExpr(e));
    bool unknownNamed = false;
    for (const ast::Argument* a : args.named)
      if (a->name.name != "axis") {
        diagnostics_.emit(DiagnosticKind::PreludeUnknownNamed, a->name.span, name, a->name.name)
            .label("no parameter of this name");
        unknownNamed = true;
      }
    if (unknownNamed) return Type::error();
    std::string wanted = name == "cumsum" ? "1" : "at least 2";
    std::string usage = name == "cumsum" ? "cumsum(x, axis = k)" : "concat(a, b, axis = k)";
    if (name == "cumsum" ? parts.size() != 1 : parts.size() < 2) {
      diagnostics_.emit(DiagnosticKind::PreludeArity, call->span, name, wanted, parts.size())
          .label(fmt::format("`{}` takes {} tensor{}", name, name == "cumsum" ? "one" : "two or more",
                             name == "cumsum" ? "" : "s"))
          .help(fmt::format("write `{}`", usage));
      return Type::error();
    }
    if (!axisExpr) {
      diagnostics_.emit(DiagnosticKind::MissingArgument, call->span, name, "axis")
          .label("the `axis = k` argument is missing")
          .help(fmt::format("write `{}`", usage));
      return Type::error();
    }
    Type axisType = checkExpr(axisExpr);
    auto axis = constantArg(axisExpr);
    for (size_t i = 0; i < parts.size(); ++i)
      if (notTensor(diagnostics_, parts[i], args.positional[i], name)) return Type::error();
    if (!axis) {
      if (!axisType.isError())
        diagnostics_.emit(DiagnosticKind::NotCompileTime, axisExpr->span, str(axisType))
            .label(fmt::format("the axis of `{}` is an integer constant", name));
      return Type::error();
    }
    const Type& first = parts.front();
    const shape::Shape& dims = first.shape();
    size_t n = dims.size();
    // A non-negative axis counts from the front, a negative one from the
    // end, over plain dimensions only: a pack on the side being counted
    // holds any number of axes, so which axis is meant is not known (spec
    // §2.3). Compared with `-plain`: `-k` overflows for i64's minimum.
    int64_t k = *axis;
    auto isPack = [&](size_t i) { return std::holds_alternative<shape::Pack>(dims[i]); };
    size_t lead = 0, trail = 0;
    while (lead < n && !isPack(lead)) ++lead;
    while (trail < n && !isPack(n - 1 - trail)) ++trail;
    int64_t plain = static_cast<int64_t>(k >= 0 ? lead : trail);
    bool inRange = k >= 0 ? k < plain : k >= -plain;
    size_t at = inRange ? static_cast<size_t>(k >= 0 ? k : static_cast<int64_t>(n) + k) : 0;
    if (!inRange && lead < n) {
      const shape::Pack& pack = std::get<shape::Pack>(dims[k >= 0 ? lead : n - 1 - trail]);
      size_t known = k >= 0 ? lead : trail;
      std::string count = known == 0   ? "no axis"
                          : known == 1 ? "one axis"
                                       : fmt::format("{} axes", known);
      diagnostics_.emit(DiagnosticKind::AxisAcrossPack, axisExpr->span, k, str(first), pack.name)
          .label(fmt::format("{} {} `*{}`", count, k >= 0 ? "before" : "after", pack.name))
          .help(fmt::format("`*{}` may hold any number of axes; name an axis written before it "
                            "with `0, 1, ...` or one after it with `-1, -2, ...`",
                            pack.name));
      return Type::error();
    }
    if (!inRange || first.shape().empty()) {
      diagnostics_.emit(DiagnosticKind::InvalidAxis, axisExpr->span, k, str(first))
          .label(fmt::format("the operands have rank {}", n))
          .help("axes count from 0, or from the end with negative numbers (`axis = -1` is the last)");
      return Type::error();
    }
    if (name == "cumsum") {
      return needDType(first, args.positional[0], isNumeric, "Numeric") ? first : Type::error();
    }
    shape::DimExpr total;
    for (size_t p = 0; p < parts.size(); ++p) {
      const Type& t = parts[p];
      if (!(t.dtype() == first.dtype())) {
        diagnostics_.emit(DiagnosticKind::DTypeMismatch, args.positional[p]->span, "parts of `concat`")
            .label(fmt::format("this has dtype `{}`", t.dtype().str()))
            .secondary(args.positional[0]->span, fmt::format("this has dtype `{}`", first.dtype().str()))
            .help("Linnet does not implicitly promote tensor dtypes; use an explicit `cast`");
        return Type::error();
      }
      bool same = t.shape().size() == n;
      for (size_t i = 0; same && i < n; ++i) {
        if (i == at) {
          same = std::holds_alternative<shape::DimExpr>(t.shape()[i]);
          continue;
        }
        same = sameShape(shape::Shape{t.shape()[i]}, shape::Shape{first.shape()[i]});
      }
      if (!same) {
        diagnostics_.emit(DiagnosticKind::ConcatMismatch, args.positional[p]->span, str(t), str(first), k)
            .label(fmt::format("this is `{}`", str(t)))
            .secondary(args.positional[0]->span, fmt::format("this is `{}`", str(first)));
        return Type::error();
      }
      total = total + std::get<shape::DimExpr>(t.shape()[at]);
    }
    shape::Shape out = first.shape();
    out[at] = facts().simplify(total);
    return first.withShape(std::move(out));
  }

  if (name == "iota") {
    DType d = DType::of(ast::ScalarType::I64);
    if (call->hasGenericArgs) {
      if (call->genericArgs.size() != 1) {
        diagnostics_.emit(DiagnosticKind::WrongGenericCount, call->span, name, 1, call->genericArgs.size())
            .label("`iota` takes at most one dtype");
        return Type::error();
      }
      auto t = dtypeArgument(diagnostics_, module(), call->genericArgs[0], name);
      if (!t) return Type::error();
      d = *t;
    }
    if (!arity(1)) return Type::error();
    Type n = checkExpr(args.positional[0]);
    if (n.isError()) return n;
    auto extent = dimOf(module(), args.positional[0]);
    if (!extent || !(n.kind() == TypeKind::CompileInt || n.kind() == TypeKind::IntLiteral)) {
      diagnostics_.emit(DiagnosticKind::NotCompileTime, args.positional[0]->span, str(n))
          .label("the length of `iota` must be a compile-time integer");
      return Type::error();
    }
    if (facts().provablyNegative(*extent)) {
      diagnostics_.emit(DiagnosticKind::NegativeDimension, args.positional[0]->span,
                        ast::printExpr(args.positional[0]))
          .label(fmt::format("this is `{}`, negative for every allowed binding", extent->str()));
      return Type::error();
    }
    requireNonNegative(*extent, args.positional[0]->span);
    if (!isNumeric(d)) {
      diagnostics_.emit(DiagnosticKind::PreludeDType, call->genericArgs[0].span, name, "Numeric", d.str())
          .label(fmt::format("`{}` is not Numeric", d.str()));
      return Type::error();
    }
    return Type::tensor({*extent}, d);
  }

  if (name == "fill") {
    if (!arity(2)) return Type::error();
    auto target = shapeArg(args.positional[0], name);
    Type v = checkExpr(args.positional[1]);
    std::optional<DType> d;
    if (call->hasGenericArgs) {
      if (call->genericArgs.size() != 1) {
        diagnostics_.emit(DiagnosticKind::WrongGenericCount, call->span, name, 1, call->genericArgs.size())
            .label("`fill` takes at most one dtype");
        return Type::error();
      }
      d = dtypeArgument(diagnostics_, module(), call->genericArgs[0], name);
      if (!d) return Type::error();
    }
    if (!target || v.isError()) return Type::error();
    if (v.isUntypedNumber()) {
      if (!d) {
        diagnostics_.emit(DiagnosticKind::CannotInferPrelude, call->callee->span, "T", name)
            .label("the dtype of the filled tensor is unknown")
            .help("write it: `fill<f32>([...], value)`");
        return Type::error();
      }
      if (!literalFits(v, *d, args.positional[1], args.positional[1]->span)) return Type::error();
      return Type::tensor(*target, *d);
    }
    if (!v.isScalar()) {
      diagnostics_.emit(DiagnosticKind::TypeMismatch, args.positional[1]->span, "a scalar", str(v))
          .label("the fill value must be a scalar");
      return Type::error();
    }
    if (d && !(*d == v.dtype())) {
      diagnostics_.emit(DiagnosticKind::TypeMismatch, args.positional[1]->span, d->str(), str(v))
          .label(fmt::format("this has dtype `{}`", v.dtype().str()));
      return Type::error();
    }
    return Type::tensor(*target, v.dtype());
  }

  // A prelude name this checker does not know (a type, as `i32(x)`): not
  // callable here, and never left unknown silently.
  for (const ast::Expr* e : args.positional)
    if (!ast::isa<ast::ShapeLiteralExpr>(e)) checkExpr(e);
  diagnostics_.emit(DiagnosticKind::NotCallable, call->callee->span, name, "a prelude name")
      .label("not a function");
  return Type::error();
}

}  // namespace linnet::check
