// The `linnet-round-narrow-float-arith` pass (Passes.td says why).
#include "compiler/codegen/Passes.h"
#include "compiler/codegen/FloatTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_ROUNDNARROWFLOATARITH
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

Type withF32(Type t) {
  Type f32 = Float32Type::get(t.getContext());
  if (auto shaped = dyn_cast<ShapedType>(t)) return shaped.clone(f32);
  return f32;
}

struct RoundNarrowFloatArithPass : impl::RoundNarrowFloatArithBase<RoundNarrowFloatArithPass> {
  void runOnOperation() override {
    SmallVector<Operation*> ops;
    getOperation()->walk([&](Operation* op) {
      if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::RemFOp, arith::MaximumFOp,
               arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp>(op))
        return;
      if (op->getNumResults() == 1 && isNarrowFloat(op->getResult(0).getType())) ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation* op : ops) {
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(rewriter.create<arith::ExtFOp>(loc, withF32(v.getType()), v));
      Type narrow = op->getResult(0).getType();
      OperationState state(loc, op->getName(), operands, {withF32(narrow)}, op->getAttrs());
      Operation* wide = rewriter.create(state);
      rewriter.replaceOp(op, rewriter.create<arith::TruncFOp>(loc, narrow, wide->getResult(0)).getResult());
    }
  }
};

}  // namespace

}  // namespace linnet::codegen
