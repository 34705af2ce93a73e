// Patterns lowering each `linnet` op to linalg/tensor/arith/math/scf on the
// same tensor types (docs/dialect.md gives the meaning of each op).
//
//   binary, unary, cast, select, broadcast_to, permute, iota, fill
//       -> one elementwise `linalg.generic` (a broadcast operand is read
//          through a map with the constant 0 for its static-1 dimensions)
//   reduce, notation
//       -> one `linalg.generic` with reduction iterators, its init a
//          `tensor.empty` filled with the reduction's identity
//   slice -> `tensor.extract_slice`, then `tensor.collapse_shape` for dropped axes
//   concat -> `tensor.empty` + a chain of `tensor.insert_slice`
//   reshape -> `tensor.collapse_shape`/`expand_shape` when both shapes are
//       static and one refines the other, else `tensor.reshape`
//   cumsum -> `scf.for` over the axis adding each slice to the next
//
// Dynamic result sizes come from the op's `index` operands where it has
// them, else from `tensor.dim` of an operand the verifier tied to them.
#include <cmath>

#include "compiler/conversion/ElementOps.h"
#include "compiler/conversion/Passes.h"
#include "compiler/conversion/TensorBuilders.h"
#include "compiler/dialect/LinnetOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace linnet::dialect;

namespace linnet::conversion {
namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers: one element of each op, emitted inside a linalg body.
//===----------------------------------------------------------------------===//

Value constantIndex(OpBuilder& b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

Value constantInt(OpBuilder& b, Location loc, Type t, const APInt& v) {
  return b.create<arith::ConstantOp>(loc, t, b.getIntegerAttr(t, v));
}

Value constantFloat(OpBuilder& b, Location loc, FloatType t, const APFloat& v) {
  return b.create<arith::ConstantOp>(loc, t, b.getFloatAttr(t, v));
}

// `value` converted to float type `t`, rounding to nearest even.
APFloat toSemantics(double value, FloatType t) {
  APFloat f(value);
  bool lost = false;
  f.convert(t.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return f;
}

// The low-precision floats are computed through f32 where an operation has
// no direct lowering that avoids compiler-rt helpers.
bool isNarrowFloat(Type t) { return isa<FloatType>(t) && t.getIntOrFloatBitWidth() < 32; }

}  // namespace

// Integer division and remainder, total (XLA's semantics, docs/dialect.md):
// x / 0 is -1 signed and all ones unsigned, x % 0 is x; signed MIN / -1 is
// MIN (the wrapped quotient) and MIN % -1 is 0. The divisor is replaced by
// 1 where the hardware would trap (zero, and -1 under MIN), so the division
// itself never traps, and the zero case is selected after it: a few
// compares and selects per element (vectorizable), no branch.
static Value emitIntegerDivision(OpBuilder& b, Location loc, bool remainder, bool isUnsigned, Value x,
                                 Value y) {
  Type t = x.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  auto splat = [&](const APInt& v) { return constantInt(b, loc, t, v); };
  Value one = splat(APInt(width, 1));
  Value isZero = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, splat(APInt(width, 0)));
  Value unsafe = isZero;
  if (!isUnsigned) {
    Value isMin = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x,
                                          splat(APInt::getSignedMinValue(width)));
    Value isMinusOne =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, y, splat(APInt::getAllOnes(width)));
    unsafe = b.create<arith::OrIOp>(loc, isZero, b.create<arith::AndIOp>(loc, isMin, isMinusOne));
  }
  Value divisor = b.create<arith::SelectOp>(loc, unsafe, one, y);
  // MIN / 1 = MIN and MIN % 1 = 0, as wanted for MIN / -1; only zero is
  // replaced after the division.
  if (remainder) {
    Value r = isUnsigned ? b.create<arith::RemUIOp>(loc, x, divisor).getResult()
                         : b.create<arith::RemSIOp>(loc, x, divisor).getResult();
    return b.create<arith::SelectOp>(loc, isZero, x, r);
  }
  Value q = isUnsigned ? b.create<arith::DivUIOp>(loc, x, divisor).getResult()
                       : b.create<arith::DivSIOp>(loc, x, divisor).getResult();
  return b.create<arith::SelectOp>(loc, isZero, splat(APInt::getAllOnes(width)), q);
}

// Shifts, total (XLA's semantics, docs/dialect.md): a count outside
// [0, width) (compared unsigned, so a negative count is one) shifts every bit
// out: 0 for `shl` and a logical `shr`, the sign for an arithmetic `shr`.
// LLVM's shift by such a count is poison, so the count is clamped first.
static Value emitShift(OpBuilder& b, Location loc, bool left, bool isUnsigned, Value x, Value y) {
  Type t = x.getType();
  unsigned width = t.getIntOrFloatBitWidth();
  auto splat = [&](uint64_t v) { return constantInt(b, loc, t, APInt(width, v)); };
  Value inRange = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, y, splat(width));
  if (!left && !isUnsigned) {
    Value count = b.create<arith::SelectOp>(loc, inRange, y, splat(width - 1));
    return b.create<arith::ShRSIOp>(loc, x, count);
  }
  Value count = b.create<arith::SelectOp>(loc, inRange, y, splat(0));
  Value shifted = left ? b.create<arith::ShLIOp>(loc, x, count).getResult()
                       : b.create<arith::ShRUIOp>(loc, x, count).getResult();
  return b.create<arith::SelectOp>(loc, inRange, shifted, splat(0));
}

