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

// Helpers of the product strategies (PackedProducts.cpp, OuterProducts.cpp),
// in ProductLoops.cpp.
namespace products {

// The memref's last dimension has unit stride.
bool unitInnerStride(mlir::Value memref);

// The operand's subscripts, the loops' values taken from `at`.
llvm::SmallVector<mlir::Value> subscripts(mlir::linalg::LinalgOp op, mlir::OpOperand* operand,
                                          llvm::ArrayRef<mlir::Value> at);

mlir::Value constant(mlir::OpBuilder& b, mlir::Location loc, int64_t v);

// For each of a panel's `vectors` vectors of `lanes` rows from `panel`, the
// lanes that are rows (none past `rows`).
llvm::SmallVector<mlir::Value> rowMasks(mlir::OpBuilder& b, mlir::Location loc, mlir::Value panel, mlir::Value rows,
                                        int64_t vectors, int64_t lanes);

// A vector load or store at `index`, through `mask` where there is one
// (masked-off lanes load as zero).
mlir::Value loadRows(mlir::OpBuilder& b, mlir::Location loc, mlir::VectorType type, mlir::Value memref,
                     mlir::ValueRange index, mlir::Value mask);
void storeRows(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value, mlir::Value memref, mlir::ValueRange index,
               mlir::Value mask);

// Loops over `count` tokens in blocks of blockTokens[0], what is left in
// blocks of the next size, and so on (the last size should be 1); `body`
// builds one block of `tokens` from the first one's index.
void forTokenBlocks(mlir::OpBuilder& b, mlir::Location loc, mlir::Value count, llvm::ArrayRef<int64_t> blockTokens,
                    llvm::function_ref<void(int64_t tokens, mlir::Value first)> body);

}  // namespace products

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

// A matrix product whose weights' rows lie in order, that
// `lowerOuterProduct` takes: out[.., t, o] = init + sum_k x[.., t, k] *
// w[.., k, o] (k the innermost loop, each factor as it is or widened to f32,
// the result f32), the rows the last, unit-stride subscript of the result
// and of the weights.
struct OuterProduct {
  unsigned rows;                            // o
  std::optional<unsigned> tokens;           // t: blocked in registers; none for one token
  llvm::SmallVector<unsigned> batch;        // the other parallel loops
  llvm::SmallVector<unsigned> weightBatch;  // parallel loops the weights follow (heads)
  mlir::OpOperand* weights;                 // w[.., k, o]
  mlir::OpOperand* activations;             // x[.., t, k]
};

std::optional<OuterProduct> matchOuterProduct(mlir::linalg::LinalgOp op);

// Replaces `op` by register-blocked outer products on vectors of `lanes`
// f32, the loops outside the token blocks shared by threads as `parallelize`
// decides.
void lowerOuterProduct(mlir::RewriterBase& rewriter, mlir::linalg::LinalgOp op, const OuterProduct& product,
                       int64_t lanes, int64_t minWork);

}  // namespace linnet::codegen
