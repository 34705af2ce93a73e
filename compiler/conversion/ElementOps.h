// ElementOps: one element of a `linnet` elementwise op, as arith/math on
// scalars (docs/dialect.md gives the meaning: integer division truncates and
// is total, float->int casts saturate, bf16/f16 math goes through f32). Used
// inside the linalg bodies of convert-linnet-to-linalg and by compiler/lower
// for notation bodies, so both places compute the same thing.
#pragma once

#include "compiler/dialect/LinnetOps.h"
#include "mlir/IR/Builders.h"

namespace linnet::conversion {

mlir::Value emitBinary(mlir::OpBuilder& b, mlir::Location loc, dialect::BinaryKind kind,
                       bool isUnsigned, mlir::Value x, mlir::Value y);
// `isUnsigned`: x's integers are unsigned (`abs` is then the identity).
mlir::Value emitUnary(mlir::OpBuilder& b, mlir::Location loc, dialect::UnaryKind kind, mlir::Value x,
                      bool isUnsigned = false);
mlir::Value emitCast(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Type to,
                     bool fromUnsigned, bool toUnsigned);
// A reduction's starting value in `t` (0, 1, -inf/+inf or the integer
// extremes, false/true) and one step of it, as the reductions of both
// places accumulate.
mlir::Value emitReductionIdentity(mlir::OpBuilder& b, mlir::Location loc, dialect::ReductionKind kind, mlir::Type t,
                                  bool isUnsigned);
mlir::Value emitReductionCombine(mlir::OpBuilder& b, mlir::Location loc, dialect::ReductionKind kind,
                                 bool isUnsigned, mlir::Value acc, mlir::Value v);

}  // namespace linnet::conversion