// The element ops below are shared with compiler/lower (ElementOps.h), so an
// op means the same inside a notation body and as a whole-tensor op.
Value emitBinary(OpBuilder& b, Location loc, BinaryKind kind, bool isUnsigned, Value x, Value y) {
  bool f = isa<FloatType>(x.getType());
  switch (kind) {
    case BinaryKind::add:
      return f ? b.create<arith::AddFOp>(loc, x, y).getResult()
               : b.create<arith::AddIOp>(loc, x, y).getResult();
    case BinaryKind::sub:
      return f ? b.create<arith::SubFOp>(loc, x, y).getResult()
               : b.create<arith::SubIOp>(loc, x, y).getResult();
    case BinaryKind::mul:
      return f ? b.create<arith::MulFOp>(loc, x, y).getResult()
               : b.create<arith::MulIOp>(loc, x, y).getResult();
    case BinaryKind::div:
      if (f) return b.create<arith::DivFOp>(loc, x, y);
      return emitIntegerDivision(b, loc, /*remainder=*/false, isUnsigned, x, y);
    case BinaryKind::rem:
      if (f) return b.create<arith::RemFOp>(loc, x, y);
      return emitIntegerDivision(b, loc, /*remainder=*/true, isUnsigned, x, y);
    case BinaryKind::min:
      if (f) return b.create<arith::MinimumFOp>(loc, x, y);
      return isUnsigned ? b.create<arith::MinUIOp>(loc, x, y).getResult()
                        : b.create<arith::MinSIOp>(loc, x, y).getResult();
    case BinaryKind::max:
      if (f) return b.create<arith::MaximumFOp>(loc, x, y);
      return isUnsigned ? b.create<arith::MaxUIOp>(loc, x, y).getResult()
                        : b.create<arith::MaxSIOp>(loc, x, y).getResult();
    case BinaryKind::and_:
      return b.create<arith::AndIOp>(loc, x, y);
    case BinaryKind::or_:
      return b.create<arith::OrIOp>(loc, x, y);
    case BinaryKind::xor_:
      return b.create<arith::XOrIOp>(loc, x, y);
    case BinaryKind::shl:
    case BinaryKind::shr:
      return emitShift(b, loc, kind == BinaryKind::shl, isUnsigned, x, y);
    case BinaryKind::eq:
    case BinaryKind::ne:
    case BinaryKind::lt:
    case BinaryKind::le:
    case BinaryKind::gt:
    case BinaryKind::ge:
      break;
  }
  // Comparisons: ordered for floats except `ne` (true for NaN, as in C).
  if (f) {
    arith::CmpFPredicate p = arith::CmpFPredicate::OEQ;
    switch (kind) {
      case BinaryKind::ne: p = arith::CmpFPredicate::UNE; break;
      case BinaryKind::lt: p = arith::CmpFPredicate::OLT; break;
      case BinaryKind::le: p = arith::CmpFPredicate::OLE; break;
      case BinaryKind::gt: p = arith::CmpFPredicate::OGT; break;
      case BinaryKind::ge: p = arith::CmpFPredicate::OGE; break;
      default: break;
    }
    return b.create<arith::CmpFOp>(loc, p, x, y);
  }
  arith::CmpIPredicate p = arith::CmpIPredicate::eq;
  switch (kind) {
    case BinaryKind::ne: p = arith::CmpIPredicate::ne; break;
    case BinaryKind::lt: p = isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt; break;
    case BinaryKind::le: p = isUnsigned ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle; break;
    case BinaryKind::gt: p = isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt; break;
    case BinaryKind::ge: p = isUnsigned ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge; break;
    default: break;
  }
  return b.create<arith::CmpIOp>(loc, p, x, y);
}

Value emitUnary(OpBuilder& b, Location loc, UnaryKind kind, Value x, bool isUnsigned) {
  Type t = x.getType();
  bool f = isa<FloatType>(t);
  switch (kind) {
    case UnaryKind::neg:
      if (f) return b.create<arith::NegFOp>(loc, x);
      return b.create<arith::SubIOp>(loc, constantInt(b, loc, t, APInt(t.getIntOrFloatBitWidth(), 0)), x);
    case UnaryKind::not_:
      return b.create<arith::XOrIOp>(
          loc, x, constantInt(b, loc, t, APInt::getAllOnes(t.getIntOrFloatBitWidth())));
    case UnaryKind::exp: return b.create<math::ExpOp>(loc, x);
    case UnaryKind::log: return b.create<math::LogOp>(loc, x);
    case UnaryKind::sqrt: return b.create<math::SqrtOp>(loc, x);
    case UnaryKind::rsqrt: return b.create<math::RsqrtOp>(loc, x);
    case UnaryKind::sin: return b.create<math::SinOp>(loc, x);
    case UnaryKind::cos: return b.create<math::CosOp>(loc, x);
    case UnaryKind::tanh: return b.create<math::TanhOp>(loc, x);
    case UnaryKind::abs:
      if (f) return b.create<math::AbsFOp>(loc, x);
      return isUnsigned ? x : b.create<math::AbsIOp>(loc, x).getResult();
  }
  return x;
}

