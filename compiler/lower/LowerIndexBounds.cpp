// Subscripts read from data: clamped into their axis.
//
// A subscript the checker cannot bound (`table[ids[s], h]`, `x[last[b]]`)
// comes from a tensor at run time. Reading outside the tensor would be
// undefined behaviour in the generated code, so such an index is clamped
// into the axis, as XLA's gather and dynamic-slice do: index i of an axis of
// n reads min(max(i, 0), n - 1) (for a slice, its start is clamped so that
// the whole slice lies inside). An axis that is empty at run time has no
// element to read: the read gives zero (see docs/lowering.md, "Subscripts
// read from data").
#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/lower/LowerImpl.h"

namespace linnet::lower {

mlir::Value Lowerer::clampIndex(mlir::Location at, mlir::Value index, mlir::Value tensor, int64_t axis,
                                mlir::Value reach) {
  auto type = mlir::cast<mlir::RankedTensorType>(tensor.getType());
  mlir::Value zero = builder_.create<mlir::arith::ConstantIndexOp>(at, 0);
  mlir::Value extent =
      type.isDynamicDim(axis)
          ? builder_.create<mlir::tensor::DimOp>(at, tensor, axis).getResult()
          : builder_.create<mlir::arith::ConstantIndexOp>(at, type.getDimSize(axis)).getResult();
  if (!reach) reach = builder_.create<mlir::arith::ConstantIndexOp>(at, 1);
  mlir::Value room = builder_.createOrFold<mlir::arith::SubIOp>(at, extent, reach);
  mlir::Value last = builder_.createOrFold<mlir::arith::MaxSIOp>(at, room, zero);
  mlir::Value low = builder_.createOrFold<mlir::arith::MaxSIOp>(at, index, zero);
  return builder_.createOrFold<mlir::arith::MinSIOp>(at, low, last);
}

mlir::Value Lowerer::isEmptyAxis(mlir::Location at, mlir::Value tensor, int64_t axis) {
  auto type = mlir::cast<mlir::RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(axis))
    return builder_.create<mlir::arith::ConstantIntOp>(at, type.getDimSize(axis) == 0, 1);
  mlir::Value extent = builder_.create<mlir::tensor::DimOp>(at, tensor, axis);
  mlir::Value zero = builder_.create<mlir::arith::ConstantIndexOp>(at, 0);
  return builder_.createOrFold<mlir::arith::CmpIOp>(at, mlir::arith::CmpIPredicate::eq, extent, zero);
}

mlir::Value Lowerer::unlessEmpty(mlir::Location at, mlir::Value empty, mlir::Type type,
                                 const std::function<mlir::Value()>& read,
                                 const std::function<mlir::Value()>& zeros) {
  if (auto c = mlir::getConstantIntValue(empty)) return *c ? zeros() : read();
  auto op = builder_.create<mlir::scf::IfOp>(at, mlir::TypeRange{type}, empty, /*withElseRegion=*/true);
  mlir::OpBuilder::InsertionGuard guard(builder_);
  for (mlir::Region* r : {&op.getThenRegion(), &op.getElseRegion()})
    if (r->empty()) builder_.createBlock(r);
  builder_.setInsertionPointToStart(&op.getThenRegion().front());
  builder_.create<mlir::scf::YieldOp>(at, zeros());
  builder_.setInsertionPointToStart(&op.getElseRegion().front());
  builder_.create<mlir::scf::YieldOp>(at, read());
  return op.getResult(0);
}

}  // namespace linnet::lower
