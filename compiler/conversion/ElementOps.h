// ElementOps: one element of a `linnet` elementwise op, as arith/math on
// scalars (docs/dialect.md gives the meaning: integer division truncates,
// float->int casts saturate, bf16/f16 math goes through f32). Used inside
// the linalg bodies of convert-linnet-to-linalg and by compiler/lower for
// notation bodies, so both places compute the same thing.
#pragma once

#include "compiler/dialect/LinnetOps.h"
#include "mlir/IR/Builders.h"

namespace linnet::conversion {

mlir::Value emitBinary(mlir::OpBuilder& b, mlir::Location loc, dialect::BinaryKind kind,
                       bool isUnsigned, mlir::Value x, mlir::Value y);
mlir::Value emitUnary(mlir::OpBuilder& b, mlir::Location loc, dialect::UnaryKind kind, mlir::Value x);
mlir::Value emitCast(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Type to,
                     bool fromUnsigned, bool toUnsigned);

}  // namespace linnet::conversion
