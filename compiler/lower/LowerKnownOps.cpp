// Known ops: a few `op`s of our standard library whose bodies are written
// for clarity, not speed, get a lowering of their own with exactly the
// body's meaning (the body stays the reference; test/parity and test/e2e
// compare both against Hugging Face and numpy). They show in --emit linnet.
//
//   std.nn.cache::write_at(cache, value, at)  the body selects over the
//       whole cache (every decode step would rewrite all of it); here it is
//       one `tensor.insert_slice` of the new position, under an `scf.if` that
//       keeps the cache as it is when `at` is outside 0..S, as the body does.
#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/lower/LowerImpl.h"

namespace linnet::lower {

Result Lowerer::lowerKnownOp(const ast::FunctionItem& f, const Frame& callee, Span at) {
  if (f.function != ast::FunctionKind::Op || !callee.module || callee.module->name != "std.nn.cache" ||
      f.name.name != "write_at" || callee.params.size() != 3 || notation_)
    return std::nullopt;
  const Val &cache = callee.params[0], &value = callee.params[1], &position = callee.params[2];
  if (cache.kind != Val::Kind::Tensor || value.kind != Val::Kind::Tensor || position.kind != Val::Kind::Tensor)
    return std::nullopt;
  auto cacheType = mlir::cast<mlir::RankedTensorType>(cache.value.getType());
  auto valueType = mlir::cast<mlir::RankedTensorType>(value.value.getType());
  if (cacheType.getRank() != 4 || valueType.getRank() != 4 ||
      mlir::cast<mlir::RankedTensorType>(position.value.getType()).getRank() != 0)
    return std::nullopt;
  mlir::Location l = loc(at);
  mlir::OpBuilder& b = builder_;
  mlir::Value p = b.create<mlir::tensor::ExtractOp>(l, position.value, mlir::ValueRange{});
  mlir::Value index = b.create<mlir::arith::IndexCastOp>(l, b.getIndexType(), p);
  mlir::Value zero = b.create<mlir::arith::ConstantIndexOp>(l, 0);
  mlir::Value length = b.create<mlir::tensor::DimOp>(l, cache.value, 2);
  mlir::Value notNegative = b.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::sge, index, zero);
  mlir::Value below = b.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::slt, index, length);
  mlir::Value inside = b.create<mlir::arith::AndIOp>(l, notNegative, below);
  auto op = b.create<mlir::scf::IfOp>(l, mlir::TypeRange{cacheType}, inside, /*withElseRegion=*/true);
  mlir::OpBuilder::InsertPoint after = b.saveInsertionPoint();
  for (mlir::Region* r : {&op.getThenRegion(), &op.getElseRegion()})
    if (r->empty()) b.createBlock(r);
  b.setInsertionPointToStart(&op.getThenRegion().front());
  llvm::SmallVector<mlir::OpFoldResult> offsets{b.getIndexAttr(0), b.getIndexAttr(0), index, b.getIndexAttr(0)};
  llvm::SmallVector<mlir::OpFoldResult> sizes = mlir::tensor::getMixedSizes(b, l, value.value);
  llvm::SmallVector<mlir::OpFoldResult> strides(4, b.getIndexAttr(1));
  mlir::Value written = b.create<mlir::tensor::InsertSliceOp>(l, value.value, cache.value, offsets, sizes, strides);
  b.create<mlir::scf::YieldOp>(l, written);
  b.setInsertionPointToStart(&op.getElseRegion().front());
  b.create<mlir::scf::YieldOp>(l, cache.value);
  b.restoreInsertionPoint(after);
  return Val::tensor(op.getResult(0), cache.type);
}

}  // namespace linnet::lower
