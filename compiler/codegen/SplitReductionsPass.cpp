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
#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
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

// The split of an op with dynamic parallel extents (a matrix product over
// a dynamic number of tokens), which upstream's split cannot build (its
// partial result has static sizes only): a partial op over (the op's
// parallel loops, K / ratio, ratio) reading the reduced operands at
// k * ratio + lane into a [out..., ratio] buffer filled with the
// combiner's neutral element, then a reduction of the lanes into the op's
// own init. The same computation as upstream's, for dynamic extents.
LogicalResult splitDynamic(RewriterBase& rewriter, linalg::GenericOp op, int64_t ratio) {
  SmallVector<Operation*> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) || combiners.size() != 1) return failure();
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiners[0]);
  if (!neutral) return failure();
  MLIRContext* context = op.getContext();
  Location loc = op.getLoc();
  unsigned loops = op.getNumLoops(), innermost = loops - 1;
  int64_t extent = op.getStaticLoopRanges()[innermost];
  Value init = op.getDpsInitOperand(0)->get();
  auto initType = cast<RankedTensorType>(init.getType());
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  // Loops of the partial op: the op's parallel loops d0..d(n-2), then the
  // reduction's blocks k (d(n-1)) and the lanes (d(n)).
  // An operand reading the reduction (as its last index, worthSplitting
  // says) is viewed as [..., K / ratio, ratio] and read at (k, lane).
  AffineExpr k = getAffineDimExpr(innermost, context), lane = getAffineDimExpr(loops, context);
  rewriter.setInsertionPoint(op);
  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  for (OpOperand* input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    SmallVector<AffineExpr> results(map.getResults().begin(), map.getResults().end());
    Value value = input->get();
    if (!results.empty() && results.back() == k) {
      auto type = cast<RankedTensorType>(value.getType());
      SmallVector<int64_t> shape(type.getShape().begin(), type.getShape().end());
      shape.back() = extent / ratio;
      shape.push_back(ratio);
      SmallVector<ReassociationIndices> groups;
      for (int64_t i = 0; i + 1 < type.getRank(); ++i) groups.push_back({i});
      groups.push_back({type.getRank() - 1, type.getRank()});
      value = rewriter.create<tensor::ExpandShapeOp>(loc, RankedTensorType::get(shape, type.getElementType()),
                                                     value, groups);
      results.push_back(lane);
    }
    inputs.push_back(value);
    maps.push_back(AffineMap::get(loops + 1, 0, results, context));
  }
  SmallVector<AffineExpr> partialResults(outMap.getResults().begin(), outMap.getResults().end());
  partialResults.push_back(lane);
  maps.push_back(AffineMap::get(loops + 1, 0, partialResults, context));
  // The partial buffer: the init's shape and `ratio` lanes.
  SmallVector<int64_t> shape(initType.getShape().begin(), initType.getShape().end());
  shape.push_back(ratio);
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < initType.getRank(); ++i)
    if (initType.isDynamicDim(i)) dynamicSizes.push_back(rewriter.create<tensor::DimOp>(loc, init, i));
  Value empty = rewriter.create<tensor::EmptyOp>(loc, shape, initType.getElementType(), dynamicSizes);
  Value identity = rewriter.create<arith::ConstantOp>(loc, *neutral);
  Value partialInit = rewriter.create<linalg::FillOp>(loc, identity, empty).getResult(0);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);
  auto partial = rewriter.create<linalg::GenericOp>(loc, TypeRange{partialInit.getType()}, inputs,
                                                    ValueRange{partialInit}, maps, iterators);
  rewriter.cloneRegionBefore(op.getRegion(), partial.getRegion(), partial.getRegion().begin());
  // The lanes reduced into the op's own init.
  unsigned outRank = initType.getRank();
  SmallVector<AffineExpr> all;
  for (unsigned i = 0; i <= outRank; ++i) all.push_back(getAffineDimExpr(i, context));
  AffineMap laneIn = AffineMap::get(outRank + 1, 0, all, context);
  AffineMap laneOut = AffineMap::get(outRank + 1, 0, ArrayRef(all).drop_back(), context);
  SmallVector<utils::IteratorType> laneIterators(outRank, utils::IteratorType::parallel);
  laneIterators.push_back(utils::IteratorType::reduction);
  Operation* combiner = combiners[0];
  auto lanes = rewriter.create<linalg::GenericOp>(
      loc, TypeRange{initType}, ValueRange{partial.getResult(0)}, ValueRange{init},
      ArrayRef<AffineMap>{laneIn, laneOut}, laneIterators, [&](OpBuilder& b, Location l, ValueRange args) {
        Operation* combined = b.clone(*combiner);
        combined->setOperands(ValueRange{args[0], args[1]});
        b.create<linalg::YieldOp>(l, combined->getResult(0));
      });
  rewriter.replaceOp(op, lanes.getResults());
  return success();
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
      if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic)) {
        // Only a reduction whose outputs follow the loops in order (the
        // partial's lane is then its last axis).
        AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
        bool leading = outMap.getNumResults() == op.getNumLoops() - 1;
        for (unsigned i = 0; leading && i < outMap.getNumResults(); ++i)
          leading = outMap.getResult(i) == getAffineDimExpr(i, op.getContext());
        if (leading) (void)splitDynamic(rewriter, op, ratio);
        continue;
      }
      (void)linalg::splitReduction(rewriter, op, control);
    }
  }
};

}  // namespace
}  // namespace linnet::codegen
