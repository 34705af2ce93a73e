// The loop and memory helpers shared by the product strategies of
// `linnet-linalg-to-parallel-loops` (PackedProducts.cpp, OuterProducts.cpp).
#include "compiler/codegen/ParallelLoops.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace linnet::codegen {

using namespace mlir;

namespace products {

bool unitInnerStride(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return type && type.getRank() > 0 && succeeded(getStridesAndOffset(type, strides, offset)) && strides.back() == 1;
}

SmallVector<Value> subscripts(linalg::LinalgOp op, OpOperand* operand, ArrayRef<Value> at) {
  SmallVector<Value> indices;
  for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults())
    indices.push_back(at[cast<AffineDimExpr>(e).getPosition()]);
  return indices;
}

Value constant(OpBuilder& b, Location loc, int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }

SmallVector<Value> rowMasks(OpBuilder& b, Location loc, Value panel, Value rows, int64_t vectors, int64_t lanes) {
  SmallVector<Value> masks;
  for (int64_t j = 0; j < vectors; ++j) {
    Value start = b.create<arith::AddIOp>(loc, panel, constant(b, loc, lanes * j));
    Value left = b.create<arith::SubIOp>(loc, rows, start);
    left = b.create<arith::MaxSIOp>(loc, b.create<arith::MinSIOp>(loc, left, constant(b, loc, lanes)),
                                    constant(b, loc, 0));
    masks.push_back(b.create<vector::CreateMaskOp>(loc, VectorType::get({lanes}, b.getI1Type()), left));
  }
  return masks;
}

Value loadRows(OpBuilder& b, Location loc, VectorType type, Value memref, ValueRange index, Value mask) {
  if (!mask) return b.create<vector::LoadOp>(loc, type, memref, index);
  Value zeros = b.create<arith::ConstantOp>(loc, b.getZeroAttr(type));
  return b.create<vector::MaskedLoadOp>(loc, type, memref, index, mask, zeros);
}

void storeRows(OpBuilder& b, Location loc, Value value, Value memref, ValueRange index, Value mask) {
  if (!mask) b.create<vector::StoreOp>(loc, value, memref, index);
  else b.create<vector::MaskedStoreOp>(loc, memref, index, mask, value);
}

void forTokenBlocks(OpBuilder& b, Location loc, Value count, ArrayRef<int64_t> blockTokens,
                    function_ref<void(int64_t tokens, Value first)> body) {
  Value start = constant(b, loc, 0);
  for (int64_t tokens : blockTokens) {
    Value step = constant(b, loc, tokens);
    Value left = b.create<arith::SubIOp>(loc, count, start);
    Value end = tokens == 1 ? count
                            : b.create<arith::AddIOp>(
                                  loc, start, b.create<arith::MulIOp>(loc, b.create<arith::DivUIOp>(loc, left, step), step));
    auto blocks = b.create<scf::ForOp>(loc, start, end, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(blocks.getBody());
    body(tokens, blocks.getInductionVar());
    b.setInsertionPointAfter(blocks);
    start = end;
  }
}

}  // namespace products

}  // namespace linnet::codegen