// Float to integer, truncating toward zero, saturating, NaN -> 0. LLVM's
// fptosi/fptoui are poison out of range, so the range is tested first; the
// bounds are powers of two, exact in every float type (or infinite, where
// every finite value is in range).
static Value emitFloatToInt(OpBuilder& b, Location loc, Value x, IntegerType to, bool toUnsigned) {
  auto from = cast<FloatType>(x.getType());
  unsigned width = to.getWidth();
  APInt maxV = toUnsigned ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
  APInt minV = toUnsigned ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
  double hi = std::ldexp(1.0, static_cast<int>(toUnsigned ? width : width - 1));
  double lo = toUnsigned ? 0.0 : -hi;
  Value converted = toUnsigned ? b.create<arith::FPToUIOp>(loc, to, x).getResult()
                               : b.create<arith::FPToSIOp>(loc, to, x).getResult();
  Value tooBig = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGE, x,
                                         constantFloat(b, loc, from, toSemantics(hi, from)));
  Value tooSmall = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x,
                                           constantFloat(b, loc, from, toSemantics(lo, from)));
  Value isNan = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x, x);
  Value r = b.create<arith::SelectOp>(loc, tooBig, constantInt(b, loc, to, maxV), converted);
  r = b.create<arith::SelectOp>(loc, tooSmall, constantInt(b, loc, to, minV), r);
  return b.create<arith::SelectOp>(loc, isNan, constantInt(b, loc, to, APInt(width, 0)), r);
}

// f64 -> f32 rounding to odd: an inexact result is the neighbour whose last
// significand bit is 1. Rounding that to a format at least two bits shorter
// (f16, bf16) to nearest even gives the f64 value correctly rounded, which
// f64 -> f32 -> f16 rounding to nearest twice does not always (x just above
// a half-way point of f16 that rounds down onto it in f32). LLVM would call
// compiler-rt (`__truncdfhf2`, `__truncdfbf2`) for the direct conversion.
// Overflow gives FLT_MAX (odd), underflow the least subnormal (odd), and NaN
// stays NaN, so the second rounding still overflows or underflows.
static Value emitTruncToF32RoundToOdd(OpBuilder& b, Location loc, Value x) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value nearest = b.create<arith::TruncFOp>(loc, f32, x);
  Value back = b.create<arith::ExtFOp>(loc, x.getType(), nearest);
  Value inexact = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::ONE, back, x);
  Value bits = b.create<arith::BitcastOp>(loc, i32, nearest);
  Value one = constantInt(b, loc, i32, APInt(32, 1));
  Value even = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                       b.create<arith::AndIOp>(loc, bits, one),
                                       constantInt(b, loc, i32, APInt(32, 0)));
  // The other neighbour: one step toward zero where rounding went away
  // from zero, else one step away (the bits order magnitudes).
  Value away = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT,
                                       b.create<math::AbsFOp>(loc, back),
                                       b.create<math::AbsFOp>(loc, x));
  Value step = b.create<arith::SelectOp>(loc, away, constantInt(b, loc, i32, APInt::getAllOnes(32)), one);
  Value odd = b.create<arith::AddIOp>(loc, bits, step);
  Value adjust = b.create<arith::AndIOp>(loc, inexact, even);
  return b.create<arith::BitcastOp>(loc, f32, b.create<arith::SelectOp>(loc, adjust, odd, bits));
}

