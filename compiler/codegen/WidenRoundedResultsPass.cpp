// The `linnet-widen-rounded-results` pass (Passes.td).
#include "compiler/codegen/Passes.h"
#include "compiler/codegen/FloatTypes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_WIDENROUNDEDRESULTS
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

// The uses of `producer`'s result, when each is a generic's input whose
// element is only widened to f32 and one of them reads each element more
// than once (some loop of the consumer does not index it: a matrix
// product's activations); nothing otherwise. Where every element is read
// once, widening it in the producer saves nothing and doubles the bytes.
std::optional<SmallVector<OpOperand*>> widenedUses(linalg::GenericOp producer) {
  SmallVector<OpOperand*> uses;
  bool reread = false;
  for (OpOperand& use : producer->getResult(0).getUses()) {
    auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!consumer || !consumer.isDpsInput(&use)) return std::nullopt;
    for (Operation* user : consumer.getMatchingBlockArgument(&use).getUsers()) {
      auto ext = dyn_cast<arith::ExtFOp>(user);
      if (!ext || !ext.getType().isF32()) return std::nullopt;
    }
    AffineMap map = consumer.getMatchingIndexingMap(&use);
    for (unsigned d = 0; d < map.getNumDims(); ++d)
      if (!map.isFunctionOfDim(d)) reread = true;
    uses.push_back(&use);
  }
  if (uses.empty() || !reread) return std::nullopt;
  return uses;
}

void widen(RewriterBase& rewriter, linalg::GenericOp producer) {
  if (producer->getNumResults() != 1 || producer.getNumDpsInits() != 1 || !producer.hasPureTensorSemantics())
    return;
  auto type = dyn_cast<RankedTensorType>(producer->getResult(0).getType());
  if (!type || !isNarrowFloat(type.getElementType())) return;
  Block* body = producer.getBody();
  if (!body->getArguments().back().use_empty()) return;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  std::optional<SmallVector<OpOperand*>> uses = widenedUses(producer);
  if (!uses) return;

  Location loc = producer.getLoc();
  Type f32 = rewriter.getF32Type();
  rewriter.setInsertionPoint(producer);
  Value init = rewriter.create<tensor::EmptyOp>(
      loc, tensor::getMixedSizes(rewriter, loc, producer.getDpsInits()[0]), f32);
  auto wide = rewriter.create<linalg::GenericOp>(loc, TypeRange{type.clone(f32)}, producer.getDpsInputs(),
                                                 ValueRange{init}, producer.getIndexingMapsArray(),
                                                 producer.getIteratorTypesArray());
  rewriter.inlineRegionBefore(producer.getRegion(), wide.getRegion(), wide.getRegion().end());
  body->getArguments().back().setType(f32);
  rewriter.setInsertionPoint(yield);
  Value rounded = rewriter.create<arith::ExtFOp>(loc, f32, yield.getOperand(0));
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(0, rounded); });

  for (OpOperand* use : *uses) {
    auto consumer = cast<linalg::GenericOp>(use->getOwner());
    BlockArgument element = consumer.getMatchingBlockArgument(use);
    rewriter.modifyOpInPlace(consumer, [&] {
      use->set(wide->getResult(0));
      element.setType(f32);
    });
    for (Operation* user : llvm::make_early_inc_range(element.getUsers())) rewriter.replaceOp(user, element);
  }
  rewriter.eraseOp(producer);
}

struct WidenRoundedResultsPass : impl::WidenRoundedResultsBase<WidenRoundedResultsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) widen(rewriter, op);
  }
};

}  // namespace
}  // namespace linnet::codegen
