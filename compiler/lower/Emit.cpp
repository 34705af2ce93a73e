// Emit: `linnet` ops through their ODS builders, and the scalar arithmetic
// of notation bodies (the conversion's element ops, so a cast or a division
// means the same in a notation body as on whole tensors).
#include "compiler/lower/Emit.h"

#include <limits>

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/conversion/ElementOps.h"
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

mlir::Value unary(mlir::OpBuilder& b, mlir::Location loc, UnaryKind kind, mlir::Value x, bool isUnsigned) {
  return b.create<d::UnaryOp>(loc, x.getType(), d::UnaryKindAttr::get(b.getContext(), toDialect(kind)), x,
                              flag(b, isUnsigned));
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
                     llvm::ArrayRef<int64_t> outputDims, ReduceKind reduction, mlir::Block* body,
                     bool isUnsigned) {
  auto op = b.create<d::NotationOp>(
      loc, result, inputs, dynamicExtents, b.getDenseI64ArrayAttr(extents),
      b.getAffineMapArrayAttr(maps), b.getDenseI64ArrayAttr(outputDims),
      d::ReductionKindAttr::get(b.getContext(), toDialect(reduction)), flag(b, isUnsigned));
  op.getBody().push_back(body);
  return op.getResult();
}

void yield(mlir::OpBuilder& b, mlir::Location loc, mlir::Value v) { b.create<d::YieldOp>(loc, v); }

bool resultIsFresh(mlir::Operation* op) {
  if (auto n = mlir::dyn_cast<d::NotationOp>(op)) return n.getReduction() != d::ReductionKind::none;
  if (auto r = mlir::dyn_cast<d::ReduceOp>(op)) return !r.getAxes().empty();
  return false;
}

std::optional<BinaryOperands> binaryOperands(mlir::Operation* op) {
  auto bin = mlir::dyn_cast<d::BinaryOp>(op);
  if (!bin) return std::nullopt;
  BinaryOperands out;
  out.lhs = bin.getLhs();
  out.rhs = bin.getRhs();
  out.subtract = bin.getKind() == d::BinaryKind::sub;
  out.additive = out.subtract || bin.getKind() == d::BinaryKind::add;
  return out;
}

// ---- scalars ----

mlir::Value scalarBinary(mlir::OpBuilder& b, mlir::Location loc, BinaryKind kind, mlir::Value lhs,
                         mlir::Value rhs, bool isUnsigned) {
  return conversion::emitBinary(b, loc, toDialect(kind), isUnsigned, lhs, rhs);
}

mlir::Value scalarReductionIdentity(mlir::OpBuilder& b, mlir::Location loc, ReduceKind kind, mlir::Type t,
                                    bool isUnsigned) {
  return conversion::emitReductionIdentity(b, loc, toDialect(kind), t, isUnsigned);
}

mlir::Value scalarReductionCombine(mlir::OpBuilder& b, mlir::Location loc, ReduceKind kind, mlir::Value acc,
                                   mlir::Value v, bool isUnsigned) {
  return conversion::emitReductionCombine(b, loc, toDialect(kind), isUnsigned, acc, v);
}

mlir::Value scalarUnary(mlir::OpBuilder& b, mlir::Location loc, UnaryKind kind, mlir::Value x,
                        bool isUnsigned) {
  return conversion::emitUnary(b, loc, toDialect(kind), x, isUnsigned);
}

mlir::Value subscriptIndex(mlir::OpBuilder& b, mlir::Location loc, mlir::Value integer, bool isUnsigned) {
  mlir::Type index = b.getIndexType();
  if (!isUnsigned) return b.create<mlir::arith::IndexCastOp>(loc, index, integer);
  if (integer.getType().getIntOrFloatBitWidth() >= 64) {
    mlir::Type type = integer.getType();
    mlir::Value zero = b.create<mlir::arith::ConstantOp>(loc, b.getIntegerAttr(type, 0));
    mlir::Value largest =
        b.create<mlir::arith::ConstantOp>(loc, b.getIntegerAttr(type, std::numeric_limits<int64_t>::max()));
    mlir::Value high = b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::slt, integer, zero);
    integer = b.create<mlir::arith::SelectOp>(loc, high, largest, integer);
  }
  return b.create<mlir::arith::IndexCastUIOp>(loc, index, integer);
}

mlir::Value scalarCast(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Type to,
                       bool unsignedIn, bool unsignedOut) {
  return conversion::emitCast(b, loc, x, to, unsignedIn, unsignedOut);
}

mlir::Value scalarTensor(mlir::OpBuilder& b, mlir::Location loc, mlir::Value scalar) {
  auto type = mlir::RankedTensorType::get({}, scalar.getType());
  return b.create<mlir::tensor::FromElementsOp>(loc, type, mlir::ValueRange{scalar});
}

}  // namespace linnet::lower::emit