Value emitCast(OpBuilder& b, Location loc, Value x, Type to, bool fromUnsigned, bool toUnsigned) {
  Type from = x.getType();
  if (from == to) return x;
  Type f32 = b.getF32Type();
  if (to.isInteger(1)) {
    if (isa<FloatType>(from))
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, x,
                                     constantFloat(b, loc, cast<FloatType>(from),
                                                   APFloat::getZero(cast<FloatType>(from).getFloatSemantics())));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x,
                                   constantInt(b, loc, from, APInt(from.getIntOrFloatBitWidth(), 0)));
  }
  if (from.isInteger(1)) fromUnsigned = true;
  if (isa<FloatType>(from) && isa<FloatType>(to)) {
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw == tw) return b.create<arith::TruncFOp>(loc, to, b.create<arith::ExtFOp>(loc, f32, x));
    if (fw == 64 && isNarrowFloat(to))
      return b.create<arith::TruncFOp>(loc, to, emitTruncToF32RoundToOdd(b, loc, x));
    return fw < tw ? b.create<arith::ExtFOp>(loc, to, x).getResult()
                   : b.create<arith::TruncFOp>(loc, to, x).getResult();
  }
  if (isa<IntegerType>(from) && isa<IntegerType>(to)) {
    unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
    if (fw == tw) return x;
    if (fw > tw) return b.create<arith::TruncIOp>(loc, to, x);
    return fromUnsigned ? b.create<arith::ExtUIOp>(loc, to, x).getResult()
                        : b.create<arith::ExtSIOp>(loc, to, x).getResult();
  }
  if (isa<IntegerType>(from)) {
    // Narrow floats go through f32: LLVM would otherwise call compiler-rt.
    // An integer wider than f32's significand goes to bf16 through f64
    // (exact up to 53 bits) and f32 rounded to odd, so it is rounded once
    // (f16 overflows before an integer has more than 24 bits).
    unsigned fw = from.getIntOrFloatBitWidth();
    bool viaF64 = to.isBF16() && fw > 24;
    Type via = viaF64 ? Type(b.getF64Type()) : isNarrowFloat(to) ? f32 : to;
    auto toFloat = [&](Value v) -> Value {
      return fromUnsigned ? b.create<arith::UIToFPOp>(loc, via, v).getResult()
                          : b.create<arith::SIToFPOp>(loc, via, v).getResult();
    };
    Value r = toFloat(x);
    if (viaF64 && fw > 53) {
      // Past 2^53 the conversion to f64 would round a first time: the
      // value's bits below 2^12 are replaced by one sticky bit at 2^11
      // (set when any was), which keeps it strictly between the same
      // multiples of 2^12 and fits 53 bits, so the f64 is exact and the
      // rounding to odd below sees whether it is exact.
      Value twelve = constantInt(b, loc, from, APInt(fw, 12));
      Value low = b.create<arith::AndIOp>(loc, x, constantInt(b, loc, from, APInt(fw, 0xfff)));
      Value sticky = b.create<arith::ExtUIOp>(
          loc, from, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, low, constantInt(b, loc, from, APInt(fw, 0))));
      Value high = fromUnsigned ? b.create<arith::ShRUIOp>(loc, x, twelve).getResult()
                                : b.create<arith::ShRSIOp>(loc, x, twelve).getResult();
      Value packed = b.create<arith::OrIOp>(loc, b.create<arith::ShLIOp>(loc, high, constantInt(b, loc, from, APInt(fw, 1))),
                                            sticky);
      Value scaled = b.create<arith::MulFOp>(loc, toFloat(packed),
                                             constantFloat(b, loc, cast<FloatType>(via), APFloat(0x1p11)));
      // |x| < 2^53 converts exactly as it is.
      Value limit = constantInt(b, loc, from, APInt(fw, uint64_t{1} << 53));
      Value small = fromUnsigned
                        ? b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, x, limit).getResult()
                        : b.create<arith::AndIOp>(
                              loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, limit),
                              b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, x,
                                                      constantInt(b, loc, from, -APInt(fw, uint64_t{1} << 53))))
                              .getResult();
      r = b.create<arith::SelectOp>(loc, small, r, scaled);
    }
    if (viaF64) r = emitTruncToF32RoundToOdd(b, loc, r);
    return r.getType() == to ? r : b.create<arith::TruncFOp>(loc, to, r).getResult();
  }
  if (isNarrowFloat(from)) x = b.create<arith::ExtFOp>(loc, f32, x);
  return emitFloatToInt(b, loc, x, cast<IntegerType>(to), toUnsigned);
}

Value emitReductionIdentity(OpBuilder& b, Location loc, ReductionKind kind, Type t, bool isUnsigned) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    const llvm::fltSemantics& sem = ft.getFloatSemantics();
    switch (kind) {
      case ReductionKind::prod: return constantFloat(b, loc, ft, APFloat::getOne(sem));
      case ReductionKind::max: return constantFloat(b, loc, ft, APFloat::getInf(sem, true));
      case ReductionKind::min: return constantFloat(b, loc, ft, APFloat::getInf(sem, false));
      default: return constantFloat(b, loc, ft, APFloat::getZero(sem));
    }
  }
  unsigned w = t.getIntOrFloatBitWidth();
  switch (kind) {
    case ReductionKind::prod:
    case ReductionKind::all:
      return constantInt(b, loc, t, APInt(w, 1));
    case ReductionKind::max:
      return constantInt(b, loc, t, isUnsigned ? APInt::getMinValue(w) : APInt::getSignedMinValue(w));
    case ReductionKind::min:
      return constantInt(b, loc, t, isUnsigned ? APInt::getMaxValue(w) : APInt::getSignedMaxValue(w));
    default:
      return constantInt(b, loc, t, APInt(w, 0));
  }
}

Value emitReductionCombine(OpBuilder& b, Location loc, ReductionKind kind, bool isUnsigned, Value acc,
                       Value v) {
  switch (kind) {
    case ReductionKind::none: return v;
    case ReductionKind::sum: return emitBinary(b, loc, BinaryKind::add, isUnsigned, acc, v);
    case ReductionKind::prod: return emitBinary(b, loc, BinaryKind::mul, isUnsigned, acc, v);
    case ReductionKind::max: return emitBinary(b, loc, BinaryKind::max, isUnsigned, acc, v);
    case ReductionKind::min: return emitBinary(b, loc, BinaryKind::min, isUnsigned, acc, v);
    case ReductionKind::any: return b.create<arith::OrIOp>(loc, acc, v);
    case ReductionKind::all: return b.create<arith::AndIOp>(loc, acc, v);
  }
  return v;
}

SmallVector<Value> dynamicDimsOf(OpBuilder& b, Location loc, Value v) {
  SmallVector<Value> dims;
  auto t = cast<RankedTensorType>(v.getType());
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (t.isDynamicDim(i)) dims.push_back(b.create<tensor::DimOp>(loc, v, i));
  return dims;
}

Value freshCopy(OpBuilder& b, Location loc, Value v) {
  Value empty = b.create<tensor::EmptyOp>(loc, cast<RankedTensorType>(v.getType()), dynamicDimsOf(b, loc, v));
  return b.create<linalg::CopyOp>(loc, v, empty).getResult(0);
}

