// The `linnet-split-reductions` pass: an op whose innermost loop is its one
// reduction, read contiguously (a matrix-vector or matrix-matrix product
// against `[N, K]` weights, a norm's sum of squares), is split into a
// partial reduction with `ratio` independent lanes as its innermost,
// parallel loop and a short reduction of those lanes (upstream's
// `linalg::splitReduction`). The vectorizer then keeps one vector of
// partial sums in registers across the reduction instead of summing each
// vector horizontally (Passes.td has the rule).
#include "compiler/codegen/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_SPLITREDUCTIONS
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

// The innermost loop is the op's only reduction, its extent a multiple of
// `ratio` (at least two vectors of it), every loop's extent static, the
// body reads no loop index, and every operand that reads it reads it as
// its last, contiguous index.
bool worthSplitting(linalg::GenericOp op, int64_t ratio) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1)
    return false;
  // Upstream's split leaves `linalg.index` ops naming the old loops.
  if (!op.getBody()->getOps<linalg::IndexOp>().empty()) return false;
  unsigned innermost = op.getNumLoops() - 1;
  if (!linalg::isReductionIterator(op.getIteratorTypesArray()[innermost])) return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // Upstream's split builds its partial result with static sizes only.
  if (llvm::any_of(ranges, ShapedType::isDynamic)) return false;
  int64_t extent = ranges[innermost];
  if (ShapedType::isDynamic(extent) || extent % ratio != 0 || extent < 2 * ratio) return false;
  for (OpOperand* input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      if (!map.getResult(i).isFunctionOfDim(innermost)) continue;
      if (i + 1 != map.getNumResults() || map.getResult(i) != getAffineDimExpr(innermost, op.getContext()))
        return false;
    }
  }
  return true;
}

struct SplitReductionsPass : impl::SplitReductionsBase<SplitReductionsPass> {
  using SplitReductionsBase::SplitReductionsBase;

  void runOnOperation() override {
    if (ratio <= 1) return;
    SmallVector<linalg::GenericOp> ops;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (worthSplitting(op, ratio)) ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops) {
      unsigned outRank = op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getNumResults();
      auto control = [&](linalg::LinalgOp) {
        linalg::SplitReductionOptions options;
        options.ratio = ratio;
        options.index = outRank;
        options.innerParallel = true;
        return options;
      };
      rewriter.setInsertionPoint(op);
      // A body whose combiner is not a recognised reduction (or has no
      // neutral element) is left as it is.
      (void)linalg::splitReduction(rewriter, op, control);
    }
  }
};

}  // namespace
}  // namespace linnet::codegen
