// The `linnet-select-buffers` pass: `arith.select` between memrefs becomes
// an `scf.if` yielding one (Passes.td says why).
#include "compiler/codegen/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_SELECTBUFFERS
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

struct SelectBuffersPass : impl::SelectBuffersBase<SelectBuffersPass> {
  void runOnOperation() override {
    SmallVector<arith::SelectOp> selects;
    getOperation()->walk([&](arith::SelectOp op) {
      if (isa<BaseMemRefType>(op.getType())) selects.push_back(op);
    });
    for (arith::SelectOp op : selects) {
      OpBuilder b(op);
      auto choice = b.create<scf::IfOp>(
          op.getLoc(), op.getCondition(),
          [&](OpBuilder& then, Location loc) { then.create<scf::YieldOp>(loc, op.getTrueValue()); },
          [&](OpBuilder& otherwise, Location loc) { otherwise.create<scf::YieldOp>(loc, op.getFalseValue()); });
      op.getResult().replaceAllUsesWith(choice.getResult(0));
      op.erase();
    }
  }
};

}  // namespace

}  // namespace linnet::codegen