namespace {

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

// The dynamic sizes of a broadcast result: each from an operand whose
// right-aligned dimension is dynamic (equal to the result's, as only a static
// 1 broadcasts) or static and not 1.
FailureOr<SmallVector<Value>> broadcastDims(OpBuilder& b, Location loc, RankedTensorType result,
                                            ValueRange operands) {
  SmallVector<Value> dims;
  for (int64_t i = 0; i < result.getRank(); ++i) {
    if (!result.isDynamicDim(i)) continue;
    Value size;
    for (Value operand : operands) {
      RankedTensorType t = tensorType(operand);
      int64_t j = i - (result.getRank() - t.getRank());
      if (j < 0) continue;
      if (t.isDynamicDim(j)) {
        size = b.create<tensor::DimOp>(loc, operand, j);
        break;
      }
      if (t.getDimSize(j) != 1) {
        size = constantIndex(b, loc, t.getDimSize(j));
        break;
      }
    }
    if (!size) return failure();
    dims.push_back(size);
  }
  return dims;
}

// Reads `from` broadcast right-aligned into the loops of `to`.
AffineMap broadcastMap(RankedTensorType from, RankedTensorType to, MLIRContext* context) {
  int64_t offset = to.getRank() - from.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t j = 0; j < from.getRank(); ++j) {
    bool broadcast = from.getDimSize(j) == 1 && to.getDimSize(j + offset) != 1;
    exprs.push_back(broadcast ? getAffineConstantExpr(0, context)
                              : getAffineDimExpr(j + offset, context));
  }
  return AffineMap::get(to.getRank(), 0, exprs, context);
}

using ElementBody = function_ref<Value(OpBuilder&, Location, ValueRange)>;

// One parallel `linalg.generic` computing `body` of the broadcast inputs'
// elements into a fresh tensor of `resultType`.
Value buildElementwise(OpBuilder& b, Location loc, RankedTensorType resultType,
                       ValueRange dynamicSizes, ValueRange inputs, ElementBody body) {
  MLIRContext* context = b.getContext();
  Value init = b.create<tensor::EmptyOp>(loc, resultType, dynamicSizes);
  SmallVector<AffineMap> maps;
  for (Value input : inputs) maps.push_back(broadcastMap(tensorType(input), resultType, context));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), context));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(), utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder& nb, Location nloc, ValueRange args) {
        nb.create<linalg::YieldOp>(nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

OpFoldResult addSizes(OpBuilder& b, Location loc, OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy) return b.getIndexAttr(*cx + *cy);
  return b.create<arith::AddIOp>(loc, getValueOrCreateConstantIndexOp(b, loc, x),
                                 getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct BinaryLowering : OpConversionPattern<BinaryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BinaryOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    SmallVector<Value> inputs{adaptor.getLhs(), adaptor.getRhs()};
    FailureOr<SmallVector<Value>> dims = broadcastDims(rewriter, loc, type, inputs);
    if (failed(dims)) return rewriter.notifyMatchFailure(op, "cannot size a dynamic dimension");
    BinaryKind kind = op.getKind();
    bool isUnsigned = op.getIsUnsigned();
    rewriter.replaceOp(op, buildElementwise(rewriter, loc, type, *dims, inputs,
                                            [&](OpBuilder& b, Location l, ValueRange args) {
                                              return emitBinary(b, l, kind, isUnsigned, args[0],
                                                                args[1]);
                                            }));
    return success();
  }
};

struct UnaryLowering : OpConversionPattern<UnaryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(UnaryOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    UnaryKind kind = op.getKind();
    bool isUnsigned = op.getIsUnsigned();
    rewriter.replaceOp(op, buildElementwise(rewriter, loc, op.getResult().getType(),
                                            dynamicDimsOf(rewriter, loc, adaptor.getX()),
                                            adaptor.getX(),
                                            [&](OpBuilder& b, Location l, ValueRange args) {
                                              return emitUnary(b, l, kind, args[0], isUnsigned);
                                            }));
    return success();
  }
};

struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CastOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    bool fromUnsigned = op.getIsUnsigned(), toUnsigned = op.getResultIsUnsigned();
    rewriter.replaceOp(op, buildElementwise(rewriter, loc, type,
                                            dynamicDimsOf(rewriter, loc, adaptor.getX()),
                                            adaptor.getX(),
                                            [&](OpBuilder& b, Location l, ValueRange args) {
                                              return emitCast(b, l, args[0], type.getElementType(),
                                                              fromUnsigned, toUnsigned);
                                            }));
    return success();
  }
};

struct SelectLowering : OpConversionPattern<SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SelectOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    SmallVector<Value> inputs{adaptor.getCond(), adaptor.getA(), adaptor.getB()};
    FailureOr<SmallVector<Value>> dims = broadcastDims(rewriter, loc, type, inputs);
    if (failed(dims)) return rewriter.notifyMatchFailure(op, "cannot size a dynamic dimension");
    rewriter.replaceOp(op, buildElementwise(rewriter, loc, type, *dims, inputs,
                                            [](OpBuilder& b, Location l, ValueRange args) {
                                              return b.create<arith::SelectOp>(l, args[0], args[1],
                                                                               args[2])
                                                  .getResult();
                                            }));
    return success();
  }
};

Value identityBody(OpBuilder&, Location, ValueRange args) { return args[0]; }

struct BroadcastToLowering : OpConversionPattern<BroadcastToOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(BroadcastToOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), op.getResult().getType(),
                                            adaptor.getDims(), adaptor.getX(), identityBody));
    return success();
  }
};

