// The `linnet-contract-reductions` pass (Passes.td).
#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/Linalg/IR/Linalg.h>
#include <mlir/Dialect/SCF/IR/SCF.h>

#include <llvm/ADT/SmallPtrSet.h>

#include "compiler/codegen/Passes.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_CONTRACTREDUCTIONS
#include "compiler/codegen/Passes.h.inc"

using namespace mlir;

void allowContract(Operation* op) {
  auto fm = dyn_cast<arith::ArithFastMathInterface>(op);
  if (!fm) return;
  auto flags = fm.getFastMathFlagsAttr();
  auto now = flags ? flags.getValue() : arith::FastMathFlags::none;
  op->setAttr(fm.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(op->getContext(), now | arith::FastMathFlags::contract));
}

namespace {

// Marks a multiply found feeding a reduction's accumulation, so that the add
// it feeds once the reduction is unrolled is known as the reduction's. Not
// `contract` itself: the math expansions mark their own multiplies so, and an
// elementwise add of their result is no reduction.
constexpr llvm::StringLiteral kReductionProduct = "linnet.reduction_product";

// The adds and subtractions between `acc` and `next` (what the loop yields
// for it, perhaps through a select of masked lanes): every one whose
// operands lead back to `acc`, and the multiplies feeding them.
void markAccumulation(BlockArgument acc, Value next) {
  llvm::SmallPtrSet<Operation*, 8> seen;
  std::function<bool(Value)> reaches = [&](Value v) -> bool {
    if (v == acc) return true;
    Operation* op = v.getDefiningOp();
    if (!op || !isa<arith::AddFOp, arith::SubFOp, arith::SelectOp>(op) || !seen.insert(op).second) return false;
    bool found = false;
    for (Value operand : op->getOperands()) found |= reaches(operand);
    if (!found || isa<arith::SelectOp>(op)) return found;
    allowContract(op);
    for (Value operand : op->getOperands())
      if (auto mul = operand.getDefiningOp<arith::MulFOp>()) {
        allowContract(mul);
        mul->setAttr(kReductionProduct, UnitAttr::get(mul->getContext()));
      }
    return true;
  };
  reaches(next);
}

struct ContractReductionsPass : impl::ContractReductionsBase<ContractReductionsPass> {
  void runOnOperation() override {
    // A linalg reduction's combiner (the yield, an add of its accumulator).
    getOperation()->walk([](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() == 0 || !op.getBlock()) return;
      auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
      for (OpOperand& init : op.getDpsInitsMutable()) {
        unsigned k = init.getOperandNumber() - op.getNumDpsInputs();
        if (k < yield.getNumOperands() && isa<FloatType>(getElementTypeOrSelf(init.get().getType())))
          markAccumulation(op.getMatchingBlockArgument(&init), yield.getOperand(k));
      }
    });
    // A loop's accumulator: the product loops' own, and the vectorized
    // reductions' lanes carried by a loop.
    getOperation()->walk([](scf::ForOp loop) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [acc, next] : llvm::zip(loop.getRegionIterArgs(), yield.getOperands()))
        if (isa<FloatType>(getElementTypeOrSelf(acc.getType()))) markAccumulation(acc, next);
    });
    // A reduction's product once its combiner is lowered (a vector reduction
    // unrolled into adds): whatever adds a product marked above is its sum.
    getOperation()->walk([](Operation* op) {
      if (!isa<arith::AddFOp, arith::SubFOp>(op)) return;
      for (Value operand : op->getOperands())
        if (auto mul = operand.getDefiningOp<arith::MulFOp>(); mul && mul->hasAttr(kReductionProduct))
          allowContract(op);
    });
  }
};

}  // namespace
}  // namespace linnet::codegen
