// Emit: `linnet` ops through their ODS builders, and the scalar arithmetic
// of notation bodies.
#include "compiler/lower/Emit.h"

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/Math/IR/Math.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/dialect/LinnetOps.h"

namespace linnet::lower::emit {

namespace d = linnet::dialect;

static d::BinaryKind toDialect(BinaryKind k) {
  switch (k) {
    case BinaryKind::Add: return d::BinaryKind::add;
    case BinaryKind::Sub: return d::BinaryKind::sub;
    case BinaryKind::Mul: return d::BinaryKind::mul;
    case BinaryKind::Div: return d::BinaryKind::div;
    case BinaryKind::Rem: return d::BinaryKind::rem;
    case BinaryKind::Min: return d::BinaryKind::min;
    case BinaryKind::Max: return d::BinaryKind::max;
    case BinaryKind::And: return d::BinaryKind::and_;
    case BinaryKind::Or: return d::BinaryKind::or_;
    case BinaryKind::Xor: return d::BinaryKind::xor_;
    case BinaryKind::Shl: return d::BinaryKind::shl;
    case BinaryKind::Shr: return d::BinaryKind::shr;
    case BinaryKind::Eq: return d::BinaryKind::eq;
    case BinaryKind::Ne: return d::BinaryKind::ne;
    case BinaryKind::Lt: return d::BinaryKind::lt;
    case BinaryKind::Le: return d::BinaryKind::le;
    case BinaryKind::Gt: return d::BinaryKind::gt;
    case BinaryKind::Ge: return d::BinaryKind::ge;
  }
  return d::BinaryKind::add;
}

static d::UnaryKind toDialect(UnaryKind k) {
  switch (k) {
    case UnaryKind::Neg: return d::UnaryKind::neg;
    case UnaryKind::Not: return d::UnaryKind::not_;
    case UnaryKind::Exp: return d::UnaryKind::exp;
    case UnaryKind::Log: return d::UnaryKind::log;
    case UnaryKind::Sqrt: return d::UnaryKind::sqrt;
    case UnaryKind::Rsqrt: return d::UnaryKind::rsqrt;
    case UnaryKind::Sin: return d::UnaryKind::sin;
    case UnaryKind::Cos: return d::UnaryKind::cos;
    case UnaryKind::Tanh: return d::UnaryKind::tanh;
    case UnaryKind::Abs: return d::UnaryKind::abs;
  }
  return d::UnaryKind::neg;
}

static d::ReductionKind toDialect(ReduceKind k) {
  switch (k) {
    case ReduceKind::None: return d::ReductionKind::none;
    case ReduceKind::Sum: return d::ReductionKind::sum;
    case ReduceKind::Prod: return d::ReductionKind::prod;
    case ReduceKind::Max: return d::ReductionKind::max;
    case ReduceKind::Min: return d::ReductionKind::min;
    case ReduceKind::Any: return d::ReductionKind::any;
    case ReduceKind::All: return d::ReductionKind::all;
  }
  return d::ReductionKind::none;
}

static mlir::UnitAttr flag(mlir::OpBuilder& b, bool on) { return on ? b.getUnitAttr() : mlir::UnitAttr(); }

mlir::Value binary(mlir::OpBuilder& b, mlir::Location loc, BinaryKind kind, mlir::Value lhs,
                   mlir::Value rhs, mlir::RankedTensorType result, bool isUnsigned) {
  return b.create<d::BinaryOp>(loc, result, d::BinaryKindAttr::get(b.getContext(), toDialect(kind)),
                               lhs, rhs, flag(b, isUnsigned));
}

mlir::Value unary(mlir::OpBuilder& b, mlir::Location loc, UnaryKind kind, mlir::Value x) {
  return b.create<d::UnaryOp>(loc, x.getType(), d::UnaryKindAttr::get(b.getContext(), toDialect(kind)), x);
}

mlir::Value cast(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::RankedTensorType result,
                 bool unsignedIn, bool unsignedOut) {
  return b.create<d::CastOp>(loc, result, x, flag(b, unsignedIn), flag(b, unsignedOut));
}

mlir::Value select(mlir::OpBuilder& b, mlir::Location loc, mlir::Value cond, mlir::Value a,
                   mlir::Value c, mlir::RankedTensorType result) {
  return b.create<d::SelectOp>(loc, result, cond, a, c);
}

mlir::Value broadcastTo(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                        mlir::RankedTensorType result, mlir::ValueRange dynamicDims) {
  return b.create<d::BroadcastToOp>(loc, result, x, dynamicDims);
}

mlir::Value reshape(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                    mlir::RankedTensorType result, mlir::ValueRange dynamicDims) {
  return b.create<d::ReshapeOp>(loc, result, x, dynamicDims);
}

mlir::Value permute(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                    mlir::RankedTensorType result, llvm::ArrayRef<int64_t> permutation) {
  return b.create<d::PermuteOp>(loc, result, x, b.getDenseI64ArrayAttr(permutation));
}

mlir::Value concat(mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange xs,
                   mlir::RankedTensorType result, int64_t axis) {
  return b.create<d::ConcatOp>(loc, result, xs, b.getI64IntegerAttr(axis));
}

mlir::Value slice(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                  mlir::RankedTensorType result, mlir::ValueRange starts,
                  mlir::ValueRange dynamicSizes, llvm::ArrayRef<int64_t> steps,
                  llvm::ArrayRef<int64_t> droppedAxes) {
  return b.create<d::SliceOp>(loc, result, x, starts, dynamicSizes, b.getDenseI64ArrayAttr(steps),
                              b.getDenseI64ArrayAttr(droppedAxes));
}

mlir::Value iota(mlir::OpBuilder& b, mlir::Location loc, mlir::RankedTensorType result,
                 mlir::ValueRange dynamicDims) {
  return b.create<d::IotaOp>(loc, result, dynamicDims);
}

mlir::Value fill(mlir::OpBuilder& b, mlir::Location loc, mlir::Value scalar,
                 mlir::RankedTensorType result, mlir::ValueRange dynamicDims) {
  return b.create<d::FillOp>(loc, result, scalar, dynamicDims);
}

mlir::Value cumsum(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, int64_t axis) {
  return b.create<d::CumsumOp>(loc, x.getType(), x, b.getI64IntegerAttr(axis));
}

mlir::Value notation(mlir::OpBuilder& b, mlir::Location loc, mlir::RankedTensorType result,
                     mlir::ValueRange inputs, mlir::ValueRange dynamicExtents,
                     llvm::ArrayRef<int64_t> extents, llvm::ArrayRef<mlir::AffineMap> maps,
                     llvm::ArrayRef<int64_t> outputDims, ReduceKind reduction, mlir::Block* body) {
  auto op = b.create<d::NotationOp>(
      loc, result, inputs, dynamicExtents, b.getDenseI64ArrayAttr(extents),
      b.getAffineMapArrayAttr(maps), b.getDenseI64ArrayAttr(outputDims),
      d::ReductionKindAttr::get(b.getContext(), toDialect(reduction)), mlir::UnitAttr());
  op.getBody().push_back(body);
  return op.getResult();
}

void yield(mlir::OpBuilder& b, mlir::Location loc, mlir::Value v) { b.create<d::YieldOp>(loc, v); }

// ---- scalars ----

mlir::Value scalarBinary(mlir::OpBuilder& b, mlir::Location loc, BinaryKind kind, mlir::Value lhs,
                         mlir::Value rhs, bool isUnsigned) {
  namespace a = mlir::arith;
  bool isFloat = mlir::isa<mlir::FloatType>(lhs.getType());
  if (isFloat) {
    switch (kind) {
      case BinaryKind::Add: return b.create<a::AddFOp>(loc, lhs, rhs);
      case BinaryKind::Sub: return b.create<a::SubFOp>(loc, lhs, rhs);
      case BinaryKind::Mul: return b.create<a::MulFOp>(loc, lhs, rhs);
      case BinaryKind::Div: return b.create<a::DivFOp>(loc, lhs, rhs);
      case BinaryKind::Rem: return b.create<a::RemFOp>(loc, lhs, rhs);
      case BinaryKind::Min: return b.create<a::MinimumFOp>(loc, lhs, rhs);
      case BinaryKind::Max: return b.create<a::MaximumFOp>(loc, lhs, rhs);
      case BinaryKind::Eq: return b.create<a::CmpFOp>(loc, a::CmpFPredicate::OEQ, lhs, rhs);
      case BinaryKind::Ne: return b.create<a::CmpFOp>(loc, a::CmpFPredicate::UNE, lhs, rhs);
      case BinaryKind::Lt: return b.create<a::CmpFOp>(loc, a::CmpFPredicate::OLT, lhs, rhs);
      case BinaryKind::Le: return b.create<a::CmpFOp>(loc, a::CmpFPredicate::OLE, lhs, rhs);
      case BinaryKind::Gt: return b.create<a::CmpFOp>(loc, a::CmpFPredicate::OGT, lhs, rhs);
      case BinaryKind::Ge: return b.create<a::CmpFOp>(loc, a::CmpFPredicate::OGE, lhs, rhs);
      default: break;  // bit operations: the checker allows them on integers only
    }
  }
  switch (kind) {
    case BinaryKind::Add: return b.create<a::AddIOp>(loc, lhs, rhs);
    case BinaryKind::Sub: return b.create<a::SubIOp>(loc, lhs, rhs);
    case BinaryKind::Mul: return b.create<a::MulIOp>(loc, lhs, rhs);
    case BinaryKind::Div:
      return isUnsigned ? b.create<a::DivUIOp>(loc, lhs, rhs).getResult()
                        : b.create<a::DivSIOp>(loc, lhs, rhs).getResult();
    case BinaryKind::Rem:
      return isUnsigned ? b.create<a::RemUIOp>(loc, lhs, rhs).getResult()
                        : b.create<a::RemSIOp>(loc, lhs, rhs).getResult();
    case BinaryKind::Min:
      return isUnsigned ? b.create<a::MinUIOp>(loc, lhs, rhs).getResult()
                        : b.create<a::MinSIOp>(loc, lhs, rhs).getResult();
    case BinaryKind::Max:
      return isUnsigned ? b.create<a::MaxUIOp>(loc, lhs, rhs).getResult()
                        : b.create<a::MaxSIOp>(loc, lhs, rhs).getResult();
    case BinaryKind::And: return b.create<a::AndIOp>(loc, lhs, rhs);
    case BinaryKind::Or: return b.create<a::OrIOp>(loc, lhs, rhs);
    case BinaryKind::Xor: return b.create<a::XOrIOp>(loc, lhs, rhs);
    case BinaryKind::Shl: return b.create<a::ShLIOp>(loc, lhs, rhs);
    case BinaryKind::Shr:
      return isUnsigned ? b.create<a::ShRUIOp>(loc, lhs, rhs).getResult()
                        : b.create<a::ShRSIOp>(loc, lhs, rhs).getResult();
    case BinaryKind::Eq: return b.create<a::CmpIOp>(loc, a::CmpIPredicate::eq, lhs, rhs);
    case BinaryKind::Ne: return b.create<a::CmpIOp>(loc, a::CmpIPredicate::ne, lhs, rhs);
    case BinaryKind::Lt:
      return b.create<a::CmpIOp>(loc, isUnsigned ? a::CmpIPredicate::ult : a::CmpIPredicate::slt, lhs, rhs);
    case BinaryKind::Le:
      return b.create<a::CmpIOp>(loc, isUnsigned ? a::CmpIPredicate::ule : a::CmpIPredicate::sle, lhs, rhs);
    case BinaryKind::Gt:
      return b.create<a::CmpIOp>(loc, isUnsigned ? a::CmpIPredicate::ugt : a::CmpIPredicate::sgt, lhs, rhs);
    case BinaryKind::Ge:
      return b.create<a::CmpIOp>(loc, isUnsigned ? a::CmpIPredicate::uge : a::CmpIPredicate::sge, lhs, rhs);
  }
  return lhs;
}

mlir::Value scalarUnary(mlir::OpBuilder& b, mlir::Location loc, UnaryKind kind, mlir::Value x) {
  namespace a = mlir::arith;
  namespace m = mlir::math;
  mlir::Type t = x.getType();
  bool isFloat = mlir::isa<mlir::FloatType>(t);
  switch (kind) {
    case UnaryKind::Neg:
      if (isFloat) return b.create<a::NegFOp>(loc, x);
      return b.create<a::SubIOp>(loc, b.create<a::ConstantOp>(loc, b.getIntegerAttr(t, 0)), x);
    case UnaryKind::Not:
      return b.create<a::XOrIOp>(loc, x, b.create<a::ConstantOp>(loc, b.getIntegerAttr(t, -1)));
    case UnaryKind::Exp: return b.create<m::ExpOp>(loc, x);
    case UnaryKind::Log: return b.create<m::LogOp>(loc, x);
    case UnaryKind::Sqrt: return b.create<m::SqrtOp>(loc, x);
    case UnaryKind::Rsqrt: return b.create<m::RsqrtOp>(loc, x);
    case UnaryKind::Sin: return b.create<m::SinOp>(loc, x);
    case UnaryKind::Cos: return b.create<m::CosOp>(loc, x);
    case UnaryKind::Tanh: return b.create<m::TanhOp>(loc, x);
    case UnaryKind::Abs:
      if (isFloat) return b.create<m::AbsFOp>(loc, x);
      return b.create<m::AbsIOp>(loc, x);
  }
  return x;
}

mlir::Value scalarCast(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Type to,
                       bool unsignedIn, bool unsignedOut) {
  namespace a = mlir::arith;
  mlir::Type from = x.getType();
  if (from == to) return x;
  auto fromFloat = mlir::dyn_cast<mlir::FloatType>(from);
  auto toFloat = mlir::dyn_cast<mlir::FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth()) return b.create<a::ExtFOp>(loc, to, x);
    return b.create<a::TruncFOp>(loc, to, x);
  }
  if (to.isInteger(1)) {
    if (fromFloat)
      return b.create<a::CmpFOp>(loc, a::CmpFPredicate::UNE, x,
                                 b.create<a::ConstantOp>(loc, b.getFloatAttr(from, 0.0)));
    return b.create<a::CmpIOp>(loc, a::CmpIPredicate::ne, x,
                               b.create<a::ConstantOp>(loc, b.getIntegerAttr(from, 0)));
  }
  bool inUnsigned = unsignedIn || from.isInteger(1);
  if (toFloat) {
    if (inUnsigned) return b.create<a::UIToFPOp>(loc, to, x);
    return b.create<a::SIToFPOp>(loc, to, x);
  }
  if (fromFloat) {
    if (unsignedOut) return b.create<a::FPToUIOp>(loc, to, x);
    return b.create<a::FPToSIOp>(loc, to, x);
  }
  unsigned wf = from.getIntOrFloatBitWidth(), wt = to.getIntOrFloatBitWidth();
  if (wf > wt) return b.create<a::TruncIOp>(loc, to, x);
  if (inUnsigned) return b.create<a::ExtUIOp>(loc, to, x);
  return b.create<a::ExtSIOp>(loc, to, x);
}

mlir::Value scalarTensor(mlir::OpBuilder& b, mlir::Location loc, mlir::Value scalar) {
  auto type = mlir::RankedTensorType::get({}, scalar.getType());
  return b.create<mlir::tensor::FromElementsOp>(loc, type, mlir::ValueRange{scalar});
}

}  // namespace linnet::lower::emit
