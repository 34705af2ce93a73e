// The `linnet-linalg-to-parallel-loops` pass: linalg ops on buffers become
// `scf.for` nests, and a large op's leading parallel loops also become one
// `scf.parallel`, chosen at run time by an `scf.if` on the op's iteration
// count (Passes.td has the rule). Assumes upstream's `linalgOpToLoops`
// builds one perfectly nested `scf.for` per iteration dimension, outermost
// first, with every bound computed before the nest.
#include "compiler/codegen/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_LINALGTOPARALLELLOOPS
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

// How many of the leading loops may run in parallel: the leading parallel
// iterators, but not the innermost loop (the vectorizer's) unless the nest
// is a single loop. Zero when the nest is not the perfect nest expected.
size_t parallelDepth(linalg::LinalgOp op, MutableArrayRef<scf::ForOp> loops) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (loops.empty() || loops.size() != iterators.size()) return 0;
  size_t depth = 0;
  size_t limit = loops.size() == 1 ? 1 : loops.size() - 1;
  while (depth < limit && iterators[depth] == utils::IteratorType::parallel) ++depth;
  for (size_t i = 0; i + 1 < depth; ++i)
    if (loops[i].getBody()->getOperations().size() != 2 ||
        &loops[i].getBody()->front() != loops[i + 1].getOperation())
      return 0;
  for (scf::ForOp loop : loops)
    for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (!loops.front().isDefinedOutsideOfLoop(bound)) return 0;
  for (scf::ForOp loop : loops)
    if (loop.getNumRegionIterArgs() != 0) return 0;
  return depth;
}

// scf.if (points >= minWork && parallel points > 1) { scf.parallel over the
// first `depth` loops, the rest of the nest inside } else { the nest }.
void parallelize(RewriterBase& rewriter, MutableArrayRef<scf::ForOp> loops, size_t depth,
                 int64_t minWork) {
  scf::ForOp outer = loops.front();
  Location loc = outer.getLoc();
  rewriter.setInsertionPoint(outer);
  Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  Value points = one, parallelPoints = one;
  for (auto [i, loop] : llvm::enumerate(loops)) {
    Value span = rewriter.create<arith::SubIOp>(loc, loop.getUpperBound(), loop.getLowerBound());
    Value trips = rewriter.create<arith::CeilDivSIOp>(loc, span, loop.getStep());
    points = rewriter.create<arith::MulIOp>(loc, points, trips);
    if (i < depth) parallelPoints = rewriter.create<arith::MulIOp>(loc, parallelPoints, trips);
  }
  Value large = rewriter.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::sge, points,
      rewriter.create<arith::ConstantIndexOp>(loc, minWork));
  Value split = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, parallelPoints, one);
  Value condition = rewriter.create<arith::AndIOp>(loc, large, split);
  auto branch = rewriter.create<scf::IfOp>(loc, condition, /*withElseRegion=*/true);

  SmallVector<Value> lower, upper, steps;
  for (scf::ForOp loop : loops.take_front(depth)) {
    lower.push_back(loop.getLowerBound());
    upper.push_back(loop.getUpperBound());
    steps.push_back(loop.getStep());
  }
  rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
  auto parallel = rewriter.create<scf::ParallelOp>(loc, lower, upper, steps);
  IRMapping mapping;
  for (size_t i = 0; i < depth; ++i)
    mapping.map(loops[i].getInductionVar(), parallel.getInductionVars()[i]);
  rewriter.setInsertionPoint(parallel.getBody()->getTerminator());
  for (Operation& op : loops[depth - 1].getBody()->without_terminator())
    rewriter.clone(op, mapping);
  rewriter.moveOpBefore(outer, branch.elseBlock()->getTerminator());
}

struct LinalgToParallelLoopsPass : impl::LinalgToParallelLoopsBase<LinalgToParallelLoopsPass> {
  using LinalgToParallelLoopsBase::LinalgToParallelLoopsBase;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics()) ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> built = linalg::linalgOpToLoops(rewriter, op);
      if (failed(built)) {
        op.emitOpError("cannot be lowered to loops");
        return signalPassFailure();
      }
      SmallVector<scf::ForOp> loops;
      for (Operation* loop : *built)
        if (auto forOp = dyn_cast<scf::ForOp>(loop)) loops.push_back(forOp);
      size_t depth = loops.size() == built->size() ? parallelDepth(op, loops) : 0;
      rewriter.eraseOp(op);
      if (minWork > 0 && depth > 0) parallelize(rewriter, loops, depth, minWork);
    }
  }
};

}  // namespace
}  // namespace linnet::codegen
