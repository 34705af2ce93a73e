// Helpers of `linnet-linalg-to-parallel-loops` shared by its strategies
// (ParallelLoopsPass.cpp, PackedProducts.cpp).
#pragma once

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace linnet::codegen {

// scf.if (points >= minWork && parallel points > 1) { scf.parallel over the
// first `depth` loops, the rest of the nest inside } else { the nest }.
// `pointWork`, when set, is the op's iterations per point of `loops` (the
// loops of a cache tile leave the reduction out: a matrix-vector product's
// 9216 row points are 28 million multiply-adds).
void parallelize(mlir::RewriterBase& rewriter, llvm::MutableArrayRef<mlir::scf::ForOp> loops, size_t depth,
                 int64_t minWork, mlir::Value pointWork = {});

// The same nest as an scf.parallel only, where the caller knows the
// condition holds (no sequential copy is built).
void parallelizeAlways(mlir::RewriterBase& rewriter, llvm::MutableArrayRef<mlir::scf::ForOp> loops, size_t depth);

// A bf16 matrix product that `lowerPackedProduct` takes: out[.., t, o] =
// init + sum_k extf(x[.., t, k]) * extf(w[.., o, k]), the op already known
// to be a bf16 dot product (bf16DotProduct in ParallelLoopsPass.cpp).
struct PackedProduct {
  unsigned rows;                            // o: the weights' rows, the result's last axis
  unsigned tokens;                          // t: blocked in registers
  llvm::SmallVector<unsigned> batch;        // the other parallel loops, one at a time per panel
  llvm::SmallVector<unsigned> weightBatch;  // loops the weights follow (heads): a panel each
  bool maskedRows;                          // a dynamic row count, or one 32 does not divide
  mlir::OpOperand* weights;                 // w[.., o, k]
  mlir::OpOperand* activations;             // x[.., t, k]
};

std::optional<PackedProduct> matchPackedProduct(mlir::linalg::LinalgOp op);

// Replaces `op` by the packed loop nest where the op has at least
// kPackMinTokens tokens (an `scf.if` on a dynamic count); returns the op's
// copy left for the fewer-tokens branch (to be lowered as any other op), or
// a null op when none is needed. Failure leaves `op` as it was.
mlir::FailureOr<mlir::linalg::LinalgOp> lowerPackedProduct(mlir::RewriterBase& rewriter, mlir::linalg::LinalgOp op,
                                                           const PackedProduct& product, int64_t minWork);

}  // namespace linnet::codegen
