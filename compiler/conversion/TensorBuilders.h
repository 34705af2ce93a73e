// Tensor values built on the tensor level, shared by the conversion, the
// lowering and codegen's pre-bufferization steps.
#pragma once

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace linnet::conversion {

// `tensor.dim` of every dynamic dimension of the ranked tensor `v`.
llvm::SmallVector<mlir::Value> dynamicDimsOf(mlir::OpBuilder& b, mlir::Location loc, mlir::Value v);

// A copy of the ranked tensor `v` in a tensor of its own: a `linalg.copy`
// into an empty tensor, which One-Shot Bufferize gives a buffer of its own.
mlir::Value freshCopy(mlir::OpBuilder& b, mlir::Location loc, mlir::Value v);

}  // namespace linnet::conversion
