// The ops of the `linnet` dialect (LinnetOps.td), and the small queries the
// verifiers and the lowering share.
#pragma once

#include "compiler/dialect/LinnetDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "compiler/dialect/LinnetOps.h.inc"

namespace linnet::dialect {

// True for the comparisons (`eq` .. `ge`), whose result is `i1`.
bool isComparison(BinaryKind kind);

}  // namespace linnet::dialect
