// Types and dimensions: the checker's types, instantiated in the current
// frame, become builtin tensor types (static where the dimension folds to an
// integer, dynamic where it still names an entry generic), and dimension
// expressions become `index` arithmetic over the entry's dim arguments.
#include <fmt/format.h>

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/lower/LowerImpl.h"
#include "runtime/artifact/Manifest.h"

namespace linnet::lower {

mlir::Type Lowerer::elementType(ast::ScalarType s) {
  mlir::MLIRContext* c = &context_;
  switch (s) {
    case ast::ScalarType::Bool: return mlir::IntegerType::get(c, 1);
    case ast::ScalarType::I8:
    case ast::ScalarType::U8: return mlir::IntegerType::get(c, 8);
    case ast::ScalarType::I16:
    case ast::ScalarType::U16: return mlir::IntegerType::get(c, 16);
    case ast::ScalarType::I32:
    case ast::ScalarType::U32: return mlir::IntegerType::get(c, 32);
    case ast::ScalarType::I64:
    case ast::ScalarType::U64: return mlir::IntegerType::get(c, 64);
    case ast::ScalarType::F16: return mlir::Float16Type::get(c);
    case ast::ScalarType::BF16: return mlir::BFloat16Type::get(c);
    case ast::ScalarType::F32: return mlir::Float32Type::get(c);
    case ast::ScalarType::F64: return mlir::Float64Type::get(c);
  }
  return mlir::Float32Type::get(c);
}

std::optional<ast::ScalarType> Lowerer::concreteDType(const check::DType& d, Span at) {
  check::DType c = check::instantiate(d, frame().subst);
  if (!c.isGeneric()) return c.scalar;
  unsupported(at, fmt::format("a value of dtype `{}` left unbound", c.str()));
  return std::nullopt;
}

check::Type Lowerer::instantiate(const check::Type& t) const {
  return check::instantiate(t, frame().subst);
}

mlir::Value Lowerer::pinProvenOnes(mlir::Value v, const ast::Expr* operand, const ast::Expr* whole) {
  const check::CheckedFunction* fn = frame().fn;
  if (!fn || !fn->signature) return v;
  const check::Type* ot = fn->typeOf(operand);
  const check::Type* wt = fn->typeOf(whole);
  auto type = mlir::dyn_cast<mlir::RankedTensorType>(v.getType());
  if (!ot || !wt || !ot->isTensor() || !wt->isTensor() || !type) return v;
  const shape::Shape& have = ot->shape();
  const shape::Shape& want = wt->shape();
  if (have.size() != static_cast<size_t>(type.getRank()) || have.size() > want.size()) return v;
  llvm::SmallVector<int64_t> dims(type.getShape());
  bool pinned = false;
  for (size_t k = 0; k < have.size(); ++k) {
    if (!mlir::ShapedType::isDynamic(dims[k])) continue;
    const auto* d = std::get_if<shape::DimExpr>(&have[k]);
    const auto* w = std::get_if<shape::DimExpr>(&want[k + want.size() - have.size()]);
    if (!d || (w && *w == *d)) continue;
    if (!fn->signature->facts.provablyEqual(*d, shape::DimExpr::constant(1)).proved) continue;
    dims[k] = 1;
    pinned = true;
  }
  if (!pinned) return v;
  return builder_.create<mlir::tensor::CastOp>(v.getLoc(), type.clone(dims), v);
}

check::Type Lowerer::typeOf(const ast::Expr* e) const {
  const check::Type* t = frame().fn ? frame().fn->typeOf(e) : nullptr;
  return t ? instantiate(*t) : check::Type::error();
}

std::optional<shape::DimExpr> Lowerer::dimOfShape(const shape::ShapeDim& d, Span at) {
  if (auto* e = std::get_if<shape::DimExpr>(&d)) return *e;
  unsupported(at, fmt::format("a tensor whose shape keeps the pack `*{}`",
                              std::get<shape::Pack>(d).name));
  return std::nullopt;
}

std::optional<mlir::RankedTensorType> Lowerer::tensorType(const check::Type& t, Span at) {
  if (!t.isTensor()) {
    unsupported(at, fmt::format("a value of type `{}` where a tensor is needed", check::str(t)));
    return std::nullopt;
  }
  // The loop nests and index lists codegen makes grow with the rank, some
  // passes faster than linearly (rank 5000 took 30 s and 930 MB to build);
  // an artifact's manifest takes no more axes either.
  constexpr size_t kMaxRank = rt::Manifest::kMaxRank;
  if (t.shape().size() > kMaxRank) {
    unsupported(at, fmt::format("a tensor of rank {}, past the {} axes the compiler builds,", t.shape().size(),
                                kMaxRank));
    return std::nullopt;
  }
  std::vector<int64_t> dims;
  for (const shape::ShapeDim& d : t.shape()) {
    auto e = dimOfShape(d, at);
    if (!e) return std::nullopt;
    auto c = e->constantValue();
    if (c && *c < 0) {
      unsupported(at, fmt::format("a tensor with the negative dimension {}", *c));
      return std::nullopt;
    }
    dims.push_back(c ? *c : mlir::ShapedType::kDynamic);
  }
  auto dt = concreteDType(t.dtype(), at);
  if (!dt) return std::nullopt;
  return mlir::RankedTensorType::get(dims, elementType(*dt));
}

std::optional<std::vector<mlir::Value>> Lowerer::dynamicDims(const check::Type& t, Span at) {
  std::vector<mlir::Value> out;
  for (const shape::ShapeDim& d : t.shape()) {
    auto e = dimOfShape(d, at);
    if (!e) return std::nullopt;
    if (e->constantValue()) continue;
    auto v = dimValue(*e, at);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

// `(a + c) / k` for constants k > 0 and |c| >= 2^32, as `a / k + c / k`
// plus one where the remainders carry: `a + c` itself would wrap at run time
// for an offset near 2^63 (a slice `x[0:N:2^63 - 1]`, whose extent is
// `(N + 2^63 - 2) / (2^63 - 1)`, came out negative). Small offsets (`(S + 1)
// / 2`) keep the plain form.
std::optional<mlir::Value> Lowerer::floorDivLargeOffset(const shape::Atom& a, Span at) {
  if (a.kind() != shape::AtomKind::FloorDiv) return std::nullopt;
  std::optional<int64_t> k = a.operands()[1].constantValue();
  const shape::DimExpr& numerator = a.operands()[0];
  int64_t c = numerator.constantTerm();
  constexpr int64_t kLarge = int64_t{1} << 32;
  if (!k || *k <= 0 || (c < kLarge && c > -kLarge) || numerator.constantValue()) return std::nullopt;
  int64_t q = c / *k, r = c % *k;
  if (r < 0) r += *k, q -= 1;
  auto rest = dimValue(numerator - shape::DimExpr::constant(c), at);
  if (!rest) return std::nullopt;
  mlir::Location l = loc(at);
  auto constant = [&](int64_t v) -> mlir::Value { return builder_.create<mlir::arith::ConstantIndexOp>(l, v); };
  mlir::Value divided = builder_.create<mlir::arith::FloorDivSIOp>(l, *rest, constant(*k));
  mlir::Value remainder = builder_.create<mlir::arith::SubIOp>(
      l, *rest, builder_.create<mlir::arith::MulIOp>(l, divided, constant(*k)));
  mlir::Value carries =
      builder_.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::sge, remainder, constant(*k - r));
  mlir::Value carry = builder_.create<mlir::arith::SelectOp>(l, carries, constant(1), constant(0));
  mlir::Value whole = builder_.create<mlir::arith::AddIOp>(l, divided, constant(q));
  return builder_.create<mlir::arith::AddIOp>(l, whole, carry).getResult();
}

std::optional<mlir::Value> Lowerer::dimValue(const shape::DimExpr& d, Span at) {
  mlir::Location l = loc(at);
  auto constant = [&](int64_t v) -> mlir::Value {
    return builder_.create<mlir::arith::ConstantIndexOp>(l, v);
  };
  if (d.overflowed()) {
    unsupported(at, "a dimension that overflows 64 bits");
    return std::nullopt;
  }
  if (auto c = d.constantValue()) return constant(*c);
  std::function<std::optional<mlir::Value>(const shape::Atom&)> atomValue =
      [&](const shape::Atom& a) -> std::optional<mlir::Value> {
    switch (a.kind()) {
      case shape::AtomKind::Symbol: {
        auto it = entryDims_.find(a.id());
        if (it != entryDims_.end()) return it->second;
        unsupported(at, fmt::format("the dimension `{}`, which no entry argument fixes", a.name()));
        return std::nullopt;
      }
      case shape::AtomKind::PackRank:
      case shape::AtomKind::PackElements:
        unsupported(at, fmt::format("a measure of the unbound pack `*{}`", a.name()));
        return std::nullopt;
      case shape::AtomKind::Quotient:
      case shape::AtomKind::FloorDiv:
      case shape::AtomKind::Mod: {
        if (auto v = floorDivLargeOffset(a, at)) return v;
        auto n = dimValue(a.operands()[0], at);
        auto q = n ? dimValue(a.operands()[1], at) : std::nullopt;
        if (!q) return std::nullopt;
        bool isMod = a.kind() == shape::AtomKind::Mod;
        // A shape's divisor is proven positive; a value's (`N / M`) may be
        // 0 at run time, where the division is total as the language's
        // integer division is (x / 0 == -1, x % 0 == x) instead of a trap.
        std::optional<int64_t> k = a.operands()[1].constantValue();
        mlir::Value isZero, divisor = *q;
        if (!k || *k == 0) {
          isZero = builder_.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::eq, *q, constant(0));
          divisor = builder_.create<mlir::arith::SelectOp>(l, isZero, constant(1), *q);
        }
        mlir::Value r = isMod ? builder_.create<mlir::arith::RemSIOp>(l, *n, divisor).getResult()
                              : builder_.create<mlir::arith::FloorDivSIOp>(l, *n, divisor).getResult();
        if (!isZero) return r;
        return builder_.create<mlir::arith::SelectOp>(l, isZero, isMod ? *n : constant(-1), r).getResult();
      }
      case shape::AtomKind::Min:
      case shape::AtomKind::Max: {
        std::optional<mlir::Value> acc;
        for (const shape::DimExpr& o : a.operands()) {
          auto v = dimValue(o, at);
          if (!v) return std::nullopt;
          if (!acc) acc = *v;
          else if (a.kind() == shape::AtomKind::Min)
            acc = builder_.create<mlir::arith::MinSIOp>(l, *acc, *v).getResult();
          else
            acc = builder_.create<mlir::arith::MaxSIOp>(l, *acc, *v).getResult();
        }
        return acc;
      }
    }
    return std::nullopt;
  };
  // Terms in order; a coefficient of 1 and a constant term of 0 are left out.
  std::optional<mlir::Value> sum;
  if (d.constantTerm() != 0) sum = constant(d.constantTerm());
  for (const shape::Term& term : d.terms()) {
    std::optional<mlir::Value> product;
    if (term.coefficient != 1) product = constant(term.coefficient);
    for (const shape::Factor& f : term.monomial) {
      auto v = atomValue(f.atom);
      if (!v) return std::nullopt;
      for (uint32_t p = 0; p < f.power; ++p)
        product = product ? builder_.create<mlir::arith::MulIOp>(l, *product, *v).getResult() : *v;
    }
    sum = sum ? builder_.create<mlir::arith::AddIOp>(l, *sum, *product).getResult() : *product;
  }
  return *sum;
}

std::string Lowerer::dimSpelling(const shape::DimExpr& d) const {
  if (auto c = d.constantValue()) return std::to_string(*c);
  return d.str();
}

}  // namespace linnet::lower
