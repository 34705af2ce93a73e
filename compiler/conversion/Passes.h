// The passes of compiler/conversion (declared in Passes.td) and the pattern
// entry points they wrap.
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace linnet::conversion {

// Adds one pattern per `linnet` op, rewriting it to linalg/tensor/arith/
// math/scf on the same tensor types (LinnetToLinalg.cpp).
void populateLinnetToLinalgPatterns(mlir::RewritePatternSet& patterns);

#define GEN_PASS_DECL
#include "compiler/conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/conversion/Passes.h.inc"

}  // namespace linnet::conversion
