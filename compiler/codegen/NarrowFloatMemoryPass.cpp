// The `linnet-narrow-float-memory` pass: vector loads, stores (masked or
// not) and selects of bf16/f16 move their lanes as i16 (Passes.td says why).
#include "compiler/codegen/Passes.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_NARROWFLOATMEMORY
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

// The i16 vector of the same shape when `type` is a vector of 16-bit floats.
Type asIntegers(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !isa<BFloat16Type, Float16Type>(vector.getElementType())) return {};
  return vector.clone(IntegerType::get(type.getContext(), 16));
}

struct NarrowFloatMemoryPass : impl::NarrowFloatMemoryBase<NarrowFloatMemoryPass> {
  void runOnOperation() override {
    SmallVector<Operation*> ops;
    getOperation()->walk([&](Operation* op) {
      if (isa<LLVM::MaskedLoadOp, LLVM::MaskedStoreOp, LLVM::SelectOp, LLVM::LoadOp, LLVM::StoreOp>(op))
        ops.push_back(op);
    });
    OpBuilder b(&getContext());
    for (Operation* op : ops) {
      Location loc = op->getLoc();
      // A store (masked or not) stores the bits.
      OpOperand* stored = nullptr;
      if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) stored = &store.getValueMutable();
      if (auto store = dyn_cast<LLVM::StoreOp>(op)) stored = &store.getValueMutable();
      if (stored) {
        if (Type integers = asIntegers(stored->get().getType())) {
          b.setInsertionPoint(op);
          stored->set(b.create<LLVM::BitcastOp>(loc, integers, stored->get()));
        }
        continue;
      }
      if (auto plain = dyn_cast<LLVM::LoadOp>(op)) {
        Type floats = plain.getType();
        Type integers = asIntegers(floats);
        if (!integers) continue;
        b.setInsertionPointAfter(plain);
        Value result = b.create<LLVM::BitcastOp>(loc, floats, plain.getResult());
        plain.getResult().replaceAllUsesExcept(result, result.getDefiningOp());
        plain.getResult().setType(integers);
        continue;
      }
      if (auto select = dyn_cast<LLVM::SelectOp>(op)) {
        Type floats = select.getType();
        Type integers = asIntegers(floats);
        if (!integers) continue;
        b.setInsertionPoint(select);
        Value onTrue = b.create<LLVM::BitcastOp>(loc, integers, select.getTrueValue());
        Value onFalse = b.create<LLVM::BitcastOp>(loc, integers, select.getFalseValue());
        Value bits = b.create<LLVM::SelectOp>(loc, select.getCondition(), onTrue, onFalse);
        Value result = b.create<LLVM::BitcastOp>(loc, floats, bits);
        select.getResult().replaceAllUsesWith(result);
        select.erase();
        continue;
      }
      auto load = cast<LLVM::MaskedLoadOp>(op);
      Type floats = load.getRes().getType();
      Type integers = asIntegers(floats);
      if (!integers) continue;
      b.setInsertionPoint(load);
      SmallVector<Value> passThru;
      for (Value v : load.getPassThru()) passThru.push_back(b.create<LLVM::BitcastOp>(loc, integers, v));
      auto narrow = b.create<LLVM::MaskedLoadOp>(loc, integers, load.getData(), load.getMask(), passThru,
                                                 load.getAlignmentAttr());
      Value result = b.create<LLVM::BitcastOp>(loc, floats, narrow.getRes());
      load.getRes().replaceAllUsesWith(result);
      load.erase();
    }
  }
};

}  // namespace
}  // namespace linnet::codegen
