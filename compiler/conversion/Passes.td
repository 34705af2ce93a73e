// The passes of compiler/conversion: lowerings out of the `linnet` dialect.
#ifndef LINNET_CONVERSION_PASSES_TD
#define LINNET_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLinnetToLinalg : Pass<"convert-linnet-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower `linnet` ops to linalg, tensor, arith, math and scf on tensors";
  let description = [{
    Elementwise ops, broadcasts, permutations, reductions and index notation
    become `linalg.generic` (broadcast operands read through maps with a
    constant 0 for a static-1 dimension); slices, concatenation and reshapes
    become `tensor` ops; `cumsum` is an `scf.for` over the axis. Every
    `linnet` op is converted or the pass fails.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // LINNET_CONVERSION_PASSES_TD