struct FillLowering : OpConversionPattern<FillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FillOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    // The rank-0 value broadcasts to every element (map `(d...) -> ()`).
    rewriter.replaceOp(op, buildElementwise(rewriter, op.getLoc(), op.getResult().getType(),
                                            adaptor.getDims(), adaptor.getValue(), identityBody));
    return success();
  }
};

struct PermuteLowering : OpConversionPattern<PermuteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PermuteOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext* context = rewriter.getContext();
    Value x = adaptor.getX();
    RankedTensorType type = op.getResult().getType();
    ArrayRef<int64_t> perm = op.getPermutation();
    int64_t rank = type.getRank();
    // Result index i reads input axis perm[i], so input axis perm[i] is d_i.
    SmallVector<AffineExpr> exprs(rank);
    SmallVector<Value> dims;
    for (int64_t i = 0; i < rank; ++i) {
      exprs[perm[i]] = getAffineDimExpr(i, context);
      if (type.isDynamicDim(i)) dims.push_back(rewriter.create<tensor::DimOp>(loc, x, perm[i]));
    }
    Value init = rewriter.create<tensor::EmptyOp>(loc, type, dims);
    SmallVector<AffineMap> maps{AffineMap::get(rank, 0, exprs, context),
                                AffineMap::getMultiDimIdentityMap(rank, context)};
    SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{x}, ValueRange{init}, maps, iterators,
        [](OpBuilder& b, Location l, ValueRange args) { b.create<linalg::YieldOp>(l, args[0]); });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct IotaLowering : OpConversionPattern<IotaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    RankedTensorType type = op.getResult().getType();
    Type element = type.getElementType();
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(), type, adaptor.getDims(), ValueRange{},
                             [&](OpBuilder& b, Location l, ValueRange) {
                               Value i = b.create<linalg::IndexOp>(l, 0);
                               Value i64 = b.create<arith::IndexCastOp>(l, b.getI64Type(), i);
                               return emitCast(b, l, i64, element, false, false);
                             }));
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    RankedTensorType from = tensorType(x), to = op.getResult().getType();
    // Equal types are the same shape only when static: `tensor<?x?xf32>` to
    // `tensor<?x?xf32>` may swap the extents (`[A, B]` to `[B, A]`).
    if (from == to && from.hasStaticShape()) {
      rewriter.replaceOp(op, x);
      return success();
    }
    // Static shapes where one refines the other: a view the later passes
    // understand (collapse/expand) instead of an opaque reshape.
    if (from.hasStaticShape() && to.hasStaticShape()) {
      if (auto reassociation = getReassociationIndicesForReshape(from, to)) {
        if (to.getRank() < from.getRank())
          rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, to, x, *reassociation);
        else
          rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, to, x, *reassociation);
        return success();
      }
    }
    SmallVector<Value> sizes;
    auto dyn = adaptor.getDims().begin();
    for (int64_t i = 0; i < to.getRank(); ++i)
      sizes.push_back(to.isDynamicDim(i) ? *dyn++ : constantIndex(rewriter, loc, to.getDimSize(i)));
    Value shape = rewriter.create<tensor::FromElementsOp>(
        loc, RankedTensorType::get({to.getRank()}, rewriter.getIndexType()), sizes);
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, to, x, shape);
    return success();
  }
};

