// The `linnet-fuse-elementwise` pass: upstream's elementwise fusion of
// linalg ops on tensors, with a cost rule of ours (Passes.td): a producer is
// fused into a consumer only where each of its elements is computed once,
// or where recomputing it is a cast.
#include "compiler/codegen/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

// The producer's body is one conversion: recomputing it per use costs no
// more than loading its result would.
bool isCast(linalg::GenericOp producer) {
  auto body = producer.getBody()->without_terminator();
  if (std::distance(body.begin(), body.end()) != 1) return false;
  return isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
             arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp, arith::IndexCastOp,
             arith::BitcastOp>(*body.begin());
}

// Fusion clones both bodies into a new op, so growing one op along a chain
// of n elementwise ops would copy O(n^2) operations (a generated program's
// 4000 chained `let`s took 12 s to build). Past this many operations a body
// is not grown further: the chain is cut into ops of about this size, each
// still one pass over memory per few hundred operations.
constexpr size_t kMaxFusedBodyOps = 256;

size_t bodySize(Operation* op) {
  size_t n = 0;
  for (Region& region : op->getRegions()) region.walk([&](Operation*) { ++n; });
  return n;
}

bool worthFusing(OpOperand* fused) {
  Operation* producer = fused->get().getDefiningOp();
  if (!producer || !producer->hasOneUse()) return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!consumer || !generic) return true;
  if (bodySize(producer) + bodySize(consumer) > kMaxFusedBodyOps) return false;
  // Every loop of the consumer indexes the operand: each element of the
  // producer is still computed once. Otherwise it would be computed once
  // per point of the loops the operand does not depend on (a norm fused
  // into the matrix product after it: once per output feature).
  if (consumer.getMatchingIndexingMap(fused).isPermutation()) return true;
  return isCast(generic);
}

struct FuseElementwisePass : impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext* context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, worthFusing);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, [](OpOperand* fused) {
      Operation* producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    });
    linalg::populateConstantFoldLinalgOperations(patterns, [](OpOperand* fused) {
      Operation* producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse();
    });
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(patterns);
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    tensor::populateFoldTensorEmptyPatterns(patterns);
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

}  // namespace
}  // namespace linnet::codegen