// Operands of one chain of `tensor.insert_slice`: One-Shot Bufferize's
// analysis of a chain grows much faster than its length (300 operands took
// 94 s), so longer concats insert groups of this many, each first joined in
// its own buffer (their elements are copied twice).
constexpr size_t kConcatChain = 16;

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    struct Part {
      Value value;
      SmallVector<OpFoldResult> sizes;
    };
    SmallVector<Part> parts;
    for (Value input : adaptor.getInputs()) parts.push_back({input, tensor::getMixedSizes(rewriter, loc, input)});
    // `parts` joined along the axis into a new tensor.
    auto join = [&](ArrayRef<Part> group) -> Part {
      // The sizes: the first part's, the sum of all along the axis.
      SmallVector<OpFoldResult> sizes = group.front().sizes;
      for (size_t i = 1; i < group.size(); ++i)
        sizes[axis] = addSizes(rewriter, loc, sizes[axis], group[i].sizes[axis]);
      SmallVector<int64_t> shape(type.getShape());
      std::optional<int64_t> length = getConstantIntValue(sizes[axis]);
      shape[axis] = length ? *length : ShapedType::kDynamic;
      auto joined = RankedTensorType::get(shape, type.getElementType());
      SmallVector<Value> dynamicSizes;
      for (int64_t d = 0; d < joined.getRank(); ++d)
        if (joined.isDynamicDim(d)) dynamicSizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]));
      Value result = rewriter.create<tensor::EmptyOp>(loc, joined, dynamicSizes);
      OpFoldResult offset = rewriter.getIndexAttr(0);
      SmallVector<OpFoldResult> strides(joined.getRank(), rewriter.getIndexAttr(1));
      for (const Part& part : group) {
        SmallVector<OpFoldResult> offsets(joined.getRank(), rewriter.getIndexAttr(0));
        offsets[axis] = offset;
        result = rewriter.create<tensor::InsertSliceOp>(loc, part.value, result, offsets, part.sizes, strides);
        offset = addSizes(rewriter, loc, offset, part.sizes[axis]);
      }
      return {result, sizes};
    };
    while (parts.size() > kConcatChain) {
      SmallVector<Part> groups;
      for (size_t i = 0; i < parts.size(); i += kConcatChain)
        groups.push_back(join(ArrayRef<Part>(parts).slice(i, std::min(kConcatChain, parts.size() - i))));
      parts = std::move(groups);
    }
    Value result = join(parts).value;
    if (result.getType() != type) result = rewriter.create<tensor::CastOp>(loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    RankedTensorType x = tensorType(adaptor.getX()), type = op.getResult().getType();
    ArrayRef<int64_t> dropped = op.getDroppedAxes();
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<int64_t> undropped;  // the slice's shape with the dropped axes still in it
    auto dyn = adaptor.getSizes().begin();
    int64_t r = 0;
    for (int64_t i = 0; i < x.getRank(); ++i) {
      offsets.push_back(adaptor.getStarts()[i]);
      strides.push_back(rewriter.getIndexAttr(op.getSteps()[i]));
      if (llvm::is_contained(dropped, i)) {
        sizes.push_back(rewriter.getIndexAttr(1));
        undropped.push_back(1);
        continue;
      }
      sizes.push_back(type.isDynamicDim(r) ? OpFoldResult(*dyn++)
                                           : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(r))));
      undropped.push_back(type.getDimSize(r));
      ++r;
    }
    // The axes are dropped by a collapse, not by a rank-reducing slice: which
    // unit axes such a slice drops is inferred from its types, and with
    // another unit axis beside them (x[:, :, 0] of a [1, 2, 2] tensor) MLIR's
    // canonicalization rebuilt it dropping the wrong one (reading [1, 1, 2]).
    auto full = RankedTensorType::get(undropped, type.getElementType());
    Value slice = rewriter.create<tensor::ExtractSliceOp>(op.getLoc(), full, adaptor.getX(), offsets, sizes, strides);
    if (dropped.empty()) {
      rewriter.replaceOp(op, slice);
      return success();
    }
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices pending;  // dropped axes before the first kept one
    for (int64_t i = 0; i < x.getRank(); ++i) {
      if (llvm::is_contained(dropped, i)) {
        if (groups.empty()) pending.push_back(i);
        else groups.back().push_back(i);
        continue;
      }
      ReassociationIndices group = pending;
      pending.clear();
      group.push_back(i);
      groups.push_back(group);
    }
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, slice, groups);
    return success();
  }
};

struct CumsumLowering : OpConversionPattern<CumsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CumsumOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    // acc[i] += acc[i - 1] for i = 1 .. n-1, one slice (size 1 on the axis)
    // at a time; bufferization copies `x` once into the accumulator.
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    int64_t rank = tensorType(x).getRank();
    Value n = rewriter.create<tensor::DimOp>(loc, x, axis);
    Value one = constantIndex(rewriter, loc, 1);
    auto loop = rewriter.create<scf::ForOp>(
        loc, one, n, one, ValueRange{x},
        [&](OpBuilder& b, Location l, Value i, ValueRange iterArgs) {
          Value acc = iterArgs[0];
          SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, l, acc);
          sizes[axis] = b.getIndexAttr(1);
          SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
          SmallVector<OpFoldResult> at(rank, b.getIndexAttr(0)), before(rank, b.getIndexAttr(0));
          at[axis] = i;
          before[axis] = b.create<arith::SubIOp>(l, i, one).getResult();
          Value prev = b.create<tensor::ExtractSliceOp>(l, acc, before, sizes, strides);
          Value cur = b.create<tensor::ExtractSliceOp>(l, acc, at, sizes, strides);
          Value sum = buildElementwise(b, l, tensorType(prev), dynamicDimsOf(b, l, prev),
                                       ValueRange{prev, cur},
                                       [](OpBuilder& nb, Location nl, ValueRange args) {
                                         return emitBinary(nb, nl, BinaryKind::add, false,
                                                           args[0], args[1]);
                                       });
          Value next = b.create<tensor::InsertSliceOp>(l, sum, acc, at, sizes, strides);
          b.create<scf::YieldOp>(l, next);
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

// A reduction generic's init: a fresh tensor filled with the identity.
Value reductionInit(OpBuilder& b, Location loc, RankedTensorType type, ValueRange dynamicSizes,
                    ReductionKind kind, bool isUnsigned) {
  Value init = b.create<tensor::EmptyOp>(loc, type, dynamicSizes);
  if (kind == ReductionKind::none) return init;
  Value identity = emitReductionIdentity(b, loc, kind, type.getElementType(), isUnsigned);
  return b.create<linalg::FillOp>(loc, identity, init).getResult(0);
}

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext* context = rewriter.getContext();
    Value x = adaptor.getX();
    RankedTensorType type = op.getResult().getType(), xType = tensorType(x);
    ArrayRef<int64_t> axes = op.getAxes();
    ReductionKind kind = op.getKind();
    bool isUnsigned = op.getIsUnsigned();
    SmallVector<AffineExpr> kept;
    SmallVector<Value> dims;
    SmallVector<utils::IteratorType> iterators;
    for (int64_t d = 0; d < xType.getRank(); ++d) {
      if (llvm::is_contained(axes, d)) {
        iterators.push_back(utils::IteratorType::reduction);
        continue;
      }
      iterators.push_back(utils::IteratorType::parallel);
      if (type.isDynamicDim(kept.size())) dims.push_back(rewriter.create<tensor::DimOp>(loc, x, d));
      kept.push_back(getAffineDimExpr(d, context));
    }
    Value init = reductionInit(rewriter, loc, type, dims, kind, isUnsigned);
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(xType.getRank(), context),
                                AffineMap::get(xType.getRank(), 0, kept, context)};
    Type element = type.getElementType();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{type}, ValueRange{x}, ValueRange{init}, maps, iterators,
        [&](OpBuilder& b, Location l, ValueRange args) {
          Value v = emitCast(b, l, args[0], element, isUnsigned, isUnsigned);
          b.create<linalg::YieldOp>(l, emitReductionCombine(b, l, kind, isUnsigned, args[1], v));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct NotationLowering : OpConversionPattern<NotationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NotationOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter& rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext* context = rewriter.getContext();
    RankedTensorType type = op.getResult().getType();
    ArrayRef<int64_t> extents = op.getExtents(), outputDims = op.getOutputDims();
    int64_t loops = static_cast<int64_t>(extents.size());
    ReductionKind kind = op.getReduction();
    bool isUnsigned = op.getIsUnsigned();

    SmallVector<OpFoldResult> extentSizes;
    auto dyn = adaptor.getDynExtents().begin();
    for (int64_t e : extents)
      extentSizes.push_back(ShapedType::isDynamic(e) ? OpFoldResult(*dyn++)
                                                     : OpFoldResult(rewriter.getIndexAttr(e)));

    SmallVector<Value> inputs(adaptor.getInputs());
    SmallVector<AffineMap> maps;
    for (Attribute a : op.getIndexingMaps()) maps.push_back(cast<AffineMapAttr>(a).getValue());
    SmallVector<AffineExpr> outExprs;
    for (int64_t d : outputDims) outExprs.push_back(getAffineDimExpr(d, context));
    AffineMap outMap = AffineMap::get(loops, 0, outExprs, context);

    // linalg derives loop bounds from operand shapes, so every loop dim must
    // appear bare in some map. A loop only the body uses (through its index)
    // gets its bound from an extra unread operand of its extents.
    llvm::SmallBitVector covered(loops);
    SmallVector<AffineMap> allMaps(maps);
    allMaps.push_back(outMap);
    for (AffineMap map : allMaps)
      for (AffineExpr e : map.getResults())
        if (auto d = dyn_cast<AffineDimExpr>(e)) covered.set(d.getPosition());
    bool hasShapeOperand = !covered.all();
    if (hasShapeOperand) {
      SmallVector<int64_t> shape;
      SmallVector<Value> shapeDims;
      SmallVector<AffineExpr> exprs;
      for (int64_t d = 0; d < loops; ++d) {
        if (covered.test(d)) continue;
        shape.push_back(extents[d]);
        if (ShapedType::isDynamic(extents[d])) shapeDims.push_back(cast<Value>(extentSizes[d]));
        exprs.push_back(getAffineDimExpr(d, context));
      }
      inputs.push_back(rewriter.create<tensor::EmptyOp>(
          loc, RankedTensorType::get(shape, rewriter.getI8Type()), shapeDims));
      maps.push_back(AffineMap::get(loops, 0, exprs, context));
    }
    maps.push_back(outMap);

    SmallVector<Value> resultDims;
    for (auto [i, d] : llvm::enumerate(outputDims))
      if (type.isDynamicDim(i))
        resultDims.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, extentSizes[d]));
    Value init = reductionInit(rewriter, loc, type, resultDims, kind, isUnsigned);

    SmallVector<utils::IteratorType> iterators(loops, utils::IteratorType::reduction);
    for (int64_t d : outputDims) iterators[d] = utils::IteratorType::parallel;
    auto generic = rewriter.create<linalg::GenericOp>(loc, TypeRange{type}, inputs,
                                                      ValueRange{init}, maps, iterators);

    // The new body: linalg's element arguments (inputs, the optional shape
    // operand, the accumulator); the old body follows the loop indices.
    SmallVector<Type> argTypes;
    for (Value v : inputs) argTypes.push_back(tensorType(v).getElementType());
    argTypes.push_back(type.getElementType());
    SmallVector<Location> argLocs(argTypes.size(), loc);
    Block* block = rewriter.createBlock(&generic.getRegion(), {}, argTypes, argLocs);
    SmallVector<Value> replacements;
    for (int64_t d = 0; d < loops; ++d)
      replacements.push_back(rewriter.create<linalg::IndexOp>(loc, d));
    for (size_t i = 0; i < adaptor.getInputs().size(); ++i)
      replacements.push_back(block->getArgument(i));
    rewriter.mergeBlocks(&op.getBody().front(), block, replacements);

    auto yield = cast<YieldOp>(block->back());
    rewriter.setInsertionPoint(yield);
    Value value = emitReductionCombine(rewriter, yield.getLoc(), kind, isUnsigned,
                                   block->getArguments().back(), yield.getValue());
    rewriter.replaceOpWithNewOp<linalg::YieldOp>(yield, value);
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

}  // namespace

void populateLinnetToLinalgPatterns(RewritePatternSet& patterns) {
  patterns.add<BinaryLowering, UnaryLowering, CastLowering, SelectLowering, BroadcastToLowering,
               FillLowering, PermuteLowering, IotaLowering, ReshapeLowering, ConcatLowering,
               SliceLowering, CumsumLowering, ReduceLowering, NotationLowering>(
      patterns.getContext());
}

}  // namespace linnet::conversion
